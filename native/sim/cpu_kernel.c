/*
 * aiocann simulator: AI CPU functions (aclrtRegisterCpuFunc).
 *
 * An AI CPU kernel is a function in a shared object that the device's AI CPUs (ARM cores
 * running Linux) call. A program loads that object -- or, from a file, the op-info JSON that
 * names it -- with ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE (binary.c: from a file modes 0 and 1,
 * from data mode 2; anything else 107000), which makes the binary an AI CPU program
 * (BinaryLoader::SetCpuBinInfo, LoadCpu: PlainProgram with RT_KERNEL_REG_TYPE_CPU). Then
 * aclrtRegisterCpuFunc(binary, funcName, kernelName, &func) registers one kernel: funcName is
 * the symbol in the .so, kernelName the op type (src/acl/aclrt_impl/kernel.cpp
 * aclrtRegisterCpuFuncImpl; src/runtime/api/api_c_kernel.cc rtsRegisterCpuFunc;
 * src/runtime/api/impl/api_error.cc and api_impl.cc RegisterCpuFunc;
 * src/runtime/core/src/kernel/program.cc RegisterSingleCpuKernel, CopySoAndNameToCurrentDevice):
 *   - a NULL argument is 100000 (ACL layer); a stale or foreign binary handle 107017;
 *   - a binary that is not an AI CPU program is 107000 (kernelRegType != RT_KERNEL_REG_TYPE_CPU);
 *   - registering a kernelName the program already has returns that same function;
 *   - the names go to the current device: no current context is 107002;
 *   - the function's name (aclrtGetFunctionName) is the op type; it dies with its binary.
 *
 * The simulated device has no AI CPU (ACL_DEV_ATTR_AICPU_CORE_NUM is 0, device_query.c), so
 * a launch of such a function is refused with 207000 (launch.c) -- the registration itself is
 * complete. (From a file the real runtime also registers the kernels the JSON lists; the
 * simulator registers only what aclrtRegisterCpuFunc names.)
 *
 * Locking: binary->lock guards the program's registrations.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "sim.h"

struct sim_cpu_reg {
    struct sim_cpu_reg *next;
    sim_function *fn; /* the handle table's reference is the registration's */
};

static void cpu_function_destroy(sim_obj *o)
{
    sim_function *f = (sim_function *)o;
    sim_obj_put(&f->bin->obj);
    if (f->desc) {
        free((char *)f->desc->name);
        free((aclsim_kernel_desc *)f->desc);
    }
    free(f->cpu_func);
    free(f);
}

bool sim_function_is_cpu(const sim_function *f) { return f->cpu_func != NULL; }

/* A new AI CPU function of b, with a handle; NULL when memory or the handle table runs out. */
static sim_function *cpu_function_new(sim_binary *b, const char *funcName, const char *kernelName)
{
    sim_function *f = calloc(1, sizeof *f);
    aclsim_kernel_desc *d = calloc(1, sizeof *d);
    char *op = strdup(kernelName), *sym = strdup(funcName);
    if (!f || !d || !op || !sym) {
        free(f);
        free(d);
        free(op);
        free(sym);
        return NULL;
    }
    d->name = op; /* no entry, no parameters: an AI CPU kernel takes packed args (§10.3) */
    sim_obj_init(&f->obj, SIM_KIND_FUNCTION, cpu_function_destroy);
    sim_obj_get(&b->obj);
    f->bin = b;
    f->desc = d;
    f->cpu_func = sym;
    if (!sim_handle_open(&f->obj)) {
        sim_obj_put(&f->obj);
        return NULL;
    }
    return f;
}

SIM_API aclError aclrtRegisterCpuFunc(const aclrtBinHandle handle, const char *funcName, const char *kernelName,
                                      aclrtFuncHandle *funcHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(handle);
    SIM_CHECK_NOT_NULL(funcName);
    SIM_CHECK_NOT_NULL(kernelName);
    SIM_CHECK_NOT_NULL(funcHandle);
    sim_binary *b = (sim_binary *)sim_handle_get(handle, SIM_KIND_BINARY);
    if (!b)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "binary %p is not a loaded binary", handle);
    aclError rc = ACL_SUCCESS;
    *funcHandle = NULL; /* ApiImpl::RegisterCpuFunc clears it first */
    sim_context *c = NULL;
    if (b->cpu_mode < 0) {
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                      "binary %s is not an AI CPU program (load it with ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE)", b->path);
    } else if (!(c = sim_current_context(__func__))) {
        rc = ACL_ERROR_RT_CONTEXT_NULL;
    } else {
        pthread_mutex_lock(&b->lock);
        struct sim_cpu_reg *r = b->cpu_functions;
        while (r && strcmp(r->fn->desc->name, kernelName) != 0)
            r = r->next;
        if (b->unloaded) {
            rc = sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "binary %p was unloaded", handle);
        } else if (r) {
            *funcHandle = r->fn->obj.handle; /* already registered: the same kernel */
        } else {
            r = calloc(1, sizeof *r);
            if (r && (r->fn = cpu_function_new(b, funcName, kernelName))) {
                r->next = b->cpu_functions;
                b->cpu_functions = r;
                *funcHandle = r->fn->obj.handle;
            } else {
                free(r);
                rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
            }
        }
        pthread_mutex_unlock(&b->lock);
        sim_obj_put(&c->obj);
    }
    sim_obj_put(&b->obj);
    return rc;
}

void sim_cpu_unload_locked(sim_binary *b)
{
    struct sim_cpu_reg *r = b->cpu_functions;
    b->cpu_functions = NULL;
    while (r) {
        struct sim_cpu_reg *next = r->next;
        sim_obj_put(sim_handle_close(r->fn->obj.handle, SIM_KIND_FUNCTION));
        free(r);
        r = next;
    }
}
