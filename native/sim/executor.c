/*
 * aiocann simulator: the stream executor -- a pool of host threads that runs whichever streams
 * have work, instead of a thread per stream (issue 25: 1900 streams cost 1900 threads and
 * 36 MB of stacks; real devices take about 2000 streams).
 *
 * A stream with work is *scheduled*: it sits on the run queue, or one worker is running it
 * (stream.c, sim_stream_run_turn). One worker at a time runs a stream, so its tasks keep their
 * order, and every stream field the old per-stream thread owned is handed from worker to
 * worker under the stream's lock. A turn ends when the stream's queue ran dry (after a short
 * poll for more, as before), or after a batch when other streams are waiting, which then go
 * first (the stream goes to the back of the queue).
 *
 * A task that waits for something another thread or process provides parks its stream (see
 * Parking below). A wait that cannot park blocks its worker, and says so (sim_stream_block_on,
 * sim_exec_block): the worker stops counting as one of the pool's, and when that leaves fewer
 * running workers than the pool's size while streams are queued, another thread joins (as
 * Go's scheduler hands its processor to a new thread when one blocks in a system call).
 * Threads beyond the pool's size exist only while that many such waits are under way: they
 * leave when their wait is over and the pool is full again.
 *
 * The pool's size: AIOCANN_SIM_STREAM_WORKERS, by default the machine's CPUs plus the AI cores
 * of a device (AIOCANN_SIM_CORES): a worker running a kernel waits for the device's AI-core
 * threads, so the pool leaves room for as many kernels in flight as there are cores. Workers
 * start on demand and stay (idle, asleep) once started; the pool is the process's and
 * outlives aclFinalize, like the threads of a real runtime.
 *
 * Parking. A task whose wait is not over -- an event wait before its record, a blocking
 * callback before aclrtProcessReport ran it, a notify wait before its record, a value wait
 * before its value -- does not keep its worker: its run links the stream on the wait queue of
 * what it waits for and returns SIM_TASK_PARKED (sim_park; the kinds do this through their
 * own run, so the executor never asks which kind a task is). The turn puts the task back at
 * the head of its stream's queue and ends, the stream staying scheduled but on no run queue,
 * and the worker takes the next queued stream. Whatever may end the wait wakes the stream
 * (sim_stream_wake): it goes to the back of the run queue and a worker runs the task again,
 * which checks again. So a stream's order holds (nothing behind the parked task runs), and a
 * thousand waiting streams cost no thread. The state machine, under g_exec.lock:
 *   NONE --arm (the run, before it checks)--> ARMED --park (the turn)--> PARKED
 *   ARMED --wake--> WOKEN --park--> NONE, and the turn runs the task again at once
 *   PARKED --wake, or its deadline--> NONE, on the run queue
 * A wake that comes between the check and the park is thus never lost. A parked wait's
 * timeout is a deadline in a binary heap of parked streams (a place for each stream reserved
 * when it is created, so parking never allocates); one idle worker, the timekeeper, sleeps
 * until the first deadline, and busy workers fire due ones between batches. A replay parks
 * too: capture.c runs a captured model's tasks within its replay task, and a wait among them
 * (an EXTERNAL event, a notify, a value, a blocking callback) parks the replay's stream with the
 * replay at its head, which goes on from that wait when woken (sim_replay_can_park). Waits in a
 * condition task's sub-models park too, at any depth and after a failure, the replay going
 * back down to them; and a model built by stream binding parks as a captured one does: its
 * replay keeps its schedule (model_build.c). A wait that cannot park -- only out of memory --
 * blocks its worker as a hand-off (sim_exec_block). A wait on a word another process may write
 * (an IPC event, a shared notify) parks on the futex watch (futex_watch.c), which wakes it when
 * the word moves.
 *
 * Locking: g_exec.lock is a leaf below every stream's lock (stream->lock > g_exec.lock), and
 * below the locks of what a parked task waits for (event, subscriber, notify, bell: they wake
 * a stream while they hold their own); a worker holds no lock while it runs a stream.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cv;           /* idle workers wait here for a queued stream */
    sim_stream *head, *tail;     /* the run queue (sim_stream.run_next) */
    int threads;                 /* live workers */
    int idle;                    /* workers asleep on cv */
    int waking;                  /* of them, signalled ones that have not looked at the queue yet */
    int blocked;                 /* workers inside a blocking wait (sim_exec_block) */
    int size;                    /* the pool's size, as configured when a stream last started */
    atomic_int queued;           /* streams on the run queue, read without the lock */
    atomic_int pollers;          /* workers polling a stream of theirs for more work (stream.c) */
    /* Parked streams with a deadline: a binary heap on sim_stream.timer_ns. */
    sim_stream **timers;
    uint32_t ntimers, cap;
    uint32_t reserved;           /* streams that may park: the heap's capacity covers them */
    bool keeper;                 /* an idle worker sleeps on timer_cv until the first deadline */
    pthread_cond_t timer_cv;     /* CLOCK_MONOTONIC, initialised by the first sim_exec_start */
    _Atomic uint64_t next_deadline; /* the heap's first deadline, UINT64_MAX when empty */
} g_exec = {.lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .next_deadline = UINT64_MAX};

enum { PARK_NONE, PARK_ARMED, PARK_WOKEN, PARK_PARKED };
static pthread_once_t g_timer_once = PTHREAD_ONCE_INIT;
static void timer_init(void) { sim_cond_init_monotonic(&g_exec.timer_cv); }

/* Only a pool worker's waits count (a stream-side wait always runs on one). */
static __thread bool t_is_worker;

/* The configured size. Read by the thread creating a stream, which the boot (and so the
 * configuration) precedes; workers read the copy in g_exec, under its lock, never g_rt.cfg,
 * which a later boot rewrites while they sleep. */
static int configured_size(void)
{
    int n = g_rt.cfg.stream_workers;
    if (n > 0)
        return n;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    n = (cpus > 0 ? (int)cpus : 1) + (g_rt.cfg.cores_per_device > 0 ? g_rt.cfg.cores_per_device : 0);
    return n > 0 ? n : 1;
}

static int pool_size(void) { return g_exec.size; } /* g_exec.lock held */

static void *worker_main(void *arg);

/* Starts a worker. g_exec.lock held. */
static int spawn_locked(void)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, SIM_KERNEL_STACK_BYTES); /* it runs kernel blocks too */
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int err = pthread_create(&t, &attr, worker_main, NULL);
    pthread_attr_destroy(&attr);
    if (!err)
        g_exec.threads++;
    return err;
}

/* A queued stream needs a worker: wake an idle one, or start one while fewer than the pool's
 * size are running (not blocked). g_exec.lock held. Returns the condition variable to signal,
 * or NULL: the caller signals it, after its unlock where it can (wake_send) -- a worker woken
 * while the waker still holds the lock would wake only to sleep again on the lock, two thread
 * switches instead of one, on the submitting thread's time.
 *
 * One wake-up at a time: while a signalled worker has yet to look at the queue (`waking`),
 * a newly queued stream needs no signal of its own, since that worker takes the queue's first
 * stream and passes the wake-up on when more are queued (worker_main). So a thread launching
 * on many idle streams in a row -- 1900 streams, a few launches each -- costs one wake-up per
 * worker that starts, not a system call per stream. */
static pthread_cond_t *wake_locked(void)
{
    /* A worker polling its own stream sees the queue at once (sim_exec_others_waiting), gives
     * way and takes the queued stream before it could sleep: no wake-up, and no thread
     * switch, on the launch path of a stream that went idle a moment ago. (Its decrement
     * precedes its next look at the queue, under this lock, so it cannot miss the stream.) */
    if (atomic_load(&g_exec.pollers) > 0 || g_exec.waking)
        return NULL;
    if (g_exec.idle) {
        g_exec.waking++;
        return &g_exec.cv;
    }
    if (g_exec.keeper) {
        g_exec.waking++;
        return &g_exec.timer_cv; /* the timekeeper is idle too: it takes the stream */
    }
    if (g_exec.threads - g_exec.blocked < pool_size())
        (void)spawn_locked(); /* on failure the running workers still drain the queue */
    return NULL;
}

static inline void wake_send(pthread_cond_t *cv)
{
    if (cv)
        pthread_cond_signal(cv);
}

aclError sim_exec_start(const char *func)
{
    pthread_once(&g_timer_once, timer_init);
    int size = configured_size();
    pthread_mutex_lock(&g_exec.lock);
    g_exec.size = size;
    int err = g_exec.threads > 0 ? 0 : spawn_locked();
    /* The stream's place in the timer heap, so that parking it never needs memory. */
    if (!err && g_exec.reserved + 1 > g_exec.cap) {
        uint32_t cap = g_exec.cap ? g_exec.cap * 2 : 64;
        sim_stream **grown = realloc(g_exec.timers, cap * sizeof *grown);
        if (grown) {
            g_exec.timers = grown;
            g_exec.cap = cap;
        } else {
            err = ENOMEM;
        }
    }
    if (!err)
        g_exec.reserved++;
    pthread_mutex_unlock(&g_exec.lock);
    if (err)
        return sim_fail_(func, ACL_ERROR_RT_NO_STREAM_RESOURCE, "cannot start a stream worker thread: %s",
                         strerror(err));
    return ACL_SUCCESS;
}

void sim_exec_forget(void)
{
    pthread_mutex_lock(&g_exec.lock);
    g_exec.reserved--;
    pthread_mutex_unlock(&g_exec.lock);
}

/* Appends s to the run queue. g_exec.lock held. Returns what to signal (wake_locked). */
static pthread_cond_t *enqueue_locked(sim_stream *s)
{
    s->run_next = NULL;
    if (g_exec.tail)
        g_exec.tail->run_next = s;
    else
        g_exec.head = s;
    g_exec.tail = s;
    atomic_fetch_add_explicit(&g_exec.queued, 1, memory_order_relaxed);
    return wake_locked();
}

sim_wake sim_exec_schedule(sim_stream *s)
{
    pthread_mutex_lock(&g_exec.lock);
    pthread_cond_t *cv = enqueue_locked(s);
    pthread_mutex_unlock(&g_exec.lock);
    return cv;
}

void sim_exec_wake(sim_wake w) { wake_send(w); }

/* ------------------------------------------------------------------ the timer heap ------- */

static void heap_put(uint32_t i, sim_stream *s)
{
    g_exec.timers[i] = s;
    s->timer_pos = i + 1;
}

static void sift_up(uint32_t i)
{
    sim_stream *s = g_exec.timers[i];
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (g_exec.timers[parent]->timer_ns <= s->timer_ns)
            break;
        heap_put(i, g_exec.timers[parent]);
        i = parent;
    }
    heap_put(i, s);
}

static void sift_down(uint32_t i)
{
    sim_stream *s = g_exec.timers[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= g_exec.ntimers)
            break;
        if (c + 1 < g_exec.ntimers && g_exec.timers[c + 1]->timer_ns < g_exec.timers[c]->timer_ns)
            c++;
        if (g_exec.timers[c]->timer_ns >= s->timer_ns)
            break;
        heap_put(i, g_exec.timers[c]);
        i = c;
    }
    heap_put(i, s);
}

static void publish_next_deadline(void)
{
    atomic_store(&g_exec.next_deadline, g_exec.ntimers ? g_exec.timers[0]->timer_ns : UINT64_MAX);
}

static void timer_remove(sim_stream *s)
{
    uint32_t i = s->timer_pos - 1;
    s->timer_pos = 0;
    sim_stream *last = g_exec.timers[--g_exec.ntimers];
    if (i < g_exec.ntimers) {
        heap_put(i, last);
        sift_up(i);
        sift_down(last->timer_pos - 1);
    }
    publish_next_deadline();
}

/* Runs every parked stream whose deadline has passed. g_exec.lock held. */
static void fire_due_locked(void)
{
    if (!g_exec.ntimers)
        return;
    uint64_t now = sim_now_ns();
    while (g_exec.ntimers && g_exec.timers[0]->timer_ns <= now) {
        sim_stream *s = g_exec.timers[0];
        timer_remove(s);
        s->park_state = PARK_NONE;
        wake_send(enqueue_locked(s)); /* under the lock: a timeout, the rare path */
    }
}

void sim_exec_fire_timers(void)
{
    /* Between every two batches of every turn: no clock read while nothing is parked with a
     * deadline. */
    uint64_t next = atomic_load_explicit(&g_exec.next_deadline, memory_order_relaxed);
    if (next == UINT64_MAX || next > sim_now_ns())
        return;
    pthread_mutex_lock(&g_exec.lock);
    fire_due_locked();
    pthread_mutex_unlock(&g_exec.lock);
}

/* ------------------------------------------------------------------ parking -------------- */

bool sim_task_can_park(const sim_stream *s, const sim_task *t) { return t_is_worker && s->running == t; }

void sim_park_arm(sim_stream *s)
{
    pthread_mutex_lock(&g_exec.lock);
    s->park_state = PARK_ARMED;
    pthread_mutex_unlock(&g_exec.lock);
}

aclError sim_park(sim_stream *s, sim_task *t, uint64_t deadline_ns)
{
    (void)s;
    t->parked = true;
    t->wait_deadline_ns = deadline_ns;
    return SIM_TASK_PARKED;
}

bool sim_exec_park(sim_stream *s, uint64_t deadline_ns)
{
    pthread_mutex_lock(&g_exec.lock);
    if (s->park_state != PARK_ARMED) { /* woken since the arm: the turn runs the task again */
        s->park_state = PARK_NONE;
        pthread_mutex_unlock(&g_exec.lock);
        return false;
    }
    s->park_state = PARK_PARKED;
    if (deadline_ns) {
        s->timer_ns = deadline_ns;
        uint32_t i = g_exec.ntimers++; /* within cap: sim_exec_start reserved it */
        g_exec.timers[i] = s;
        sift_up(i);
        publish_next_deadline();
        if (g_exec.timers[0] == s) { /* a new first deadline: the timekeeper must see it */
            if (g_exec.keeper)
                pthread_cond_signal(&g_exec.timer_cv);
            else if (g_exec.idle)
                pthread_cond_signal(&g_exec.cv); /* it becomes the timekeeper */
            else if (g_exec.threads - g_exec.blocked < pool_size())
                (void)spawn_locked(); /* else busy workers fire it between batches */
        }
    }
    pthread_mutex_unlock(&g_exec.lock);
    return true;
}

void sim_stream_wake(sim_stream *s)
{
    pthread_cond_t *cv = NULL;
    pthread_mutex_lock(&g_exec.lock);
    if (s->park_state == PARK_ARMED) {
        s->park_state = PARK_WOKEN;
    } else if (s->park_state == PARK_PARKED) {
        if (s->timer_pos)
            timer_remove(s);
        s->park_state = PARK_NONE;
        cv = enqueue_locked(s);
    }
    pthread_mutex_unlock(&g_exec.lock);
    wake_send(cv);
}

void sim_waitq_add(sim_waitq *q, sim_stream *s)
{
    if (s->wq_linked)
        return;
    s->wq_prev = NULL;
    s->wq_next = q->head;
    if (q->head)
        q->head->wq_prev = s;
    q->head = s;
    s->wq_linked = true;
}

void sim_waitq_remove(sim_waitq *q, sim_stream *s)
{
    if (!s->wq_linked)
        return;
    if (s->wq_prev)
        s->wq_prev->wq_next = s->wq_next;
    else
        q->head = s->wq_next;
    if (s->wq_next)
        s->wq_next->wq_prev = s->wq_prev;
    s->wq_next = s->wq_prev = NULL;
    s->wq_linked = false;
}

void sim_waitq_wake_all(sim_waitq *q)
{
    while (q->head) {
        sim_stream *s = q->head;
        sim_waitq_remove(q, s);
        sim_stream_wake(s);
    }
}

void sim_exec_polling(bool on)
{
    if (on)
        atomic_fetch_add(&g_exec.pollers, 1);
    else
        atomic_fetch_sub(&g_exec.pollers, 1);
}

bool sim_exec_others_waiting(void)
{
    return atomic_load_explicit(&g_exec.queued, memory_order_relaxed) > 0;
}

void sim_exec_block(void)
{
    if (!t_is_worker)
        return;
    pthread_mutex_lock(&g_exec.lock);
    g_exec.blocked++;
    pthread_cond_t *cv = g_exec.head ? wake_locked() : NULL;
    pthread_mutex_unlock(&g_exec.lock);
    wake_send(cv);
}

void sim_exec_unblock(void)
{
    if (!t_is_worker)
        return;
    pthread_mutex_lock(&g_exec.lock);
    g_exec.blocked--;
    pthread_mutex_unlock(&g_exec.lock);
}

int sim_exec_threads(void)
{
    pthread_mutex_lock(&g_exec.lock);
    int n = g_exec.threads;
    pthread_mutex_unlock(&g_exec.lock);
    return n;
}

static void *worker_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "aclsim-stream");
    t_is_worker = true;
    /* The worker runs kernel blocks on borrowed cores (sim_pool_run) under its own guard. */
    sim_guard *guard = sim_fault_thread_init();
    pthread_mutex_lock(&g_exec.lock);
    for (;;) {
        /* More workers running than the pool's size (blocked ones came back): this one leaves. */
        if (g_exec.threads - g_exec.blocked > pool_size())
            break;
        fire_due_locked();
        sim_stream *s = g_exec.head;
        if (!s) {
            if (g_exec.ntimers && !g_exec.keeper) {
                /* The timekeeper: asleep until the first deadline (or a new, earlier one). */
                uint64_t ns = g_exec.timers[0]->timer_ns;
                struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull)};
                g_exec.keeper = true;
                pthread_cond_timedwait(&g_exec.timer_cv, &g_exec.lock, &ts);
                g_exec.keeper = false;
            } else {
                g_exec.idle++;
                pthread_cond_wait(&g_exec.cv, &g_exec.lock);
                g_exec.idle--;
            }
            /* Whichever worker wakes first looks at the queue now, in the signalled one's
             * stead if it was not that one (a timeout, a spurious wake-up): the signalled one,
             * when it wakes later, looks too. */
            if (g_exec.waking)
                g_exec.waking--;
            continue;
        }
        g_exec.head = s->run_next;
        if (!g_exec.head)
            g_exec.tail = NULL;
        atomic_fetch_sub_explicit(&g_exec.queued, 1, memory_order_relaxed);
        pthread_cond_t *cv = NULL;
        if (g_exec.head) /* more queued than this worker takes: pass the wake-up on */
            cv = wake_locked();
        else if (g_exec.ntimers && !g_exec.keeper && g_exec.idle)
            cv = &g_exec.cv; /* an idle one keeps the time instead of this one */
        pthread_mutex_unlock(&g_exec.lock);
        wake_send(cv);
        sim_stream_run_turn(s, guard);
        pthread_mutex_lock(&g_exec.lock);
    }
    g_exec.threads--;
    /* It may have been the signalled one: an idle worker takes the queue in its stead. */
    pthread_cond_t *cv = g_exec.head ? wake_locked() : NULL;
    pthread_mutex_unlock(&g_exec.lock);
    wake_send(cv);
    sim_fault_thread_fini(guard);
    return NULL;
}
