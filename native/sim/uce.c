/*
 * aiocann simulator: memory uncorrectable errors (UCE) -- aclrtGetMemUceInfo and
 * aclrtMemUceRepair.
 *
 * After a device reports a multi-bit ECC error, a program asks which device addresses were
 * hit (the driver's record, kept by the runtime until repaired) and has the driver repair
 * them. The simulated device's memory is the host's and never has an uncorrectable error, so
 * its record is always empty: the query returns no address, and a repair names addresses that
 * have no error to repair, which the simulated driver refuses (107000; the real driver's code
 * for that is not in the open sources). Every check before the driver is the real one.
 *
 * Sources: src/acl/aclrt_impl/event.cpp (aclrtGetMemUceInfoImpl: NULLs, arraySize against the
 * count, at most RT_MAX_RECORD_PA_NUM_PER_DEV addresses; aclrtMemUceRepairImpl: NULL, arraySize
 * <= 20, the reserved words -- of which memcmp compares the first UCE_INFO_RESERVED_SIZE
 * bytes, not words), src/runtime/api/impl/api_error.cc (GetMemUceInfo, MemUceRepair: the
 * device id, 107001), api_impl.cc (a current context on that device, 107002).
 */
#define _GNU_SOURCE
#include <string.h>

#include "sim.h"

#define MAX_RECORD 20u /* RT_MAX_RECORD_PA_NUM_PER_DEV */

/* The runtime's checks: the device exists (107001) and is the current context's (107002). */
static aclError device_checks(int32_t deviceId, const char *func)
{
    SIM_REQUIRE_INIT();
    if (!sim_device_of(deviceId))
        return sim_fail_(func, ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int cur = c->dev->id;
    sim_obj_put(&c->obj);
    if (cur != deviceId)
        return sim_fail_(func, ACL_ERROR_RT_CONTEXT_NULL, "the current context is on device %d, not on device %d", cur,
                         deviceId);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize,
                                    size_t *retSize)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(memUceInfoArray);
    SIM_CHECK_NOT_NULL(retSize);
    aclError rc = device_checks(deviceId, __func__);
    if (rc)
        return rc;
    (void)arraySize; /* holds the record's count, which is 0 */
    *retSize = 0;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtMemUceRepair(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(memUceInfoArray);
    if (arraySize > MAX_RECORD)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "arraySize %zu must be less than or equal to %u", arraySize, MAX_RECORD);
    static const size_t zero[14];
    for (size_t i = 0; i < arraySize; i++)
        if (memcmp(memUceInfoArray[i].reserved, zero, 14)) /* the bytes aclrtMemUceRepairImpl compares */
            return sim_fail(ACL_ERROR_INVALID_PARAM, "memUceInfoArray[%zu].reserved is reserved and must be 0", i);
    aclError rc = device_checks(deviceId, __func__);
    if (rc)
        return rc;
    if (arraySize > 0)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "[%p, +%zu) has no uncorrectable error to repair (the device's error record is empty)",
                        memUceInfoArray[0].addr, memUceInfoArray[0].len);
    return ACL_SUCCESS;
}
