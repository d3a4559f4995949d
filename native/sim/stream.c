/*
 * aiocann simulator: streams.
 *
 * A stream is an ordered queue of tasks executed by its own worker thread, so tasks of one
 * stream run in submission order and different streams run concurrently (sharing the
 * device's AI cores and copy engine). Submitting only appends under the stream lock; the
 * worker executes with no stream lock held (except for event records and resets, see
 * worker_main) and publishes progress as `completed`, the sequence number of the last
 * finished task, which is what synchronize calls wait for.
 *
 * Errors: the first failing task (a kernel fault or timeout, a faulting copy, a wait on an
 * event whose stream failed) puts the stream into a sticky error state. Later kernels, copies
 * and memsets of that stream are skipped, because their inputs can no longer be trusted; event
 * records still complete (carrying the error, so waiters on other streams learn of it) and
 * host callbacks are still delivered (so nobody waiting on one hangs). Synchronize and query
 * report the error, with the failing task's description as the recent error message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

sim_task *sim_task_new(sim_task_type type)
{
    sim_task *t = calloc(1, sizeof *t);
    if (t)
        t->type = type;
    return t;
}

void sim_task_free(sim_task *t)
{
    switch (t->type) {
    case SIM_TASK_KERNEL:
        if (t->u.kernel.owns_args)
            free(t->u.kernel.args);
        sim_obj_put(&t->u.kernel.fn->obj);
        break;
    case SIM_TASK_EVENT_RECORD:
    case SIM_TASK_EVENT_RESET:
    case SIM_TASK_EVENT_WAIT:
        sim_obj_put(&t->u.event.event->obj);
        break;
    case SIM_TASK_CALLBACK:
        sim_subscriber_put(t->u.callback.sub);
        break;
    default:
        break;
    }
    free(t);
}

static aclError execute(sim_stream *s, sim_task *t, aclError err, const char *errmsg, char *msg, size_t msglen)
{
    switch (t->type) {
    case SIM_TASK_KERNEL:
        return err ? ACL_SUCCESS : sim_kernel_execute(s, t, msg, msglen);
    case SIM_TASK_MEMCPY:
    case SIM_TASK_MEMSET:
        if (err)
            return ACL_SUCCESS;
        return sim_copy_execute(t->u.copy.device, t->u.copy.dst, t->u.copy.src, t->u.copy.count,
                                t->type == SIM_TASK_MEMSET, t->u.copy.value, msg, msglen);
    case SIM_TASK_EVENT_RECORD:
        sim_event_execute_record(t->u.event.event, t->u.event.gen, err, errmsg);
        return ACL_SUCCESS;
    case SIM_TASK_EVENT_RESET:
        sim_event_execute_reset(t->u.event.event, t->u.event.gen);
        return ACL_SUCCESS;
    case SIM_TASK_EVENT_WAIT:
        return sim_event_execute_wait(t->u.event.event, t->u.event.gen, msg, msglen);
    case SIM_TASK_CALLBACK:
        sim_callback_execute(t->u.callback.sub, t->u.callback.fn, t->u.callback.user_data, t->u.callback.block,
                             s->obj.handle, err);
        return ACL_SUCCESS;
    }
    return ACL_SUCCESS;
}

static void trace_task(sim_stream *s, const sim_task *t, uint64_t t0, aclError status)
{
    static const int32_t types[] = {
        [SIM_TASK_KERNEL] = ACLSIM_TRACE_KERNEL,           [SIM_TASK_MEMCPY] = ACLSIM_TRACE_MEMCPY,
        [SIM_TASK_MEMSET] = ACLSIM_TRACE_MEMSET,           [SIM_TASK_EVENT_RECORD] = ACLSIM_TRACE_EVENT_RECORD,
        [SIM_TASK_EVENT_RESET] = ACLSIM_TRACE_EVENT_RESET, [SIM_TASK_EVENT_WAIT] = ACLSIM_TRACE_EVENT_WAIT,
        [SIM_TASK_CALLBACK] = ACLSIM_TRACE_CALLBACK,
    };
    aclsimTraceRecord r = {.start_ns = t0, .end_ns = sim_now_ns(), .stream = (uint64_t)(uintptr_t)s->obj.handle,
                           .seq = t->seq, .device = s->dev->id, .core = -1, .block = -1, .type = types[t->type],
                           .status = status};
    switch (t->type) {
    case SIM_TASK_KERNEL:
        r.block = (int32_t)t->u.kernel.num_blocks;
        snprintf(r.name, sizeof r.name, "%s", t->u.kernel.fn->desc->name);
        break;
    case SIM_TASK_MEMCPY:
    case SIM_TASK_MEMSET:
        r.bytes = t->u.copy.count;
        break;
    case SIM_TASK_EVENT_RECORD:
    case SIM_TASK_EVENT_RESET:
    case SIM_TASK_EVENT_WAIT:
        r.bytes = (uint64_t)(uintptr_t)t->u.event.event->obj.handle;
        break;
    default:
        break;
    }
    sim_trace_add(&r);
}

static void *worker_main(void *arg)
{
    sim_stream *s = arg;
    char name[16];
    snprintf(name, sizeof name, "aclsim%d-stream", s->dev->id);
    pthread_setname_np(pthread_self(), name);
    char errmsg[sizeof s->errmsg], msg[sizeof s->errmsg];
    s->guard = sim_fault_thread_init(); /* the worker runs kernel blocks on borrowed cores */

    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->head && !s->stopping) {
            s->worker_idle = true;
            pthread_cond_wait(&s->work_cv, &s->lock);
            s->worker_idle = false;
        }
        if (!s->head)
            break; /* stopping, and every task has run */
        sim_task *t = s->head;
        s->head = t->next;
        if (!s->head)
            s->tail = NULL;
        aclError err = s->error;
        if (err)
            memcpy(errmsg, s->errmsg, sizeof errmsg);
        else
            errmsg[0] = '\0';
        /* Event records and resets run under the stream lock, so that the event's completion
         * and the stream's progress (`completed`) are published together: whoever sees the
         * event complete and then queries the stream sees its tasks up to the record done,
         * and the reverse. They only take the event's lock (stream->lock > event->lock). */
        bool publish_together = t->type == SIM_TASK_EVENT_RECORD || t->type == SIM_TASK_EVENT_RESET;
        if (!publish_together)
            pthread_mutex_unlock(&s->lock);

        msg[0] = '\0';
        bool trace = sim_trace_on();
        uint64_t t0 = trace ? sim_now_ns() : 0;
        aclError rc = execute(s, t, err, errmsg, msg, sizeof msg);
        if (trace)
            trace_task(s, t, t0, rc ? rc : err);

        if (!publish_together)
            pthread_mutex_lock(&s->lock);
        if (rc && !s->error) {
            s->error = rc;
            memcpy(s->errmsg, msg, sizeof s->errmsg);
        }
        s->completed = t->seq;
        if (s->waiters)
            pthread_cond_broadcast(&s->done_cv);
        pthread_mutex_unlock(&s->lock);
        sim_task_free(t);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    sim_fault_thread_fini(s->guard);
    s->guard = NULL;
    return NULL;
}

uint64_t sim_stream_submit(sim_stream *s, sim_task *t)
{
    pthread_mutex_lock(&s->lock);
    if (s->stopping) {
        pthread_mutex_unlock(&s->lock);
        sim_task_free(t);
        return 0;
    }
    t->seq = ++s->submitted;
    t->next = NULL;
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
    if (s->worker_idle)
        pthread_cond_signal(&s->work_cv);
    uint64_t seq = t->seq;
    pthread_mutex_unlock(&s->lock);
    return seq;
}

int sim_stream_wait_seq(sim_stream *s, uint64_t seq, int32_t timeout_ms)
{
    struct timespec ts;
    bool timed = sim_deadline(timeout_ms, &ts);
    int rc = 0;
    pthread_mutex_lock(&s->lock);
    s->waiters++;
    while (s->completed < seq && rc == 0)
        rc = timed ? pthread_cond_timedwait(&s->done_cv, &s->lock, &ts) : pthread_cond_wait(&s->done_cv, &s->lock);
    if (s->completed >= seq)
        rc = 0;
    s->waiters--;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

aclError sim_stream_error(sim_stream *s, char *msg, size_t msglen)
{
    pthread_mutex_lock(&s->lock);
    aclError e = s->error;
    if (e && msg)
        snprintf(msg, msglen, "%s", s->errmsg);
    pthread_mutex_unlock(&s->lock);
    return e;
}

static void stream_destroy(sim_obj *o)
{
    sim_stream *s = (sim_stream *)o;
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->work_cv);
    pthread_cond_destroy(&s->done_cv);
    free(s);
}

sim_stream *sim_stream_create(sim_context *ctx, bool is_default, uint32_t priority, uint32_t flags, aclError *rc)
{
    sim_device *d = ctx->dev;
    if (d->num_streams >= g_rt.cfg.max_streams) {
        *rc = sim_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "device %d already has %d streams (the limit)", d->id,
                       d->num_streams);
        return NULL;
    }
    sim_stream *s = calloc(1, sizeof *s);
    if (!s) {
        *rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
        return NULL;
    }
    sim_obj_init(&s->obj, SIM_KIND_STREAM, stream_destroy);
    s->dev = d;
    s->ctx = ctx;
    s->is_default = is_default;
    s->priority = priority;
    s->flags = flags;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->work_cv, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->done_cv, &ca);
    pthread_condattr_destroy(&ca);
    if (!sim_handle_open(&s->obj)) {
        stream_destroy(&s->obj);
        *rc = sim_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "handle table is full");
        return NULL;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    int err = pthread_create(&s->thread, &attr, worker_main, s);
    pthread_attr_destroy(&attr);
    if (err) {
        sim_obj_put(sim_handle_close(s->obj.handle, SIM_KIND_STREAM));
        *rc = sim_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "cannot start a stream thread: %s", strerror(err));
        return NULL;
    }
    s->next = d->streams;
    d->streams = s;
    d->num_streams++;
    return s;
}

void sim_stream_shutdown(sim_stream *s)
{
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL); /* the worker drains every queued task first */
    sim_callback_stream_gone(s);
    sim_obj *o = sim_handle_close(s->obj.handle, SIM_KIND_STREAM);
    if (o)
        sim_obj_put(o);
}

sim_stream *sim_stream_resolve(aclrtStream stream, const char *func, aclError *rc)
{
    if (!stream) {
        sim_context *c = sim_current_context(func);
        if (!c) {
            *rc = ACL_ERROR_RT_CONTEXT_NULL;
            return NULL;
        }
        sim_stream *s = c->default_stream;
        sim_obj_get(&s->obj);
        sim_obj_put(&c->obj);
        *rc = ACL_SUCCESS;
        return s;
    }
    sim_stream *s = (sim_stream *)sim_handle_get(stream, SIM_KIND_STREAM);
    *rc = ACL_SUCCESS;
    if (!s)
        *rc = sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "stream %p is not a live stream (destroyed, or not a stream)",
                        stream);
    return s;
}

sim_stream *sim_stream_for_work(aclrtStream stream, const char *func, aclError *rc)
{
    sim_stream *s = sim_stream_resolve(stream, func, rc);
    if (!s)
        return NULL;
    sim_context *c = sim_current_context(func);
    if (!c) {
        *rc = ACL_ERROR_RT_CONTEXT_NULL;
    } else {
        int cur = c->dev->id;
        sim_obj_put(&c->obj);
        if (cur == s->dev->id) {
            *rc = ACL_SUCCESS;
            return s;
        }
        *rc = sim_fail_(func, ACL_ERROR_RT_STREAM_CONTEXT,
                        "the stream belongs to device %d but the current context is on device %d", s->dev->id, cur);
    }
    sim_obj_put(&s->obj);
    return NULL;
}

/* ------------------------------------------------------------------ API ------------------ */

static aclError create(aclrtStream *stream, uint32_t priority, uint32_t flags, const char *func)
{
    SIM_CHECK_NOT_NULL(stream);
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    aclError rc = ACL_SUCCESS;
    sim_device *d = c->dev;
    pthread_mutex_lock(&d->lock);
    /* The context may have been destroyed since the lookup: creating a stream in it would leak. */
    sim_obj *still = sim_handle_get(c->obj.handle, SIM_KIND_CONTEXT);
    sim_stream *s = still ? sim_stream_create(c, false, priority, flags, &rc) : NULL;
    if (!still)
        rc = sim_fail_(func, ACL_ERROR_RT_CONTEXT_NULL, "the current context was destroyed");
    pthread_mutex_unlock(&d->lock);
    sim_obj_put(still);
    sim_obj_put(&c->obj);
    if (s)
        *stream = s->obj.handle;
    return rc;
}

SIM_API aclError aclrtCreateStream(aclrtStream *stream) { return create(stream, 0, 0, __func__); }

SIM_API aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    SIM_CHECK_PROCESS();
    const uint32_t known = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE |
                           ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
    if (flag & ~known)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "unknown stream flag bits 0x%x", flag & ~known);
    return create(stream, priority, flag, __func__);
}

SIM_API aclError aclrtDestroyStream(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    aclError rc;
    sim_stream *s = sim_stream_for_work(stream, __func__, &rc);
    if (!s)
        return rc;
    sim_obj *table_ref = sim_handle_close(stream, SIM_KIND_STREAM);
    if (!table_ref) {
        sim_obj_put(&s->obj);
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "stream %p was destroyed concurrently", stream);
    }
    sim_device_forget_stream(s);
    sim_stream_shutdown(s);
    sim_obj_put(table_ref);
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

/* Waits for everything submitted so far; reports the stream's error. */
static aclError synchronize(aclrtStream stream, int32_t timeout, const char *func)
{
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, func, &rc);
    if (!s)
        return rc;
    pthread_mutex_lock(&s->lock);
    uint64_t target = s->submitted;
    pthread_mutex_unlock(&s->lock);
    int w = sim_stream_wait_seq(s, target, timeout);
    char msg[sizeof s->errmsg];
    rc = sim_stream_error(s, msg, sizeof msg);
    if (rc)
        sim_error_message(func, msg);
    else if (w == ETIMEDOUT)
        rc = sim_fail_(func, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "tasks still pending after %d ms", timeout);
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtSynchronizeStream(aclrtStream stream) { return synchronize(stream, -1, __func__); }

SIM_API aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    SIM_CHECK_PROCESS();
    if (timeout < -1)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d is invalid (-1 waits forever, >= 0 is a limit in ms)",
                        timeout);
    return synchronize(stream, timeout, __func__);
}

SIM_API aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(status);
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    pthread_mutex_lock(&s->lock);
    *status = s->completed == s->submitted ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    rc = s->error;
    pthread_mutex_unlock(&s->lock);
    aclError snap;
    if (sim_callback_snapshot(stream, &snap)) { /* inside this stream's callback: as of delivery */
        *status = ACL_STREAM_STATUS_NOT_READY;
        rc = snap;
    }
    if (rc) {
        char msg[sizeof s->errmsg];
        sim_stream_error(s, msg, sizeof msg);
        sim_error_message(__func__, msg);
    }
    sim_obj_put(&s->obj);
    return rc;
}
