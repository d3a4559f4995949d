/*
 * aiocann simulator: host callbacks (aclrtSubscribeReport / aclrtLaunchCallback /
 * aclrtProcessReport / aclrtUnSubscribeReport).
 *
 * A subscriber is a processing thread, identified by the pthread_self() value it passes to
 * aclrtSubscribeReport (CPython's threading.get_ident() is that value). Binding rules: a
 * stream has at most one processing thread (107011 otherwise, for the same thread again too); a
 * thread serves streams of one
 * device only (107012). When a stream reaches a callback task, its worker hands a report to
 * the subscriber's queue; aclrtProcessReport, called by that thread, runs every queued report
 * in the calling thread. For ACL_CALLBACK_BLOCK the stream waits until the callback has
 * returned, so later tasks of the stream wait too -- parked, its worker free for other streams
 * (executor.c), and woken by aclrtProcessReport; for NO_BLOCK it continues at once.
 *
 * A subscriber stays registered while it serves a stream or still has reports queued, so a
 * thread that unsubscribes its last stream can still drain what was already delivered -- but
 * not past aclFinalize: reports of a finished session (whose callbacks and user data may be
 * gone) are dropped, and a thread must subscribe again after the next aclInit. aclFinalize
 * and aclrtResetDeviceForce drop the reports no thread has taken before they drain the
 * streams (sim_callback_close), so a blocking callback nobody processes cannot hold them;
 * aclrtResetDevice and aclrtDestroyStream wait for it, as for any task of the stream.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "spares.h"

#define MAX_SUBSCRIBERS 1024

static pthread_mutex_t g_lock = SIM_MUTEX_INITIALIZER; /* registry and stream->subscriber */
static sim_subscriber *g_subs;
static int g_nsubs;

/* A non-blocking report is made by a stream worker and freed by the processing thread: spares
 * (spares.h), not a cross-thread free each. (A blocking one lives on its worker's stack, or is
 * its parked task's.) 16384 of them are 640 KB. */
static spare_pool g_spare_reports = SPARE_POOL(sim_report, next, 16384);
static __thread spare_list t_spare_reports;

static sim_report *report_new(void)
{
    sim_report *r = spare_take(&g_spare_reports, &t_spare_reports);
    if (r)
        memset(r, 0, sizeof *r);
    return r ? r : calloc(1, sizeof *r);
}

static void report_free(sim_report *r) { spare_give(&g_spare_reports, r); }

void sim_subscriber_put(sim_subscriber *sub)
{
    if (sub && atomic_fetch_sub(&sub->refs, 1) == 1) {
        sim_report *r = sub->head;
        while (r) { /* undelivered non-blocking reports: nobody will run them now */
            sim_report *n = r->next;
            report_free(r);
            r = n;
        }
        pthread_mutex_destroy(&sub->lock);
        pthread_cond_destroy(&sub->cv);
        pthread_cond_destroy(&sub->done_cv);
        free(sub);
    }
}

static sim_subscriber *find_locked(uint64_t tid)
{
    for (sim_subscriber *s = g_subs; s; s = s->next)
        if (s->tid == tid)
            return s;
    return NULL;
}

/* Drops the registry's reference once the subscriber serves no stream and has nothing queued.
 * g_lock held. */
static void maybe_retire_locked(sim_subscriber *sub)
{
    pthread_mutex_lock(&sub->lock);
    bool idle = sub->num_streams == 0 && sub->head == NULL;
    pthread_mutex_unlock(&sub->lock);
    if (!idle)
        return;
    for (sim_subscriber **pp = &g_subs; *pp; pp = &(*pp)->next) {
        if (*pp == sub) {
            *pp = sub->next;
            g_nsubs--;
            sim_subscriber_put(sub);
            return;
        }
    }
}

/* s->subscriber is written under both g_lock and the stream's lock (g_lock first), so the
 * launch path can read it under the stream lock alone. */
static void set_subscriber(sim_stream *s, sim_subscriber *sub)
{
    pthread_mutex_lock(&s->lock);
    s->subscriber = sub;
    pthread_mutex_unlock(&s->lock);
}

static void unbind_locked(sim_stream *s)
{
    sim_subscriber *sub = s->subscriber;
    set_subscriber(s, NULL);
    pthread_mutex_lock(&sub->lock);
    sub->num_streams--;
    pthread_mutex_unlock(&sub->lock);
    maybe_retire_locked(sub);
    sim_subscriber_put(sub); /* the stream's reference */
}

SIM_API aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    pthread_mutex_lock(&g_lock);
    sim_subscriber *sub = find_locked(threadId);
    if (s->subscriber) {
        /* CbSubscribe::CheckForInsert: a stream already in the subscription map is
         * RT_ERROR_SUBSCRIBE_STREAM (107011), whichever thread serves it -- the same one too. */
        rc = s->subscriber->tid == threadId
                 ? sim_fail(ACL_ERROR_RT_STREAM_SUBSCRIBE, "thread %llu already serves this stream",
                            (unsigned long long)threadId)
                 : sim_fail(ACL_ERROR_RT_STREAM_SUBSCRIBE, "the stream is already served by thread %llu",
                            (unsigned long long)s->subscriber->tid);
    } else if (sub && sub->dev != s->dev) {
        rc = sim_fail(ACL_ERROR_RT_THREAD_SUBSCRIBE, "thread %llu already serves streams of device %d, not %d",
                      (unsigned long long)threadId, sub->dev->id, s->dev->id);
    } else if (!sub && g_nsubs >= MAX_SUBSCRIBERS) {
        rc = sim_fail(ACL_ERROR_RT_OVER_LIMIT, "already %d subscribed threads (the limit)", g_nsubs);
    } else {
        if (!sub) {
            sub = calloc(1, sizeof *sub);
            if (!sub) {
                pthread_mutex_unlock(&g_lock);
                sim_obj_put(&s->obj);
                return sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
            }
            atomic_init(&sub->refs, 1); /* the registry's */
            sub->tid = threadId;
            sub->dev = s->dev;
            sim_mutex_init(&sub->lock);
            sim_cond_init_monotonic(&sub->cv);
            pthread_cond_init(&sub->done_cv, NULL);
            sub->next = g_subs;
            g_subs = sub;
            g_nsubs++;
        }
        atomic_fetch_add(&sub->refs, 1); /* the stream's */
        pthread_mutex_lock(&sub->lock);
        sub->num_streams++;
        pthread_mutex_unlock(&sub->lock);
        set_subscriber(s, sub);
        rc = ACL_SUCCESS;
    }
    pthread_mutex_unlock(&g_lock);
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    pthread_mutex_lock(&g_lock);
    if (!s->subscriber || s->subscriber->tid != threadId) {
        rc = sim_fail(ACL_ERROR_RT_STREAM_SUBSCRIBE, "the stream is not served by thread %llu",
                      (unsigned long long)threadId);
    } else {
        unbind_locked(s);
        rc = ACL_SUCCESS;
    }
    pthread_mutex_unlock(&g_lock);
    sim_obj_put(&s->obj);
    return rc;
}

void sim_callback_stream_gone(sim_stream *s)
{
    pthread_mutex_lock(&g_lock);
    if (s->subscriber)
        unbind_locked(s);
    pthread_mutex_unlock(&g_lock);
}

/* Drops every report queued for sub and not yet taken by aclrtProcessReport, so its callback
 * never runs: a non-blocking one is freed; a blocking one belongs to the task that waits for it
 * (on its worker's stack, or its parked task's), which is told it is done and woken, and frees
 * it itself. sub->lock held. */
static void drop_queued_locked(sim_subscriber *sub)
{
    sim_report *r = sub->head;
    sub->head = sub->tail = NULL;
    while (r) {
        sim_report *next = r->next;
        if (r->block) {
            r->done = true;
            pthread_cond_broadcast(&sub->done_cv);
            if (r->parked)
                sim_stream_wake(r->parked);
        } else {
            report_free(r);
        }
        r = next;
    }
}

void sim_callback_close(const sim_device *d)
{
    pthread_mutex_lock(&g_lock);
    for (sim_subscriber *sub = g_subs; sub; sub = sub->next) {
        if (d && sub->dev != d)
            continue;
        pthread_mutex_lock(&sub->lock);
        sub->closed = true;
        drop_queued_locked(sub);
        pthread_mutex_unlock(&sub->lock);
    }
    pthread_mutex_unlock(&g_lock);
}

void sim_callback_reset(void)
{
    pthread_mutex_lock(&g_lock);
    sim_subscriber *list = g_subs;
    g_subs = NULL;
    g_nsubs = 0;
    pthread_mutex_unlock(&g_lock);
    while (list) {
        sim_subscriber *sub = list;
        list = sub->next;
        /* A thread still inside aclrtProcessReport holds its own reference: it finds the queue
         * empty, times out and drops it. sim_callback_close emptied the queues already, and
         * the streams were drained since, so nothing is left to drop -- but never leave one
         * waiting. */
        pthread_mutex_lock(&sub->lock);
        drop_queued_locked(sub);
        pthread_mutex_unlock(&sub->lock);
        sim_subscriber_put(sub); /* the registry's reference */
    }
}

SIM_API aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                     aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(fn);
    if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "blockType %d is neither ACL_CALLBACK_NO_BLOCK nor ACL_CALLBACK_BLOCK",
                        (int)blockType);
    aclError rc;
    sim_stream *s = sim_stream_for_work(stream, __func__, &rc);
    if (!s)
        return rc;
    pthread_mutex_lock(&s->lock);
    sim_subscriber *sub = s->subscriber;
    if (sub)
        atomic_fetch_add(&sub->refs, 1); /* the task's */
    pthread_mutex_unlock(&s->lock);
    if (!sub) {
        sim_obj_put(&s->obj);
        return sim_fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
                        "no thread processes reports for this stream: call aclrtSubscribeReport first");
    }
    sim_task *t = sim_task_new(&sim_task_callback);
    if (!t) {
        sim_subscriber_put(sub);
        sim_obj_put(&s->obj);
        return sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    t->u.callback.sub = sub;
    t->u.callback.fn = fn;
    t->u.callback.user_data = userData;
    t->u.callback.block = blockType == ACL_CALLBACK_BLOCK;
    rc = sim_stream_submit(s, t, __func__, NULL);
    sim_obj_put(&s->obj);
    return rc;
}

/* Unlinks r from sub's queue if it is still there (not yet taken by aclrtProcessReport).
 * sub->lock held. */
static bool withdraw_locked(sim_subscriber *sub, sim_report *r)
{
    sim_report *prev = NULL;
    for (sim_report *q = sub->head; q; prev = q, q = q->next) {
        if (q != r)
            continue;
        if (prev)
            prev->next = q->next;
        else
            sub->head = q->next;
        if (sub->tail == q)
            sub->tail = prev;
        return true;
    }
    return false;
}

static void sim_callback_execute(sim_stream *s, sim_subscriber *sub, aclrtCallback fn, void *user_data, bool block)
{
    sim_report stack_report = {.fn = fn, .user_data = user_data, .block = true};
    sim_report *r = block ? &stack_report : report_new();
    if (!r) {
        /* Out of memory for a non-blocking report: run it as a blocking one rather than lose it. */
        r = &stack_report;
        block = true;
    }
    r->fn = fn;
    r->user_data = user_data;
    r->block = block;
    pthread_mutex_lock(&sub->lock);
    if (sub->closed) { /* being torn down: the report is dropped (sim_callback_close) */
        pthread_mutex_unlock(&sub->lock);
        if (r != &stack_report)
            report_free(r);
        return;
    }
    if (sub->tail)
        sub->tail->next = r;
    else
        sub->head = r;
    sub->tail = r;
    if (block) {
        pthread_cond_signal(&sub->cv);
        pthread_mutex_unlock(&sub->lock);
        sim_stream_block_on(s, &sub->lock, &sub->done_cv, NULL); /* an abort wakes us */
        pthread_mutex_lock(&sub->lock);
        while (!r->done) {
            /* Aborted (issue 11, abort.c): a report no thread has taken yet is withdrawn, so
             * its callback never runs; one being run is waited for. */
            if (sim_stream_abort_requested(s) && withdraw_locked(sub, r))
                break;
            pthread_cond_wait(&sub->done_cv, &sub->lock);
        }
        pthread_mutex_unlock(&sub->lock);
        sim_stream_unblock(s);
        return;
    }
    pthread_mutex_unlock(&sub->lock);
}

void sim_callback_wake(sim_subscriber *sub)
{
    pthread_mutex_lock(&sub->lock);
    if (sub->head)
        pthread_cond_signal(&sub->cv);
    pthread_mutex_unlock(&sub->lock);
}

/* ------------------------------------------------------------------ the callback task ----- */

/* A non-blocking report is only queued: the worker owes the processing thread a wake-up,
 * which it may defer to wake it once for several reports (stream.c). A replay has no such
 * bookkeeping: it wakes the thread at once. */
/* A blocking report, parking (executor.c): the first run queues a report of callback task
 * cb's (kept in w->wait_ctx) and parks; each run after a wake-up -- the report processed, an
 * abort, a shutdown -- checks it again under the subscriber's lock. `w` is the task whose
 * parking it is: cb itself, or the replay cb is part of (sim_replay_can_park). Out of memory
 * for the report, the worker blocks instead (sim_callback_execute's report on its stack). */
static aclError park_callback(sim_stream *s, sim_task *w, const sim_task *cb)
{
    sim_subscriber *sub = cb->u.callback.sub;
    sim_report *r = w->wait_ctx;
    sim_park_arm(s);
    pthread_mutex_lock(&sub->lock);
    if (!r && sub->closed) { /* being torn down: the report is dropped (sim_callback_close) */
        pthread_mutex_unlock(&sub->lock);
        return ACL_SUCCESS;
    }
    if (!r) {
        if (!(r = calloc(1, sizeof *r))) {
            pthread_mutex_unlock(&sub->lock);
            sim_callback_execute(s, sub, cb->u.callback.fn, cb->u.callback.user_data, true);
            return ACL_SUCCESS;
        }
        r->fn = cb->u.callback.fn;
        r->user_data = cb->u.callback.user_data;
        r->block = true;
        w->wait_ctx = r;
        if (sub->tail)
            sub->tail->next = r;
        else
            sub->head = r;
        sub->tail = r;
        pthread_cond_signal(&sub->cv);
    }
    /* Aborted (issue 11, abort.c): a report no thread has taken yet is withdrawn, so its
     * callback never runs; one being run is waited for. */
    if (!r->done && !(sim_stream_abort_requested(s) && withdraw_locked(sub, r))) {
        r->parked = s;
        pthread_mutex_unlock(&sub->lock);
        return sim_park(s, w, 0);
    }
    pthread_mutex_unlock(&sub->lock);
    free(r);
    w->wait_ctx = NULL;
    return ACL_SUCCESS;
}

static aclError run_callback(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    (void)msg, (void)msglen;
    if (t->u.callback.block && sim_task_can_park(s, t))
        return park_callback(s, t, t);
    sim_callback_execute(s, t->u.callback.sub, t->u.callback.fn, t->u.callback.user_data, t->u.callback.block);
    if (!t->u.callback.block)
        sim_stream_owe_report(s, t->u.callback.sub);
    return ACL_SUCCESS;
}

static aclError replay_callback(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    (void)msg, (void)msglen;
    if (t->u.callback.block && sim_replay_can_park(s, rt)) /* capture.c goes on from it */
        return park_callback(s, (sim_task *)rt, t);
    sim_callback_execute(s, t->u.callback.sub, t->u.callback.fn, t->u.callback.user_data, t->u.callback.block);
    if (!t->u.callback.block)
        sim_callback_wake(t->u.callback.sub);
    return ACL_SUCCESS;
}

static void release_callback(sim_task *t) { sim_subscriber_put(t->u.callback.sub); }

/* Another non-blocking report for the thread the worker already owes a wake-up is short. */
static bool callback_defers_reports(const sim_stream *s, const sim_task *t)
{
    return !t->u.callback.block && t->u.callback.sub == s->owed_sub;
}

/* A blocking one is traced as it is handed over (stream.c). */
static bool callback_traced_at_start(const sim_task *t) { return t->u.callback.block; }

/* A discarded callback does not run (an aborted or force-destroyed stream's host callbacks
 * are dropped). */
const sim_task_ops sim_task_callback = {
    .run = run_callback,
    .replay = replay_callback,
    .release = release_callback,
    .defers_reports = callback_defers_reports,
    .traced_at_start = callback_traced_at_start,
    .trace_type = ACLSIM_TRACE_CALLBACK,
};

SIM_API aclError aclrtProcessReport(int32_t timeout)
{
    SIM_CHECK_PROCESS();
    if (timeout == 0 || timeout < -1)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "timeout %d is invalid (-1 waits forever, > 0 is a limit in ms)",
                        timeout);
    uint64_t tid = (uint64_t)pthread_self();
    pthread_mutex_lock(&g_lock);
    sim_subscriber *sub = find_locked(tid);
    if (sub)
        atomic_fetch_add(&sub->refs, 1);
    pthread_mutex_unlock(&g_lock);
    if (!sub)
        return sim_fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                        "the calling thread (%llu) is not subscribed to any stream: call aclrtSubscribeReport",
                        (unsigned long long)tid);

    struct timespec ts;
    bool timed = sim_deadline(timeout, &ts);
    int w = 0;
    pthread_mutex_lock(&sub->lock);
    while (!sub->head && w == 0)
        w = timed ? pthread_cond_timedwait(&sub->cv, &sub->lock, &ts) : pthread_cond_wait(&sub->cv, &sub->lock);
    sim_report *list = sub->head;
    sub->head = sub->tail = NULL;
    pthread_mutex_unlock(&sub->lock);

    aclError rc = ACL_SUCCESS;
    if (!list)
        rc = sim_fail(ACL_ERROR_RT_REPORT_TIMEOUT, "no callback report arrived within %d ms", timeout);
    while (list) {
        sim_report *r = list;
        list = r->next;
        r->fn(r->user_data); /* the user's callback, in this thread, no simulator lock held */
        if (r->block) {
            pthread_mutex_lock(&sub->lock);
            /* r lives on the blocked worker's stack, or is its parked task's (freed when it
             * runs again, which takes this lock first): do not touch it after the unlock. */
            r->done = true;
            pthread_cond_broadcast(&sub->done_cv);
            if (r->parked)
                sim_stream_wake(r->parked);
            pthread_mutex_unlock(&sub->lock);
        } else {
            report_free(r);
        }
    }
    pthread_mutex_lock(&g_lock);
    maybe_retire_locked(sub);
    pthread_mutex_unlock(&g_lock);
    sim_subscriber_put(sub);
    return rc;
}
