/*
 * aiocann simulator: aclrtRandomNumAsync (issue 23) -- the random-number task of the device's
 * data-stream accelerator, run by the stream like any task.
 *
 * Checks (hicann/runtime): src/acl/aclrt_impl/kernel.cpp (aclrtRandomNumAsyncImpl: a NULL
 * taskInfo is 100000, a dataType outside kMapDataType -- INT32, INT64, UINT32, UINT64, BF16,
 * FLOAT16, FLOAT -- is 100000), src/runtime/api/impl/api_error.cc (LaunchRandomNumTask: a
 * reserve that is not NULL is 107000), api_impl.cc (a current context, 107002; the stream, NULL
 * for the default one, must be the context's, 107003).
 *
 * What the task computes is the device's (the accelerator's algorithm is not in the open
 * sources). Simulator choices, documented in docs/fidelity.md: a Philox4x32-10 generator keyed
 * by the 64-bit seed, whose 128-bit counter lives at randomCounterAddr (the samples allocate
 * 16 bytes for it) and advances by one per four 32-bit draws, so consecutive tasks sharing a
 * counter continue one stream of numbers and the same seed and counter give the same numbers;
 * uniform: integers in [min, max), floats min + u * (max - min); normal: Box-Muller with mean
 * and stddev; truncated normal: normal draws redrawn outside mean +- 2 stddev; dropout
 * bitmask: num bits, packed little-endian, each 1 (kept) with probability 1 - ratio, the ratio
 * a value of dataType. Every parameter is a value of `size` bytes or, isAddr, the device
 * address of one, read when the task runs; the count (randomNum) too. Addresses that are not
 * device memory are 107000 at submission; a parameter of an unknown function type too.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fp16.h"
#include "sim.h"

static bool type_ok(aclDataType t)
{
    return t == ACL_INT32 || t == ACL_INT64 || t == ACL_UINT32 || t == ACL_UINT64 || t == ACL_BF16 ||
           t == ACL_FLOAT16 || t == ACL_FLOAT;
}

/* ------------------------------------------------------------------ Philox4x32-10 -------- */

typedef struct philox {
    uint32_t key[2];
    uint32_t ctr[4];
    uint32_t out[4];
    int left;
    uint64_t blocks; /* counter increments done */
} philox;

static void philox_block(philox *p)
{
    uint32_t c[4] = {p->ctr[0], p->ctr[1], p->ctr[2], p->ctr[3]}, k[2] = {p->key[0], p->key[1]};
    for (int r = 0; r < 10; r++) {
        uint64_t m0 = (uint64_t)0xD2511F53u * c[0], m1 = (uint64_t)0xCD9E8D57u * c[2];
        uint32_t n0 = (uint32_t)(m1 >> 32) ^ c[1] ^ k[0], n2 = (uint32_t)(m0 >> 32) ^ c[3] ^ k[1];
        c[0] = n0;
        c[1] = (uint32_t)m1;
        c[2] = n2;
        c[3] = (uint32_t)m0;
        k[0] += 0x9E3779B9u;
        k[1] += 0xBB67AE85u;
    }
    memcpy(p->out, c, sizeof c);
    for (int i = 0; i < 4 && ++p->ctr[i] == 0; i++) /* 128-bit increment */
        ;
    p->left = 4;
    p->blocks++;
}

static uint32_t next32(philox *p)
{
    if (!p->left)
        philox_block(p);
    return p->out[4 - p->left--];
}

static uint64_t next64(philox *p)
{
    uint64_t hi = next32(p);
    return hi << 32 | next32(p);
}

/* (0, 1]: never 0, so log() in Box-Muller is finite. */
static double unit(philox *p) { return ((double)(next64(p) >> 11) + 1.0) / 9007199254740992.0; }

static double normal(philox *p)
{
    double u1 = unit(p), u2 = unit(p);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ------------------------------------------------------------------ values --------------- */

/* A parameter's bytes: its value, or what its device address holds now (sim_guarded_read: an
 * address freed since submission is an error, not a crash). */
static bool param_bytes(const aclrtRandomParaInfo *pi, uint8_t out[8])
{
    memset(out, 0, 8);
    size_t n = pi->size > 8 ? 8 : pi->size;
    if (!pi->isAddr) {
        memcpy(out, pi->valueOrAddr, n);
        return true;
    }
    void *addr;
    memcpy(&addr, pi->valueOrAddr, sizeof addr);
    return sim_guarded_read(out, addr, n);
}

static double as_double(aclDataType t, const uint8_t b[8])
{
    switch ((int)t) {
    case ACL_FLOAT: { float f; memcpy(&f, b, 4); return f; }
    case ACL_FLOAT16: { uint16_t h; memcpy(&h, b, 2); return aclFloat16ToFloat(h); }
    case ACL_BF16: { uint16_t h; memcpy(&h, b, 2); return sim_bf16_to_float(h); }
    case ACL_INT32: { int32_t v; memcpy(&v, b, 4); return v; }
    case ACL_UINT32: { uint32_t v; memcpy(&v, b, 4); return v; }
    case ACL_INT64: { int64_t v; memcpy(&v, b, 8); return (double)v; }
    default: { uint64_t v; memcpy(&v, b, 8); return (double)v; }
    }
}

static void store(aclDataType t, uint8_t *dst, size_t i, double v)
{
    switch ((int)t) {
    case ACL_FLOAT: { float f = (float)v; memcpy(dst + 4 * i, &f, 4); break; }
    case ACL_FLOAT16: { uint16_t h = aclFloatToFloat16((float)v); memcpy(dst + 2 * i, &h, 2); break; }
    case ACL_BF16: { uint16_t h = sim_float_to_bf16((float)v); memcpy(dst + 2 * i, &h, 2); break; }
    case ACL_INT32: { int32_t x = (int32_t)v; memcpy(dst + 4 * i, &x, 4); break; }
    case ACL_UINT32: { uint32_t x = (uint32_t)v; memcpy(dst + 4 * i, &x, 4); break; }
    case ACL_INT64: { int64_t x = (int64_t)v; memcpy(dst + 8 * i, &x, 8); break; }
    default: { uint64_t x = (uint64_t)v; memcpy(dst + 8 * i, &x, 8); break; }
    }
}

/* ------------------------------------------------------------------ the task ------------- */

static aclError run(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    (void)s;
    aclrtRandomNumTaskInfo ti;
    memcpy(&ti, t->inline_args, sizeof ti);
    uint8_t b[8], lo[8], hi[8];
    if (!param_bytes(&ti.randomNum, b) || !param_bytes(&ti.randomSeed, lo)) {
        snprintf(msg, msglen, "aclrtRandomNumAsync: the count or the seed is at an address that cannot be read");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    uint64_t num, seed;
    memcpy(&num, b, 8);
    memcpy(&seed, lo, 8);
    if (ti.randomNum.size < 8)
        num &= (1ull << (8 * ti.randomNum.size)) - 1;
    /* What the task writes must lie in live device memory, checked now (the count may only be
     * known now, and the memory may have been freed since submission): never a stray write. */
    size_t elem = aclDataTypeSize(ti.dataType);
    bool bitmask = ti.randomNumFuncParaInfo.funcType == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK;
    uint64_t bytes = bitmask ? (num + 7) / 8 : num * elem;
    if ((!bitmask && elem && num > UINT64_MAX / elem) ||
        (bytes && sim_where_is(ti.randomResultAddr, (size_t)bytes, NULL) != SIM_WHERE_DEVICE) ||
        sim_where_is(ti.randomCounterAddr, 16, NULL) != SIM_WHERE_DEVICE) {
        snprintf(msg, msglen,
                 "aclrtRandomNumAsync: %llu results (%llu bytes) at %p or the 16-byte counter at %p are not inside live "
                 "device memory",
                 (unsigned long long)num, (unsigned long long)bytes, ti.randomResultAddr, ti.randomCounterAddr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    philox p = {.key = {(uint32_t)seed, (uint32_t)(seed >> 32)}};
    if (!sim_guarded_read(p.ctr, ti.randomCounterAddr, sizeof p.ctr)) {
        snprintf(msg, msglen, "aclrtRandomNumAsync: the counter at %p cannot be read", ti.randomCounterAddr);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    const aclrtRandomNumFuncParaInfo *f = &ti.randomNumFuncParaInfo;
    aclDataType dt = ti.dataType;
    uint8_t *out = ti.randomResultAddr;
    bool ok;
    switch (f->funcType) {
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK: {
        ok = param_bytes(&f->paramInfo.dropoutBitmaskInfo.dropoutRation, lo);
        double ratio = ok ? as_double(dt, lo) : 0;
        for (uint64_t i = 0; ok && i < (num + 7) / 8; i++) {
            uint8_t byte = 0;
            for (int bit = 0; bit < 8 && i * 8 + (uint64_t)bit < num; bit++)
                if (unit(&p) > ratio)
                    byte |= (uint8_t)(1u << bit);
            out[i] = byte;
        }
        break;
    }
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS: {
        ok = param_bytes(&f->paramInfo.uniformDisInfo.min, lo) && param_bytes(&f->paramInfo.uniformDisInfo.max, hi);
        bool integer = dt == ACL_INT32 || dt == ACL_INT64 || dt == ACL_UINT32 || dt == ACL_UINT64;
        double a = ok ? as_double(dt, lo) : 0, z = ok ? as_double(dt, hi) : 0;
        for (uint64_t i = 0; ok && i < num; i++) {
            if (integer) {
                double span = z - a;
                uint64_t n = span >= 1 ? (uint64_t)span : 1;
                store(dt, out, i, a + (double)(next64(&p) % n));
            } else {
                store(dt, out, i, a + (unit(&p) - 0x1p-53) * (z - a));
            }
        }
        break;
    }
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS:
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS: {
        ok = param_bytes(&f->paramInfo.normalDisInfo.mean, lo) && param_bytes(&f->paramInfo.normalDisInfo.stddev, hi);
        double mean = ok ? as_double(dt, lo) : 0, sd = ok ? as_double(dt, hi) : 0;
        bool trunc = f->funcType == ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS;
        for (uint64_t i = 0; ok && i < num; i++) {
            double z = normal(&p);
            while (trunc && fabs(z) > 2.0)
                z = normal(&p);
            store(dt, out, i, mean + sd * z);
        }
        break;
    }
    default:
        ok = false;
    }
    if (!ok) {
        snprintf(msg, msglen, "aclrtRandomNumAsync: a distribution parameter is at an address that cannot be read");
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    memcpy(ti.randomCounterAddr, p.ctr, sizeof p.ctr); /* the next task continues the sequence */
    return ACL_SUCCESS;
}

/* Its operands live in the task (u.op): nothing to discard or release. */
static const sim_task_ops g_random_ops = {.run = run};

SIM_API aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo, const aclrtStream stream, void *reserve)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(taskInfo);
    if (!type_ok(taskInfo->dataType))
        return sim_fail(ACL_ERROR_INVALID_PARAM, "taskInfo->dataType %d is not supported", (int)taskInfo->dataType);
    if (reserve)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "reserve must be NULL");
    if ((unsigned)taskInfo->randomNumFuncParaInfo.funcType > ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "funcType %d is not an aclrtRandomNumFuncType",
                        (int)taskInfo->randomNumFuncParaInfo.funcType);
    aclError rc;
    if ((rc = sim_op_device_address(taskInfo->randomResultAddr, "randomResultAddr", __func__, NULL)) ||
        (rc = sim_op_device_address(taskInfo->randomCounterAddr, "randomCounterAddr", __func__, NULL)))
        return rc;
    sim_stream *s = sim_stream_for_work(stream, __func__, &rc);
    if (!s)
        return rc;
    uint64_t words[(sizeof(aclrtRandomNumTaskInfo) + 7) / 8] = {0};
    memcpy(words, taskInfo, sizeof *taskInfo);
    rc = sim_op_submit(s, &g_random_ops, words, sizeof words / sizeof words[0], __func__);
    sim_obj_put(&s->obj);
    return rc;
}
