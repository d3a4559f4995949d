/*
 * aiocann simulator: events.
 *
 * An event counts its records: aclrtRecordEvent takes the next generation at submission time
 * and the record task, when its stream reaches it, publishes that generation as done with a
 * timestamp. aclrtEventGetTimestamp gives it as the real one does: in microseconds since the
 * device started (Event::GetTimeStamp; each device has its own clock, see device.c), while
 * elapsed times are computed from the underlying CLOCK_MONOTONIC nanoseconds. A wait
 * (aclrtStreamWaitEvent, aclrtSynchronizeEvent) captures the newest generation submitted at
 * the time of the call and waits for it, so a record made after the wait was issued never
 * satisfies it early, and waiting on a never-recorded event returns at once.
 *
 * Events carry no error (ApiImpl::EventSynchronize / EventQueryStatus only check the
 * context): a record executed after a failed task completes normally, and a stream waiting on
 * it goes on. Only in a failed stop-on-failure context do synchronize and query return the
 * context's error.
 *
 * Stream capture (capture.c) takes over a record, reset or wait that involves a capturing
 * stream or an event recorded in an active capture, before any generation is taken here; an
 * event with such a record cannot be synchronized, queried or timed (107028).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "aclsim_chip.h"

#define KNOWN_FLAGS                                                                                             \
    (ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY |      \
     ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)

static void event_destroy(sim_obj *o)
{
    sim_event *e = (sim_event *)o;
    atomic_fetch_sub(&e->dev->num_events, 1);
    sim_ipc_event_release(e->ipc);
    sim_obj_put(&e->ctx->obj);
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->cv);
    free(e);
}

static aclError create(aclrtEvent *event, uint32_t flags, sim_ipc_event *ipc, const char *func)
{
    SIM_CHECK_NOT_NULL(event);
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_device *d = c->dev;
    if (atomic_fetch_add(&d->num_events, 1) >= g_rt.cfg.max_events) {
        atomic_fetch_sub(&d->num_events, 1);
        sim_obj_put(&c->obj);
        return sim_fail_(func, ACL_ERROR_RT_NO_EVENT_RESOURCE, "device %d already has %d events (the limit)", d->id,
                         g_rt.cfg.max_events);
    }
    sim_event *e = calloc(1, sizeof *e);
    if (!e) {
        atomic_fetch_sub(&d->num_events, 1);
        sim_obj_put(&c->obj);
        return sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    sim_obj_init(&e->obj, SIM_KIND_EVENT, event_destroy);
    e->record_flag = e->wait_flag = UINT32_MAX; /* none used yet (Event::recordFlag_/waitFlag_) */
    e->dev = d;
    e->ctx = c; /* keeps the context's reference until the event is destroyed */
    e->flags = flags;
    pthread_mutex_init(&e->lock, NULL);
    sim_cond_init_monotonic(&e->cv);
    if (flags == ACL_EVENT_IPC) { /* issue 23: its state is the shared page (ipc_event.c) */
        e->ex_mode = true;
        aclError rc = ipc ? (e->ipc = ipc, ACL_SUCCESS) : sim_ipc_event_setup(e, func);
        if (rc) {
            event_destroy(&e->obj);
            return rc;
        }
    }
    if (!sim_handle_open(&e->obj)) {
        if (ipc)
            e->ipc = NULL; /* the caller still owns the page it opened */
        event_destroy(&e->obj);
        return sim_fail_(func, ACL_ERROR_RT_NO_EVENT_RESOURCE, "handle table is full");
    }
    *event = e->obj.handle;
    return ACL_SUCCESS;
}

/* aclrtCreateEvent's defaults carry timestamps and allow waits and resets. */
SIM_API aclError aclrtCreateEvent(aclrtEvent *event)
{
    SIM_CHECK_PROCESS();
    return create(event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE, NULL, __func__);
}

SIM_API aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    SIM_CHECK_PROCESS();
    if (flag & ~(uint32_t)KNOWN_FLAGS)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "unknown event flag bits 0x%x", flag & ~(uint32_t)KNOWN_FLAGS);
    /* ApiErrorDecorator::EventCreate: RT_EVENT_FLAG_MAX leaves RT_EVENT_IPC out -- IPC events
     * come from aclrtCreateEventExWithFlag only. */
    if (flag & ACL_EVENT_IPC)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "ACL_EVENT_IPC events are created by aclrtCreateEventExWithFlag, not aclrtCreateEventWithFlag");
    return create(event, flag, NULL, __func__);
}

/* issue 23: an IPC event -- the creator's (ie NULL: its page is made here) or one opened from
 * a handle (ie: the opened page, the event's on success). */
aclError sim_event_create_ipc(aclrtEvent *event, sim_ipc_event *ie, const char *func)
{
    aclError rc = sim_ipc_event_supported(func);
    return rc ? rc : create(event, ACL_EVENT_IPC, ie, func);
}

static sim_event *lookup(aclrtEvent event, const char *func, aclError *rc)
{
    sim_event *e = (sim_event *)sim_handle_get(event, SIM_KIND_EVENT);
    if (!e)
        *rc = sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "event %p is not a live event (destroyed, or not an event)",
                        event);
    return e;
}

SIM_API aclError aclrtDestroyEvent(aclrtEvent event)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(event);
    /* Allowed while records are pending: their tasks hold references until they execute. */
    sim_obj *o = sim_handle_close(event, SIM_KIND_EVENT);
    if (!o)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "event %p is not a live event", event);
    if (((sim_event *)o)->ipc) /* the creator's handle opens no more from now on (ipc_event.c) */
        sim_ipc_event_unshare(((sim_event *)o)->ipc);
    sim_obj_put(o);
    return ACL_SUCCESS;
}

static aclError check_flag_use(sim_event *e, bool record, uint32_t flag, const char *func);

/* Shared by record and reset: validates, then enqueues an event task on the stream. A record's
 * flag (ACL_EVENT_RECORD_DEFAULT for aclrtRecordEvent) must be the event's record flag. */
static aclError submit(aclrtEvent event, aclrtStream stream, const sim_task_ops *type, uint32_t flag, const char *func)
{
    SIM_CHECK_NOT_NULL(event);
    aclError rc;
    sim_event *e = lookup(event, func, &rc);
    if (!e)
        return rc;
    if (type == &sim_task_event_record && (rc = check_flag_use(e, true, flag, func))) {
        sim_obj_put(&e->obj);
        return rc;
    }
    if (type == &sim_task_event_reset && e->ex_mode) { /* ApiErrorDecorator::EventReset */
        sim_obj_put(&e->obj);
        return sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "events from aclrtCreateEventExWithFlag cannot be reset (they need no reset)");
    }
    /* ApiErrorDecorator::EventReset: only events a wait can use (SYNC, EXTERNAL) can be reset. */
    if (type == &sim_task_event_reset && !(e->flags & (ACL_EVENT_SYNC | ACL_EVENT_EXTERNAL))) {
        sim_obj_put(&e->obj);
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "event was created without ACL_EVENT_SYNC and cannot be reset");
    }
    sim_stream *s = sim_stream_for_work(stream, func, &rc);
    if (!s) {
        sim_obj_put(&e->obj);
        return rc;
    }
    if ((type == &sim_task_event_record && flag == ACL_EVENT_RECORD_EXTERNAL) ||
        sim_capture_event_op(s, e, type, func, &rc)) {
        if (type == &sim_task_event_record && flag == ACL_EVENT_RECORD_EXTERNAL) /* issue 23: graphs only */
            rc = sim_capture_external_flag_op(s, e, true, func);
        sim_obj_put(&s->obj);
        sim_obj_put(&e->obj);
        return rc;
    }
    sim_task *t = sim_task_new(type);
    if (!t) {
        sim_obj_put(&s->obj);
        sim_obj_put(&e->obj);
        return sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    sim_obj_get(&e->obj);
    t->u.event.event = e; /* the task's own reference */
    pthread_mutex_lock(&e->lock);
    uint64_t gen = type == &sim_task_event_record ? (e->ipc ? sim_ipc_event_take(e->ipc) : ++e->record_gen)
                                                  : e->record_gen;
    t->u.event.gen = gen;
    pthread_mutex_unlock(&e->lock);
    rc = sim_stream_submit(s, t, func, NULL);
    if (rc && e->ipc) { /* the slot's reference is dropped: a later wait passes (ipc_event.c) */
        sim_ipc_event_complete(e->ipc, (uint32_t)gen);
    } else if (rc && type == &sim_task_event_record) {
        /* Refused: the record will never execute, so it must not be waited for. */
        pthread_mutex_lock(&e->lock);
        if (e->record_gen == gen)
            e->record_gen--;
        pthread_mutex_unlock(&e->lock);
    }
    sim_obj_put(&s->obj);
    sim_obj_put(&e->obj);
    return rc;
}

SIM_API aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    return submit(event, stream, &sim_task_event_record, ACL_EVENT_RECORD_DEFAULT, __func__);
}

SIM_API aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    return submit(event, stream, &sim_task_event_reset, 0, __func__);
}

/* The wait both aclrtStreamWaitEvent and aclrtStreamWaitEventWithFlag submit; timeout_s is the
 * wait task's timeout, or WAIT_OP_TIMEOUT for what aclrtSetOpWaitTimeout set. */
#define WAIT_OP_TIMEOUT UINT32_MAX
static aclError wait_submit(aclrtStream stream, aclrtEvent event, uint32_t timeout_s, uint32_t flag,
                            const char *func);

SIM_API aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    SIM_CHECK_PROCESS();
    return wait_submit(stream, event, WAIT_OP_TIMEOUT, ACL_EVENT_WAIT_DEFAULT, __func__);
}

static aclError wait_submit(aclrtStream stream, aclrtEvent event, uint32_t timeout_s, uint32_t flag,
                            const char *func)
{
    SIM_CHECK_NOT_NULL(event);
    aclError rc;
    sim_event *e = lookup(event, func, &rc);
    if (!e)
        return rc;
    /* Event::IsEventWithoutWaitTask: only SYNC, EXTERNAL and IPC events can be waited on. */
    if (!(e->flags & (ACL_EVENT_SYNC | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC))) {
        sim_obj_put(&e->obj);
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "event was created without ACL_EVENT_SYNC and cannot be waited on");
    }
    if ((rc = check_flag_use(e, false, flag, func))) { /* ApiErrorDecorator::StreamWaitEvent */
        sim_obj_put(&e->obj);
        return rc;
    }
    sim_stream *s = sim_stream_for_work(stream, func, &rc);
    if (!s) {
        sim_obj_put(&e->obj);
        return rc;
    }
    if (flag == ACL_EVENT_WAIT_EXTERNAL) { /* issue 23: in captured graphs only (capture.c) */
        rc = sim_capture_external_flag_op(s, e, false, func);
        sim_obj_put(&s->obj);
        sim_obj_put(&e->obj);
        return rc;
    }
    if (sim_capture_event_op(s, e, &sim_task_event_wait, func, &rc)) {
        sim_obj_put(&s->obj);
        sim_obj_put(&e->obj);
        return rc;
    }
    pthread_mutex_lock(&e->lock);
    uint64_t gen = e->ipc ? sim_ipc_event_pending(e->ipc) : e->record_gen;
    pthread_mutex_unlock(&e->lock);
    if (gen == 0) { /* never recorded (IPC: no record pending in any process): nothing to wait for */
        sim_obj_put(&s->obj);
        sim_obj_put(&e->obj);
        return ACL_SUCCESS;
    }
    sim_task *t = sim_task_new(&sim_task_event_wait);
    if (!t) {
        sim_obj_put(&s->obj);
        sim_obj_put(&e->obj);
        return sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    t->u.event.event = e;
    t->u.event.gen = gen;
    /* rtStreamWaitEvent passes Runtime::GetWaitTimeout(), what aclrtSetOpWaitTimeout set
     * (op_timeout.c), into the wait task when it is made. */
    t->u.event.timeout_s = timeout_s == WAIT_OP_TIMEOUT ? sim_op_wait_timeout_s() : timeout_s;
    /* Counted before it can run (sim_event_execute_wait counts it done), and uncounted if
     * the stream refuses it: aclrtQueryEventWaitStatus compares the two. A refused task is
     * freed with the task's reference, so hold one more across the submission. */
    sim_obj_get(&e->obj);
    pthread_mutex_lock(&e->lock);
    e->waits_submitted++;
    pthread_mutex_unlock(&e->lock);
    rc = sim_stream_submit(s, t, func, NULL);
    if (rc) {
        pthread_mutex_lock(&e->lock);
        e->waits_submitted--;
        pthread_mutex_unlock(&e->lock);
    }
    sim_obj_put(&e->obj);
    sim_obj_put(&s->obj);
    return rc;
}

static void sim_event_execute_record(sim_event *e, uint64_t gen)
{
    pthread_mutex_lock(&e->lock);
    if (gen > e->done_gen) {
        e->done_gen = gen;
        e->timestamp_ns = sim_now_ns();
    }
    pthread_cond_broadcast(&e->cv);
    sim_waitq_wake_all(&e->parked);
    pthread_mutex_unlock(&e->lock);
}

/* Record gen will never execute (discard_record): host synchronizes and queries waiting for it
 * return code; stream-side waits keep waiting, as the hardware's do. */
static void sim_event_record_lost(sim_event *e, uint64_t gen, aclError code)
{
    pthread_mutex_lock(&e->lock);
    if (gen > e->lost_gen) {
        e->lost_gen = gen;
        e->lost_code = code;
    }
    pthread_cond_broadcast(&e->cv); /* a host synchronize waiting for it gives up */
    sim_waitq_wake_all(&e->parked); /* a closing stream's wait, too */
    pthread_mutex_unlock(&e->lock);
}

/* The latest record can never happen (sim_event_record_lost): its code, else 0. e->lock held. */
static aclError lost_locked(const sim_event *e, uint64_t target)
{
    return e->done_gen < target && e->lost_gen >= target ? e->lost_code : ACL_SUCCESS;
}

static void sim_event_execute_reset(sim_event *e, uint64_t gen)
{
    (void)gen;
    pthread_mutex_lock(&e->lock);
    e->reset_gen = e->done_gen; /* records done so far no longer count as "recorded" */
    pthread_mutex_unlock(&e->lock);
}

static aclError sim_event_execute_wait(sim_stream *s, sim_event *e, uint64_t gen, uint32_t timeout_s, char *msg,
                                       size_t msglen)
{
    struct timespec ts;
    bool timed = timeout_s && sim_deadline((int32_t)(timeout_s > 2000000u ? 2000000000u : timeout_s * 1000u), &ts);
    int w = 0;
    sim_stream_block_on(s, &e->lock, &e->cv, NULL); /* an abort wakes us through e->cv */
    pthread_mutex_lock(&e->lock);
    /* A record that will never happen (sim_event_record_lost) is waited for as the hardware
     * waits -- until the waiting stream is shut down (simulator choice: the teardown would
     * otherwise wait for good). */
    while (e->done_gen < gen && w == 0 && !sim_stream_abort_requested(s) &&
           !(lost_locked(e, gen) && atomic_load(&s->closing)))
        w = timed ? pthread_cond_timedwait(&e->cv, &e->lock, &ts) : pthread_cond_wait(&e->cv, &e->lock);
    bool expired = e->done_gen < gen && w == ETIMEDOUT;
    e->waits_done++; /* issue 11: aclrtQueryEventWaitStatus */
    pthread_mutex_unlock(&e->lock);
    sim_stream_unblock(s);
    if (!expired)
        return ACL_SUCCESS;
    /* The wait task's timeout (TS_ERROR_TASK_TIMEOUT, SetStarsResultCommon) -> 107020. */
    snprintf(msg, msglen, "the stream waited %u s for an event record (aclrtSetOpWaitTimeout) and gave up", timeout_s);
    return ACL_ERROR_RT_TASK_TIMEOUT;
}

/* A replayed model's record, reset and wait of an event: a replay has no generation fixed at
 * submission, so they act on the event's state when they run -- a record sets it, a reset
 * clears it, and a wait blocks until it is set (the hardware event flag), or s is aborted. */
static void sim_event_record_now(sim_event *e)
{
    pthread_mutex_lock(&e->lock);
    e->done_gen = ++e->record_gen;
    e->timestamp_ns = sim_now_ns();
    pthread_cond_broadcast(&e->cv);
    sim_waitq_wake_all(&e->parked);
    pthread_mutex_unlock(&e->lock);
}

static void sim_event_reset_now(sim_event *e)
{
    pthread_mutex_lock(&e->lock);
    e->reset_gen = e->done_gen;
    pthread_mutex_unlock(&e->lock);
}

static void sim_event_wait_set(sim_stream *s, sim_event *e)
{
    sim_stream_block_on(s, &e->lock, &e->cv, NULL);
    pthread_mutex_lock(&e->lock);
    while (e->done_gen <= e->reset_gen && !sim_stream_abort_requested(s))
        pthread_cond_wait(&e->cv, &e->lock);
    pthread_mutex_unlock(&e->lock);
    sim_stream_unblock(s);
}

/* ------------------------------------------------------------------ the event tasks ------- */

/* Events carry no error (Event::Synchronize only waits for the record): a record or reset
 * never fails. Both run under their stream's lock (publish_with_stream), taking only the
 * event's lock (stream->lock > event->lock), so that the event's completion and the stream's
 * progress are seen together. A replay has no generation fixed at submission: its record,
 * reset and wait act on the event's state when they run (the *_now functions). */
static aclError run_record(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)msg, (void)msglen;
    if (t->u.event.event->ipc)
        sim_ipc_event_complete(t->u.event.event->ipc, (uint32_t)t->u.event.gen);
    else
        sim_event_execute_record(t->u.event.event, t->u.event.gen);
    return ACL_SUCCESS;
}

/* issue 23: the generation a replay's external record or wait got from its aclmdlRIExecuteAsync
 * (capture.c), or 0 with *ext false for the other captured event tasks. */
static uint64_t external_gen(const sim_task *rt, const sim_task *t, bool *ext)
{
    *ext = t->u.event.gen && rt && rt->u.model.ext_gen;
    return *ext ? rt->u.model.ext_gen[t->u.event.gen - 1] : 0;
}

uint64_t sim_event_external_take(sim_event *e, bool record)
{
    pthread_mutex_lock(&e->lock);
    uint64_t gen = record ? ++e->record_gen : e->record_gen;
    pthread_mutex_unlock(&e->lock);
    return gen;
}

void sim_event_external_untake(sim_event *e, uint64_t gen, bool record)
{
    if (!record)
        return;
    pthread_mutex_lock(&e->lock);
    bool latest = e->record_gen == gen;
    if (latest) /* as a refused aclrtRecordEvent: never happened */
        e->record_gen--;
    pthread_mutex_unlock(&e->lock);
    if (!latest) /* a later record was taken meanwhile: whoever waits for this one goes on */
        sim_event_execute_record(e, gen);
}

static aclError replay_record(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)msg, (void)msglen;
    bool ext;
    uint64_t gen = external_gen(rt, t, &ext);
    if (ext) /* the record its execution committed (CommitExternalEventRecords) */
        sim_event_execute_record(t->u.event.event, gen);
    else
        sim_event_record_now(t->u.event.event);
    return ACL_SUCCESS;
}

/* A record that will never execute still triggers its event, so no waiter hangs -- except
 * behind a stop-on-failure abort on a STARS chip (aclsim_chip.h). On HWTS chips the host
 * triggers it (Stream::EnterFailureAbort -> TaskTriggerEvent), and the event then carries the
 * context's failure to whoever asks. On STARS chips the runtime runs without that host thread
 * (Runtime::GetDisableThread, set for every STARS device in RawDevice::Init), EnterFailureAbort
 * triggers nothing and the stream's queue is never re-enabled: the record never happens. A
 * host waiting on it gets the recording stream's failure (Event::WaitTask ->
 * Stream::SynchronizeImpl, Event::QueryEventTask -> CheckContextStatus); a stream waiting on
 * it waits on (sim_event_record_lost). The other discards (a forced destroy, an abort) trigger
 * the record. */
static void discard_record(sim_stream *s, sim_task *t, bool stop_abort)
{
    if (t->u.event.event->ipc) { /* its slot's reference is dropped (ipc_event.c) */
        sim_ipc_event_complete(t->u.event.event->ipc, (uint32_t)t->u.event.gen);
        return;
    }
    if (stop_abort) {
        const aclsimChip *chip = aclsimGetChip();
        if (chip && chip->engine == ACLSIM_ENGINE_STARS) {
            sim_event_record_lost(t->u.event.event, t->u.event.gen, atomic_load(&s->ctx->failure_error));
            return;
        }
    }
    sim_event_execute_record(t->u.event.event, t->u.event.gen);
}

/* A replay that stops (a failure in stop mode, an abort) still triggers the records it skips. */
static void replay_discard_record(const sim_task *rt, const sim_task *t)
{
    bool ext;
    uint64_t gen = external_gen(rt, t, &ext);
    if (ext)
        sim_event_execute_record(t->u.event.event, gen);
    else
        sim_event_record_now(t->u.event.event);
}

static aclError run_reset(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)msg, (void)msglen;
    sim_event_execute_reset(t->u.event.event, t->u.event.gen);
    return ACL_SUCCESS;
}

static aclError replay_reset(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)rt, (void)msg, (void)msglen;
    sim_event_reset_now(t->u.event.event);
    return ACL_SUCCESS;
}

static void discard_wait(sim_stream *s, sim_task *t, bool stop_abort);

/* The parking form of sim_event_execute_wait (executor.c): the same conditions, checked each
 * time the stream is woken -- by a record (or a lost one) of e, its deadline, an abort, a
 * forced destroy or the shutdown. */
static aclError run_wait(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    sim_event *e = t->u.event.event;
    if (e->ipc) { /* issue 23: another process may record it, which only the page's futex hears:
                   * the stream parks on the futex watch (futex_watch.c) */
        aclError rc = sim_ipc_event_wait(s, t, e->ipc, (uint32_t)t->u.event.gen, t->u.event.timeout_s,
                                         sim_task_can_park(s, t), msg, msglen);
        if (rc != SIM_TASK_PARKED)
            discard_wait(s, t, false); /* counted done, as sim_event_execute_wait does */
        return rc;
    }
    uint64_t gen = t->u.event.gen;
    uint32_t timeout_s = t->u.event.timeout_s;
    if (!sim_task_can_park(s, t))
        return sim_event_execute_wait(s, e, gen, timeout_s, msg, msglen);
    if (!t->parked) {
        pthread_mutex_lock(&e->lock);
        if (e->done_gen >= gen) { /* recorded already, the common case: no parking machinery */
            e->waits_done++;
            pthread_mutex_unlock(&e->lock);
            return ACL_SUCCESS;
        }
        pthread_mutex_unlock(&e->lock);
        if (timeout_s)
            t->wait_deadline_ns = sim_now_ns() + (uint64_t)timeout_s * 1000000000ull;
    }
    sim_park_arm(s); /* before the check that decides to park: a wake-up after it is not lost */
    pthread_mutex_lock(&e->lock);
    sim_waitq_remove(&e->parked, s);
    bool expired = false;
    if (e->done_gen < gen && !sim_stream_abort_requested(s) && !(lost_locked(e, gen) && atomic_load(&s->closing))) {
        if (!t->wait_deadline_ns || sim_now_ns() < t->wait_deadline_ns) {
            sim_waitq_add(&e->parked, s);
            pthread_mutex_unlock(&e->lock);
            return sim_park(s, t, t->wait_deadline_ns);
        }
        expired = true;
    }
    e->waits_done++; /* issue 11: aclrtQueryEventWaitStatus */
    pthread_mutex_unlock(&e->lock);
    if (!expired)
        return ACL_SUCCESS;
    /* The wait task's timeout (TS_ERROR_TASK_TIMEOUT, SetStarsResultCommon) -> 107020. */
    snprintf(msg, msglen, "the stream waited %u s for an event record (aclrtSetOpWaitTimeout) and gave up", timeout_s);
    return ACL_ERROR_RT_TASK_TIMEOUT;
}

/* The parking form of a replayed wait (sim_replay_can_park; capture.c goes on from it when s is
 * woken): the conditions of sim_event_execute_wait for an EXTERNAL wait on record `gen`, or of
 * sim_event_wait_set for a wait on the event's flag (gen 0), checked each time s is woken -- by
 * a record (or a lost one) of e, an abort, a forced destroy or the shutdown. */
static aclError park_replay_wait(sim_stream *s, const sim_task *rt, sim_event *e, uint64_t gen)
{
    sim_park_arm(s); /* before the check that decides to park: a wake-up after it is not lost */
    pthread_mutex_lock(&e->lock);
    sim_waitq_remove(&e->parked, s);
    bool pending = gen ? e->done_gen < gen && !(lost_locked(e, gen) && atomic_load(&s->closing))
                       : e->done_gen <= e->reset_gen;
    if (pending && !sim_stream_abort_requested(s)) {
        sim_waitq_add(&e->parked, s);
        pthread_mutex_unlock(&e->lock);
        return sim_park(s, (sim_task *)rt, 0); /* the replay's stream parks, with rt at its head */
    }
    if (gen)
        e->waits_done++;
    pthread_mutex_unlock(&e->lock);
    return ACL_SUCCESS;
}

static aclError replay_wait(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    bool ext;
    uint64_t gen = external_gen(rt, t, &ext);
    sim_event *e = t->u.event.event;
    /* EXTERNAL: the record the event had when the model was executed; none: nothing to wait
     * for. (Its waits_done count has no reader: EXTERNAL needs an Ex event, which refuses
     * aclrtQueryEventWaitStatus.) No timeout: an EXTERNAL wait's is 0. */
    if (ext && !gen)
        return ACL_SUCCESS;
    if (!e->ipc && sim_replay_can_park(s, rt))
        return park_replay_wait(s, rt, e, ext ? gen : 0);
    if (ext)
        return sim_event_execute_wait(s, e, gen, 0, msg, msglen);
    sim_event_wait_set(s, e);
    return ACL_SUCCESS;
}

/* A wait that will never run is gone: it no longer holds aclrtQueryEventWaitStatus. */
static void discard_wait(sim_stream *s, sim_task *t, bool stop_abort)
{
    (void)s, (void)stop_abort;
    sim_event *e = t->u.event.event;
    pthread_mutex_lock(&e->lock);
    e->waits_done++;
    pthread_mutex_unlock(&e->lock);
}

static void release_event(sim_task *t) { sim_obj_put(&t->u.event.event->obj); }

static void trace_event(const sim_task *t, aclsimTraceRecord *r)
{
    r->bytes = (uint64_t)(uintptr_t)t->u.event.event->obj.handle;
}

const sim_task_ops sim_task_event_record = {
    .run = run_record,
    .replay = replay_record,
    .discard = discard_record,
    .replay_discard = replay_discard_record,
    .release = release_event,
    .trace = trace_event,
    .trace_type = ACLSIM_TRACE_EVENT_RECORD,
    .publish_with_stream = true,
};

const sim_task_ops sim_task_event_reset = {
    .run = run_reset,
    .replay = replay_reset,
    .release = release_event, /* a discarded reset simply does not happen */
    .trace = trace_event,
    .trace_type = ACLSIM_TRACE_EVENT_RESET,
    .publish_with_stream = true,
};

const sim_task_ops sim_task_event_wait = {
    .run = run_wait,
    .replay = replay_wait,
    .discard = discard_wait,
    .release = release_event,
    .trace = trace_event,
    .trace_type = ACLSIM_TRACE_EVENT_WAIT,
};

static bool recorded_locked(const sim_event *e)
{
    return e->record_gen > 0 && e->done_gen == e->record_gen && e->done_gen > e->reset_gen;
}

SIM_API aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(event);
    SIM_CHECK_NOT_NULL(status);
    aclError rc;
    sim_event *e = lookup(event, __func__, &rc);
    if (!e)
        return rc;
    if (!(rc = sim_capture_event_busy(e, __func__)) && !(rc = sim_context_failure(e->ctx, __func__))) {
        pthread_mutex_lock(&e->lock);
        *status = recorded_locked(e) ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
        if (e->ipc) /* IpcEventQuery: complete unless a record is pending in some process */
            *status = sim_ipc_event_complete_now(e->ipc) ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                                         : ACL_EVENT_RECORDED_STATUS_NOT_READY;
        else if (e->ex_mode && e->record_gen == 0) /* new mode: no record yet is complete (Event::QueryEventStatus) */
            *status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
        aclError lost = lost_locked(e, e->record_gen);
        pthread_mutex_unlock(&e->lock);
        /* Event::QueryEventTask: the recording stream's context failure (CheckContextStatus) */
        if (lost)
            rc = sim_fail(lost, "the event's record follows a failed task of a stream that stopped on failure");
    }
    sim_obj_put(&e->obj);
    return rc;
}

static aclError synchronize(aclrtEvent event, int32_t timeout, const char *func)
{
    SIM_CHECK_NOT_NULL(event);
    aclError rc;
    sim_event *e = lookup(event, func, &rc);
    if (!e)
        return rc;
    if ((rc = sim_capture_event_busy(e, func)) || (rc = sim_context_failure(e->ctx, func))) {
        sim_obj_put(&e->obj);
        return rc;
    }
    if (e->ipc) { /* IpcEventSync */
        rc = sim_ipc_event_sync(e->ipc, e->ctx, timeout, func);
        sim_obj_put(&e->obj);
        return rc;
    }
    struct timespec ts;
    bool timed = sim_deadline(timeout, &ts);
    int w = 0;
    pthread_mutex_lock(&e->lock);
    uint64_t target = e->record_gen;
    while (e->done_gen < target && !lost_locked(e, target) && w == 0)
        w = timed ? pthread_cond_timedwait(&e->cv, &e->lock, &ts) : pthread_cond_wait(&e->cv, &e->lock);
    aclError lost = lost_locked(e, target);
    if (lost) /* Event::WaitTask -> Stream::SynchronizeImpl of the aborted recording stream */
        rc = sim_fail_(func, lost,
                       "the event's record follows a failed task of a stream that stopped on failure: it never happens");
    else if (e->done_gen < target)
        rc = sim_fail_(func, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "event not complete after %d ms", timeout);
    pthread_mutex_unlock(&e->lock);
    if (!rc) /* a failure in a stop-on-failure context while we waited (the record triggered) */
        rc = sim_context_failure(e->ctx, func);
    sim_obj_put(&e->obj);
    return rc;
}

SIM_API aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    SIM_CHECK_PROCESS();
    return synchronize(event, -1, __func__);
}

SIM_API aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    SIM_CHECK_PROCESS();
    if (timeout < -1)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d is invalid (-1 waits forever, >= 0 is a limit in ms)",
                        timeout);
    return synchronize(event, timeout, __func__);
}

/* The timestamp of a completed record, or an error code. e->lock held. */
static aclError timestamp_locked(sim_event *e, uint64_t *ts, const char *func, const char *which)
{
    if (e->flags & (ACL_EVENT_EXTERNAL | ACL_EVENT_IPC))
        return sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s event is an EXTERNAL or IPC event: no timestamps",
                         which);
    if (!(e->flags & ACL_EVENT_TIME_LINE))
        return sim_fail_(func, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                         "%s event was created without ACL_EVENT_TIME_LINE: no timestamps", which);
    if (!recorded_locked(e)) {
        if (e->record_gen > e->done_gen)
            return sim_fail_(func, ACL_ERROR_RT_EVENT_NOT_COMPLETE, "%s event has not completed yet", which);
        /* GetTimestamp of a never-recorded event: RT_ERROR_EVENT_RECORDER_NULL -> 507000. */
        return sim_fail_(func, ACL_ERROR_RT_INTERNAL_ERROR, "%s event has not been recorded", which);
    }
    *ts = e->timestamp_ns;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(event);
    SIM_CHECK_NOT_NULL(timestamp);
    aclError rc;
    sim_event *e = lookup(event, __func__, &rc);
    if (!e)
        return rc;
    uint64_t ns = 0;
    if (!(rc = sim_capture_event_busy(e, __func__))) {
        pthread_mutex_lock(&e->lock);
        rc = timestamp_locked(e, &ns, __func__, "the");
        pthread_mutex_unlock(&e->lock);
    }
    if (!rc) /* microseconds on the device's own clock (event.cc: syscnt / ticks per us) */
        *timestamp = (ns - e->dev->clock_origin_ns) / 1000u;
    sim_obj_put(&e->obj);
    return rc;
}

SIM_API aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(ms);
    SIM_CHECK_NOT_NULL(startEvent);
    SIM_CHECK_NOT_NULL(endEvent);
    aclError rc;
    sim_event *a = lookup(startEvent, __func__, &rc);
    if (!a)
        return rc;
    sim_event *b = lookup(endEvent, __func__, &rc);
    if (!b) {
        sim_obj_put(&a->obj);
        return rc;
    }
    uint64_t ta = 0, tb = 0;
    if ((rc = sim_capture_event_busy(a, __func__)) || (rc = sim_capture_event_busy(b, __func__))) {
        sim_obj_put(&a->obj);
        sim_obj_put(&b->obj);
        return rc;
    }
    pthread_mutex_lock(&a->lock);
    rc = timestamp_locked(a, &ta, __func__, "start");
    pthread_mutex_unlock(&a->lock);
    if (!rc) {
        pthread_mutex_lock(&b->lock);
        rc = timestamp_locked(b, &tb, __func__, "end");
        pthread_mutex_unlock(&b->lock);
    }
    if (!rc && tb < ta)
        rc = sim_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL, "the end event completed %.3f ms before the start event",
                      (double)(ta - tb) / 1e6);
    if (!rc)
        *ms = (float)((double)(tb - ta) / 1e6);
    sim_obj_put(&a->obj);
    sim_obj_put(&b->obj);
    return rc;
}

/* ------------------------------------------------------------------ with flags (issue 23) */

/* aclrtRecordEventWithFlag / aclrtStreamWaitEventWithFlag (event.cpp, stream.cpp, and
 * ApiErrorDecorator::EventRecord / StreamWaitEvent): the flag is DEFAULT or EXTERNAL (100000
 * from the ACL layer otherwise); a DEFAULT record is aclrtRecordEvent. EXTERNAL -- a record or
 * wait another process or device observes -- needs an event of aclrtCreateEventExWithFlag with
 * exactly ACL_EVENT_SYNC (207000 otherwise), and an EXTERNAL wait a timeout of 0. The runtime
 * layer keeps one record flag and one wait flag per event, set by the first record or wait of
 * any kind (aclrtRecordEvent and aclrtStreamWaitEvent are DEFAULT ones): a later operation with
 * the other flag is 107000. The simulated device has no other observer, so an EXTERNAL record or wait
 * orders the streams as a DEFAULT one does. A wait's timeout (seconds; 0: none) is its task's. */
static aclError check_flag_use(sim_event *e, bool record, uint32_t flag, const char *func)
{
    if (flag == ACL_EVENT_RECORD_EXTERNAL && (!e->ex_mode || e->flags != ACL_EVENT_SYNC))
        return sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "ACL_EVENT_%s_EXTERNAL for an event not created by aclrtCreateEventExWithFlag with "
                         "ACL_EVENT_SYNC", record ? "RECORD" : "WAIT");
    pthread_mutex_lock(&e->lock);
    uint32_t *slot = record ? &e->record_flag : &e->wait_flag;
    uint32_t cur = *slot;
    if (cur == UINT32_MAX)
        *slot = flag;
    pthread_mutex_unlock(&e->lock);
    if (cur != UINT32_MAX && cur != flag)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                         "the %s flag must remain consistent for the same event: it was %s, now %s",
                         record ? "record" : "wait", cur ? "EXTERNAL" : "DEFAULT", flag ? "EXTERNAL" : "DEFAULT");
    return ACL_SUCCESS;
}

SIM_API aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(event);
    if (flag != ACL_EVENT_RECORD_DEFAULT && flag != ACL_EVENT_RECORD_EXTERNAL)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "flag %u must be ACL_EVENT_RECORD_DEFAULT or ACL_EVENT_RECORD_EXTERNAL",
                        flag);
    return submit(event, stream, &sim_task_event_record, flag, __func__);
}

SIM_API aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout, uint32_t flag)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(event);
    if (flag != ACL_EVENT_WAIT_DEFAULT && flag != ACL_EVENT_WAIT_EXTERNAL)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "flag %u must be ACL_EVENT_WAIT_DEFAULT or ACL_EVENT_WAIT_EXTERNAL", flag);
    if (flag == ACL_EVENT_WAIT_EXTERNAL && timeout != 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "timeout %u must be 0 when flag is ACL_EVENT_WAIT_EXTERNAL", timeout);
    return wait_submit(stream, event, timeout, flag, __func__);
}
