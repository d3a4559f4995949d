/*
 * aiocann simulator: stream memory operations -- aclrtValueWrite and aclrtValueWait -- and
 * the two helpers every stream-ordered memory operation of issue 11 uses (sim_op_submit,
 * sim_op_stream_valid).
 *
 * A value write stores 64 bits at a device address when its stream reaches it. A value wait
 * holds its stream -- not the host -- until the 64 bits at a device address satisfy its
 * condition (the flag): GEQ, the value read as int64 is >= the operand (the STARS program uses
 * a signed branch, BGE); EQ, equal; AND, (value & operand) != 0; NOR, ~(value | operand) != 0
 * (stars_cond_isa_helper.cc ConvertConditionToOpAndBranchFunc). Both run on the stream's worker
 * under its fault guard, so an address that stops being mapped (freed, unmapped) fails the
 * task with 507013 instead of crashing, and the failure is reported as every task's is.
 *
 * How a wait waits: the hardware polls the memory. So does the simulator: the wait reads it,
 * and while the condition does not hold its stream is parked (executor.c) until the next read
 * (20 us, doubling to 1 ms); a value write anywhere wakes every waiting stream at once (the
 * bell), and any other writer -- a kernel, a copy, a memset, the host -- is noticed at the
 * next read, at most 1 ms later. (Inside a graph replay the worker itself sleeps between
 * reads.) A wait whose value never comes holds its stream as on a device: the
 * stream's synchronize waits (a timeout returns 507046). Only the end of the stream ends it:
 * aclrtDestroyStream, aclrtDestroyStreamForce, aclrtResetDevice and aclFinalize set the
 * stream stopping, the wait gives up, and the stream's remaining tasks are discarded as a
 * forced destroy discards them (a destroy otherwise waits for its tasks, which would then
 * never end) -- or an abort (aclrtStreamAbort, aclrtDeviceTaskAbort: abort.c), which ends
 * the running task and drops the rest itself.
 *
 * Sources: src/acl/aclrt_impl/memory.cpp (aclrtValueWriteImpl, aclrtValueWaitImpl: devAddr
 * NULL), src/runtime/api/api_c_memory.cc (rtsValueWrite/Wait: the chip feature, the stream
 * handle), src/runtime/api/impl/api_error.cc (MemWriteValue: flag 0; MemWaitValue: flag < 4;
 * both: the address must be device memory), api_impl.cc (a context, the stream in it),
 * core/src/launch/memory_stars.cc and task/task_info/memory/memory_task.cc (64-bit access),
 * docs/zh/api_ref/11-09_stream_memory_operation.md.
 *
 * Locking: g_bell_lock, above only the executor's lock (a ring wakes the parked waits); the
 * wait reads its stream's stopping flag under the stream's lock, holding nothing else.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sim.h"

#define WAIT_GEQ 0u
#define WAIT_EQ 1u
#define WAIT_AND 2u
#define WAIT_NOR 3u
#define WAIT_MAX 4u /* MEM_WAIT_VALUE_TYPE_MAX */

#define POLL_MIN_NS 20000ull   /* first sleep between reads */
#define POLL_MAX_NS 1000000ull /* longest: another writer is noticed within 1 ms */

/* ------------------------------------------------------------------ shared helpers ------- */

aclError sim_op_stream_valid(aclrtStream stream, const char *func)
{
    if (!stream)
        return ACL_SUCCESS;
    sim_obj *o = sim_handle_get(stream, SIM_KIND_STREAM);
    if (!o)
        return sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "stream %p is not a live stream (destroyed, or not a stream)",
                         stream);
    sim_obj_put(o);
    return ACL_SUCCESS;
}

aclError sim_op_submit(sim_stream *s, const sim_task_ops *ops, const uint64_t *a, size_t n, const char *func)
{
    if (n > SIM_OP_MAX_ARGS)
        return sim_fail_(func, ACL_ERROR_INTERNAL_ERROR, "too many operands for a stream task");
    sim_task *t = sim_task_new(ops);
    if (!t)
        return sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
    memcpy(t->inline_args, a, n * sizeof *a);
    return sim_stream_submit(s, t, func, NULL);
}

uint64_t sim_op_arg(const sim_task *t, size_t i)
{
    uint64_t v;
    memcpy(&v, t->inline_args + i * sizeof v, sizeof v);
    return v;
}

aclError sim_op_device_address(const void *p, const char *what, const char *func, int *dev)
{
    int d = -1;
    switch (sim_where_is(p, 1, &d)) {
    case SIM_WHERE_DEVICE:
        if (dev)
            *dev = d;
        return ACL_SUCCESS;
    case SIM_WHERE_INVALID:
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s %p is in device memory but not inside live memory", what,
                         p);
    default:
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s %p is host memory: its location must be the device", what,
                         p);
    }
}

/* ------------------------------------------------------------------ the bell ------------- */

static pthread_mutex_t g_bell_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_bell;
static pthread_once_t g_bell_once = PTHREAD_ONCE_INIT;
static uint64_t g_rings;        /* value writes done (g_bell_lock) */
static atomic_int g_listeners;  /* waits between their first read and their end */
static sim_waitq g_parked;      /* streams whose value wait parked (g_bell_lock; executor.c) */

static void bell_init(void)
{
    sim_cond_init_monotonic(&g_bell);
}

static void ring(void)
{
    if (!atomic_load(&g_listeners))
        return;
    pthread_mutex_lock(&g_bell_lock);
    g_rings++;
    pthread_cond_broadcast(&g_bell);
    sim_waitq_wake_all(&g_parked);
    pthread_mutex_unlock(&g_bell_lock);
}

static uint64_t rings(void)
{
    pthread_mutex_lock(&g_bell_lock);
    uint64_t n = g_rings;
    pthread_mutex_unlock(&g_bell_lock);
    return n;
}

/* Sleeps until a value write after `seen`, or ns have passed. */
static void wait_ring(uint64_t seen, uint64_t ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += (long)(ns % 1000000000ull);
    ts.tv_sec += (time_t)(ns / 1000000000ull) + ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&g_bell_lock);
    int rc = 0;
    while (g_rings == seen && rc == 0)
        rc = pthread_cond_timedwait(&g_bell, &g_bell_lock, &ts);
    pthread_mutex_unlock(&g_bell_lock);
}

/* ------------------------------------------------------------------ the tasks ------------ */

typedef struct access64 {
    uintptr_t addr;
    uint64_t value;
} access64;

/* 64-bit accesses, atomic where the address allows (a device's memory is naturally aligned
 * for them; the runtime does not check, so an unaligned one is two plain halves). */
static void do_store(void *arg)
{
    access64 *io = arg;
    if (io->addr % 8 == 0)
        __atomic_store_n((uint64_t *)io->addr, io->value, __ATOMIC_RELEASE);
    else
        memcpy((void *)io->addr, &io->value, 8);
}

static void do_load(void *arg)
{
    access64 *io = arg;
    if (io->addr % 8 == 0)
        io->value = __atomic_load_n((const uint64_t *)io->addr, __ATOMIC_ACQUIRE);
    else
        memcpy(&io->value, (const void *)io->addr, 8);
}

/* Runs fn on the worker under its guard; 0 or 507013 with msg. */
static aclError guarded(sim_stream *s, void (*fn)(void *), access64 *io, const char *what, char *msg, size_t msglen)
{
    sim_fault f = {.sig = 0};
    if (s->guard)
        f = sim_guarded_call(s->guard, fn, io);
    else
        fn(io);
    if (!f.sig)
        return ACL_SUCCESS;
    char why[160];
    snprintf(msg, msglen, "%s of 8 bytes at %p: %s", what, (void *)io->addr, sim_fault_text(f, why, sizeof why));
    return ACL_ERROR_RT_SYS_DMA;
}

static aclError run_write(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    access64 io = {.addr = (uintptr_t)sim_op_arg(t, 0), .value = sim_op_arg(t, 1)};
    aclError rc = guarded(s, do_store, &io, "value write", msg, msglen);
    ring();
    return rc;
}

static bool satisfied(uint64_t have, uint64_t want, uint32_t flag)
{
    switch (flag) {
    case WAIT_GEQ: return (int64_t)have >= (int64_t)want;
    case WAIT_EQ: return have == want;
    case WAIT_AND: return (have & want) != 0;
    default: return ~(have | want) != 0; /* WAIT_NOR */
    }
}

static bool stopping(sim_stream *s)
{
    if (atomic_load_explicit(&s->discard, memory_order_relaxed))
        return true;
    pthread_mutex_lock(&s->lock);
    bool stop = s->stopping;
    pthread_mutex_unlock(&s->lock);
    return stop;
}

static aclError block_wait(sim_stream *s, const sim_task *t, char *msg, size_t msglen);

/* One look at value-wait task t's value (io: its address; the read goes into io->value): true
 * when the wait is over -- the value satisfies it, the read failed (*rc), or the stream was
 * aborted, force-destroyed or is going away (then what is queued after it will never be
 * reached, so it is discarded: each task's ops->discard). Both forms of the wait use it. */
static bool wait_over(sim_stream *s, const sim_task *t, access64 *io, aclError *rc, char *msg, size_t msglen)
{
    if ((*rc = guarded(s, do_load, io, "value wait: read", msg, msglen)))
        return true;
    if (satisfied(io->value, sim_op_arg(t, 1), (uint32_t)sim_op_arg(t, 2)))
        return true;
    if (sim_stream_abort_requested(s))
        return true; /* aborted or force-destroyed: the worker drops what follows */
    if (stopping(s)) {
        atomic_store(&s->discard, true);
        return true;
    }
    return false;
}

/* The wait of value-wait task t, parking (executor.c) when `park` says it may: each run reads
 * the value once; when the wait is not over it parks the stream on the bell with a deadline --
 * the next read, with the same backoff as the blocking form (w->wait_ctx keeps the current
 * sleep) -- so a value write wakes it at once and any other writer is noticed at the next
 * read. `w` is the task whose parking it is: t itself, or the replay t is part of
 * (sim_replay_can_park). */
static aclError wait_value(sim_stream *s, sim_task *w, const sim_task *t, bool park, char *msg, size_t msglen)
{
    if (!park)
        return block_wait(s, t, msg, msglen);
    pthread_once(&g_bell_once, bell_init);
    access64 io = {.addr = (uintptr_t)sim_op_arg(t, 0)};
    uint64_t sleep_ns = (uint64_t)(uintptr_t)w->wait_ctx;
    if (!sleep_ns) { /* the first run */
        atomic_fetch_add(&g_listeners, 1);
        sleep_ns = POLL_MIN_NS;
    }
    aclError rc = ACL_SUCCESS;
    sim_park_arm(s);
    for (;;) {
        pthread_mutex_lock(&g_bell_lock);
        sim_waitq_remove(&g_parked, s);
        uint64_t seen = g_rings; /* before the read: a write after it is never missed */
        pthread_mutex_unlock(&g_bell_lock);
        if (wait_over(s, t, &io, &rc, msg, msglen))
            break;
        pthread_mutex_lock(&g_bell_lock);
        if (g_rings != seen) { /* a write since the read: read again */
            pthread_mutex_unlock(&g_bell_lock);
            continue;
        }
        sim_waitq_add(&g_parked, s);
        pthread_mutex_unlock(&g_bell_lock);
        w->wait_ctx = (void *)(uintptr_t)(sleep_ns * 2 < POLL_MAX_NS ? sleep_ns * 2 : POLL_MAX_NS);
        return sim_park(s, w, sim_now_ns() + sleep_ns);
    }
    w->wait_ctx = NULL;
    atomic_fetch_sub(&g_listeners, 1);
    return rc;
}

static aclError run_wait(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    return wait_value(s, t, t, sim_task_can_park(s, t), msg, msglen);
}

/* A captured wait, replayed: the replay task parks (capture.c goes on from this wait). */
static aclError replay_wait(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    return wait_value(s, (sim_task *)rt, t, sim_replay_can_park(s, rt), msg, msglen);
}

/* The blocking form (where the stream cannot park: inside a sub-model's or a built model's
 * replay): the worker polls and sleeps (a hand-off, executor.c). */
static aclError block_wait(sim_stream *s, const sim_task *t, char *msg, size_t msglen)
{
    pthread_once(&g_bell_once, bell_init);
    access64 io = {.addr = (uintptr_t)sim_op_arg(t, 0)};
    aclError rc = ACL_SUCCESS;
    uint64_t sleep_ns = POLL_MIN_NS;
    bool parked = false;
    atomic_fetch_add(&g_listeners, 1);
    for (;;) {
        uint64_t seen = rings(); /* before the read: a write after it is never missed */
        if (wait_over(s, t, &io, &rc, msg, msglen))
            break;
        if (!parked) { /* a wait does not hold the pool's place (executor.c) */
            sim_exec_block();
            parked = true;
        }
        wait_ring(seen, sleep_ns);
        sleep_ns = sleep_ns * 2 < POLL_MAX_NS ? sleep_ns * 2 : POLL_MAX_NS;
    }
    if (parked)
        sim_exec_unblock();
    atomic_fetch_sub(&g_listeners, 1);
    return rc;
}

static const sim_task_ops k_write = {.run = run_write};
static const sim_task_ops k_wait = {.run = run_wait, .replay = replay_wait};

/* ------------------------------------------------------------------ API ------------------ */

static aclError submit(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream, bool wait, const char *func)
{
    aclError rc = sim_op_stream_valid(stream, func); /* rtsValueWrite/Wait: the handle first */
    if (rc)
        return rc;
    if (!wait && flag != 0)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "flag is reserved and must be 0, not %u", flag);
    if (wait && flag >= WAIT_MAX)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "flag %u is not a wait condition ([0, 4): GEQ, EQ, AND, NOR)",
                         flag);
    if ((rc = sim_op_device_address(devAddr, "devAddr", func, NULL)))
        return rc;
    sim_stream *s = sim_stream_for_work(stream, func, &rc);
    if (!s)
        return rc;
    const uint64_t a[3] = {(uint64_t)(uintptr_t)devAddr, value, flag};
    rc = sim_op_submit(s, wait ? &k_wait : &k_write, a, 3, func);
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(devAddr);
    return submit(devAddr, value, flag, stream, false, __func__);
}

SIM_API aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(devAddr);
    return submit(devAddr, value, flag, stream, true, __func__);
}
