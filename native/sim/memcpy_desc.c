/*
 * aiocann simulator: copies described in device memory -- aclrtGetMemcpyDescSize,
 * aclrtSetMemcpyDesc, aclrtMemcpyAsyncWithDesc -- and aclrtMemcpyAsyncWithCondition.
 *
 * A memcpy descriptor is 32 bytes of device memory (MEMCPY_DESC_SIZE_V1 on Atlas A2) holding
 * the runtime's rtMemcpyAddrInfo: three reserved words, the length (32 bits), the source and
 * the destination (64 bits each). aclrtSetMemcpyDesc writes it with a synchronous
 * host-to-device copy (Context::SetMemcpyDesc); aclrtMemcpyAsyncWithDesc enqueues a copy whose
 * engine reads the descriptor when the copy runs (the SQE's pointer mode), so whatever is in
 * the descriptor then -- written by the host, a kernel, or a copy queued before -- is what is
 * copied, and a captured copy reads it again at each replay. Only copies inside one device
 * (ACL_MEMCPY_INNER_DEVICE_TO_DEVICE) have descriptors.
 *
 * Sources: src/acl/aclrt_impl/memory.cpp (aclrtGetMemcpyDescSizeImpl, aclrtSetMemcpyDescImpl,
 * aclrtMemcpyAsyncWithDescImpl: NULLs, kind < RT_MEMCPY_KIND_MAX, count > 0, config NULL,
 * stream not NULL; aclrtMemcpyAsyncWithConditionImpl), src/runtime/api/api_c_memory.cc
 * (rtsGetMemcpyDescSize: INNER_DEVICE_TO_DEVICE only, else 207000; rtsMemcpyAsyncWithDesc:
 * the stream handle), src/runtime/api/impl/api_error.cc (SetMemcpyDesc: kind, count <= 4 GiB,
 * desc 64-byte aligned, desc, src and dst device memory and src and dst on one device;
 * MemcpyAsyncWithDesc and MemcpyAsyncPtr: kind, desc device memory, 64-byte aligned),
 * core/src/context/context.cc (SetMemcpyDesc), pkg_inc/runtime/runtime/mem.h
 * (rtMemcpyAddrInfo), core/inc/device/device_properties.h (MEMCPY_DESC_SIZE_V1 = 32).
 *
 * When the copy runs, a descriptor whose source and destination are not device memory of the
 * stream's device fails the task with 507013 (simulator choice: the DMA engine would fault on
 * them; the sources check the addresses only when the descriptor is set).
 *
 * aclrtMemcpyAsyncWithCondition is aclrtMemcpyAsync with the runtime asked to check for
 * page-locked memory (RT_MEMCPY_ATTRIBUTE_CHECK, CHECK_MEMORY_PINNED): on a runtime that can
 * tell pageable memory, which the simulator is, that is aclrtMemcpyAsync's own behaviour.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "sim.h"

#define DESC_SIZE 32u                       /* MEMCPY_DESC_SIZE_V1 */
#define KIND_MAX 8u                         /* RT_MEMCPY_KIND_MAX */
#define MAX_D2D ((uint64_t)4 << 30)         /* MAX_MEMCPY_SIZE_OF_D2D */

typedef struct memcpy_addr_info { /* rtMemcpyAddrInfo */
    uint32_t resv0, resv1, resv2;
    uint32_t len;
    uint64_t src, dst;
} memcpy_addr_info;

_Static_assert(sizeof(memcpy_addr_info) == DESC_SIZE, "the descriptor is 32 bytes");

SIM_API aclError aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(descSize);
    if ((uint32_t)kind >= KIND_MAX)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "kind %d is not a memcpy kind ([0, 8))", (int)kind);
    if (kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE)
        return sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "only ACL_MEMCPY_INNER_DEVICE_TO_DEVICE (6) has descriptors");
    *descSize = DESC_SIZE;
    return ACL_SUCCESS;
}

/* The checks of the ACL layer shared by the two descriptor calls. */
static aclError acl_kind(aclrtMemcpyKind kind, const char *func)
{
    if ((uint32_t)kind >= KIND_MAX)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "kind %d is not in [ACL_MEMCPY_HOST_TO_HOST, 8)", (int)kind);
    return ACL_SUCCESS;
}

/* The runtime's: the kind, then a 64-byte aligned descriptor in device memory. */
static aclError rt_desc(const void *desc, aclrtMemcpyKind kind, const char *func, int *dev)
{
    if (kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE)
        return sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "kind should be ACL_MEMCPY_INNER_DEVICE_TO_DEVICE (6), not %d", (int)kind);
    aclError rc = sim_op_device_address(desc, "desc", func, dev);
    if (rc)
        return rc;
    if ((uintptr_t)desc % 64)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "desc %p is not 64-byte aligned", desc);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr, size_t count,
                                    void *config)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(desc);
    aclError rc = acl_kind(kind, __func__);
    if (rc)
        return rc;
    SIM_CHECK_NOT_NULL(srcAddr);
    SIM_CHECK_NOT_NULL(dstAddr);
    if (count == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "count must be greater than 0");
    if (config)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "config is a reserved parameter and must be NULL");
    if (kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE)
        return sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "kind should be ACL_MEMCPY_INNER_DEVICE_TO_DEVICE (6), not %d",
                        (int)kind);
    if (count > MAX_D2D)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "count %zu is not in (0, 4 GiB]", count);
    if ((uintptr_t)desc % 64)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "desc %p is not 64-byte aligned", desc);
    int ddev = -1, sdev = -1, desc_dev = -1;
    if ((rc = sim_op_device_address(desc, "desc", __func__, &desc_dev)) ||
        (rc = sim_op_device_address(dstAddr, "dstAddr", __func__, &ddev)) ||
        (rc = sim_op_device_address(srcAddr, "srcAddr", __func__, &sdev)))
        return rc;
    if (ddev != sdev)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "dstAddr (device %d) and srcAddr (device %d) do not match ACL_MEMCPY_INNER_DEVICE_TO_DEVICE", ddev,
                        sdev);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_obj_put(&c->obj);
    /* Context::SetMemcpyDesc: a synchronous copy of the 32 bytes into the descriptor. */
    memcpy_addr_info info = {.len = (uint32_t)count, .src = (uint64_t)(uintptr_t)srcAddr,
                             .dst = (uint64_t)(uintptr_t)dstAddr};
    if (!sim_device_range(desc, DESC_SIZE, NULL))
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "the %u bytes of desc %p are not inside one device allocation",
                        DESC_SIZE, desc);
    char msg[512];
    if ((rc = sim_copy_execute(desc_dev, desc, &info, DESC_SIZE, false, 0, msg, sizeof msg)))
        sim_error_message(__func__, msg);
    return rc;
}

/* ------------------------------------------------------------------ the copy task -------- */

typedef struct desc_copy {
    const void *desc;
    int device;
    memcpy_addr_info info;
    aclError rc;       /* 0, or why the descriptor could not be copied */
    sim_fault fault;   /* of the copy itself */
} desc_copy;

/* On the copy engine, under its guard: read the descriptor, check it, copy. */
static void do_desc_copy(void *arg)
{
    desc_copy *c = arg;
    memcpy(&c->info, c->desc, sizeof c->info);
    int sdev = -1, ddev = -1;
    size_t len = c->info.len;
    void *dst = (void *)(uintptr_t)c->info.dst;
    const void *src = (const void *)(uintptr_t)c->info.src;
    if (len == 0)
        return;
    if (!sim_device_range(src, len, &sdev) || !sim_device_range(dst, len, &ddev) || sdev != c->device ||
        ddev != c->device) {
        c->rc = ACL_ERROR_RT_SYS_DMA;
        return;
    }
    memmove(dst, src, len);
}

static aclError run(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    desc_copy c = {.desc = (const void *)(uintptr_t)sim_op_arg(t, 0), .device = s->dev->id};
    sim_fault f = sim_copy_run(s->dev->id, do_desc_copy, &c);
    char why[160];
    if (f.sig) {
        snprintf(msg, msglen, "copy by descriptor %p (%u bytes from %p to %p): %s", c.desc, c.info.len,
                 (void *)(uintptr_t)c.info.src, (void *)(uintptr_t)c.info.dst, sim_fault_text(f, why, sizeof why));
        return ACL_ERROR_RT_SYS_DMA;
    }
    if (c.rc)
        snprintf(msg, msglen, "copy by descriptor %p: %u bytes from %p to %p are not device memory of device %d", c.desc,
                 c.info.len, (void *)(uintptr_t)c.info.src, (void *)(uintptr_t)c.info.dst, c.device);
    return c.rc;
}

static const sim_task_ops k_desc_copy = {.run = run};

SIM_API aclError aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(desc);
    aclError rc = acl_kind(kind, __func__);
    if (rc)
        return rc;
    SIM_CHECK_NOT_NULL(stream);
    if ((rc = sim_op_stream_valid(stream, __func__)) || (rc = rt_desc(desc, kind, __func__, NULL)))
        return rc;
    sim_stream *s = sim_stream_for_work(stream, __func__, &rc);
    if (!s)
        return rc;
    const uint64_t a[1] = {(uint64_t)(uintptr_t)desc};
    rc = sim_op_submit(s, &k_desc_copy, a, 1, __func__);
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src, size_t count,
                                               aclrtMemcpyKind kind, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    return sim_memcpy_async(dst, destMax, src, count, kind, stream, __func__);
}
