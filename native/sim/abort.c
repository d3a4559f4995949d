/*
 * aiocann simulator: aborting the work of a stream (aclrtStreamAbort) or of a whole device
 * (aclrtDeviceTaskAbort).
 *
 * The real runtime (hicann/runtime src/acl/aclrt_impl/stream.cpp, device.cpp;
 * src/runtime/api/api_c_stream.cc rtStreamAbort, api_c_device.cc rtDeviceTaskAbort;
 * src/runtime/api/impl/api_error.cc StreamAbort, DeviceTaskAbort; api_impl.cc;
 * src/runtime/core/src/context/context.cc Context::StreamAbort;
 * src/runtime/core/src/context/context_manage.cc DeviceTaskAbort, DeviceAbort, DeviceClean;
 * src/runtime/core/src/stream/stream.cc ResClear, ResetStreamConstruct, GetSynchronizeError;
 * stars_engine.cc; docs/zh/api_ref/06_stream_management.md, 04_device_management.md):
 *
 * aclrtStreamAbort(stream): a bad handle is 107017; NULL is the current context's default
 * stream (no context: 107000, GetCurStream finds none); no current context 107002; a stream of
 * another context 107003. The stream enters the abort state: its running task is killed and
 * its queued tasks are dropped; while that lasts, submissions to it fail with 107023
 * (STREAM_ABORT_SEND_TASK_FAIL) and synchronize calls waiting on it return 107023 (the docs:
 * "同步等待接口会退出并返回ACL_ERROR_RT_STREAM_ABORT"). Then ResClear resets the stream
 * (ResetStreamConstruct): no pending error (a later synchronize returns 0), its failure mode
 * back to the configured one (a stop-on-failure abort is over), task ids from 0 again. The
 * context's stop-on-failure error stays. A stream abort during a device abort does nothing.
 * If the kill does not finish within 60 s (STREAM_ABORT_TIMEOUT) the call returns 107019 and
 * the stream stays in the abort state.
 *
 * aclrtDeviceTaskAbort(deviceId, timeout): timeout in ms, 0 = no limit, at most 36 min
 * (107000); an unknown device 107001; a device without a context in this process 107002
 * (DeviceAbort finds none). The device enters the task-abort state -- submissions and
 * synchronizes on it return 107022, and failures are not reported to exception callbacks
 * (TaskFailCallBack) -- every stream of every context on it is killed and emptied, then
 * DeviceClean resets the streams and clears every context's stop-on-failure error (the only
 * in-process way to un-poison one) and the device's state. Past the timeout the call returns
 * 107019 and the device stays in the abort state until a later abort completes.
 *
 * How the simulator kills (stream.c, device.c): the stream's `aborting` flag makes its worker
 * discard every task it has not started (as a stop-on-failure abort does: event records still
 * trigger, so no other stream or host waits forever -- the real docs warn that such waiters
 * may hang); a running kernel's unclaimed blocks are skipped and its running blocks
 * interrupted like a timed-out launch's; a running wait (event, notify, blocking host callback
 * not yet taken by its thread) is woken and ends. A host callback already running is user code
 * and is waited for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

#define STREAM_ABORT_TIMEOUT_MS 60000u        /* context.cc STREAM_ABORT_TIMEOUT */
#define TASK_ABORT_TIMEOUT_MAX_MS (36u * 60u * 1000u) /* api_error.cc TASK_ABORT_TIMEOUT_MAX */

/* Puts s in the abort state: nothing new joins its queue, synchronizers leave with code,
 * the running task is ended. Returns the sequence number of the last task to drop. */
static uint64_t begin(sim_stream *s, aclError code)
{
    pthread_mutex_lock(&s->lock);
    atomic_store(&s->abort_code, code);
    atomic_store(&s->aborting, true);
    atomic_fetch_add(&s->abort_epoch, 1); /* waiting synchronizers return code (stream.c) */
    uint64_t target = s->submitted;
    pthread_cond_broadcast(&s->done_cv);
    pthread_mutex_unlock(&s->lock);
    sim_stream_interrupt(s);
    sim_pool_kill(&s->dev->pool, &s->running_job);
    return target;
}

/* Waits until s's worker has dropped everything up to target. 0, or ETIMEDOUT at deadline_ns
 * (0: none). */
static int drain(sim_stream *s, uint64_t target, uint64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000ull), .tv_nsec = (long)(deadline_ns % 1000000000ull)};
    int w = 0;
    pthread_mutex_lock(&s->lock);
    s->waiters++;
    while (atomic_load(&s->completed) < target && w == 0)
        w = deadline_ns ? pthread_cond_timedwait(&s->done_cv, &s->lock, &ts) : pthread_cond_wait(&s->done_cv, &s->lock);
    bool done = atomic_load(&s->completed) >= target;
    s->waiters--;
    pthread_mutex_unlock(&s->lock);
    return done ? 0 : ETIMEDOUT;
}

/* ResetStreamConstruct: the stream is normal again, with no error and fresh task ids. */
static void finish(sim_stream *s)
{
    pthread_mutex_lock(&s->lock);
    s->error = ACL_SUCCESS;
    s->errmsg[0] = '\0';
    s->aborted = false;          /* failureMode_ = GetMode(): the configured mode */
    s->last_task = UINT16_MAX;   /* lastTaskId_ = MAX_UINT16_NUM, taskIdFlipNum_ = 0 */
    s->task_flip = 0;
    atomic_store(&s->aborting, false);
    pthread_cond_broadcast(&s->done_cv);
    pthread_mutex_unlock(&s->lock);
}

SIM_API aclError aclrtStreamAbort(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    aclError rc = ACL_SUCCESS;
    sim_stream *s;
    if (stream) {
        if (!(s = sim_stream_resolve(stream, __func__, &rc)))
            return rc;
    } else {
        /* GetCurStream: the default stream of the current context, or none -- 107000. */
        sim_context *c = sim_current_context_quiet();
        if (!c)
            return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "stream is NULL and there is no current context");
        s = c->default_stream;
        sim_obj_get(&s->obj);
        sim_obj_put(&c->obj);
    }
    sim_context *c = sim_current_context(__func__);
    if (!c) {
        sim_obj_put(&s->obj);
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    if (s->ctx != c)
        rc = sim_fail(ACL_ERROR_RT_STREAM_CONTEXT, "the stream does not belong to the current context");
    else if (atomic_load(&s->dev->task_abort))
        rc = ACL_SUCCESS; /* the device abort takes care of it */
    else {
        uint64_t target = begin(s, ACL_ERROR_RT_STREAM_ABORT);
        if (drain(s, target, sim_now_ns() + STREAM_ABORT_TIMEOUT_MS * 1000000ull) == ETIMEDOUT) {
            rc = sim_fail(ACL_ERROR_RT_WAIT_TIMEOUT,
                          "the stream's running task did not end within %u ms (a host callback that does not return?)",
                          STREAM_ABORT_TIMEOUT_MS);
        } else {
            finish(s);
            rc = ACL_SUCCESS;
        }
    }
    sim_obj_put(&c->obj);
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout)
{
    SIM_CHECK_PROCESS();
    if (timeout > TASK_ABORT_TIMEOUT_MAX_MS)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %u ms exceeds the maximum, %u ms (36 min)", timeout,
                        TASK_ABORT_TIMEOUT_MAX_MS);
    aclError rc = ACL_SUCCESS;
    sim_device *d = sim_device_arg(deviceId, __func__, &rc);
    if (!d)
        return rc;
    uint64_t deadline = timeout ? sim_now_ns() + (uint64_t)timeout * 1000000ull : 0;

    /* DeviceAbort: every stream of every context on the device, with references. */
    pthread_mutex_lock(&d->lock);
    if (!d->active || !d->contexts) {
        pthread_mutex_unlock(&d->lock);
        return sim_fail(ACL_ERROR_RT_CONTEXT_NULL, "device %d has no context in this process", deviceId);
    }
    int n = d->num_streams, k = 0;
    sim_stream **list = calloc((size_t)(n > 0 ? n : 1), sizeof *list);
    uint64_t *targets = calloc((size_t)(n > 0 ? n : 1), sizeof *targets);
    if (!list || !targets) {
        pthread_mutex_unlock(&d->lock);
        free(list);
        free(targets);
        return sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    for (sim_stream *s = d->streams; s && k < n; s = s->next) {
        sim_obj_get(&s->obj);
        list[k++] = s;
    }
    atomic_store(&d->task_abort, true);
    pthread_mutex_unlock(&d->lock);

    for (int i = 0; i < k; i++)
        targets[i] = begin(list[i], ACL_ERROR_RT_DEVICE_TASK_ABORT);
    rc = ACL_SUCCESS;
    for (int i = 0; i < k && !rc; i++)
        if (drain(list[i], targets[i], deadline) == ETIMEDOUT)
            rc = sim_fail(ACL_ERROR_RT_WAIT_TIMEOUT,
                          "the device's tasks did not end within %u ms; the device stays in the abort state", timeout);
    if (!rc) {
        /* DeviceClean: the streams are reset, the contexts' failure errors cleared. */
        for (int i = 0; i < k; i++)
            finish(list[i]);
        pthread_mutex_lock(&d->lock);
        for (sim_context *c = d->contexts; c; c = c->next)
            atomic_store(&c->failure_error, ACL_SUCCESS);
        atomic_store(&d->task_abort, false);
        pthread_mutex_unlock(&d->lock);
    }
    for (int i = 0; i < k; i++)
        sim_obj_put(&list[i]->obj);
    free(list);
    free(targets);
    return rc;
}
