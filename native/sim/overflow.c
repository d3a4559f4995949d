/*
 * aiocann simulator: floating-point overflow detection -- the per-stream switch, the device's
 * overflow status, and what an overflowing launch reports.
 *
 * The real runtime on A2/A3 (hicann/runtime src/acl/aclrt_impl/stream.cpp, device.cpp;
 * src/runtime/api/api_c_stream.cc rtSetStreamOverflowSwitch; src/runtime/api/impl/api_error.cc
 * and api_impl.cc Set/GetStreamOverflowSwitch, GetDeviceSatStatus, CleanDeviceSatStatus;
 * src/runtime/core/src/context/context.cc; davinci_kernel_task_v100.cc; stars_engine.cc):
 *   - aclrtSetStreamOverflowSwitch(stream, flag): flag 0 or 1 (ACL layer, else 100000); the
 *     runtime refuses a capturing stream (107027) and needs the stream in the current context
 *     (107002 without one, 107003 otherwise; NULL is the default stream). It takes effect for
 *     the launches submitted afterwards: a kernel's SQE carries overflowEn, copied from the
 *     stream when the launch is made.
 *   - A kernel that overflows with overflowEn set completes with TS_ERROR_AICORE_OVERFLOW: the
 *     stream's error slot takes it (PreCheckTaskErr), so the next synchronize returns
 *     ACL_ERROR_RT_AICORE_OVER_FLOW (207003) -- which aclrtSynchronizeStreamImpl logs as a
 *     success -- but it is a warning, not an exception: no exception-info report
 *     (DoCompleteSuccessForDavinciTask) and no stop-on-failure abort (ProcReportIsException).
 *     The overflow also sets the device's float status, which is process-wide on A2/A3
 *     (docs/zh/api_ref/04: "溢出状态是进程级别的").
 *   - aclrtGetOverflowStatus(outputAddr, 64, stream) is a stream task that copies the status,
 *     64 bytes (OVERFLOW_OUTPUT_SIZE; another size is 107000), into device memory at
 *     outputAddr (GetSatStatusForStars, then a device-to-device copy). NULL outputAddr is
 *     100000; a capturing stream 107027; no context 107002; another context's stream 107003.
 *   - aclrtResetOverflowStatus(stream) is a stream task that clears it (NpuClearFloatStatus).
 *
 * The simulator's device status is a word of ACLSIM_BLOCK_STATUS_* bits (overflow: bit 0),
 * set when a launch reports an overflow with its switch on; the 64 bytes written by
 * aclrtGetOverflowStatus are that word, little-endian, then zeros: zero means no overflow,
 * as the real status (simulator choice for the layout, which is the TS firmware's).
 *
 * A kernel reports an overflow by calling aclsimKernelRaiseOverflow() (kernel_operator.h);
 * the AI core collects it after the block (device.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "sim.h"
#include "aclsim_chip.h"

#define OVERFLOW_OUTPUT_SIZE 64u /* task_base.hpp: "keep consistent with GE" */

/* The stream a switch or status call names, in the current context: NULL is the default
 * stream. +1 ref, or NULL with the code in *rc. */
static sim_stream *current_stream(aclrtStream stream, const char *func, aclError *rc)
{
    sim_context *c = sim_current_context(func);
    if (!c) {
        *rc = ACL_ERROR_RT_CONTEXT_NULL;
        return NULL;
    }
    sim_stream *s = sim_stream_resolve(stream, func, rc);
    if (s && s->ctx != c) {
        *rc = sim_fail_(func, ACL_ERROR_RT_STREAM_CONTEXT, "the stream does not belong to the current context");
        sim_obj_put(&s->obj);
        s = NULL;
    }
    sim_obj_put(&c->obj);
    return s;
}

SIM_API aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
    SIM_CHECK_PROCESS();
    if (flag != 0 && flag != 1)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "flag must be 0 or 1, not %u", flag);
    aclError rc = ACL_SUCCESS;
    if (stream) { /* rtSetStreamOverflowSwitch validates the handle before anything else */
        sim_stream *h = sim_stream_resolve(stream, __func__, &rc);
        if (!h)
            return rc;
        rc = sim_capture_stream_busy(h, __func__); /* ApiErrorDecorator: 107027 */
        sim_obj_put(&h->obj);
        if (rc)
            return rc;
    }
    sim_stream *s = current_stream(stream, __func__, &rc);
    if (!s)
        return rc;
    pthread_mutex_lock(&s->lock);
    s->overflow_switch = flag;
    pthread_mutex_unlock(&s->lock);
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(flag);
    aclError rc = ACL_SUCCESS;
    sim_stream *s = current_stream(stream, __func__, &rc);
    if (!s)
        return rc;
    /* ApiImpl::GetStreamOverflowSwitch: the stream's switch on STARS chips, 1 on the others
     * (ChipIsHaveStars; the chip description's engine). */
    const aclsimChip *chip = aclsimGetChip();
    pthread_mutex_lock(&s->lock);
    *flag = !chip || chip->engine == ACLSIM_ENGINE_STARS ? s->overflow_switch : 1;
    pthread_mutex_unlock(&s->lock);
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

aclError sim_overflow_report(sim_stream *s, const sim_task *t, uint32_t status, char *msg, size_t msglen)
{
    if (!(status & ACLSIM_BLOCK_STATUS_OVERFLOW) || !t->u.kernel.overflow_en)
        return ACL_SUCCESS; /* without overflowEn the hardware does not check */
    atomic_fetch_or(&s->dev->overflow_status, ACLSIM_BLOCK_STATUS_OVERFLOW);
    snprintf(msg, msglen, "kernel %s: a floating-point result overflowed (AI core overflow)", t->u.kernel.fn->desc->name);
    return ACL_ERROR_RT_AICORE_OVER_FLOW;
}

bool sim_overflow_absorb(sim_stream *s, aclError rc, const char *msg)
{
    if (rc != ACL_ERROR_RT_AICORE_OVER_FLOW)
        return false;
    pthread_mutex_lock(&s->lock);
    s->error = rc; /* Stream::SetErrCode: the latest outcome wins, as for failures */
    snprintf(s->errmsg, sizeof s->errmsg, "%s", msg);
    pthread_mutex_unlock(&s->lock);
    return true;
}

/* ------------------------------------------------------------------ status tasks --------- */

static aclError run_get_status(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    uint8_t out[OVERFLOW_OUTPUT_SIZE] = {0};
    uint32_t status = atomic_load(&s->dev->overflow_status);
    for (unsigned i = 0; i < 4; i++)
        out[i] = (uint8_t)(status >> (8 * i));
    /* On the copy engine, as the real device-to-device copy: a freed output faults there. */
    return sim_copy_execute(s->dev->id, (void *)(uintptr_t)sim_op_arg(t, 0), out, sizeof out, false, 0, msg, msglen);
}

static aclError run_reset_status(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    (void)t;
    (void)msg;
    (void)msglen;
    atomic_store(&s->dev->overflow_status, 0);
    return ACL_SUCCESS;
}

static const sim_task_ops k_get_status = {.run = run_get_status};
static const sim_task_ops k_reset_status = {.run = run_reset_status};

static aclError submit_status_task(aclrtStream stream, const sim_task_ops *ops, uint64_t addr, const char *func)
{
    aclError rc = ACL_SUCCESS;
    sim_stream *s = sim_stream_resolve(stream, func, &rc);
    if (!s)
        return rc;
    rc = sim_capture_stream_busy(s, func); /* ApiErrorDecorator::Get/CleanDeviceSatStatus */
    sim_obj_put(&s->obj);
    if (rc)
        return rc;
    if (!(s = current_stream(stream, func, &rc)))
        return rc;
    if (ops == &k_get_status && !sim_device_range((const void *)(uintptr_t)addr, OVERFLOW_OUTPUT_SIZE, NULL)) {
        rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                       "outputAddr %#llx is not %u bytes of device memory (allocate it with aclrtMalloc)",
                       (unsigned long long)addr, OVERFLOW_OUTPUT_SIZE);
    } else {
        rc = sim_op_submit(s, ops, &addr, 1, func);
    }
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(outputAddr);
    if (outputSize != OVERFLOW_OUTPUT_SIZE)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "outputSize %zu is invalid: only %u bytes are supported", outputSize,
                        OVERFLOW_OUTPUT_SIZE);
    return submit_status_task(stream, &k_get_status, (uint64_t)(uintptr_t)outputAddr, __func__);
}

SIM_API aclError aclrtResetOverflowStatus(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    return submit_status_task(stream, &k_reset_status, 0, __func__);
}
