/*
 * aiocann simulator: kernel arguments (aclrtKernelArgs*), as specified in reference §10.
 *
 * Layout: parameters are appended in order at 8-byte-aligned offsets (a uint32 followed by a
 * pointer puts the pointer at +8); a placeholder is an 8-byte slot; placeholder data blocks
 * are reserved after all parameters, 8-byte aligned. At launch the bytes [0, argsSize) are
 * copied into runtime-owned memory and every placeholder slot is patched to the address of its
 * data inside that copy, so the kernel sees a pointer to its tiling data. Simulator kernels
 * have no hidden system parameters and no overflow slot: user parameters start at offset 0.
 *
 * State machine (§10.5): OPEN --GetPlaceHolderBuffer--> DATA --Finalize--> FINAL; ParaUpdate
 * in any state sets `updating`, which only Finalize clears; launch needs FINAL and not
 * updating. Every misuse returns the reference's code.
 *
 * Handles. aclrtKernelArgsInit returns the calling thread's single system-managed handle
 * (64 KiB, 128 parameters), re-initialised by every call. aclrtKernelArgsInitByUserMem builds
 * the handle *in the caller's memory* and uses the caller's buffer for the bytes. Because a
 * handle is a raw pointer chosen by the caller, it is validated before use: thread-local
 * handles are looked up in a registry; a user-memory handle must be mapped host memory whose
 * header carries a cookie derived from its own address and a per-process secret, so a stale
 * copy, a foreign pointer or an arbitrary integer gets 107017 rather than a crash.
 *
 * Parameter handles are not pointers either: (init generation << 8) | (index + 1). The
 * generation changes on every Init, so a parameter handle from before a re-Init, or from
 * another args handle, is detected (107017).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define ARGS_MAGIC 0x5347524153494d41ull /* "AMISARGS" */
#define SYSTEM_BUFFER_SIZE 65536u
#define SYSTEM_MAX_PARAMS 128u
#define ALIGN 8u

enum { ST_OPEN = 0, ST_DATA = 1, ST_FINAL = 2 };
enum { PT_COMMON = 0, PT_PLACEHOLDER = 1 };

typedef struct args_param {
    uint32_t offset;
    uint32_t size;
    uint32_t data_offset; /* placeholders: where their data starts; 0 until a buffer is given */
    uint32_t type;
} args_param;

typedef struct args_handle {
    uint64_t magic;
    uint64_t cookie;
    uint64_t gen;
    void *func;           /* the function handle the args were initialised for */
    uint8_t *buf;
    size_t buf_size;
    size_t args_size;
    uint32_t num_params;
    uint32_t max_params;
    uint32_t state;
    uint32_t updating;
    args_param params[];
} args_handle;

/* The thread-local system-managed handle, with its parameter table and buffer in one block. */
typedef struct system_args {
    args_handle h;
    args_param params[SYSTEM_MAX_PARAMS];
    uint8_t buffer[SYSTEM_BUFFER_SIZE];
} system_args;

static atomic_uint_fast64_t g_gen = 1;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* g_system */
static system_args **g_system;
static size_t g_nsystem, g_capsystem;
static pthread_key_t g_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static __thread system_args *t_system;

static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* off + size <= buf_size, without the sum wrapping around for a huge size (a dataSize near
 * SIZE_MAX must be refused, not wrap to a small argsSize). */
static bool fits(size_t off, size_t size, size_t buf_size) { return off <= buf_size && size <= buf_size - off; }

static uint64_t cookie_for(const void *h) { return (uint64_t)(uintptr_t)h ^ g_rt.secret ^ 0xA5A5A5A55A5A5A5Aull; }

static void system_release(void *p)
{
    system_args *sa = p;
    pthread_mutex_lock(&g_lock);
    for (size_t i = 0; i < g_nsystem; i++) {
        if (g_system[i] == sa) {
            g_system[i] = g_system[--g_nsystem];
            break;
        }
    }
    pthread_mutex_unlock(&g_lock);
    sa->h.magic = 0;
    free(sa);
}

static void make_key(void) { pthread_key_create(&g_key, system_release); }

static system_args *system_handle(void)
{
    if (t_system)
        return t_system;
    pthread_once(&g_key_once, make_key);
    system_args *sa = calloc(1, sizeof *sa);
    if (!sa)
        return NULL;
    pthread_mutex_lock(&g_lock);
    if (g_nsystem == g_capsystem) {
        size_t cap = g_capsystem ? g_capsystem * 2 : 16;
        system_args **n = realloc(g_system, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&g_lock);
            free(sa);
            return NULL;
        }
        g_system = n;
        g_capsystem = cap;
    }
    g_system[g_nsystem++] = sa;
    pthread_mutex_unlock(&g_lock);
    pthread_setspecific(g_key, sa);
    t_system = sa;
    return sa;
}

static bool is_system(const void *h)
{
    pthread_mutex_lock(&g_lock);
    bool found = false;
    for (size_t i = 0; i < g_nsystem && !found; i++)
        found = (const void *)&g_system[i]->h == h;
    pthread_mutex_unlock(&g_lock);
    return found;
}

static args_handle *lookup(aclrtArgsHandle h, const char *func, aclError *rc)
{
    args_handle *a = h;
    bool ok;
    /* Cheapest first: the thread's own system handle; a user-memory handle (its cookie proves
     * it, and system handles carry none), whose header is read under a fault guard rather than
     * probed with a system call, since this runs on every launch; only then the registry of
     * other threads' handles, which takes a lock. */
    args_handle head; /* the header, read without risking a fault */
    if (t_system && h == &t_system->h)
        ok = a->magic == ARGS_MAGIC;
    else if (((uintptr_t)h % 8) == 0 && !sim_in_device_space(h) && sim_guarded_read(&head, h, sizeof head) &&
             head.magic == ARGS_MAGIC && head.cookie == cookie_for(h))
        ok = true;
    else
        ok = is_system(h) && a->magic == ARGS_MAGIC;
    if (!ok) {
        *rc = sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "%p is not a kernel-args handle (not initialised, or stale)",
                        h);
        return NULL;
    }
    return a;
}

/* Decodes a parameter handle of args handle a; NULL (107017 recorded) if stale or foreign. */
static args_param *param_of(args_handle *a, aclrtParamHandle ph, const char *func, aclError *rc)
{
    uint64_t v = (uint64_t)(uintptr_t)ph;
    uint64_t idx = (v & 0xFF), gen = v >> 8;
    if (gen != a->gen || idx == 0 || idx > a->num_params) {
        *rc = sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE,
                        "param handle %p does not belong to this args handle (from before a re-Init?)", ph);
        return NULL;
    }
    return &a->params[idx - 1];
}

static aclrtParamHandle param_handle(const args_handle *a, uint32_t index)
{
    return (aclrtParamHandle)(uintptr_t)((a->gen << 8) | (uint64_t)(index + 1));
}

static void reset(args_handle *a, void *func, uint8_t *buf, size_t buf_size, uint32_t max_params, bool user)
{
    a->magic = ARGS_MAGIC;
    a->cookie = user ? cookie_for(a) : 0;
    a->gen = atomic_fetch_add(&g_gen, 1) & ((1ull << 56) - 1);
    a->func = func;
    a->buf = buf;
    a->buf_size = buf_size;
    a->args_size = 0;
    a->num_params = 0;
    a->max_params = max_params;
    a->state = ST_OPEN;
    a->updating = 0;
}

static sim_function *function_of(aclrtFuncHandle funcHandle, const char *func, aclError *rc)
{
    sim_function *f = sim_function_get(funcHandle);
    if (!f)
        *rc = sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "function %p is not a live function handle", funcHandle);
    return f;
}

/* Parameters an InitByUserMem handle of this kernel can take: its signature's count (at least
 * one, so a parameterless kernel can be given the 8 bytes a launch needs). */
static uint32_t user_max_params(const sim_function *f)
{
    return f->desc->num_params ? f->desc->num_params : 1;
}

SIM_API aclError aclrtKernelArgsGetHandleMemSize(aclrtFuncHandle funcHandle, size_t *memSize)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(funcHandle);
    SIM_CHECK_NOT_NULL(memSize);
    aclError rc;
    sim_function *f = function_of(funcHandle, __func__, &rc);
    if (!f)
        return rc;
    *memSize = sizeof(args_handle) + user_max_params(f) * sizeof(args_param);
    sim_obj_put(&f->obj);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtKernelArgsGetMemSize(aclrtFuncHandle funcHandle, size_t userArgsSize, size_t *actualArgsSize)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(funcHandle);
    SIM_CHECK_NOT_NULL(actualArgsSize);
    aclError rc;
    sim_function *f = function_of(funcHandle, __func__, &rc);
    if (!f)
        return rc;
    /* §10.4, non-CPU kernels: room for 8 system parameters plus 8 bytes per user parameter. */
    *actualArgsSize = userArgsSize + 8 * 8 + (size_t)f->desc->num_params * 8;
    sim_obj_put(&f->obj);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(funcHandle);
    SIM_CHECK_NOT_NULL(argsHandle);
    aclError rc;
    sim_function *f = function_of(funcHandle, __func__, &rc);
    if (!f)
        return rc;
    sim_obj_put(&f->obj);
    system_args *sa = system_handle();
    if (!sa)
        return sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
    reset(&sa->h, funcHandle, sa->buffer, SYSTEM_BUFFER_SIZE, SYSTEM_MAX_PARAMS, false);
    *argsHandle = &sa->h;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtKernelArgsInitByUserMem(aclrtFuncHandle funcHandle, aclrtArgsHandle argsHandle, void *userHostMem,
                                              size_t actualArgsSize)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(funcHandle);
    SIM_CHECK_NOT_NULL(argsHandle);
    SIM_CHECK_NOT_NULL(userHostMem);
    if (actualArgsSize == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "actualArgsSize must be greater than 0");
    aclError rc;
    sim_function *f = function_of(funcHandle, __func__, &rc);
    if (!f)
        return rc;
    uint32_t max = user_max_params(f);
    sim_obj_put(&f->obj);
    size_t need = sizeof(args_handle) + max * sizeof(args_param);
    if ((uintptr_t)argsHandle % 8 != 0)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "argsHandle %p must be 8-byte aligned", argsHandle);
    if (!sim_host_writable(argsHandle, need))
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "argsHandle %p is not %zu bytes of writable host memory (aclrtKernelArgsGetHandleMemSize)",
                        argsHandle, need);
    if (!sim_host_writable(userHostMem, actualArgsSize))
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "userHostMem %p is not %zu bytes of writable host memory",
                        userHostMem, actualArgsSize);
    if (is_system(argsHandle))
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "argsHandle %p is a system-managed handle", argsHandle);
    reset((args_handle *)argsHandle, funcHandle, userHostMem, actualArgsSize, max, true);
    return ACL_SUCCESS;
}

/* Common checks of Append and AppendPlaceHolder (§10.6, in the runtime's order). */
static aclError check_append(args_handle *a, size_t size, size_t *off, const char *func)
{
    if (a->state == ST_FINAL)
        return sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "cannot append after aclrtKernelArgsFinalize");
    if (a->state == ST_DATA)
        return sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "cannot append after aclrtKernelArgsGetPlaceHolderBuffer (placeholder data follows all parameters)");
    if (a->num_params >= a->max_params)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "the args handle already holds %u parameters (its maximum)",
                         a->num_params);
    *off = round_up(a->args_size, ALIGN);
    if (!fits(*off, size, a->buf_size))
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                         "%zu bytes at offset %zu do not fit the %zu-byte args buffer", size, *off, a->buf_size);
    return ACL_SUCCESS;
}

static aclrtParamHandle add_param(args_handle *a, size_t off, size_t size, uint32_t type)
{
    uint32_t i = a->num_params++;
    a->params[i] = (args_param){(uint32_t)off, (uint32_t)size, 0, type};
    a->args_size = off + size;
    return param_handle(a, i);
}

SIM_API aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void *param, size_t paramSize,
                                       aclrtParamHandle *paramHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(argsHandle);
    SIM_CHECK_NOT_NULL(param);
    SIM_CHECK_NOT_NULL(paramHandle);
    if (paramSize == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "paramSize must be greater than 0");
    aclError rc;
    args_handle *a = lookup(argsHandle, __func__, &rc);
    if (!a)
        return rc;
    size_t off;
    if ((rc = check_append(a, paramSize, &off, __func__)))
        return rc;
    if (!sim_host_mapped(param, paramSize))
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "param %p is not %zu bytes of readable host memory", param, paramSize);
    memcpy(a->buf + off, param, paramSize);
    *paramHandle = add_param(a, off, paramSize, PT_COMMON);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle, aclrtParamHandle *paramHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(argsHandle);
    SIM_CHECK_NOT_NULL(paramHandle);
    aclError rc;
    args_handle *a = lookup(argsHandle, __func__, &rc);
    if (!a)
        return rc;
    size_t off;
    if ((rc = check_append(a, 8, &off, __func__)))
        return rc;
    memset(a->buf + off, 0, 8); /* patched at launch */
    *paramHandle = add_param(a, off, 8, PT_PLACEHOLDER);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle,
                                                     size_t dataSize, void **bufferAddr)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(argsHandle);
    SIM_CHECK_NOT_NULL(paramHandle);
    SIM_CHECK_NOT_NULL(bufferAddr);
    if (dataSize == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "dataSize must be greater than 0");
    aclError rc;
    args_handle *a = lookup(argsHandle, __func__, &rc);
    if (!a)
        return rc;
    args_param *p = param_of(a, paramHandle, __func__, &rc);
    if (!p)
        return rc;
    if (p->type != PT_PLACEHOLDER)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "param handle %p is a plain parameter, not a placeholder", paramHandle);
    if (a->state == ST_FINAL)
        return sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "cannot reserve placeholder data after aclrtKernelArgsFinalize");
    size_t off = round_up(a->args_size, ALIGN);
    if (!fits(off, dataSize, a->buf_size))
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "%zu bytes of placeholder data at offset %zu do not fit the %zu-byte "
                        "args buffer", dataSize, off, a->buf_size);
    p->data_offset = (uint32_t)off;
    a->args_size = off + dataSize;
    a->state = ST_DATA;
    *bufferAddr = a->buf + off;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtKernelArgsParaUpdate(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, void *param,
                                           size_t paramSize)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(argsHandle);
    SIM_CHECK_NOT_NULL(paramHandle);
    SIM_CHECK_NOT_NULL(param);
    if (paramSize == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "paramSize must be greater than 0");
    aclError rc;
    args_handle *a = lookup(argsHandle, __func__, &rc);
    if (!a)
        return rc;
    args_param *p = param_of(a, paramHandle, __func__, &rc);
    if (!p)
        return rc;
    if (p->type != PT_COMMON)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "param handle %p is a placeholder; only appended parameters can be "
                        "updated", paramHandle);
    if (paramSize != p->size)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "paramSize %zu differs from the parameter's size %u", paramSize,
                        p->size);
    if (!sim_host_mapped(param, paramSize))
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "param %p is not %zu bytes of readable host memory", param, paramSize);
    memcpy(a->buf + p->offset, param, paramSize);
    a->updating = 1;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(argsHandle);
    aclError rc;
    args_handle *a = lookup(argsHandle, __func__, &rc);
    if (!a)
        return rc;
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_obj_put(&c->obj);
    a->state = ST_FINAL;
    a->updating = 0;
    return ACL_SUCCESS;
}

aclError sim_args_prepare_launch(aclrtArgsHandle h, sim_function *fn, void *inline_buf, size_t inline_cap, void **out,
                                 size_t *out_size, const char *func)
{
    aclError rc;
    args_handle *a = lookup(h, func, &rc);
    if (!a)
        return rc;
    if (a->func != fn->obj.handle)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "the args handle was initialised for function %p, not %p",
                         a->func, fn->obj.handle);
    if (a->state != ST_FINAL || a->updating)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s",
                         a->state != ST_FINAL ? "the args handle is not finalized: call aclrtKernelArgsFinalize"
                                              : "the args handle was updated since aclrtKernelArgsFinalize: finalize it "
                                                "again");
    /* A real kernel's args always hold its system parameters after the user's, so a kernel
     * without parameters still launches with a non-empty block; a simulator kernel has no
     * system parameters, so an empty block is what a kernel of no parameters takes. */
    if (!a->buf || (a->args_size == 0 && fn->desc->num_params != 0))
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "the args handle holds no parameters");
    for (uint32_t i = 0; i < a->num_params; i++) {
        const args_param *p = &a->params[i];
        if (p->type == PT_PLACEHOLDER && (p->offset >= a->args_size || p->data_offset >= a->args_size))
            return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "placeholder %u lies outside the args", i);
    }
    const aclsim_kernel_desc *d = fn->desc;
    size_t need = sim_kernel_args_need(d);
    if (a->args_size < need)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                         "kernel %s takes %u parameters (%zu bytes of args) but the args hold %zu bytes", d->name,
                         d->num_params, need, a->args_size);
    uint8_t *copy = a->args_size <= inline_cap ? inline_buf : malloc(a->args_size);
    if (!copy)
        return sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
    memcpy(copy, a->buf, a->args_size);
    for (uint32_t i = 0; i < a->num_params; i++) {
        const args_param *p = &a->params[i];
        if (p->type == PT_PLACEHOLDER) {
            uint64_t addr = (uint64_t)(uintptr_t)(copy + p->data_offset);
            memcpy(copy + p->offset, &addr, 8);
        }
    }
    *out = copy;
    *out_size = a->args_size;
    return ACL_SUCCESS;
}
