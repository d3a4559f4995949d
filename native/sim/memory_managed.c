/*
 * aiocann simulator: managed memory and the V2 shareable handles (issue 23) --
 * aclrtMemAllocManaged, aclrtMemSetAccess, aclrtMemExportToShareableHandleV2,
 * aclrtMemImportFromShareableHandleV2.
 *
 * Sources (hicann/runtime): src/acl/aclrt_impl/memory.cpp (aclrtMemAllocManagedImpl: a NULL
 * ptr is 100000, flag must be ACL_RT_MEM_ATTACH_GLOBAL (100000); V2 export: NULL handle or
 * output 100000; V2 import: NULL input or output 100000, flags reserved 0 (100000), the current
 * device, rtsGetDevice, else 107002), src/runtime/api/impl/api_error.cc (ManagedMemAlloc: size
 * 0 is 107000; ExportToShareableHandleV2: the share type DEFAULT or FABRIC, flags at most
 * DISABLE_PID_VALIDATION (107000); ImportFromShareableHandleV2: NULLs 107000).
 *
 * Managed (unified) memory is memory both the host and the device use at the same address. The
 * simulated device's memory is host memory, so device memory of the current device already is
 * that: aclrtMemAllocManaged allocates it as aclrtMalloc does (same accounting, same guard
 * gaps), and aclrtFree frees it. A DEFAULT shareable handle is the 64-bit handle of
 * aclrtMemExportToShareableHandle (vmm.c; handle type NONE, the one it takes), written to / read from *(uint64_t *)shareableHandle;
 * a FABRIC handle shares memory between servers, which the simulated machine is not part of:
 * 207000. aclrtMemSetAccess changes which devices may reach a mapped virtual range: the
 * simulated devices reach each other's memory always (vmm.c), so after the checks of the real
 * call (a mapped range of the reservation, each descriptor a device location with a known
 * flag) it changes nothing -- a simulator choice.
 */
#define _GNU_SOURCE
#include <string.h>

#include "sim.h"

SIM_API aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(ptr);
    if (flag != ACL_RT_MEM_ATTACH_GLOBAL)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "flag %u must be ACL_RT_MEM_ATTACH_GLOBAL (%u)", flag,
                        ACL_RT_MEM_ATTACH_GLOBAL);
    if (size == 0)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "size must not be 0");
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    aclError rc = size > SIZE_MAX ? sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "size %llu is too large",
                                             (unsigned long long)size)
                                  : sim_dev_alloc(c->dev, (size_t)size, true, ptr);
    sim_obj_put(&c->obj);
    return rc;
}

SIM_API aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(virPtr);
    SIM_CHECK_NOT_NULL(desc);
    if (size == 0 || count == 0)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "%s must not be 0", size == 0 ? "size" : "count");
    SIM_REQUIRE_INIT();
    for (size_t i = 0; i < count; i++) {
        if (desc[i].flags != ACL_RT_MEM_ACCESS_FLAGS_NONE && desc[i].flags != ACL_RT_MEM_ACCESS_FLAGS_READ &&
            desc[i].flags != ACL_RT_MEM_ACCESS_FLAGS_READWRITE)
            return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "desc[%zu].flags %d is not an aclrtMemAccessFlags", i,
                            (int)desc[i].flags);
        if (desc[i].location.type != ACL_MEM_LOCATION_TYPE_DEVICE || !sim_device_of((int32_t)desc[i].location.id))
            return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "desc[%zu].location is not a device of this process", i);
    }
    int dev = -1;
    if (sim_where_is(virPtr, size, &dev) != SIM_WHERE_DEVICE)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) is not mapped memory", virPtr, size);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
                                                   aclrtMemSharedHandleType shareType, void *shareableHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(handle);
    SIM_CHECK_NOT_NULL(shareableHandle);
    if (shareType != ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT && shareType != ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "shareType %d must be DEFAULT or FABRIC", (int)shareType);
    if (flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "flags %llu must be in [0, 1]", (unsigned long long)flags);
    if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
        return sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        "fabric handles share memory between servers; the simulated machine is a single server");
    return aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, flags, (uint64_t *)shareableHandle);
}

SIM_API aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType,
                                                     uint64_t flags, aclrtDrvMemHandle *handle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(shareableHandle);
    SIM_CHECK_NOT_NULL(handle);
    if (flags != 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "flags is reserved and must be 0");
    int32_t dev = 0;
    aclError rc = aclrtGetDevice(&dev);
    if (rc)
        return rc;
    if (shareType != ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT && shareType != ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "shareType %d must be DEFAULT or FABRIC", (int)shareType);
    if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
        return sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        "fabric handles share memory between servers; the simulated machine is a single server");
    uint64_t h;
    memcpy(&h, shareableHandle, sizeof h);
    return aclrtMemImportFromShareableHandle(h, dev, handle);
}
