/*
 * aiocann simulator: streams.
 *
 * A stream is an ordered queue of tasks run by the executor's pool of workers (executor.c),
 * one turn on one worker at a time, so tasks of one stream run in submission order and
 * different streams run concurrently (sharing the device's AI cores and copy engine).
 * Submitting only appends under the stream lock, and schedules the stream when it is not;
 * the worker executes with no stream lock held (except for event records and resets, see
 * sim_stream_run_turn) and publishes progress as `completed`, the sequence number of the last
 * finished task, which is what synchronize calls wait for. "The worker" below is whichever
 * worker runs the stream's current turn.
 *
 * Failures follow the real runtime (hicann/runtime src/runtime/core/src/stream/stream.cc,
 * context/context.cc, stars_engine.cc; docs/zh/api_ref/06_stream_management.md):
 *  - Continue on failure (the default): a failed task (a kernel fault or timeout, a faulting
 *    copy) sets the stream's error slot, overwriting an older one, and the next tasks run.
 *    aclrtSynchronizeStream reports the error once and clears it; aclrtStreamQuery never
 *    reports it; events carry no error.
 *  - Which task failed is told to the exception-info callbacks (exception.c), which the worker
 *    runs before it moves on to the next task -- as the real runtime resumes a stream's queue
 *    only after completing the failed task (ProcLogicCqReport, then StarsResumeRtsq). So any
 *    task after the failed one, a host callback included, starts after the report was made.
 *  - Stop on failure (aclrtSetStreamFailureMode on any stream; each stream keeps the mode
 *    configured on it, and setting stop makes its whole context stop on failure): the
 *    first failure aborts its stream -- every later task is discarded unexecuted (host
 *    callbacks do not run; event records trigger on HWTS chips, never on STARS ones, see
 *    discard) -- and poisons the context: submissions, synchronize and query on any of its
 *    streams return that code.
 *
 * Abort (abort.c; aclrtStreamAbort, aclrtDeviceTaskAbort): while `aborting` is set the worker
 * discards every task instead of running it, a task that waits for something (an event, a
 * notify, a blocking host callback) is woken through the `blocker` it registered, submissions
 * are refused and synchronizers return the abort's code (Stream::GetAbortStatus).
 *
 * A stream in capture (capture.c) records what is submitted to it instead of queueing it
 * (sim_stream_submit's one hook), and cannot be synchronized, queried or destroyed; a model's
 * replay is a single task here, which runs the captured tasks and reports its own failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"
#include "spares.h"

/* Task recycling. Tasks are made by the submitting thread and finished by a stream worker:
 * spares (spares.h) rather than a cross-thread free each. A worker hands a turn's finished
 * tasks back a chain at a time, and a task may be reused on any stream.
 *
 * One pool for every stream, not one per stream, so that the task a submitter reuses is one
 * finished a moment ago, still in cache: with a pool per stream, a program that spreads its
 * work over many streams (issue 25: 1900) came back to each stream's pool only once per sweep
 * over all of them, and reused tasks that had long left the cache -- the submitting thread's
 * dearest miss. 16384 tasks kept are 6 MB: what a burst of 8000 launches with their completion
 * callbacks has in flight (a real runtime's per-stream task rings are of that order). */
#define RECYCLE_CHAIN 32u /* a turn hands back its finished tasks at least this often */

static spare_pool g_spare_tasks = SPARE_POOL(sim_task, next, 16384);
static __thread spare_list t_spare_tasks;

sim_task *sim_task_new(const sim_task_ops *ops)
{
    sim_task *t = spare_take(&g_spare_tasks, &t_spare_tasks);
    if (t)
        memset(t, 0, offsetof(sim_task, inline_args));
    else if (!(t = calloc(1, sizeof *t)))
        return NULL;
    t->ops = ops;
    return t;
}

/* Drops the references t holds (its kind's release). */
static void task_release(sim_task *t)
{
    if (t->ops->release)
        t->ops->release(t);
}

void sim_task_free(sim_task *t)
{
    task_release(t);
    free(t);
}

/* A turn's finished tasks, on their way back to the pool (the turn's own). */
typedef struct {
    sim_task *head, *tail;
    unsigned n;
} done_chain;

/* Hands the chain back: kept for a submitter, or freed when enough are kept. */
static void done_flush(done_chain *c)
{
    if (c->n)
        spare_give_chain(&g_spare_tasks, c->head, c->tail, c->n);
    *c = (done_chain){0};
}

/* The worker's end of a task: released, and on the turn's chain, newest first (the first a
 * submitter reuses). */
static void task_done(done_chain *c, sim_task *t)
{
    task_release(t);
    t->next = c->head;
    c->head = t;
    if (!c->n++)
        c->tail = t;
    if (c->n >= RECYCLE_CHAIN)
        done_flush(c);
}

/* A task that will never execute: its kind's discard (an event record still triggers, a wait
 * counts as passed, ...; see sim_task_ops), or nothing. stop_abort: the stream stopped on a
 * failure in a stop-on-failure context, rather than being aborted or force-destroyed. */
static void discard(sim_stream *s, sim_task *t, bool stop_abort)
{
    if (t->ops->discard)
        t->ops->discard(s, t, stop_abort);
}

/* The worker's reaction to a failed task, in the real runtime's order: the stream's error slot
 * (PreCheckTaskErr sets errCode_), the exception-info callbacks (TaskFailCallBack), then, in a
 * stop-on-failure context, the abort (EnterFailureAbort). No lock is held while the callbacks
 * run: they are user code and may call the runtime. A failed kernel is also written to the
 * device's fast ring buffer where the driver supports millisecond operator timeouts
 * (exception.c), before its regular report, as the device writes it when the fault happens. */
void sim_stream_task_failed(sim_stream *s, const sim_task *t, aclError rc, const char *msg)
{
    /* An AI-core exception's info names the kernel and its arguments (issue 23). */
    sim_exception_kernel k = {0};
    bool kernel = t->ops->failed_kernel && t->ops->failed_kernel(t, &k);
    if (kernel)
        sim_exception_fast_post(s, t->task_id, t->tid, rc, msg);
    sim_stream_task_failed_as(s, rc, msg, s->id, t->task_id, t->tid, kernel && k.func ? &k : NULL);
}

/* The same, with the report naming stream `report_stream` and task `task_id` (a replay names
 * the model's own stream and captured task, capture.c). */
void sim_stream_task_failed_as(sim_stream *s, aclError rc, const char *msg, uint32_t report_stream, uint32_t task_id,
                               uint32_t tid, const sim_exception_kernel *kernel)
{
    pthread_mutex_lock(&s->lock);
    s->error = rc;
    snprintf(s->errmsg, sizeof s->errmsg, "%s", msg);
    pthread_mutex_unlock(&s->lock);
    /* The failure's description becomes this thread's recent error, so an exception callback
     * that calls aclGetRecentErrMsg learns what failed. */
    sim_error_message("task", msg);
    if (kernel && kernel->func)
        atomic_store(&s->dev->last_error, (uint32_t)rc); /* aclrtGetErrorVerbose (base.c) */
    sim_exception_report(task_id, report_stream, tid, s->dev->id, rc, msg, kernel);
    sim_context *c = s->ctx;
    if (atomic_load(&c->mode) == ACL_STOP_ON_FAILURE) {
        aclError none = ACL_SUCCESS;
        atomic_compare_exchange_strong(&c->failure_error, &none, rc); /* the first failure stays */
        pthread_mutex_lock(&s->lock);
        s->aborted = true;
        pthread_mutex_unlock(&s->lock);
    }
}

void sim_stream_trace_task(sim_stream *s, const sim_task *t, uint64_t t0, aclError status)
{
    /* Kinds that are not traced have no trace type (a replay is traced as the captured tasks
     * it runs, capture.c; an update not at all). */
    if (!t->ops->trace_type)
        return;
    aclsimTraceRecord r = {.start_ns = t0, .end_ns = sim_now_ns(), .stream = (uint64_t)(uintptr_t)s->obj.handle,
                           .seq = t->seq, .device = s->dev->id, .core = -1, .block = -1, .type = t->ops->trace_type,
                           .status = status};
    if (t->ops->trace)
        t->ops->trace(t, &r);
    sim_trace_add(&r);
}

/* Waking a report thread costs a context switch on each side, so a worker that hands over
 * non-blocking reports wakes the thread once for several of them: it defers the wake-up while
 * it has more tasks queued that are known to be short -- their kinds say so (defers_reports:
 * more non-blocking callbacks, single-block kernels whose function's latest launch was short;
 * callback.c, launch.c) -- and pays it before anything else, when its queue runs dry, or once
 * REPORT_DEFER_MAX reports or REPORT_DEFER_NS have accumulated (looked at every fourth task). A
 * report is thus delayed by a few tens of microseconds at most (one short kernel longer when a
 * function suddenly slows down), and a burst of completions costs the processing thread one
 * wake-up. */
#define REPORT_DEFER_MAX 64u
#define REPORT_DEFER_NS 50000ull

static void pay_reports(sim_stream *s)
{
    if (!s->owed_sub)
        return;
    sim_callback_wake(s->owed_sub);
    sim_subscriber_put(s->owed_sub);
    s->owed_sub = NULL;
    s->owed = 0;
}

static bool may_defer_reports_past(const sim_stream *s, const sim_task *t)
{
    if (s->owed >= REPORT_DEFER_MAX || !t->ops->defers_reports || !t->ops->defers_reports(s, t))
        return false;
    /* The clock at every fourth task only (the worker read it six times a completion, issue
     * 25): the tasks between two looks are short ones, their kinds say so, so the bound moves
     * by three of them at most. */
    return (t->seq & 3) || sim_now_ns() - s->owed_since <= REPORT_DEFER_NS;
}

void sim_stream_owe_report(sim_stream *s, sim_subscriber *sub)
{
    if (!s->owed_sub) {
        atomic_fetch_add(&sub->refs, 1);
        s->owed_sub = sub;
        s->owed_since = sim_now_ns();
    }
    s->owed++;
}

/* A worker whose queue runs dry keeps polling it for a while (AIOCANN_SIM_SPIN_US, 30 us by
 * default) before it sleeps: host
 * programs submit in bursts, and a worker that sleeps between two launches makes each of
 * them pay a futex wake-up and a context switch, several times the cost of the launch itself.
 * It yields the CPU while it polls, and at most one worker fewer than there are CPUs polls at
 * a time, so polling never takes the core the submitting thread needs. The count changes
 * whenever a worker starts or stops polling: it has a cache line of its own, so that it does
 * not evict read-mostly globals (the runtime's configuration, read by every launch) from the
 * submitting thread's cache. */
static struct {
    _Alignas(64) atomic_int n;
} g_spinners; /* 64-byte aligned, so 64 bytes: the line is its own */

static int max_spinners(void)
{
    static atomic_int cached;
    int n = atomic_load_explicit(&cached, memory_order_relaxed);
    if (!n) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        n = cpus > 1 ? (int)cpus - 1 : 1;
        atomic_store_explicit(&cached, n, memory_order_relaxed);
    }
    return n;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static bool spin_for_work(sim_stream *s)
{
    uint64_t spin_ns = g_rt.cfg.spin_ns;
    if (!spin_ns)
        return false;
    if (atomic_fetch_add(&g_spinners.n, 1) >= max_spinners()) {
        atomic_fetch_sub(&g_spinners.n, 1);
        return false;
    }
    uint64_t seen = s->completed, start = sim_now_ns();
    bool more = false;
    sim_exec_polling(true);
    for (unsigned i = 1; !more; i++) {
        if (sim_exec_others_waiting())
            break; /* a stream is waiting for a worker: this one gives way (the caller) */
        more = atomic_load_explicit(&s->submitted, memory_order_relaxed) != seen;
        if (!more && i % 64 == 0) {
            if (sim_now_ns() - start > spin_ns)
                break;
            sched_yield();
        }
        cpu_relax();
    }
    sim_exec_polling(false);
    atomic_fetch_sub(&g_spinners.n, 1);
    return more;
}

/* Publishes that task seq has finished. Waiters (sim_stream_wait_seq) increment `waiters`
 * and then test `completed`, under the lock; the worker stores `completed` and then tests
 * `waiters` (both sequentially consistent), so either the waiter sees the new value or the
 * worker sees the waiter and signals it under the lock -- and most tasks finish with no
 * waiter, without touching the lock. */
static void publish_completed(sim_stream *s, uint64_t seq, bool locked)
{
    atomic_store(&s->completed, seq);
    if (atomic_load(&s->waiters)) {
        if (!locked)
            pthread_mutex_lock(&s->lock);
        pthread_cond_broadcast(&s->done_cv);
        if (!locked)
            pthread_mutex_unlock(&s->lock);
    }
}

/* One turn of a pool worker (executor.c) on scheduled stream s: it runs s's queued tasks until
 * the queue runs dry -- polling for more a while first -- or, when other streams are waiting,
 * until the end of a batch; then s is unscheduled, or goes to the back of the run queue. The
 * turn is the only one on s: every field below that "the worker" owns is this turn's, and
 * passes to the next turn under s->lock. */
void sim_stream_run_turn(sim_stream *s, sim_guard *guard)
{
    char msg[sizeof s->errmsg];
    done_chain done = {0};
    s->guard = guard; /* the worker's fault guard: it runs kernel blocks on borrowed cores */

    pthread_mutex_lock(&s->lock);
    for (;;) {
        if (!s->head) {
            pthread_mutex_unlock(&s->lock);
            /* The queue ran dry: hand over the deferred reports now, before polling for more
             * work -- a report must not wait out the poll (the subscriber lock is never
             * taken under ours) -- and before the turn ends. */
            pay_reports(s);
            bool more = spin_for_work(s);
            pthread_mutex_lock(&s->lock);
            if (s->head && sim_exec_others_waiting()) {
                sim_wake w = sim_exec_schedule(s); /* the queued streams first (see below) */
                pthread_mutex_unlock(&s->lock);
                sim_exec_wake(w);
                return;
            }
            if (more || s->head)
                continue;
            /* Nothing more: s leaves the executor until the next submission schedules it. A
             * shutdown waiting for the queue to drain learns it here; after the unlock this
             * turn no longer touches s. */
            s->scheduled = false;
            if (s->stopping)
                pthread_cond_broadcast(&s->done_cv);
            pthread_mutex_unlock(&s->lock);
            return;
        }
        /* Take every queued task at once: one lock round trip per batch, not per task. Only
         * the turn sets `aborted`, so it follows it locally. */
        sim_task *batch = s->head, *batch_tail = s->tail;
        s->head = s->tail = NULL;
        bool aborted = s->aborted;
        pthread_mutex_unlock(&s->lock);

        while (batch) {
            sim_task *t = batch;
            batch = t->next;
            if (s->owed_sub && !may_defer_reports_past(s, t))
                pay_reports(s);
            /* Event records and resets run under the stream lock, so that the event's
             * completion and the stream's progress (`completed`) are published together:
             * whoever sees the event complete and then queries the stream sees its tasks up to
             * the record done, and the reverse. They only take the event's lock
             * (stream->lock > event->lock). */
            bool publish_together = t->ops->publish_with_stream;
            if (publish_together)
                pthread_mutex_lock(&s->lock);

            /* `discard`: aclrtDestroyStreamForce (issue 11), set from another thread; `aborting`:
             * aclrtStreamAbort / aclrtDeviceTaskAbort (abort.c) */
            /* A parked task (executor.c) is resumed, never discarded: its run ends its wait
             * itself, as an abort or forced destroy requires (a report withdrawn, ...). */
            if (!t->parked && (aborted || atomic_load_explicit(&s->discard, memory_order_relaxed) ||
                               atomic_load_explicit(&s->aborting, memory_order_acquire))) {
                discard(s, t, aborted);
            } else {
                msg[0] = '\0';
                bool trace = sim_trace_on();
                uint64_t t0 = t->parked ? t->park_t0 : trace ? sim_now_ns() : 0;
                /* A blocking callback is traced as it is handed over: its completion may be
                 * seen, and a trace stopped, before the stream goes on past it. */
                bool early = !t->parked && trace && t->ops->traced_at_start && t->ops->traced_at_start(t);
                if (early)
                    sim_stream_trace_task(s, t, t0, ACL_SUCCESS);
                early = early || t->traced;
                s->running = t; /* what sim_task_can_park asks */
                aclError rc = t->ops->run(s, t, msg, sizeof msg);
                s->running = NULL;
                if (rc == SIM_TASK_PARKED) {
                    /* t waits (executor.c): it goes back to the head of the queue, with the
                     * rest of the batch behind it and what was submitted since behind that,
                     * and the worker leaves s -- unless s was woken meanwhile. Owed reports
                     * are paid first: the wait may be long. */
                    t->park_t0 = t0 ? t0 : sim_now_ns();
                    t->traced = early;
                    pay_reports(s);
                    done_flush(&done);
                    pthread_mutex_lock(&s->lock);
                    if (s->head)
                        batch_tail->next = s->head;
                    else
                        s->tail = batch_tail;
                    s->head = t; /* t->next is still the rest of the batch */
                    bool parked = sim_exec_park(s, t->wait_deadline_ns);
                    pthread_mutex_unlock(&s->lock);
                    if (parked)
                        return; /* s is the waker's now: not touched again */
                    break;      /* woken already: the turn takes the queue again */
                }
                t->parked = false;
                if (trace && !early)
                    sim_stream_trace_task(s, t, t0, rc);
                /* A task ended by an abort is not a failure: the abort clears the stream's
                 * error, and no report is made for it (TaskFailCallBack does not report while
                 * the device aborts; the stream abort recycles the killed task). */
                if (rc && (atomic_load_explicit(&s->aborting, memory_order_acquire) ||
                           atomic_load_explicit(&s->dev->task_abort, memory_order_acquire)))
                    rc = ACL_SUCCESS;
                if (rc && sim_overflow_absorb(s, rc, msg)) /* a warning, not a failure */
                    rc = ACL_SUCCESS;
                if (rc) {
                    if (publish_together) /* never: records and resets do not fail */
                        pthread_mutex_unlock(&s->lock);
                    /* A replay has reported its first failed task itself, when it failed. */
                    if (!t->ops->reports_own_failure)
                        sim_stream_task_failed(s, t, rc, msg);
                    aborted = s->aborted; /* only the turn writes it */
                    if (publish_together)
                        pthread_mutex_lock(&s->lock);
                }
            }
            publish_completed(s, t->seq, publish_together);
            if (publish_together)
                pthread_mutex_unlock(&s->lock);
            task_done(&done, t);
        }
        done_flush(&done);
        sim_exec_fire_timers(); /* parked streams whose timeout is due join the run queue */
        pthread_mutex_lock(&s->lock);
        if (s->head && sim_exec_others_waiting()) {
            /* Other streams are waiting for a worker: they go first, s to the back of the run
             * queue (still scheduled, so no submission queues it again). */
            pthread_mutex_unlock(&s->lock);
            pay_reports(s);
            pthread_mutex_lock(&s->lock);
            sim_wake w = sim_exec_schedule(s); /* stream->lock > executor lock */
            pthread_mutex_unlock(&s->lock);
            sim_exec_wake(w);
            return;
        }
    }
}

/* Linux thread id of the calling thread, cached (what the real runtime records as a task's
 * submitting thread, osal.cc GetCurrentTid). */
static uint32_t current_tid(void)
{
    static __thread uint32_t tid;
    if (!tid)
        tid = (uint32_t)gettid();
    return tid;
}

/* The calling thread's last submitted task (aclrtGetThreadLastTaskId); UINT32_MAX before any. */
static __thread uint32_t t_last_task_id = UINT32_MAX;

/* The real runtime's task id: a 16-bit per-stream counter that counts 0..0xFFFE and wraps,
 * with the number of wraps in the upper 16 bits (task_submit.cc, GetFlipTaskId). Exception
 * reports carry the same value. Under s->lock. */
static uint32_t next_task_id(sim_stream *s)
{
    uint16_t id = s->last_task != UINT16_MAX ? (uint16_t)((s->last_task + 1u) % 0xFFFFu) : 0;
    if (id == 0 && s->last_task != UINT16_MAX)
        s->task_flip++;
    s->last_task = id;
    return ((uint32_t)s->task_flip << 16) | id;
}

aclError sim_context_failure(sim_context *c, const char *func)
{
    if (atomic_load_explicit(&c->mode, memory_order_relaxed) != ACL_STOP_ON_FAILURE)
        return ACL_SUCCESS;
    aclError e = atomic_load(&c->failure_error);
    if (e) {
        sim_error_message(func, "a task failed earlier in this stop-on-failure context; it refuses work until reset");
        sim_set_last_error(e);
    }
    return e;
}

aclError sim_stream_submit(sim_stream *s, sim_task *t, const char *func, uint64_t *seq)
{
    if (__builtin_expect(s->bound, 0)) { /* simulator choice: a model's stream runs nothing */
        sim_task_free(t);
        return sim_fail_(func, ACL_ERROR_RT_STREAM_MODEL, "stream %u belongs to a captured model: it takes no work",
                         s->id);
    }
    sim_exception_fast_poll(s->dev, s->ctx); /* Context::CheckTaskSend */
    aclError rc = sim_context_failure(s->ctx, func);
    if (rc) {
        sim_task_free(t);
        return rc;
    }
    /* A capturing stream records the task in its model instead of queueing it; a stream that
     * updates a task group turns a kernel into an update task (capture.c); a stream bound to a
     * model being built records it there (model_build.c, issue 23). */
    uint32_t captured_id;
    if (atomic_load_explicit(&s->mbind, memory_order_acquire) && sim_build_route(s, t, func, &rc, &captured_id)) {
        if (!rc)
            t_last_task_id = captured_id;
        if (seq)
            *seq = 0;
        return rc;
    }
    if (atomic_load_explicit(&s->cap, memory_order_acquire) && sim_capture_route(s, &t, func, &rc, &captured_id)) {
        if (!rc)
            t_last_task_id = captured_id;
        if (seq)
            *seq = 0;
        return rc;
    }
    t->tid = current_tid();
    pthread_mutex_lock(&s->lock);
    if (s->stopping) {
        pthread_mutex_unlock(&s->lock);
        sim_task_free(t);
        return sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "the stream is being destroyed");
    }
    /* Under the stream lock, which the abort takes to start: nothing joins the queue after
     * the abort took its measure of it (Engine::SubmitTask: STREAM_ABORT_SEND_TASK_FAIL,
     * DEVICE_ABORT_SEND_TASK_FAIL). */
    if (atomic_load_explicit(&s->aborting, memory_order_relaxed) ||
        atomic_load_explicit(&s->dev->task_abort, memory_order_relaxed)) {
        aclError code = atomic_load(&s->dev->task_abort) ? ACL_ERROR_RT_DEVICE_TASK_ABORT : atomic_load(&s->abort_code);
        pthread_mutex_unlock(&s->lock);
        sim_task_free(t);
        return sim_fail_(func, code,
                         code == ACL_ERROR_RT_DEVICE_TASK_ABORT ? "the device is aborting its tasks (aclrtDeviceTaskAbort)"
                                                               : "the stream is being aborted (aclrtStreamAbort)");
    }
    t->seq = ++s->submitted;
    t->task_id = next_task_id(s);
    t->next = NULL;
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
    sim_wake w = NULL;
    if (!s->scheduled) {
        s->scheduled = true; /* one scheduling is enough: later submitters find it set */
        w = sim_exec_schedule(s);
    }
    uint64_t n = t->seq;
    t_last_task_id = t->task_id;
    pthread_mutex_unlock(&s->lock);
    sim_exec_wake(w); /* after the unlock: the worker it wakes takes s->lock first thing */
    if (seq)
        *seq = n;
    return ACL_SUCCESS;
}

int sim_stream_wait_seq(sim_stream *s, uint64_t seq, int32_t timeout_ms)
{
    struct timespec ts;
    bool timed = sim_deadline(timeout_ms, &ts);
    int rc = 0;
    pthread_mutex_lock(&s->lock);
    /* An abort that begins while we wait ends the wait (the abort broadcasts done_cv after
     * counting itself in abort_epoch): a synchronize then returns the abort's code, even if
     * the abort has finished by the time this thread runs again. */
    uint64_t epoch = atomic_load(&s->abort_epoch);
    s->waiters++;
    while (s->completed < seq && rc == 0 && atomic_load(&s->abort_epoch) == epoch)
        rc = timed ? pthread_cond_timedwait(&s->done_cv, &s->lock, &ts) : pthread_cond_wait(&s->done_cv, &s->lock);
    if (atomic_load(&s->abort_epoch) != epoch)
        rc = ECANCELED;
    else if (s->completed >= seq)
        rc = 0;
    s->waiters--;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void sim_stream_block_on(sim_stream *s, pthread_mutex_t *mu, pthread_cond_t *cv, _Atomic uint32_t *word)
{
    /* A wait does not hold the pool's place: another worker may run other streams meanwhile
     * (executor.c). Counted once per wait, however often it registers (a notify re-registers
     * when an export moves its word). */
    bool waiting = mu || cv || word;
    if (waiting != s->exec_blocked) {
        s->exec_blocked = waiting;
        if (waiting)
            sim_exec_block();
        else
            sim_exec_unblock();
    }
    pthread_mutex_lock(&s->lock);
    s->blocker.mu = mu;
    s->blocker.cv = cv;
    s->blocker.word = word;
    pthread_mutex_unlock(&s->lock);
}

void sim_stream_unblock(sim_stream *s)
{
    sim_stream_block_on(s, NULL, NULL, NULL);
}

bool sim_stream_abort_requested(const sim_stream *s)
{
    return atomic_load_explicit(&s->aborting, memory_order_acquire) ||
           atomic_load_explicit(&s->discard, memory_order_acquire);
}

bool sim_stream_must_end_task(sim_stream *s)
{
    if (sim_stream_abort_requested(s) || atomic_load_explicit(&s->closing, memory_order_relaxed))
        return true;
    pthread_mutex_lock(&s->lock);
    bool stop = s->stopping;
    pthread_mutex_unlock(&s->lock);
    return stop;
}

void sim_stream_interrupt(sim_stream *s)
{
    sim_stream_wake(s); /* a parked task runs again and sees the flag (executor.c) */
    pthread_mutex_lock(&s->lock);
    if (s->blocker.mu) { /* stream->lock > event/subscriber lock */
        /* The waiter tests the abort flag under mu before it sleeps: one broadcast is enough. */
        pthread_mutex_lock(s->blocker.mu);
        pthread_cond_broadcast(s->blocker.cv);
        pthread_mutex_unlock(s->blocker.mu);
    }
    /* A futex waiter can test the flag, lose the CPU, and sleep after our wake-up: its word
     * did not change, so nothing stops the sleep. Wake it until it has left the wait (it
     * unregisters under this lock), looking again every millisecond. */
    while (s->blocker.word) {
        sim_futex_wake(s->blocker.word);
        struct timespec ts;
        sim_deadline(1, &ts);
        pthread_cond_timedwait(&s->done_cv, &s->lock, &ts);
    }
    pthread_mutex_unlock(&s->lock);
}

aclError sim_stream_abort_status(sim_stream *s, const char *func)
{
    if (atomic_load(&s->dev->task_abort))
        return sim_fail_(func, ACL_ERROR_RT_DEVICE_TASK_ABORT, "the device is aborting its tasks (aclrtDeviceTaskAbort)");
    if (atomic_load(&s->aborting))
        return sim_fail_(func, atomic_load(&s->abort_code), "the stream is being aborted");
    return ACL_SUCCESS;
}

aclError sim_stream_take_error(sim_stream *s, const char *func)
{
    char msg[sizeof s->errmsg];
    pthread_mutex_lock(&s->lock);
    aclError e = s->error;
    if (e) {
        memcpy(msg, s->errmsg, sizeof msg);
        if (!s->aborted) {
            s->error = ACL_SUCCESS;
            s->errmsg[0] = '\0';
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (e) {
        sim_error_message(func, msg);
        sim_set_last_error(e);
    }
    return e;
}

static void stream_destroy(sim_obj *o)
{
    sim_stream *s = (sim_stream *)o;
    if (s->timer_reserved)
        sim_exec_forget();
    pthread_mutex_destroy(&s->lock);
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
    s->sat_mode = sim_sat_mode_current(); /* issue 23: kept for the stream's life */
    s->id = d->next_stream_id++; /* d->lock is held by every caller */
    s->last_task = UINT16_MAX;   /* the first task gets id 0 */
    sim_mutex_init(&s->lock);
    sim_cond_init_monotonic(&s->done_cv);
    if (!sim_handle_open(&s->obj)) {
        stream_destroy(&s->obj);
        *rc = sim_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "handle table is full");
        return NULL;
    }
    if ((*rc = sim_exec_start(__func__))) { /* the pool has a worker to run it */
        sim_obj_put(sim_handle_close(s->obj.handle, SIM_KIND_STREAM));
        return NULL;
    }
    s->timer_reserved = true;
    s->next = d->streams;
    d->streams = s;
    d->num_streams++;
    return s;
}

/* A stream of a captured model. The real runtime creates one per captured stream
 * (Context::StreamCreate in feature/aclgraph/context_aclgraph.cc) and binds it to the model
 * (ModelAddStream, ModelBindStream); aclmdlRIGetStreams hands them out and a failed replay's
 * report names one of them (model_execute_task.cc). The simulator runs a replay's tasks on
 * the executing stream's worker (capture.c), so a model stream is only what the API can see
 * of it: a per-device id from the same counter as every stream's and a handle; no worker,
 * not on d->streams (a device teardown reaches it through its model). */
sim_stream *sim_stream_create_bound(sim_context *ctx, aclError *rc)
{
    sim_device *d = ctx->dev;
    sim_stream *s = calloc(1, sizeof *s);
    if (!s) {
        *rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
        return NULL;
    }
    sim_obj_init(&s->obj, SIM_KIND_STREAM, stream_destroy);
    s->dev = d;
    s->ctx = ctx;
    s->bound = true;
    s->last_task = UINT16_MAX;
    sim_mutex_init(&s->lock);
    sim_cond_init_monotonic(&s->done_cv);
    pthread_mutex_lock(&d->lock);
    s->id = d->next_stream_id++;
    pthread_mutex_unlock(&d->lock);
    if (!sim_handle_open(&s->obj)) {
        stream_destroy(&s->obj);
        *rc = sim_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "handle table is full");
        return NULL;
    }
    sim_obj_get(&s->obj); /* the model's, besides the handle table's */
    *rc = ACL_SUCCESS;
    return s;
}

/* The model is gone: so is its stream (~CaptureModel destroys its streams). */
void sim_stream_release_bound(sim_stream *s)
{
    sim_obj *o = sim_handle_close(s->obj.handle, SIM_KIND_STREAM);
    if (o)
        sim_obj_put(o);
}

void sim_stream_shutdown(sim_stream *s)
{
    sim_capture_stream_gone(s);
    /* A wait for an event record that will never happen (lost behind a stop-on-failure abort on
     * a STARS chip) would hold the worker, and this shutdown, for good: closing lets it give up
     * (event.c; simulator choice, as value waits give up). Set before the wake-up, which the
     * waiter cannot miss: it tests the flag under the event's lock before it sleeps. */
    atomic_store(&s->closing, true);
    pthread_mutex_lock(&s->lock);
    if (s->blocker.mu && !s->blocker.word) { /* a condition-variable wait (stream > event lock) */
        pthread_mutex_lock(s->blocker.mu);
        pthread_cond_broadcast(s->blocker.cv);
        pthread_mutex_unlock(s->blocker.mu);
    }
    s->stopping = true;
    sim_stream_wake(s); /* a parked task runs again and sees closing / stopping (executor.c) */
    /* A futex wait (an IPC event's, a notify's) gives up once it sees closing; wake it until it
     * has left, as sim_stream_interrupt does (it may test the flag just before we set it). */
    while (s->blocker.word) {
        sim_futex_wake(s->blocker.word);
        struct timespec ts;
        sim_deadline(1, &ts);
        pthread_cond_timedwait(&s->done_cv, &s->lock, &ts);
    }
    /* The executor drains every queued task first; the turn that finds the queue empty
     * unschedules the stream and wakes us. */
    while (s->scheduled)
        pthread_cond_wait(&s->done_cv, &s->lock);
    pthread_mutex_unlock(&s->lock);
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
        /* The context itself, not its device: the runtime compares stm->Context_() with the
         * current context before submitting any task (COND_RETURN_AND_MSG_INVALID_CONTEXT_STREAM
         * in api_impl.cc), so a stream of another context on the same device is refused too. */
        int same = s->ctx == c, cur = c->dev->id;
        sim_obj_put(&c->obj);
        if (same) {
            *rc = ACL_SUCCESS;
            return s;
        }
        *rc = sim_fail_(func, ACL_ERROR_RT_STREAM_CONTEXT,
                        "stream %u belongs to another context (on device %d) than the current one (on device %d)",
                        s->id, s->dev->id, cur);
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
    if (s) {
        *stream = s->obj.handle;
        sim_stream_state_notify(s->obj.handle, true); /* issue 23: aclrtRegStreamStateCallback */
    }
    return rc;
}

SIM_API aclError aclrtCreateStream(aclrtStream *stream)
{
    SIM_CHECK_PROCESS();
    return create(stream, 0, 0, __func__);
}

SIM_API aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    SIM_CHECK_PROCESS();
    const uint32_t known = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE |
                           ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
    if (flag & ~known)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "unknown stream flag bits 0x%x", flag & ~known);
    return create(stream, priority, flag, __func__);
}

aclError sim_stream_destroy(aclrtStream stream, bool force, const char *func)
{
    aclError rc;
    sim_stream *s = sim_stream_for_work(stream, func, &rc);
    if (!s)
        return rc;
    if (s->bound) { /* Context::TearDownOwnedStream: a stream bound to a model */
        sim_obj_put(&s->obj);
        return sim_fail_(func, ACL_ERROR_RT_STREAM_MODEL,
                         "stream %u is bound to a captured model: it goes when the model is destroyed", s->id);
    }
    if (atomic_load(&s->mbind)) { /* issue 23: bound by aclmdlRIBindStream (TearDownOwnedStream) */
        sim_obj_put(&s->obj);
        return sim_fail_(func, ACL_ERROR_RT_STREAM_MODEL,
                         "stream %u is bound to a model: unbind it (aclmdlRIUnbindStream) or destroy the model first",
                         s->id);
    }
    if ((rc = sim_capture_stream_busy(s, func))) { /* ApiErrorDecorator::StreamDestroy */
        sim_obj_put(&s->obj);
        return rc;
    }
    sim_stream_state_notify(stream, false); /* issue 23: before it goes (DESTROY_PRE) */
    sim_obj *table_ref = sim_handle_close(stream, SIM_KIND_STREAM);
    if (!table_ref) {
        sim_obj_put(&s->obj);
        return sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "stream %p was destroyed concurrently", stream);
    }
    if (force) {
        atomic_store(&s->discard, true); /* before the shutdown: the worker drains by discarding */
        sim_stream_interrupt(s);         /* a wait inside a running task ends too (issue 11) */
    }
    sim_device_forget_stream(s);
    sim_stream_shutdown(s);
    sim_obj_put(table_ref);
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtDestroyStream(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    return sim_stream_destroy(stream, false, __func__);
}

/* Waits for everything submitted so far; reports the stream's error once (Stream::GetError).
 * In a failed stop-on-failure context the context's error comes back at once
 * (ApiImpl::StreamSynchronize -> CheckContextStatus). A timeout does not consume the error. */
static aclError synchronize(aclrtStream stream, int32_t timeout, const char *func)
{
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, func, &rc);
    if (!s)
        return rc;
    sim_exception_fast_poll(s->dev, s->ctx); /* Context::CheckStatus */
    /* ApiErrorDecorator::StreamSynchronize: a capturing stream cannot be synchronized. An
     * aborting one returns the abort's code (Stream::SynchronizeExecutedTask). */
    if (!(rc = sim_capture_stream_busy(s, func)) && !(rc = sim_context_failure(s->ctx, func)) &&
        !(rc = sim_stream_abort_status(s, func))) {
        pthread_mutex_lock(&s->lock);
        uint64_t target = s->submitted;
        pthread_mutex_unlock(&s->lock);
        int w = sim_stream_wait_seq(s, target, timeout);
        if (w == ETIMEDOUT)
            rc = sim_fail_(func, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "tasks still pending after %d ms", timeout);
        else if (w == ECANCELED)
            rc = sim_fail_(func, atomic_load(&s->abort_code), "the stream was aborted while it was being synchronized");
        else
            rc = sim_stream_take_error(s, func);
    }
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtSynchronizeStream(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    return synchronize(stream, -1, __func__);
}

/* ACL refuses timeout < -1, the runtime also 0 (ApiErrorDecorator::StreamSynchronize: "greater
 * than or equal to -1 and not equal to 0"): both 107000, before the stream is looked at. */
SIM_API aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    SIM_CHECK_PROCESS();
    if (timeout < -1 || timeout == 0)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "timeout %d is invalid (-1 waits forever, > 0 is a limit in ms; 0 is not allowed)", timeout);
    return synchronize(stream, timeout, __func__);
}

/* COMPLETE or NOT_READY by queue position only (Stream::Query; aclrtStreamQueryImpl maps the
 * runtime's 507004 to NOT_READY): a failed task is never reported here, except as the
 * context's error in a failed stop-on-failure context (ApiImpl::StreamQuery -> CheckContextStatus). */
SIM_API aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(status);
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    sim_exception_fast_poll(s->dev, s->ctx); /* Context::CheckStatus */
    /* ApiErrorDecorator::StreamQuery: nor queried. */
    if (!(rc = sim_capture_stream_busy(s, __func__)) && !(rc = sim_context_failure(s->ctx, __func__))) {
        /* Under the stream lock: an event record publishes the event's completion and the
         * stream's progress together under it (sim_stream_run_turn), so a host that saw the
         * event complete -- its synchronize returned -- must not read `completed` between the
         * two and find the stream not ready. */
        pthread_mutex_lock(&s->lock);
        *status = atomic_load(&s->completed) == atomic_load(&s->submitted) ? ACL_STREAM_STATUS_COMPLETE
                                                                             : ACL_STREAM_STATUS_NOT_READY;
        pthread_mutex_unlock(&s->lock);
    }
    sim_obj_put(&s->obj);
    return rc;
}

/* ApiErrorDecorator::StreamSetMode, ApiImpl::StreamSetMode, Stream::SetFailMode. The stream
 * keeps its own mode (Stream::failureMode_ / modeConfig_; sim_stream.fail_mode): only bit 0 of
 * mode counts; a DEVICE_USE_ONLY stream cannot change (207000); no current context is 107002;
 * the stream's own current mode again is a no-op (so CONTINUE on a stream that was never set to
 * stop succeeds even in a context another stream made stop on failure); stop -> continue is
 * refused (207000), as is any mode on an aborted stream that was configured stop; the stream
 * must be in the current context (107003). Setting it records the mode on the stream and
 * makes the whole context stop on failure (Context::SetCtxMode(STOP_ON_FAILURE), which
 * SetFailMode does unconditionally). NULL is the default stream (as on A2/A3). */
SIM_API aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    SIM_CHECK_PROCESS();
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    if (s->flags & ACL_STREAM_DEVICE_USE_ONLY) {
        sim_obj_put(&s->obj);
        return sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "a DEVICE_USE_ONLY stream has no failure mode to set");
    }
    sim_context *c = sim_current_context(__func__);
    if (!c) {
        sim_obj_put(&s->obj);
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    uint32_t want = (uint32_t)(mode & 1u);
    pthread_mutex_lock(&s->lock);
    /* Stream::failureMode_: ABORT_ON_FAILURE once aborted, else the configured mode. */
    bool aborted = s->aborted;
    uint32_t config = s->fail_mode;
    if (!aborted && config == want) {
        rc = ACL_SUCCESS; /* "input mode is same with the current mode" */
    } else if (!aborted && config == ACL_STOP_ON_FAILURE && want == ACL_CONTINUE_ON_FAILURE) {
        rc = sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                      "changing stream %u from stop mode to continue mode is not supported", s->id);
    } else if (aborted && config == ACL_STOP_ON_FAILURE) {
        rc = sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                      "changing stream %u from abort mode to stop mode is not supported", s->id);
    } else if (s->ctx != c) {
        rc = sim_fail(ACL_ERROR_RT_STREAM_CONTEXT, "the stream does not belong to the current context");
    } else {
        s->fail_mode = config | want; /* SetMode(GetMode() | (mode & STREAM_FAILURE_MODE_MASK)) */
        atomic_store(&c->mode, ACL_STOP_ON_FAILURE);
        rc = ACL_SUCCESS;
    }
    pthread_mutex_unlock(&s->lock);
    sim_obj_put(&c->obj);
    sim_obj_put(&s->obj);
    return rc;
}

/* ApiImpl::GetStreamId: the per-device stream id that exception reports also carry. */
SIM_API aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(streamId);
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    *streamId = (int32_t)s->id;
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

/* ApiImpl::GetThreadLastTaskId: the id of the last task this thread submitted, on any stream
 * and of any kind (kernel, copy, memset, event record/reset/wait, host callback). */
SIM_API aclError aclrtGetThreadLastTaskId(uint32_t *taskId)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(taskId);
    *taskId = t_last_task_id;
    return ACL_SUCCESS;
}
