/*
 * aiocann simulator: kernel launches.
 *
 * aclrtLaunchKernelWithConfig takes a host-side args handle: the bytes are copied (with the
 * placeholders patched) during the call, so the caller may update and relaunch the handle at
 * once. aclrtLaunchKernel takes args already in device memory; they are read when the kernel
 * runs. Either way the launch is a task on the stream; when the stream reaches it, all blocks
 * run on the device's AI cores and the task ends when the last block has returned.
 *
 * What a launch takes from its context when it is submitted (issue 11): a launch without a
 * timeout attribute gets the process's operator execute timeout (op_timeout.c: the default,
 * or what aclrtSetOpExecuteTimeOut* set); the stream's overflow switch decides whether an
 * overflow is reported (overflow.c); the core limits cap how many blocks run at once
 * (res_limit.c).
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define LEGACY_MAX_BLOCKS 65535u

typedef struct launch_cfg {
    bool batch;
    bool aiv;            /* ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE = AIV: vector core limits */
    uint64_t timeout_us;
} launch_cfg;

static aclError parse_cfg(const aclrtLaunchKernelCfg *cfg, launch_cfg *out)
{
    memset(out, 0, sizeof *out);
    /* No timeout attribute: the operator execute timeout configured now (the default unless
     * aclrtSetOpExecuteTimeOut* changed it: GetAicoreKernelCredit at submission); 0: never. */
    out->timeout_us = sim_op_execute_timeout_us();
    if (!cfg || cfg->numAttrs == 0)
        return ACL_SUCCESS;
    if (!cfg->attrs)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "cfg->attrs is NULL but numAttrs is %zu", cfg->numAttrs);
    bool have_s = false, have_us = false;
    for (size_t i = 0; i < cfg->numAttrs; i++) {
        const aclrtLaunchKernelAttr *a = &cfg->attrs[i];
        switch (a->id) {
        case ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE:
            if (a->value.schemMode > 1)
                return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "attr %zu: schemMode must be 0 (normal) or 1 (batch), not %u",
                                i, a->value.schemMode);
            out->batch = a->value.schemMode == 1;
            break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE:
            if ((unsigned)a->value.engineType > ACL_RT_ENGINE_TYPE_AIV)
                return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "attr %zu: engineType %d is neither AIC nor AIV", i,
                                (int)a->value.engineType);
            out->aiv = a->value.engineType == ACL_RT_ENGINE_TYPE_AIV;
            break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT:
            have_s = true;
            out->timeout_us = (uint64_t)a->value.timeout * 1000000ull;
            break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US:
            have_us = true;
            out->timeout_us = ((uint64_t)a->value.timeoutUs.timeoutHigh << 32) | a->value.timeoutUs.timeoutLow;
            break;
        case ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE:
        case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET:
        case ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH:
        case ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP:
        case ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING:
            break; /* accepted; no effect on the simulator */
        default:
            return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "attr %zu: unknown launch attribute id %d", i, (int)a->id);
        }
    }
    if (have_s && have_us)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT and ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US cannot be combined");
    return ACL_SUCCESS;
}

/* Resolves the function and the stream and checks they may be used together. */
static aclError resolve(aclrtFuncHandle funcHandle, aclrtStream stream, sim_function **fn, sim_stream **st,
                        const char *func)
{
    aclError rc;
    sim_function *f = sim_function_get(funcHandle);
    if (!f)
        return sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "function %p is not a live function handle (binary unloaded?)",
                         funcHandle);
    sim_stream *s = sim_stream_for_work(stream, func, &rc);
    if (!s) {
        sim_obj_put(&f->obj);
        return rc;
    }
    if (sim_function_is_cpu(f)) { /* issue 11 (cpu_kernel.c) */
        rc = sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                       "function %s is an AI CPU kernel and the simulated device has no AI CPU "
                       "(ACL_DEV_ATTR_AICPU_CORE_NUM is 0)",
                       f->desc->name);
        sim_obj_put(&s->obj);
        sim_obj_put(&f->obj);
        return rc;
    }
    if (f->bin->device >= 0 && f->bin->device != s->dev->id) {
        rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                       "the binary was loaded from data on device %d and cannot run on device %d", f->bin->device,
                       s->dev->id);
        sim_obj_put(&s->obj);
        sim_obj_put(&f->obj);
        return rc;
    }
    *fn = f;
    *st = s;
    return ACL_SUCCESS;
}

/* Enqueues kernel task t (from sim_task_new) of function f, whose reference it takes over. */
static aclError submit(sim_stream *s, sim_task *t, sim_function *f, void *args, bool owns, size_t size,
                       uint32_t numBlocks, const launch_cfg *cfg, const char *func)
{
    t->u.kernel.fn = f; /* the task owns the reference */
    t->u.kernel.args = args;
    t->u.kernel.owns_args = owns;
    t->u.kernel.args_size = size;
    t->u.kernel.num_blocks = numBlocks;
    t->u.kernel.batch = cfg->batch;
    t->u.kernel.timeout_us = cfg->timeout_us;
    /* The stream's overflow switch goes into the task when it is made (the SQE's
     * overflowEn), and so do the core limits: plain reads (atomics), no lock per launch. */
    t->u.kernel.overflow_en = atomic_load_explicit(&s->overflow_switch, memory_order_relaxed) != 0;
    t->u.kernel.max_cores = sim_res_limit_for_launch(s, cfg->aiv);
    return sim_stream_submit(s, t, func, NULL);
}

SIM_API aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                             aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle, void *reserve)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(funcHandle);
    SIM_CHECK_NOT_NULL(argsHandle);
    if (numBlocks == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "numBlocks must be greater than 0");
    if (reserve)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "reserve must be NULL");
    launch_cfg lc;
    aclError rc = parse_cfg(cfg, &lc);
    if (rc)
        return rc;
    sim_function *f;
    sim_stream *s;
    if ((rc = resolve(funcHandle, stream, &f, &s, __func__)))
        return rc;
    void *args;
    size_t size;
    sim_task *t = sim_task_new(&sim_task_kernel);
    rc = t ? sim_args_prepare_launch(argsHandle, f, t->inline_args, sizeof t->inline_args, &args, &size, __func__)
           : sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
    if (rc) {
        free(t);
        sim_obj_put(&f->obj);
    } else {
        rc = submit(s, t, f, args, args != t->inline_args, size, numBlocks, &lc, __func__);
    }
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                                   size_t argsSize, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(funcHandle);
    SIM_CHECK_NOT_NULL(argsData);
    if (numBlocks == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "numBlocks must be greater than 0");
    if (argsSize == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "argsSize must be greater than 0");
    if (numBlocks > LEGACY_MAX_BLOCKS)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "numBlocks %u exceeds %u on this launch path", numBlocks,
                        LEGACY_MAX_BLOCKS);
    if (!sim_device_range(argsData, argsSize, NULL))
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "argsData [%p, +%zu) is not inside one device allocation (aclrtLaunchKernel takes device memory)",
                        argsData, argsSize);
    sim_function *f;
    sim_stream *s;
    aclError rc = resolve(funcHandle, stream, &f, &s, __func__);
    if (rc)
        return rc;
    const aclsim_kernel_desc *d = f->desc;
    size_t need = sim_kernel_args_need(d);
    /* No cfg on this path: the operator execute timeout, AI-core limits. */
    launch_cfg lc = {false, false, sim_op_execute_timeout_us()};
    if (argsSize < need) {
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "kernel %s takes %u parameters (%zu bytes of args) but argsSize is %zu",
                      d->name, d->num_params, need, argsSize);
        sim_obj_put(&f->obj);
    } else {
        sim_task *t = sim_task_new(&sim_task_kernel);
        if (t) {
            rc = submit(s, t, f, (void *)argsData, false, argsSize, numBlocks, &lc, __func__);
        } else {
            rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
            sim_obj_put(&f->obj);
        }
    }
    sim_obj_put(&s->obj);
    return rc;
}

aclError sim_kernel_execute(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    const sim_function *fn = t->u.kernel.fn;
    if (__atomic_load_n(&fn->bin->unloaded, __ATOMIC_ACQUIRE)) {
        snprintf(msg, msglen, "kernel %s: its binary was unloaded (aclrtBinaryUnLoad) before the launch ran",
                 fn->desc->name);
        return ACL_ERROR_RT_AICORE_EXCEPTION;
    }
    sim_job job;
    memset(&job, 0, sizeof job);
    job.desc = t->u.kernel.fn->desc;
    job.args = t->u.kernel.args;
    job.num_blocks = t->u.kernel.num_blocks;
    job.batch = t->u.kernel.batch;
    job.timeout_us = t->u.kernel.timeout_us;
    job.device = s->dev->id;
    job.stream = (uint64_t)(uintptr_t)s->obj.handle;
    job.seq = t->seq;
    job.max_cores = t->u.kernel.max_cores;
    job.sat_mode = s->sat_mode; /* issue 23: the stream's, read by the Ascend C layer */
    job.take_status = fn->bin->take_status;
    job.running_slot = &s->running_job; /* an abort ends the launch through it (abort.c) */
    uint64_t t0 = sim_now_ns();
    job.start_ns = t0;
    sim_pool_run(&s->dev->pool, &job, s->guard);
    atomic_store_explicit(&t->u.kernel.fn->last_ns, sim_now_ns() - t0 + 1, memory_order_relaxed);
    if (job.error) {
        snprintf(msg, msglen, "%s", job.errmsg);
        return job.error;
    }
    return sim_overflow_report(s, t, job.status, msg, msglen);
}

/* ------------------------------------------------------------------ the kernel task ------- */

/* A replay runs the captured launch with a copy of its header that carries the replay's
 * sequence number and task id (trace records, reports): the captured task is shared by every
 * replay. Its args stay where they are. */
static aclError replay_kernel(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    sim_task view;
    memcpy(&view, t, offsetof(sim_task, inline_args));
    view.seq = rt->seq;
    view.task_id = rt->task_id;
    return sim_kernel_execute(s, &view, msg, msglen);
}

static void release_kernel(sim_task *t)
{
    if (t->u.kernel.owns_args)
        free(t->u.kernel.args);
    sim_obj_put(&t->u.kernel.fn->obj);
}

/* A single-block kernel whose function's latest launch took under this long is short enough
 * for a worker to run it before paying the report wake-ups it owes (stream.c). */
#define REPORT_DEFER_KERNEL_NS 20000ull

static bool kernel_defers_reports(const sim_stream *s, const sim_task *t)
{
    (void)s;
    uint64_t last = atomic_load_explicit(&t->u.kernel.fn->last_ns, memory_order_relaxed);
    return t->u.kernel.num_blocks == 1 && last && last < REPORT_DEFER_KERNEL_NS;
}

static void trace_kernel(const sim_task *t, aclsimTraceRecord *r)
{
    r->block = (int32_t)t->u.kernel.num_blocks;
    snprintf(r->name, sizeof r->name, "%s", t->u.kernel.fn->desc->name);
}

/* What its exception info carries (issue 23: aclrtGetArgsFromExceptionInfo,
 * aclrtGetFuncHandleFromExceptionInfo). */
static bool kernel_failed(const sim_task *t, sim_exception_kernel *k)
{
    if (t->u.kernel.fn)
        *k = (sim_exception_kernel){t->u.kernel.args, t->u.kernel.args_size, t->u.kernel.fn->obj.handle};
    return true;
}

/* A discarded launch simply does not happen. */
const sim_task_ops sim_task_kernel = {
    .run = sim_kernel_execute,
    .replay = replay_kernel,
    .release = release_kernel,
    .defers_reports = kernel_defers_reports,
    .trace = trace_kernel,
    .failed_kernel = kernel_failed,
    .trace_type = ACLSIM_TRACE_KERNEL,
};
