/*
 * aiocann simulator: aclrtCmoAsync -- cache maintenance of device memory (prefetch, write
 * back, invalidate, flush) as a task of the stream.
 *
 * Sources: src/acl/aclrt_impl/memory.cpp (aclrtCmoAsyncImpl: src NULL, size 0; the type is
 * moved into the runtime's range, ACL_RT_CMO_TYPE_PREFETCH -> RT_CMO_PREFETCH),
 * src/runtime/api/api_c_standard_soc.cc (rtCmoAsync: a type outside prefetch, write back,
 * invalidate and flush is 207000; the length goes into the task as 32 bits; rtCmoTaskLaunch:
 * the stream handle), src/runtime/config/910_B_93/dev_info_reg.cc (RT_FEATURE_TASK_CMO on
 * Atlas A2), docs/zh/api_ref/11-06_CMO_memory_operation.md.
 *
 * The simulated device and the host share one coherent memory, so there is no cache to
 * maintain: the task keeps its place in the stream's order and checks, when it runs, that its
 * range is device memory -- a range that is not (freed meanwhile, say) fails the task with
 * 507013, as a DMA fault does (simulator choice: the sources do not say what a cache operation
 * on an unmapped range reports).
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "sim.h"

static aclError run(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    const void *p = (const void *)(uintptr_t)sim_op_arg(t, 0);
    size_t len = (size_t)sim_op_arg(t, 1);
    int dev = -1;
    if (len == 0 || (sim_device_range(p, len, &dev) && dev == s->dev->id))
        return ACL_SUCCESS;
    snprintf(msg, msglen, "cache maintenance of [%p, +%zu): not device memory of device %d", p, len, s->dev->id);
    return ACL_ERROR_RT_SYS_DMA;
}

static const sim_task_ops k_cmo = {.run = run};

SIM_API aclError aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(src);
    if (size == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    if ((unsigned)cmoType > ACL_RT_CMO_TYPE_FLUSH)
        return sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        "cmoType %d is not supported (prefetch, write back, invalid, flush: 0-3)", (int)cmoType);
    aclError rc = sim_op_stream_valid(stream, __func__);
    if (rc)
        return rc;
    sim_stream *s = sim_stream_for_work(stream, __func__, &rc);
    if (!s)
        return rc;
    const uint64_t a[3] = {(uint64_t)(uintptr_t)src, (uint32_t)size /* taskInfo.lengthInner */, (uint64_t)cmoType};
    rc = sim_op_submit(s, &k_cmo, a, 3, __func__);
    sim_obj_put(&s->obj);
    return rc;
}
