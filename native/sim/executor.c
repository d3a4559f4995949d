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
 * A task that waits for something another thread or process provides -- an event record, a
 * blocking host callback, a notify, a value -- says so (sim_stream_block_on, sim_exec_block):
 * its worker stops counting as one of the pool's, and when that leaves fewer running workers
 * than the pool's size while streams are queued, another thread joins (as Go's scheduler hands
 * its processor to a new thread when one blocks in a system call). A waiting stream thus never
 * keeps another stream from running, and threads beyond the pool's size exist only while that
 * many streams wait at once: they leave when their wait is over and the pool is full again.
 *
 * The pool's size: AIOCANN_SIM_STREAM_WORKERS, by default the machine's CPUs plus the AI cores
 * of a device (AIOCANN_SIM_CORES): a worker running a kernel waits for the device's AI-core
 * threads, so the pool leaves room for as many kernels in flight as there are cores. Workers
 * start on demand and stay (idle, asleep) once started; the pool is the process's and
 * outlives aclFinalize, like the threads of a real runtime.
 *
 * Locking: g_exec.lock is a leaf below every stream's lock (stream->lock > g_exec.lock); a
 * worker holds no lock while it runs a stream.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cv;           /* idle workers wait here for a queued stream */
    sim_stream *head, *tail;     /* the run queue (sim_stream.run_next) */
    int threads;                 /* live workers */
    int idle;                    /* workers asleep on cv */
    int blocked;                 /* workers inside a blocking wait (sim_exec_block) */
    int size;                    /* the pool's size, as configured when a stream last started */
    atomic_int queued;           /* streams on the run queue, read without the lock */
    atomic_int pollers;          /* workers polling a stream of theirs for more work (stream.c) */
} g_exec = {.lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

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
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int err = pthread_create(&t, &attr, worker_main, NULL);
    pthread_attr_destroy(&attr);
    if (!err)
        g_exec.threads++;
    return err;
}

/* A queued stream needs a worker: wake an idle one, or start one while fewer than the pool's
 * size are running (not blocked). g_exec.lock held. */
static void wake_locked(void)
{
    /* A worker polling its own stream sees the queue at once (sim_exec_others_waiting), gives
     * way and takes the queued stream before it could sleep: no wake-up, and no thread
     * switch, on the launch path of a stream that went idle a moment ago. (Its decrement
     * precedes its next look at the queue, under this lock, so it cannot miss the stream.) */
    if (atomic_load(&g_exec.pollers) > 0)
        return;
    if (g_exec.idle)
        pthread_cond_signal(&g_exec.cv);
    else if (g_exec.threads - g_exec.blocked < pool_size())
        (void)spawn_locked(); /* on failure the running workers still drain the queue */
}

aclError sim_exec_start(const char *func)
{
    int size = configured_size();
    pthread_mutex_lock(&g_exec.lock);
    g_exec.size = size;
    int err = g_exec.threads > 0 ? 0 : spawn_locked();
    pthread_mutex_unlock(&g_exec.lock);
    if (err)
        return sim_fail_(func, ACL_ERROR_RT_NO_STREAM_RESOURCE, "cannot start a stream worker thread: %s",
                         strerror(err));
    return ACL_SUCCESS;
}

void sim_exec_schedule(sim_stream *s)
{
    pthread_mutex_lock(&g_exec.lock);
    s->run_next = NULL;
    if (g_exec.tail)
        g_exec.tail->run_next = s;
    else
        g_exec.head = s;
    g_exec.tail = s;
    atomic_fetch_add_explicit(&g_exec.queued, 1, memory_order_relaxed);
    wake_locked();
    pthread_mutex_unlock(&g_exec.lock);
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
    if (g_exec.head)
        wake_locked();
    pthread_mutex_unlock(&g_exec.lock);
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
        sim_stream *s = g_exec.head;
        if (!s) {
            g_exec.idle++;
            pthread_cond_wait(&g_exec.cv, &g_exec.lock);
            g_exec.idle--;
            continue;
        }
        g_exec.head = s->run_next;
        if (!g_exec.head)
            g_exec.tail = NULL;
        atomic_fetch_sub_explicit(&g_exec.queued, 1, memory_order_relaxed);
        if (g_exec.head) /* more queued than this worker takes: pass the wake-up on */
            wake_locked();
        pthread_mutex_unlock(&g_exec.lock);
        sim_stream_run_turn(s, guard);
        pthread_mutex_lock(&g_exec.lock);
    }
    g_exec.threads--;
    pthread_mutex_unlock(&g_exec.lock);
    sim_fault_thread_fini(guard);
    return NULL;
}
