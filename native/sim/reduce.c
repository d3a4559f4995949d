/*
 * aiocann simulator: aclrtReduceAsync -- the copy engine's inline reduction, dst[i] = dst[i]
 * op src[i] over count bytes of elements, as a task of the stream.
 *
 * Sources: src/acl/aclrt_impl/memory.cpp (aclrtReduceAsyncImpl: NULL dst/src, reserve NULL,
 * the data types the ACL layer maps: kMapDataType), src/runtime/api/api_c_standard_soc.cc
 * (rtsLaunchReduceAsyncTask: the stream handle), src/runtime/api/impl/api_error.cc
 * (ReduceAsync: count > 0, kind in [SUM, END), SUM's count <= 4 GiB), api_impl.cc (a context,
 * the stream in it), core/src/launch/memory_stars.cc (CheckReduceCapability: the chip's kinds
 * and types, 207000 otherwise; then CheckMemAlign: 2-byte types 2-byte aligned, 4-byte types
 * 4-byte aligned, else 107008), docs/zh/api_ref/12_execution_control.md (count in bytes; dst
 * and src on the stream's device; Atlas A2: int8, int16, int32, fp16, fp32, bf16).
 *
 * The arithmetic, where the sources say nothing (simulator choices): integers wrap around;
 * fp16 and bf16 are computed in float and rounded to nearest even; MAX and MIN follow IEEE
 * maxNum/minNum (a NaN operand yields the other). ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL is
 * refused with 207000: the chip table lists it, but what the SDMA engine computes for it is
 * documented nowhere, so the simulated engine lacks it. A count that is not a whole number of
 * elements is refused (107000), as the engine would be handed a partial element; and the two
 * ranges are checked to be device memory of the stream's device at submission, which the
 * documentation requires.
 *
 * Runs on the device's copy engine (memory.c, sim_copy_run), under its fault guard, ordered
 * with the device's copies; a fault fails the task with 507013.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "fp16.h"
#include "sim.h"

#define MAX_D2D ((uint64_t)4 << 30) /* MAX_MEMCPY_SIZE_OF_D2D */

/* ------------------------------------------------------------------ the operation -------- */

typedef struct reduce_job {
    void *dst;
    const void *src;
    uint64_t count;   /* elements */
    int kind;
    int type;
} reduce_job;

/* IEEE maxNum / minNum: a NaN operand yields the other one. */
static float fop(int kind, float a, float b)
{
    if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM)
        return a + b;
    if (a != a)
        return b;
    if (b != b)
        return a;
    return kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX ? (a > b ? a : b) : (a < b ? a : b);
}

#define INT_REDUCE(T, UT)                                                                                   \
    do {                                                                                                    \
        T *d = j->dst;                                                                                      \
        const T *s = j->src;                                                                                \
        for (uint64_t i = 0; i < j->count; i++)                                                             \
            d[i] = j->kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX   ? (d[i] > s[i] ? d[i] : s[i])              \
                   : j->kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN ? (d[i] < s[i] ? d[i] : s[i])              \
                                                                 : (T)((UT)d[i] + (UT)s[i]);                \
    } while (0)

static void do_reduce(void *arg)
{
    reduce_job *j = arg;
    switch (j->type) {
    case ACL_INT8: INT_REDUCE(int8_t, uint8_t); break;
    case ACL_INT16: INT_REDUCE(int16_t, uint16_t); break;
    case ACL_INT32: INT_REDUCE(int32_t, uint32_t); break;
    case ACL_FLOAT: {
        float *d = j->dst;
        const float *s = j->src;
        for (uint64_t i = 0; i < j->count; i++)
            d[i] = fop(j->kind, d[i], s[i]);
        break;
    }
    case ACL_FLOAT16:
    case ACL_BF16: {
        uint16_t *d = j->dst;
        const uint16_t *s = j->src;
        bool half = j->type == ACL_FLOAT16;
        for (uint64_t i = 0; i < j->count; i++) {
            float r = half ? fop(j->kind, sim_half_to_float(d[i]), sim_half_to_float(s[i]))
                           : fop(j->kind, sim_bf16_to_float(d[i]), sim_bf16_to_float(s[i]));
            d[i] = half ? sim_float_to_half(r) : sim_float_to_bf16(r);
        }
        break;
    }
    default:
        break;
    }
}

static aclError run(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    reduce_job j = {.dst = (void *)(uintptr_t)sim_op_arg(t, 0), .src = (const void *)(uintptr_t)sim_op_arg(t, 1),
                    .count = sim_op_arg(t, 2), .kind = (int)sim_op_arg(t, 3), .type = (int)sim_op_arg(t, 4)};
    sim_fault f = sim_copy_run(s->dev->id, do_reduce, &j);
    if (!f.sig)
        return ACL_SUCCESS;
    char why[160];
    snprintf(msg, msglen, "reduce of %llu elements from %p into %p: %s", (unsigned long long)j.count, j.src, j.dst,
             sim_fault_text(f, why, sizeof why));
    return ACL_ERROR_RT_SYS_DMA;
}

static const sim_task_ops k_reduce = {.run = run};

/* The element size of a type ACL maps to the runtime (kMapDataType), 0 for the others;
 * *chip: whether the simulated chip (Atlas A2) reduces it. */
static size_t element(aclDataType type, bool *chip)
{
    *chip = true;
    switch (type) {
    case ACL_INT8: return 1;
    case ACL_INT16:
    case ACL_FLOAT16:
    case ACL_BF16: return 2;
    case ACL_INT32:
    case ACL_FLOAT: return 4;
    case ACL_UINT8: *chip = false; return 1;
    case ACL_UINT16: *chip = false; return 2;
    case ACL_UINT32: *chip = false; return 4;
    case ACL_INT4: *chip = false; return 1;
    default: return 0;
    }
}

SIM_API aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count, aclrtReduceKind kind, aclDataType type,
                                  aclrtStream stream, void *reserve)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(dst);
    SIM_CHECK_NOT_NULL(src);
    if (reserve)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "reserve is a reserved parameter and must be NULL");
    bool chip;
    size_t elem = element(type, &chip);
    if (!elem)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "data type %d is not supported by reduce", (int)type);
    aclError rc = sim_op_stream_valid(stream, __func__);
    if (rc)
        return rc;
    if (count == 0)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "count must be greater than 0");
    if ((int)kind < ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM || (int)kind > ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "kind %d is not in [10, 14)", (int)kind);
    if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM && count > MAX_D2D)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "count %llu exceeds 4 GiB for SUM", (unsigned long long)count);
    sim_stream *s = sim_stream_for_work(stream, __func__, &rc);
    if (!s)
        return rc;
    int ddev = -1, sdev = -1;
    if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL)
        rc = sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                      "ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL: the simulated copy engine has no EQUAL reduction");
    else if (!chip)
        rc = sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                      "data type %d: the chip reduces int8, int16, int32, fp16, fp32 and bf16 only", (int)type);
    else if ((uintptr_t)src % elem || (uintptr_t)dst % elem)
        rc = sim_fail(ACL_ERROR_RT_ADDR_UNALIGNED, "src %p and dst %p must be aligned to the %zu-byte elements", src,
                      dst, elem);
    else if (count % elem)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "count %llu is not a whole number of %zu-byte elements",
                      (unsigned long long)count, elem);
    else if (!sim_device_range(dst, count, &ddev) || !sim_device_range(src, count, &sdev) || ddev != s->dev->id ||
             sdev != s->dev->id)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                      "dst [%p, +%llu) and src [%p, +%llu) must be device memory of the stream's device %d", dst,
                      (unsigned long long)count, src, (unsigned long long)count, s->dev->id);
    if (!rc) {
        const uint64_t a[5] = {(uint64_t)(uintptr_t)dst, (uint64_t)(uintptr_t)src, count / elem, (uint64_t)kind,
                               (uint64_t)type};
        rc = sim_op_submit(s, &k_reduce, a, 5, __func__);
    }
    sim_obj_put(&s->obj);
    return rc;
}
