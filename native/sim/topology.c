/*
 * aiocann simulator: the link between two devices (aclrtGetDevicesTopo).
 *
 * The real call (src/acl/aclrt_impl/device.cpp aclrtGetDevicesTopoImpl; src/runtime/api/
 * api_c_device.cc rtsGetPairDevicesInfo; src/runtime/api/impl/api_error.cc and api_impl.cc
 * GetPairDevicesInfo) asks the driver for the pair's topology type t and returns 1 << t, i.e.
 * one of the ACL_RT_DEVS_TOPOLOGY_* bits; a device paired with itself over an HCCS switch
 * reads HCCS. NULL value is 100000; a device id that is not one of the process's devices is
 * 107001 (ChgUserDevIdToDeviceId).
 *
 * The simulated machine is one Atlas A2 server whose NPUs are all connected to each other by
 * HCCS (as the eight NPUs of an Atlas 800T A2 are), so every pair -- a device with itself too
 * -- reads ACL_RT_DEVS_TOPOLOGY_HCCS (simulator choice: one server, however many devices
 * AIOCANN_SIM_DEVICES configures).
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "sim.h"

#define TOPOLOGY_HCCS 0 /* the driver's type; ACL_RT_DEVS_TOPOLOGY_HCCS == 1 << 0 */

SIM_API aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(value);
    aclError rc = ACL_SUCCESS;
    if (!sim_device_arg(deviceId > INT32_MAX ? -1 : (int32_t)deviceId, __func__, &rc) ||
        !sim_device_arg(otherDeviceId > INT32_MAX ? -1 : (int32_t)otherDeviceId, __func__, &rc))
        return rc;
    *value = 1ull << TOPOLOGY_HCCS;
    return ACL_SUCCESS;
}
