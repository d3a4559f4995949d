/*
 * aiocann toolkit: libopapi.so -- the operator library's aclnnAdd and aclnnMul (aclnnop/aclnn_add.h, aclnn_mul.h) on
 * the simulator.
 *
 * An operator runs as the hardware's do: <Op>GetWorkspaceSize checks the tensors and records the
 * work in an executor; <Op> launches an AI-core kernel on the stream through the runtime's own
 * kernel API (aclrtKernelArgs*, aclrtLaunchKernelWithConfig), so it is ordered with the stream's
 * other work, fails as a kernel fails, and is captured into a model like any launch (the args,
 * its tiling among them, are copied at launch: a replay reads its own copy).
 *
 * The kernel is in this library: libopapi.so is itself a simulator kernel binary (it exports
 * the aclsim_kernels table), which the first launch loads with aclrtBinaryLoadFromFile of its
 * own path. The binary handle is kept and checked before each launch: after aclFinalize (or an
 * unload) it is stale, and the library loads itself again.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn_internal.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "aclsim_kernel.h"
#include "fp16.h" /* native/sim: the simulator's conversions */

#define API __attribute__((visibility("default")))

/* ------------------------------------------------------------------ elements */

static bool is_float(int k) { return k >= ACLNN_K_F16; }


static int64_t load_i(const uint8_t *p, int k)
{
    switch (k) {
    case ACLNN_K_BOOL: return *p != 0;
    case ACLNN_K_U8: return *p;
    case ACLNN_K_I8: return *(const int8_t *)p;
    case ACLNN_K_I16: return *(const int16_t *)p;
    case ACLNN_K_I32: return *(const int32_t *)p;
    default: return *(const int64_t *)p;
    }
}

static double load_f(const uint8_t *p, int k)
{
    switch (k) {
    case ACLNN_K_F16: return sim_half_to_float(*(const uint16_t *)p);
    case ACLNN_K_BF16: return sim_bf16_to_float(*(const uint16_t *)p);
    case ACLNN_K_F32: return *(const float *)p;
    case ACLNN_K_F64: return *(const double *)p;
    default: return (double)load_i(p, k);
    }
}

static void store_f(uint8_t *p, int k, double v)
{
    switch (k) {
    case ACLNN_K_F16: *(uint16_t *)p = sim_float_to_half((float)v); break;
    case ACLNN_K_BF16: *(uint16_t *)p = sim_float_to_bf16((float)v); break;
    case ACLNN_K_F32: *(float *)p = (float)v; break;
    default: *(double *)p = v; break;
    }
}

static void store_i(uint8_t *p, int k, int64_t v)
{
    switch (k) {
    case ACLNN_K_BOOL: *p = v != 0; break;
    case ACLNN_K_U8: *p = (uint8_t)v; break;
    case ACLNN_K_I8: *(int8_t *)p = (int8_t)v; break;
    case ACLNN_K_I16: *(int16_t *)p = (int16_t)v; break;
    case ACLNN_K_I32: *(int32_t *)p = (int32_t)v; break;
    case ACLNN_K_F16: case ACLNN_K_BF16: case ACLNN_K_F32: case ACLNN_K_F64: store_f(p, k, (double)v); break;
    default: *(int64_t *)p = v; break;
    }
}

/* One element. Floating point runs in the precision of the promoted type -- float for the
 * 16-bit types and float, as the vector unit computes them, double for double -- each
 * operation rounded once; integers wrap as the hardware's do. */
static void element(const aclnn_ew_tiling *t, const uint8_t *a, const uint8_t *b, uint8_t *o)
{
    if (is_float(t->tcompute)) {
        if (t->tcompute == ACLNN_K_F64) {
            double x = load_f(a, t->ta), y = load_f(b, t->tb);
            store_f(o, t->tout, t->op == ACLNN_OP_MUL ? x * y : x + (t->alpha_f == 1.0 ? y : t->alpha_f * y));
        } else {
            float x = (float)load_f(a, t->ta), y = (float)load_f(b, t->tb), alpha = (float)t->alpha_f;
            float r = t->op == ACLNN_OP_MUL ? x * y : x + (alpha == 1.0f ? y : alpha * y);
            store_f(o, t->tout, r);
        }
    } else if (t->tcompute == ACLNN_K_BOOL) { /* bool + bool is "or", bool * bool "and" */
        bool x = load_i(a, t->ta) != 0, y = load_i(b, t->tb) != 0;
        store_i(o, t->tout, t->op == ACLNN_OP_MUL ? (x && y) : (x || (t->alpha_i != 0 && y)));
    } else {
        uint64_t x = (uint64_t)load_i(a, t->ta), y = (uint64_t)load_i(b, t->tb);
        uint64_t r = t->op == ACLNN_OP_MUL ? x * y : x + (uint64_t)t->alpha_i * y;
        store_i(o, t->tout, (int64_t)r);
    }
}

/* ------------------------------------------------------------------ the kernel */

/* Block idx of num takes its share of out's elements; element i's operands are found from
 * its coordinates (unless every view is dense and of out's shape). */
static void elementwise_entry(const void *args, int64_t idx, int64_t num)
{
    uint64_t p[4];
    memcpy(p, args, sizeof p);
    const uint8_t *a = (const uint8_t *)(uintptr_t)p[0], *b = (const uint8_t *)(uintptr_t)p[1];
    uint8_t *o = (uint8_t *)(uintptr_t)p[2];
    const aclnn_ew_tiling *t = (const aclnn_ew_tiling *)(uintptr_t)p[3];
    size_t za = aclnn_kind_size(t->ta), zb = aclnn_kind_size(t->tb), zo = aclnn_kind_size(t->tout);
    int64_t begin = t->numel * idx / num, end = t->numel * (idx + 1) / num;
    for (int64_t i = begin; i < end; i++) {
        int64_t ea = i, eb = i, eo = i;
        if (!t->contiguous) {
            ea = eb = eo = 0;
            int64_t rest = i;
            for (uint32_t d = t->ndim; d-- > 0;) {
                int64_t c = rest % t->shape[d];
                rest /= t->shape[d];
                ea += c * t->sa[d];
                eb += c * t->sb[d];
                eo += c * t->so[d];
            }
        }
        element(t, a + ea * (int64_t)za, b + eb * (int64_t)zb, o + eo * (int64_t)zo);
    }
}

static const uint8_t k_sizes[4] = {8, 8, 8, 8};
API const uint32_t aclsim_kernel_abi = ACLSIM_KERNEL_ABI_VERSION;
API const aclsim_kernel_desc aclsim_kernels[] = {
    {"aclnn_elementwise", elementwise_entry, 4, k_sizes, "pppp"},
    {0, 0, 0, 0, 0},
};

/* ------------------------------------------------------------------ checking */

/* The promoted type of a and b (torch's rules: a float beats an integer, the wider beats the
 * narrower; float16 with bfloat16 is float; uint8 with int8 is int16). */
static int promote(int a, int b)
{
    if (a == b)
        return a;
    if (is_float(a) || is_float(b)) {
        if (!is_float(a))
            return b;
        if (!is_float(b))
            return a;
        if ((a == ACLNN_K_F16 && b == ACLNN_K_BF16) || (a == ACLNN_K_BF16 && b == ACLNN_K_F16))
            return ACLNN_K_F32;
        return a > b ? a : b;
    }
    if (a == ACLNN_K_BOOL)
        return b;
    if (b == ACLNN_K_BOOL)
        return a;
    if ((a == ACLNN_K_U8 && b == ACLNN_K_I8) || (a == ACLNN_K_I8 && b == ACLNN_K_U8))
        return ACLNN_K_I16;
    return a > b ? a : b;
}

/* out may take the result: a float result is not written to an integer or bool out, nor a
 * non-bool result to a bool out (torch's can_cast). */
static bool can_cast(int from, int to)
{
    if (is_float(from) && !is_float(to))
        return false;
    return from == ACLNN_K_BOOL || to != ACLNN_K_BOOL;
}

/* The number of elements, -1 past 2^48 (no device memory holds that many; the kernel's block
 * split multiplies it by a block index). */
static int64_t numel_of(const aclTensor *t)
{
    int64_t n = 1;
    for (uint64_t d = 0; d < t->ndim; d++) {
        if (t->dims[d] && n > (INT64_C(1) << 48) / t->dims[d])
            return -1;
        n *= t->dims[d];
    }
    return n;
}

/* Element strides of x seen with out's shape (x's dimensions aligned to the right, a size-1 or
 * missing dimension broadcast: stride 0); false when x does not broadcast to it. */
static bool broadcast_strides(const aclTensor *x, const aclTensor *out, int64_t *s)
{
    if (x->ndim > out->ndim)
        return false;
    uint64_t lead = out->ndim - x->ndim;
    for (uint64_t d = 0; d < out->ndim; d++) {
        if (d < lead) {
            s[d] = 0;
            continue;
        }
        int64_t n = x->dims[d - lead];
        if (n == out->dims[d])
            s[d] = n == 1 ? 0 : x->strides[d - lead];
        else if (n == 1)
            s[d] = 0;
        else
            return false;
    }
    return true;
}

static bool dense(const aclTensor *x, const aclTensor *out)
{
    if (x->ndim != out->ndim)
        return false;
    int64_t step = 1;
    for (uint64_t d = x->ndim; d-- > 0;) {
        if (x->dims[d] != out->dims[d])
            return false;
        if (x->dims[d] != 1 && x->strides[d] != step)
            return false;
        step *= x->dims[d];
    }
    return true;
}

static void *element0(const aclTensor *t)
{
    return (uint8_t *)t->data + t->offset * (int64_t)aclnn_kind_size(aclnn_kind(t->dtype));
}

/* Checks the operands of out = a (op) alpha * b and records them in a new executor. */
static aclnnStatus prepare(const char *func, int op, const aclTensor *a, const aclTensor *b, const aclScalar *alpha,
                           const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    if (!a || !b || !out || !workspaceSize || !executor || (op == ACLNN_OP_ADD && !alpha)) {
        aclnn_log(func, "a required argument is NULL");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (!aclnn_tensor(a) || !aclnn_tensor(b) || !aclnn_tensor(out) || (alpha && !aclnn_scalar(alpha))) {
        aclnn_log(func, "a tensor or scalar argument is not a live object (destroyed, or not one)");
        return ACLNN_ERR_PARAM_INVALID;
    }
    int ka = aclnn_kind(a->dtype), kb = aclnn_kind(b->dtype), ko = aclnn_kind(out->dtype);
    if (!ka || !kb || !ko) {
        aclnn_log(func, "data types %d, %d -> %d: the operator takes float, float16, bfloat16, double, int8, uint8, "
                  "int16, int32, int64 and bool",
                  (int)a->dtype, (int)b->dtype, (int)out->dtype);
        return ACLNN_ERR_PARAM_INVALID;
    }
    int kc = promote(ka, kb);
    if (!can_cast(kc, ko)) {
        aclnn_log(func, "the result type (promoted from %d and %d) cannot be written as out's data type %d",
                  (int)a->dtype, (int)b->dtype, (int)out->dtype);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (alpha && !is_float(kc) && !alpha->is_int && alpha->f != floor(alpha->f)) {
        aclnn_log(func, "alpha %g is not an integer, and the operands are integers", alpha->f);
        return ACLNN_ERR_PARAM_INVALID;
    }
    aclOpExecutor *e = aclnn_executor_new();
    if (!e)
        return ACLNN_ERR_INNER;
    aclnn_ew_tiling *t = &e->tiling;
    if (!broadcast_strides(a, out, t->sa) || !broadcast_strides(b, out, t->sb)) {
        aclnn_log(func, "the operands' shapes do not broadcast to out's shape");
        aclDestroyAclOpExecutor(e);
        return ACLNN_ERR_PARAM_INVALID;
    }
    /* out must be exactly the broadcast shape: a dimension no operand reaches is refused. */
    for (uint64_t d = 0; d < out->ndim; d++) {
        uint64_t la = out->ndim - a->ndim, lb = out->ndim - b->ndim;
        int64_t na = d >= la ? a->dims[d - la] : 1, nb = d >= lb ? b->dims[d - lb] : 1;
        int64_t want = na == 1 ? nb : na;
        if (out->dims[d] != want) {
            aclnn_log(func, "out's dimension %llu is %lld, the operands broadcast to %lld", (unsigned long long)d,
                      (long long)out->dims[d], (long long)want);
            aclDestroyAclOpExecutor(e);
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    t->op = (uint32_t)op;
    t->ta = (uint8_t)ka;
    t->tb = (uint8_t)kb;
    t->tout = (uint8_t)ko;
    t->tcompute = (uint8_t)kc;
    t->ndim = (uint32_t)out->ndim;
    t->numel = numel_of(out);
    if (t->numel < 0 || numel_of(a) < 0 || numel_of(b) < 0) {
        aclnn_log(func, "a tensor has more than 2^48 elements");
        aclDestroyAclOpExecutor(e);
        return ACLNN_ERR_PARAM_INVALID;
    }
    t->alpha_f = alpha ? alpha->f : 1.0;
    t->alpha_i = alpha ? (alpha->is_int ? alpha->i : (int64_t)alpha->f) : 1;
    memcpy(t->shape, out->dims, sizeof t->shape);
    memcpy(t->so, out->strides, sizeof t->so);
    t->contiguous = dense(a, out) && dense(b, out) && dense(out, out);
    if (t->numel && (!a->data || !b->data || !out->data)) {
        aclnn_log(func, "a tensor with elements has no device address");
        aclDestroyAclOpExecutor(e);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    e->a = element0(a);
    e->b = element0(b);
    e->out = element0(out);
    *workspaceSize = 0;
    *executor = e;
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ launching */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static aclrtBinHandle g_binary;

/* The kernel's function handle, loading this library as a kernel binary when the handle kept
 * is stale (first use, or after aclFinalize). */
static aclError kernel_function(aclrtFuncHandle *fn)
{
    pthread_mutex_lock(&g_lock);
    aclError rc = g_binary ? aclrtBinaryGetFunction(g_binary, "aclnn_elementwise", fn) : 1;
    if (rc != ACL_SUCCESS) {
        if (g_binary) /* expected and handled: not the caller's error (reading clears it) */
            (void)aclGetRecentErrMsg();
        Dl_info info;
        rc = dladdr((void *)elementwise_entry, &info) && info.dli_fname ? ACL_SUCCESS : ACL_ERROR_INVALID_FILE;
        if (rc == ACL_SUCCESS)
            rc = aclrtBinaryLoadFromFile(info.dli_fname, NULL, &g_binary);
        if (rc == ACL_SUCCESS)
            rc = aclrtBinaryGetFunction(g_binary, "aclnn_elementwise", fn);
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

/* Launches the executor's work on stream; consumes the executor unless it is repeatable. */
static aclnnStatus launch(const char *func, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                          aclrtStream stream)
{
    (void)workspace;
    (void)workspaceSize; /* these operators need none */
    if (!executor) {
        aclnn_log(func, "executor is NULL");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (!aclnn_executor(executor)) {
        aclnn_log(func, "executor is not a live executor (launched already, or destroyed)");
        return ACLNN_ERR_PARAM_INVALID;
    }
    aclnnStatus status = ACLNN_SUCCESS;
    const aclnn_ew_tiling *t = &executor->tiling;
    if (t->numel > 0) {
        aclrtFuncHandle fn = NULL;
        size_t handle_size = 0, args_size = 0;
        void *handle_mem = NULL, *args_mem = NULL;
        aclError rc = kernel_function(&fn);
        if (!rc)
            rc = aclrtKernelArgsGetHandleMemSize(fn, &handle_size);
        if (!rc)
            rc = aclrtKernelArgsGetMemSize(fn, 3 * 8 + 8 + sizeof *t, &args_size);
        if (!rc && (!(handle_mem = calloc(1, handle_size ? handle_size : 1)) || !(args_mem = calloc(1, args_size))))
            rc = ACL_ERROR_BAD_ALLOC;
        aclrtArgsHandle args = handle_mem;
        aclrtParamHandle ph;
        if (!rc)
            rc = aclrtKernelArgsInitByUserMem(fn, args, args_mem, args_size);
        void *ptrs[3] = {executor->a, executor->b, executor->out};
        for (int i = 0; i < 3 && !rc; i++)
            rc = aclrtKernelArgsAppend(args, &ptrs[i], sizeof ptrs[i], &ph);
        void *buf = NULL;
        if (!rc)
            rc = aclrtKernelArgsAppendPlaceHolder(args, &ph);
        if (!rc)
            rc = aclrtKernelArgsGetPlaceHolderBuffer(args, ph, sizeof *t, &buf);
        if (!rc) {
            memcpy(buf, t, sizeof *t);
            rc = aclrtKernelArgsFinalize(args);
        }
        /* Blocks: one per 64 Ki elements, at most 8 (the work is memory-bound). */
        uint32_t blocks = (uint32_t)((t->numel + 65535) / 65536);
        if (!rc)
            rc = aclrtLaunchKernelWithConfig(fn, blocks < 8 ? blocks : 8, stream, NULL, args, NULL);
        free(args_mem); /* the launch copied the args */
        free(handle_mem);
        if (rc) {
            aclnn_log(func, "the runtime refused the launch: %d (%s)", rc, aclGetRecentErrMsg());
            status = rc == ACL_ERROR_BAD_ALLOC ? ACLNN_ERR_INNER : ACLNN_ERR_RUNTIME_ERROR;
        }
    }
    if (!executor->repeatable)
        aclDestroyAclOpExecutor(executor);
    return status;
}

API aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                                         aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return prepare("aclnnAdd", ACLNN_OP_ADD, self, other, alpha, out, workspaceSize, executor);
}

API aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return launch(__func__, workspace, workspaceSize, executor, stream);
}

API aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                                const aclScalar *alpha, uint64_t *workspaceSize,
                                                aclOpExecutor **executor)
{
    return prepare("aclnnInplaceAdd", ACLNN_OP_ADD, selfRef, other, alpha, selfRef, workspaceSize, executor);
}

API aclnnStatus aclnnInplaceAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return launch(__func__, workspace, workspaceSize, executor, stream);
}

API aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                         uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return prepare("aclnnMul", ACLNN_OP_MUL, self, other, NULL, out, workspaceSize, executor);
}

API aclnnStatus aclnnMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return launch(__func__, workspace, workspaceSize, executor, stream);
}

API aclnnStatus aclnnInplaceMulGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                                uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return prepare("aclnnInplaceMul", ACLNN_OP_MUL, selfRef, other, NULL, selfRef, workspaceSize, executor);
}

API aclnnStatus aclnnInplaceMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
{
    return launch(__func__, workspace, workspaceSize, executor, stream);
}
