/*
 * aiocann simulator: the functions a kernel binary calls (aclsim_kernel.h, aclsim_kernel_rt).
 *
 * The Ascend C layer (kernel_operator.h and the headers in ascendc/) runs inside the kernel binary; what it
 * needs from the simulator is small and lives here: ending the running block as an AI-core
 * exception when the kernel breaks one of the hardware's rules (or calls trap()), printing the
 * device's printf lines, the simulated chip, each AI core's unified buffer, and the float
 * overflow mode of the running launch. binary.c puts
 * the table into every binary's slot when it loads it.
 *
 * Threads: fail and ub are called on the thread running a block (a core thread, or a stream
 * worker that borrowed a core slot); print from any number of blocks at once.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aclsim_chip.h"
#include "sim.h"

static __attribute__((noreturn)) void rt_fail(const char *what) { sim_fault_raise(what); }

/* One write per call under a lock: a block's printf arrives as whole lines, and lines of
 * blocks printing at once never interleave. Through stdio (and flushed), so the output keeps
 * its order with the host program's own printf on the same stream. */
static pthread_mutex_t g_print_lock = PTHREAD_MUTEX_INITIALIZER;

static void rt_print(const char *text, size_t len)
{
    pthread_mutex_lock(&g_print_lock);
    fwrite(text, 1, len, stdout);
    fflush(stdout);
    pthread_mutex_unlock(&g_print_lock);
}

static const struct aclsimChip *rt_chip(void) { return aclsimGetChip(); }

/* The unified buffer of the core the calling thread stands for: allocated on the thread's
 * first block and kept for its life (freed by the key's destructor when the thread ends). A
 * thread-local pointer is read on each call; the key only frees it. */
static pthread_key_t g_ub_key;
static pthread_once_t g_ub_once = PTHREAD_ONCE_INIT;
static __thread void *t_ub;

static void make_ub_key(void) { pthread_key_create(&g_ub_key, free); }

static void *rt_ub(void)
{
    if (!t_ub) {
        const aclsimChip *chip = aclsimGetChip();
        if (!chip)
            return NULL;
        pthread_once(&g_ub_once, make_ub_key);
        size_t size = (size_t)((chip->ub_size + 63) & ~(uint64_t)63);
        void *p = aligned_alloc(64, size);
        if (!p)
            return NULL;
        t_ub = p;
        pthread_setspecific(g_ub_key, p);
    }
    return t_ub;
}

/* SyncAll: a barrier of the launch's blocks, by counting. The blocks spin (yielding the CPU)
 * rather than sleep on a condition variable: a block interrupted while it waits -- a timeout,
 * an abort -- leaves through the fault path, which must not find a lock taken. Every block
 * must be running to arrive, so a launch with more blocks than can run at once fails (on the
 * device it hangs), and a waiting block ends when another block of the launch has failed. */
static __thread sim_job *t_job;

void sim_kernel_rt_enter(sim_job *j) { t_job = j; }

static void rt_sync_all(void)
{
    sim_job *j = t_job;
    char what[256];
    if (!j)
        sim_fault_raise("SyncAll: called outside a launch's block");
    if (j->num_blocks > j->concurrency) {
        snprintf(what, sizeof what,
                 "SyncAll: the launch has %u blocks and at most %u run at once; every block must reach the barrier "
                 "while running (on the device the launch hangs)",
                 j->num_blocks, j->concurrency);
        sim_fault_raise(what);
    }
    unsigned gen = atomic_load_explicit(&j->sync_gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&j->sync_arrived, 1, memory_order_acq_rel) + 1 == j->num_blocks) {
        atomic_store_explicit(&j->sync_arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&j->sync_gen, 1, memory_order_release); /* everyone goes on */
        return;
    }
    for (unsigned spins = 0; atomic_load_explicit(&j->sync_gen, memory_order_acquire) == gen; spins++) {
        if (__atomic_load_n(&j->abort, __ATOMIC_ACQUIRE))
            sim_fault_raise("SyncAll: another block of the launch failed while this one waited at the barrier");
        if (spins < 64) {
            sched_yield();
        } else {
            struct timespec ts = {0, 20000}; /* 20 us */
            nanosleep(&ts, NULL);
        }
    }
}

/* issue 23: the float overflow mode of the launch this thread runs a block of -- its stream's
 * (sim_stream.sat_mode) -- or, outside a block, the process's. */
static int rt_sat_mode(void) { return t_job ? t_job->sat_mode : sim_sat_mode_current(); }

static const aclsim_kernel_rt g_kernel_rt = {
    .version = ACLSIM_KERNEL_RT_VERSION,
    .sat_mode = rt_sat_mode,
    .fail = rt_fail,
    .print = rt_print,
    .chip = rt_chip,
    .ub = rt_ub,
    .sync_all = rt_sync_all,
};

const aclsim_kernel_rt *sim_kernel_rt(void) { return &g_kernel_rt; }
