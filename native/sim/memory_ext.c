/*
 * aiocann simulator: the allocation variants (aclrtMallocAlign32, aclrtMallocCached,
 * aclrtMallocWithCfg, aclrtMallocForTaskScheduler, aclrtMallocHostWithCfg), cache maintenance
 * (aclrtMemFlush, aclrtMemInvalidate), pointer attributes and 2-D copies, on top of memory.c's
 * device memory, pinned memory and copy engine.
 *
 * Sources: src/acl/aclrt_impl/memory.cpp (the ACL-layer checks, the 32-byte rounding and the
 * 32-byte padding of aclrtMalloc/aclrtMallocCached that aclrtMallocAlign32 and the *WithCfg
 * calls do not add), src/runtime/api/impl/api_impl.cc (ApiImpl::DevMalloc, ParseMallocCfg,
 * HostMallocWithCfg), api_error.cc (MemCopy2DCheckParam, MemCopy2DSync, MemCopy2DAsync) and
 * src/runtime/driver/npu_driver_mem.cc (NpuDriver::PtrGetAttributes).
 *
 * Locking: none of its own; memory.c's locks are taken by the helpers it calls.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

/* ------------------------------------------------------------------ allocation ----------- */

static aclError current_device(const char *func, sim_device **out)
{
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *out = c->dev;
    sim_obj_put(&c->obj);
    return ACL_SUCCESS;
}

static aclError alloc_on_current(void **devPtr, size_t size, bool padded, const char *func)
{
    SIM_CHECK_NOT_NULL(devPtr);
    if (size == 0)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    sim_device *d;
    aclError rc = current_device(func, &d);
    return rc ? rc : sim_dev_alloc(d, size, padded, devPtr);
}

/* 32-byte aligned size, no extra padding: what aligned kernels that read in 32-byte units
 * need, without paying the 32 bytes aclrtMalloc adds. */
SIM_API aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    SIM_CHECK_PROCESS();
    (void)policy; /* the simulator has one page size: every policy is satisfied */
    return alloc_on_current(devPtr, size, false, __func__);
}

/* Device memory the host may cache. The simulated device and host share one coherent memory,
 * so it is ordinary device memory (same rounding as aclrtMalloc), and flush and invalidate
 * below only validate their range. */
SIM_API aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    SIM_CHECK_PROCESS();
    (void)policy;
    return alloc_on_current(devPtr, size, true, __func__);
}

/* cfg: NULL, or attributes of which MODULE_ID (a tag) and DEVICE_ID (which must be the current
 * device) are meaningful and RSV is ignored; anything else is 107000 (ParseMallocCfg). */
static aclError malloc_with_cfg(void **devPtr, size_t size, aclrtMallocConfig *cfg, const char *func)
{
    SIM_CHECK_NOT_NULL(devPtr);
    if (cfg && cfg->numAttrs && !cfg->attrs)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "cfg->attrs must not be NULL when cfg->numAttrs is %zu",
                         cfg->numAttrs);
    if (size == 0)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    if (cfg && !cfg->attrs)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "cfg->attrs must not be NULL");
    sim_device *d;
    aclError rc = current_device(func, &d);
    if (rc)
        return rc;
    for (size_t i = 0; cfg && i < cfg->numAttrs; i++) {
        const aclrtMallocAttribute *a = &cfg->attrs[i];
        switch (a->attr) {
        case ACL_RT_MEM_ATTR_RSV:
        case ACL_RT_MEM_ATTR_MODULE_ID:
            break;
        case ACL_RT_MEM_ATTR_DEVICE_ID:
            if (a->value.deviceId != (uint32_t)d->id)
                return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                                 "cfg attribute %zu asks for device %u but the current device is %d", i,
                                 a->value.deviceId, d->id);
            break;
        default:
            return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "cfg attribute %zu: type %d is not allowed here ([0, 2])",
                             i, (int)a->attr);
        }
    }
    return sim_dev_alloc(d, size, false, devPtr);
}

SIM_API aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy, aclrtMallocConfig *cfg)
{
    SIM_CHECK_PROCESS();
    (void)policy;
    return malloc_with_cfg(devPtr, size, cfg, __func__);
}

/* Memory the task scheduler can address (within its 4 GiB window on the device). Every
 * simulated allocation is reachable by the simulated scheduler, so it is a plain allocation. */
SIM_API aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                             aclrtMallocConfig *cfg)
{
    SIM_CHECK_PROCESS();
    (void)policy;
    return malloc_with_cfg(devPtr, size, cfg, __func__);
}

/* Pinned host memory with attributes: MODULE_ID and VA_FLAG are accepted, anything else is
 * 107000 (GetMallocHostConfigAttr); a current context is needed. The memory is the same as
 * aclrtMallocHost's and is released with aclrtFreeHost. */
SIM_API aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(ptr);
    if (size == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    if (cfg && !cfg->attrs)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "cfg->attrs must not be NULL");
    for (size_t i = 0; cfg && i < cfg->numAttrs; i++)
        if (cfg->attrs[i].attr != ACL_RT_MEM_ATTR_MODULE_ID && cfg->attrs[i].attr != ACL_RT_MEM_ATTR_VA_FLAG)
            return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                            "cfg attribute %zu: type %d is not allowed for host memory (MODULE_ID or VA_FLAG)", i,
                            (int)cfg->attrs[i].attr);
    sim_device *d;
    aclError rc = current_device(__func__, &d);
    if (rc)
        return rc;
    return aclrtMallocHost(ptr, (size_t)size);
}

/* ------------------------------------------------------------------ cache maintenance ---- */

/* Host and device share one coherent memory, so there is nothing to write back or drop; what
 * remains is the check the driver makes, that the range is device memory. */
static aclError cache_op(void *devPtr, size_t size, const char *func)
{
    SIM_CHECK_NOT_NULL(devPtr);
    if (size == 0)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    SIM_REQUIRE_INIT();
    if (!sim_device_range(devPtr, size, NULL))
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) is not inside one device allocation", devPtr,
                         size);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtMemFlush(void *devPtr, size_t size)
{
    SIM_CHECK_PROCESS();
    return cache_op(devPtr, size, __func__);
}

SIM_API aclError aclrtMemInvalidate(void *devPtr, size_t size)
{
    SIM_CHECK_PROCESS();
    return cache_op(devPtr, size, __func__);
}

/* ------------------------------------------------------------------ pointer attributes --- */

/* Device memory: DEVICE with its device id; memory from aclrtMallocHost or registered: HOST;
 * any other host memory: UNREGISTERED (NpuDriver::PtrGetAttributes). An address in a device's range but in no
 * allocation (freed, say) is an error. Pages are the host's, the simulator's only page size. */
SIM_API aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(ptr);
    SIM_CHECK_NOT_NULL(attributes);
    SIM_REQUIRE_INIT();
    memset(attributes, 0, sizeof *attributes);
    int dev = -1;
    switch (sim_where_is(ptr, 1, &dev)) {
    case SIM_WHERE_DEVICE: /* aclrtMalloc, mapped virtual memory, IPC imports */
        attributes->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        attributes->location.id = (uint32_t)dev;
        break;
    case SIM_WHERE_INVALID:
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is in device memory but not inside a live allocation", ptr);
    case SIM_WHERE_HOST: /* aclrtMallocHost, registered host memory */
        attributes->location.type = ACL_MEM_LOCATION_TYPE_HOST;
        break;
    default:
        attributes->location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
        break;
    }
    attributes->pageSize = (uint32_t)sysconf(_SC_PAGESIZE);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ 2-D copies ----------- */

#define MAX_2D_HEIGHT 5242880ull /* RT_MAX_MEMCPY2D_HEIGHT */
#define MAX_2D_WIDTH 5000000ull  /* RT_MAX_MEMCPY2D_WIDTH */

typedef struct plan_2d {
    int device;    /* engine that runs it: the device side's (dst's when both are) */
    bool pageable; /* a host side is not pinned: an async copy completes before returning */
} plan_2d;

/* Bytes a 2-D region spans: its last row starts (height-1) pitches in. */
static bool extent_2d(size_t pitch, size_t width, size_t height, size_t *out)
{
    if (pitch && height - 1 > (SIZE_MAX - width) / pitch)
        return false;
    *out = pitch * (height - 1) + width;
    return true;
}

/* The checks of aclrtMemcpy2d[Async] after the zero-size shortcut: ACL's (kind, width vs
 * pitches: 100000), the runtime's (limits: 107000), then the locations, which decide the
 * direction as the runtime's kind correction does. */
static aclError plan_copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                             aclrtMemcpyKind kind, bool async, const char *func, plan_2d *plan)
{
    if (width > spitch || width > dpitch)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "width %zu must not exceed spitch %zu and dpitch %zu", width,
                         spitch, dpitch);
    if (kind != ACL_MEMCPY_HOST_TO_DEVICE && kind != ACL_MEMCPY_DEVICE_TO_HOST && kind != ACL_MEMCPY_DEVICE_TO_DEVICE &&
        kind != ACL_MEMCPY_DEFAULT)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM,
                         "kind %d: 2-D copies are HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE or DEFAULT", (int)kind);
    if (height > MAX_2D_HEIGHT)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "height %zu exceeds %llu", height, MAX_2D_HEIGHT);
    if (width > MAX_2D_WIDTH)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "width %zu exceeds %llu", width, MAX_2D_WIDTH);
    if (!async && kind == ACL_MEMCPY_DEVICE_TO_DEVICE)
        return sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "aclrtMemcpy2d copies host to device or device to host only (use aclrtMemcpy2dAsync)");
    size_t dlen, slen;
    if (!extent_2d(dpitch, width, height, &dlen) || !extent_2d(spitch, width, height, &slen))
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "the 2-D region overflows the address space");
    int ddev = -1, sdev = -1;
    bool dst_dev = sim_device_range(dst, dlen, &ddev), src_dev = sim_device_range(src, slen, &sdev);
    if (!dst_dev && sim_in_device_space(dst))
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "dst region [%p, +%zu) is not inside one device allocation",
                         dst, dlen);
    if (!src_dev && sim_in_device_space(src))
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "src region [%p, +%zu) is not inside one device allocation",
                         src, slen);
    if (!dst_dev && !src_dev)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "2-D copies need device memory on one side (both are host)");
    if (!async && dst_dev && src_dev)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                         "aclrtMemcpy2d copies host to device or device to host only (both sides are device memory)");
    if (!dst_dev && !sim_host_writable(dst, dlen))
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "dst region [%p, +%zu) is not writable host memory", dst,
                         dlen);
    if (!src_dev && !sim_host_mapped(src, slen))
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "src region [%p, +%zu) is not readable host memory", src,
                         slen);
    plan->device = dst_dev ? ddev : sdev;
    plan->pageable = (!dst_dev && !sim_pinned_range(dst, dlen)) || (!src_dev && !sim_pinned_range(src, slen));
    return ACL_SUCCESS;
}

SIM_API aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                               aclrtMemcpyKind kind)
{
    SIM_CHECK_PROCESS();
    if (width == 0 || height == 0) /* nothing to copy: ACL returns before any other check */
        return ACL_SUCCESS;
    SIM_CHECK_NOT_NULL(dst);
    SIM_CHECK_NOT_NULL(src);
    sim_device *cur;
    aclError rc = current_device(__func__, &cur);
    if (rc)
        return rc;
    plan_2d plan;
    if ((rc = plan_copy_2d(dst, dpitch, src, spitch, width, height, kind, false, __func__, &plan)))
        return rc;
    if ((rc = sim_capture_check_sync_call(__func__))) /* ApiImpl::MemCopy2DSync: capture modes */
        return rc;
    char msg[512];
    rc = sim_copy_execute_2d(plan.device, dst, dpitch, src, spitch, width, height, msg, sizeof msg);
    if (rc)
        sim_error_message(__func__, msg);
    return rc;
}

/* One copy task on the stream; from pageable host memory it completes before the call
 * returns, as aclrtMemcpyAsync's does. */
SIM_API aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                    size_t height, aclrtMemcpyKind kind, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    if (width == 0 || height == 0)
        return ACL_SUCCESS;
    SIM_CHECK_NOT_NULL(dst);
    SIM_CHECK_NOT_NULL(src);
    aclError rc;
    sim_stream *s = sim_stream_for_work(stream, __func__, &rc);
    if (!s)
        return rc;
    plan_2d plan;
    /* A pageable 2-D copy cannot be captured, and may become a forbidden synchronous one
     * (ApiErrorDecorator::MemCopy2DAsync; capture.c). */
    if ((rc = plan_copy_2d(dst, dpitch, src, spitch, width, height, kind, true, __func__, &plan)) ||
        (plan.pageable && (rc = sim_capture_pageable_copy(s, __func__)))) {
        sim_obj_put(&s->obj);
        return rc;
    }
    sim_task *t = sim_task_new(&sim_task_memcpy);
    if (!t) {
        sim_obj_put(&s->obj);
        return sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    t->u.copy.dst = dst;
    t->u.copy.src = src;
    t->u.copy.count = width * height;
    t->u.copy.device = plan.device;
    t->u.copy.width = width;
    t->u.copy.height = height;
    t->u.copy.dpitch = dpitch;
    t->u.copy.spitch = spitch;
    uint64_t seq;
    rc = sim_stream_submit(s, t, __func__, &seq);
    if (!rc && plan.pageable) {
        sim_stream_wait_seq(s, seq, -1);
        rc = sim_stream_take_error(s, __func__);
    }
    sim_obj_put(&s->obj);
    return rc;
}
