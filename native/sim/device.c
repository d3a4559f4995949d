/*
 * aiocann simulator: devices, contexts and each device's AI-core thread pool.
 *
 * A device becomes active on the first aclrtSetDevice (or aclrtCreateContext) and is torn
 * down when its reference count returns to zero: its streams are drained and stopped, its
 * memory is released and its threads are joined. The calling thread's current context is a
 * thread-local *handle*, not a pointer, so a thread whose context died with its device simply
 * has no context (107002) instead of a dangling pointer.
 *
 * The AI cores: `cores_per_device` threads share one FIFO of launches (jobs). An idle core
 * claims the next block of the job at the head of the queue, so the blocks of one launch run
 * in parallel and launches from different streams share the cores, as on the device. A core
 * runs each block under a fault guard (fault.c). A watchdog thread per device ends blocks of
 * launches whose timeout attribute has expired.
 *
 * A launch may be limited to fewer cores (res_limit.c, issue 11): at most max_cores of its
 * blocks run at once, and while it is at its limit the cores take blocks of the launches
 * queued behind it. After each block the core collects the status the block reported
 * (aclsim_kernel_take_status: overflow, overflow.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static sim_device g_devices[SIM_MAX_DEVICES];
static pthread_once_t g_devices_once = PTHREAD_ONCE_INIT;
static __thread void *t_ctx; /* handle of the calling thread's current context */

static void devices_init(void)
{
    for (int i = 0; i < SIM_MAX_DEVICES; i++) {
        g_devices[i].id = i;
        pthread_mutex_init(&g_devices[i].lock, NULL);
        pthread_mutex_init(&g_devices[i].mem.lock, NULL);
    }
}

sim_device *sim_device_at(int i)
{
    pthread_once(&g_devices_once, devices_init);
    return (i >= 0 && i < SIM_MAX_DEVICES) ? &g_devices[i] : NULL;
}

sim_device *sim_device_of(int32_t id)
{
    pthread_mutex_lock(&g_rt.lock);
    int n = g_rt.booted ? g_rt.cfg.num_devices : 0;
    pthread_mutex_unlock(&g_rt.lock);
    return (id >= 0 && id < n) ? sim_device_at(id) : NULL;
}

sim_context *sim_current_context_quiet(void)
{
    sim_obj *o = t_ctx ? sim_handle_get(t_ctx, SIM_KIND_CONTEXT) : NULL;
    if (!o)
        t_ctx = NULL;
    return (sim_context *)o;
}

sim_context *sim_current_context(const char *func)
{
    sim_obj *o = t_ctx ? sim_handle_get(t_ctx, SIM_KIND_CONTEXT) : NULL;
    if (!o) {
        t_ctx = NULL;
        sim_fail_(func, ACL_ERROR_RT_CONTEXT_NULL,
                  "the calling thread has no current context: call aclrtSetDevice or aclrtSetCurrentContext");
        return NULL;
    }
    return (sim_context *)o;
}

/* ------------------------------------------------------------------ AI-core pool --------- */

typedef struct block_call {
    const aclsim_kernel_desc *desc;
    const void *args;
    int64_t idx, num;
} block_call;

/* May a core start a block of j now? Its core limit, and for batch mode (start only when
 * enough cores are idle) the cores it needs. Pool lock held. */
static bool can_claim(const sim_core_pool *p, const sim_job *j)
{
    uint32_t cores = (uint32_t)p->num_cores;
    if (j->max_cores && j->max_cores < cores)
        cores = j->max_cores;
    if (j->running >= cores)
        return false;
    if (j->batch && j->next_block == 0) {
        int need = (int)(j->num_blocks < cores ? j->num_blocks : cores);
        if (p->idle < need)
            return false;
    }
    return true;
}

static void run_block(void *arg)
{
    block_call *c = arg;
    c->desc->entry(c->args, c->idx, c->num);
}

/* The first queued job a core may claim a block of now. A job at its core limit lets the
 * jobs behind it go first; a batch-mode job waiting for its cores does not (it keeps its
 * place, as before limits existed). */
static sim_job *claimable(sim_core_pool *p)
{
    for (sim_job *j = p->head; j; j = j->next) {
        if (can_claim(p, j))
            return j;
        if (!j->max_cores || j->running < j->max_cores)
            return NULL; /* waits for idle cores (batch mode), not for its limit */
    }
    return NULL;
}

static void dequeue(sim_core_pool *p, sim_job *j)
{
    sim_job **pp = &p->head, *prev = NULL;
    while (*pp && *pp != j) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (!*pp)
        return;
    *pp = j->next;
    if (p->tail == j)
        p->tail = prev;
    j->next = NULL;
}

/* Ends a job early: unclaimed blocks count as finished and are never run. Pool lock held. */
static void abort_job(sim_core_pool *p, sim_job *j)
{
    if (j->next_block < j->num_blocks) {
        dequeue(p, j);
        j->finished += j->num_blocks - j->next_block;
        j->next_block = j->num_blocks;
    }
    j->abort = true;
}

static void finish_block(sim_core_pool *p, sim_job *j, uint32_t block, sim_fault f)
{
    j->running--;
    j->finished++;
    if ((f.sig || j->timed_out) && !j->error) {
        if (j->timed_out) {
            j->error = ACL_ERROR_RT_AICORE_TIMEOUT;
            snprintf(j->errmsg, sizeof j->errmsg,
                     "kernel %s exceeded its timeout of %llu us; block %u of %u was stopped", j->desc->name,
                     (unsigned long long)j->timeout_us, block, j->num_blocks);
        } else {
            j->error = ACL_ERROR_RT_AICORE_EXCEPTION;
            char what[320];
            snprintf(j->errmsg, sizeof j->errmsg, "kernel %s, block %u of %u: %s", j->desc->name, block,
                     j->num_blocks, sim_fault_text(f, what, sizeof what));
        }
        abort_job(p, j);
    }
    if (j->finished == j->num_blocks)
        pthread_cond_broadcast(&j->done_cv);
}

typedef struct core_arg {
    sim_core_pool *pool;
    int index;
    int device;
} core_arg;

/* Claims the next block of j for core slot c, run by the calling thread. Pool lock held. now:
 * the clock, when the caller has just read it, else 0. */
static uint32_t claim(sim_core_pool *p, sim_core *c, sim_job *j, sim_guard *guard, uint64_t now)
{
    uint32_t b = j->next_block++;
    if (b == 0 && j->timeout_us)
        j->deadline_ns = (now ? now : sim_now_ns()) + j->timeout_us * 1000ull;
    if (j->next_block == j->num_blocks)
        dequeue(p, j);
    j->running++;
    p->idle--;
    c->job = j;
    c->block = b;
    c->runner = pthread_self();
    c->runner_guard = guard;
    return b;
}

/* Runs block b of j on slot c (index ci) without the pool lock, then accounts for it. Called
 * with the pool lock held; returns with it held. */
static void run_claimed(sim_core_pool *p, sim_core *c, int ci, sim_job *j, uint32_t b, sim_guard *guard)
{
    block_call call = {j->desc, j->args, b, j->num_blocks};
    uint32_t (*take_status)(void) = j->take_status;
    pthread_mutex_unlock(&p->lock);
    bool trace = sim_trace_on();
    uint64_t t0 = trace ? sim_now_ns() : 0;
    sim_kernel_rt_enter(j);
    sim_fault f = guard ? sim_guarded_call(guard, run_block, &call) : (run_block(&call), (sim_fault){.sig = 0});
    sim_kernel_rt_enter(NULL);
    /* The block's status lives in the kernel's thread-local word: read it on this thread,
     * also after a fault, so that it cannot leak into the next block this thread runs. */
    uint32_t status = take_status ? take_status() : 0;
    if (trace) {
        aclsimTraceRecord r = {.start_ns = t0, .end_ns = sim_now_ns(), .stream = j->stream, .seq = j->seq,
                               .device = j->device, .core = ci, .block = (int32_t)b, .type = ACLSIM_TRACE_BLOCK,
                               .status = f.sig ? ACL_ERROR_RT_AICORE_EXCEPTION : 0};
        snprintf(r.name, sizeof r.name, "%s", j->desc->name);
        sim_trace_add(&r);
    }
    pthread_mutex_lock(&p->lock);
    c->job = NULL;
    p->idle++;
    j->status |= status;
    finish_block(p, j, b, f);
    /* A job below its core limit again may let a waiting core take its next block. */
    if (j->max_cores && j->next_block < j->num_blocks)
        pthread_cond_signal(&p->work_cv);
}

static void *core_main(void *arg)
{
    core_arg a = *(core_arg *)arg;
    free(arg);
    sim_core_pool *p = a.pool;
    sim_core *me = &p->cores[a.index];
    char name[16];
    snprintf(name, sizeof name, "aclsim%d-core%d", a.device, a.index);
    pthread_setname_np(pthread_self(), name);
    sim_guard *guard = sim_fault_thread_init();

    pthread_mutex_lock(&p->lock);
    me->guard = guard;
    while (!p->stop) {
        sim_job *j = me->borrowed ? NULL : claimable(p);
        if (!j) {
            pthread_cond_wait(&p->work_cv, &p->lock);
            continue;
        }
        uint32_t b = claim(p, me, j, guard, 0);
        run_claimed(p, me, a.index, j, b, guard);
    }
    me->guard = NULL;
    pthread_mutex_unlock(&p->lock);
    sim_fault_thread_fini(guard);
    return NULL;
}

/* Ends the blocks of launches whose timeout has expired. Every launch has a timeout -- the
 * runtime's default operator timeout unless its config says otherwise -- so the watchdog does
 * not want a wake-up per launch: it looks at least once a second, and sim_pool_run signals it
 * only for a launch whose timeout could expire before its next look (watchdog_wake_ns). */
static void *watchdog_main(void *arg)
{
    sim_core_pool *p = arg;
    pthread_setname_np(pthread_self(), "aclsim-watchdog");
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        uint64_t now = sim_now_ns();
        uint64_t next = now + (p->timed_jobs ? 100000000ull : 1000000000ull); /* re-check: 100 ms busy, 1 s idle */
        for (int i = 0; i < p->num_cores; i++) {
            sim_job *j = p->cores[i].job;
            if (!j || (!j->deadline_ns && !j->killed))
                continue;
            bool expired = j->deadline_ns && j->deadline_ns <= now;
            if (expired || j->killed) { /* killed: an abort (sim_pool_kill) */
                if (expired && !j->timed_out) {
                    j->timed_out = true;
                    abort_job(p, j);
                }
                /* The block may not have entered its guarded call yet, and a request that
                 * arrives before it does is ignored: re-send until the block has left the
                 * core. */
                if (p->cores[i].runner_guard)
                    sim_fault_interrupt(p->cores[i].runner_guard, p->cores[i].runner);
                next = now + 1000000ull;
            } else if (j->deadline_ns < next) {
                next = j->deadline_ns;
            }
        }
        p->watchdog_wake_ns = next;
        struct timespec ts = {.tv_sec = (time_t)(next / 1000000000ull), .tv_nsec = (long)(next % 1000000000ull)};
        pthread_cond_timedwait(&p->watchdog_cv, &p->lock, &ts);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static int spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, SIM_KERNEL_STACK_BYTES);
    int rc = pthread_create(t, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    return rc;
}

int sim_pool_start(sim_core_pool *p, int num_cores, int device_id)
{
    memset(p, 0, sizeof *p);
    sim_mutex_init(&p->lock);
    pthread_cond_init(&p->work_cv, NULL);
    sim_cond_init_monotonic(&p->watchdog_cv);
    p->cores = calloc((size_t)num_cores, sizeof *p->cores);
    if (!p->cores)
        return ENOMEM;
    p->num_cores = num_cores;
    p->idle = num_cores;
    if (spawn(&p->watchdog, watchdog_main, p) != 0) {
        free(p->cores);
        return EAGAIN;
    }
    for (int i = 0; i < num_cores; i++) {
        core_arg *a = malloc(sizeof *a);
        int rc = a ? 0 : ENOMEM;
        if (a) {
            *a = (core_arg){p, i, device_id};
            rc = spawn(&p->cores[i].thread, core_main, a);
            if (rc)
                free(a);
        }
        if (rc) {
            p->num_cores = i; /* stop what started */
            sim_pool_stop(p);
            return rc;
        }
    }
    return 0;
}

void sim_pool_stop(sim_core_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->work_cv);
    pthread_cond_broadcast(&p->watchdog_cv);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->num_cores; i++)
        pthread_join(p->cores[i].thread, NULL);
    pthread_join(p->watchdog, NULL);
    free(p->cores);
    p->cores = NULL;
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->watchdog_cv);
    pthread_mutex_destroy(&p->lock);
}

/* An idle slot whose own thread is not running anything, or NULL. Pool lock held. */
static int idle_slot(sim_core_pool *p)
{
    for (int i = 0; i < p->num_cores; i++)
        if (!p->cores[i].job && !p->cores[i].borrowed)
            return i;
    return -1;
}

void sim_pool_run(sim_core_pool *p, sim_job *job, sim_guard *guard)
{
    pthread_cond_init(&job->done_cv, NULL);
    job->concurrency = (uint32_t)p->num_cores;
    if (job->max_cores && job->max_cores < job->concurrency)
        job->concurrency = job->max_cores;
    pthread_mutex_lock(&p->lock);
    if (job->running_slot)
        *job->running_slot = job; /* visible to sim_pool_kill from here on */
    job->next = NULL;
    if (p->tail)
        p->tail->next = job;
    else
        p->head = job;
    p->tail = job;
    /* The clock now, for a launch with a timeout: the caller's read as it handed the job over
     * (a moment old; a clock read is among a worker's dearest calls), else one of our own. */
    uint64_t now = !job->timeout_us ? 0 : job->start_ns ? job->start_ns : sim_now_ns();
    if (job->timeout_us) {
        p->timed_jobs++;
        /* Its deadline is at least timeout after now (it is set when the first block starts). */
        if (now + job->timeout_us * 1000ull < p->watchdog_wake_ns)
            pthread_cond_signal(&p->watchdog_cv);
    }
    if (job->num_blocks > 1)
        pthread_cond_broadcast(&p->work_cv); /* the cores take the other blocks */
    /* Run blocks of our own launch on idle slots while it is first in line, instead of waking
     * a core thread and sleeping until it is done: the same concurrency limit, two fewer
     * thread hand-offs per launch. */
    int ci;
    while (claimable(p) == job && job->next_block < job->num_blocks && (ci = idle_slot(p)) >= 0) {
        sim_core *c = &p->cores[ci];
        c->borrowed = true;
        /* Its first block starts now, dated by that clock read (its deadline earlier by the
         * moment since). */
        uint32_t b = claim(p, c, job, guard, now);
        run_claimed(p, c, ci, job, b, guard);
        c->borrowed = false;
    }
    if (job->next_block < job->num_blocks)
        pthread_cond_broadcast(&p->work_cv); /* not first in line, or no idle slot: the cores */
    while (job->finished < job->num_blocks || job->running > 0)
        pthread_cond_wait(&job->done_cv, &p->lock);
    if (job->timeout_us)
        p->timed_jobs--;
    if (job->running_slot)
        *job->running_slot = NULL; /* before the job (on the caller's stack) goes away */
    pthread_mutex_unlock(&p->lock);
    pthread_cond_destroy(&job->done_cv);
}

void sim_pool_kill(sim_core_pool *p, sim_job **slot)
{
    pthread_mutex_lock(&p->lock);
    sim_job *j = *slot;
    if (j && !j->killed) {
        j->killed = true;
        abort_job(p, j); /* unclaimed blocks are never run */
        /* The watchdog interrupts its running blocks as it interrupts a timed-out block; each
         * finishes with a fault that the killed job does not report. */
        pthread_cond_signal(&p->watchdog_cv);
    }
    pthread_mutex_unlock(&p->lock);
}

/* ------------------------------------------------------------------ contexts ------------- */

static void context_destroy(sim_obj *o)
{
    free(o);
}

/* Creates a context with its default stream. Called with d->lock held. */
static sim_context *context_new(sim_device *d, bool is_default, aclError *rc)
{
    sim_context *c = calloc(1, sizeof *c);
    if (!c) {
        *rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
        return NULL;
    }
    sim_obj_init(&c->obj, SIM_KIND_CONTEXT, context_destroy);
    c->dev = d;
    c->is_default = is_default;
    if (!sim_handle_open(&c->obj)) {
        free(c);
        *rc = sim_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "handle table is full");
        return NULL;
    }
    c->default_stream = sim_stream_create(c, true, 0, 0, rc);
    if (!c->default_stream) {
        sim_obj_put(sim_handle_close(c->obj.handle, SIM_KIND_CONTEXT));
        return NULL;
    }
    c->next = d->contexts;
    d->contexts = c;
    return c;
}

/* Stops every stream of context c (all of the device's when c is NULL). d->lock held; it is
 * released while streams drain, since their last tasks may need it. */
static void stop_streams(sim_device *d, sim_context *c)
{
    for (;;) {
        sim_stream *s = d->streams, *prev = NULL;
        while (s && c && s->ctx != c) {
            prev = s;
            s = s->next;
        }
        if (!s)
            return;
        if (prev)
            prev->next = s->next;
        else
            d->streams = s->next;
        d->num_streams--;
        pthread_mutex_unlock(&d->lock);
        sim_stream_shutdown(s);
        pthread_mutex_lock(&d->lock);
    }
}

static void context_close(sim_device *d, sim_context *c)
{
    stop_streams(d, c);
    sim_capture_context_gone(c); /* its models */
    sim_context **pp = &d->contexts;
    while (*pp && *pp != c)
        pp = &(*pp)->next;
    if (*pp)
        *pp = c->next;
    sim_obj_put(sim_handle_close(c->obj.handle, SIM_KIND_CONTEXT));
}

void sim_device_forget_stream(sim_stream *s)
{
    sim_device *d = s->dev;
    pthread_mutex_lock(&d->lock);
    for (sim_stream **pp = &d->streams; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            d->num_streams--;
            break;
        }
    }
    pthread_mutex_unlock(&d->lock);
}

/* ------------------------------------------------------------------ device lifecycle ----- */

static aclError activate(sim_device *d)
{
    aclError rc = ACL_SUCCESS;
    if (sim_memory_init(&d->mem, g_rt.cfg.device_memory) != 0)
        return sim_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "cannot reserve %zu bytes of address space for device %d",
                        g_rt.cfg.device_memory, d->id);
    if (sim_pool_start(&d->pool, g_rt.cfg.cores_per_device, d->id) != 0) {
        sim_memory_fini(&d->mem);
        return sim_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "cannot start the AI-core threads of device %d", d->id);
    }
    if (sim_copy_start(&d->copy, d->id) != 0) {
        sim_pool_stop(&d->pool);
        sim_memory_fini(&d->mem);
        return sim_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "cannot start the copy engine of device %d", d->id);
    }
    atomic_store(&d->last_error, 0); /* aclrtGetErrorVerbose: a fresh device has had no error */
    d->active = true;
    sim_exception_fast_clear(d->id); /* DeviceErrorProc::ProcClearFastRingBuffer */
    /* issue 11: a new device has all its cores (RawDevice::InitResource) and a clear float
     * status */
    sim_res_limit_device_init(d);
    atomic_store(&d->overflow_status, 0);
    /* The device clock (event timestamps, Event::GetTimeStamp: the device's system counter)
     * runs from the device's boot, not from its first use by this process: the devices of a
     * machine boot with it (their driver loads at the host's boot), so the origin is the start
     * of CLOCK_MONOTONIC, which counts from the host's boot. clock_origin_ns stays 0. */
    d->default_ctx = context_new(d, true, &rc);
    if (!d->default_ctx) {
        d->active = false;
        sim_copy_stop(&d->copy);
        sim_pool_stop(&d->pool);
        sim_memory_fini(&d->mem);
        return rc;
    }
    return ACL_SUCCESS;
}

void sim_device_teardown(sim_device *d)
{
    stop_streams(d, NULL);
    while (d->contexts)
        context_close(d, d->contexts);
    d->default_ctx = NULL;
    d->active = false;
    d->refcount = 0;
    d->set_refs = 0;
    d->peer_access = 0; /* peer mappings belong to the device's lifetime */
    sim_copy_stop(&d->copy);
    sim_pool_stop(&d->pool);
    sim_memory_fini(&d->mem);
}

/* 107001 for a user device id this process does not have, saying why. */
static aclError invalid_device(const char *func, int32_t id)
{
    const sim_config *c = &g_rt.cfg;
    if (c->visible == SIM_VISIBLE_UNSET)
        return sim_fail_(func, ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist (%d devices; set AIOCANN_SIM_DEVICES)",
                         id, c->num_devices);
    const char *problem = sim_visible_problem();
    if (problem)
        return sim_fail_(func, ACL_ERROR_RT_INVALID_DEVICEID,
                         "device %d is not visible: ASCEND_RT_VISIBLE_DEVICES=\"%s\" is invalid (%s), so no device is",
                         id, c->visible_str, problem);
    return sim_fail_(func, ACL_ERROR_RT_INVALID_DEVICEID,
                     "device %d is not visible: ASCEND_RT_VISIBLE_DEVICES=\"%s\" makes %d of the %d devices visible, "
                     "as devices 0..%d",
                     id, c->visible_str, c->num_devices, c->physical_devices, c->num_devices - 1);
}

/* Takes one reference on device id, activating it if needed. Returns it locked. */
static sim_device *retain(int32_t id, const char *func, aclError *rc)
{
    if ((*rc = sim_runtime_boot(func))) /* aclrtSetDevice works before aclInit */
        return NULL;
    sim_device *d = sim_device_of(id);
    if (!d) {
        *rc = invalid_device(func, id);
        return NULL;
    }
    pthread_mutex_lock(&d->lock);
    if (!d->active && (*rc = activate(d)) != ACL_SUCCESS) {
        pthread_mutex_unlock(&d->lock);
        return NULL;
    }
    d->refcount++;
    return d;
}

static void release(sim_device *d)
{
    if (d->refcount > 0 && --d->refcount == 0 && d->active)
        sim_device_teardown(d);
}

SIM_API aclError aclrtSetDevice(int32_t deviceId)
{
    SIM_CHECK_PROCESS();
    aclError rc = ACL_SUCCESS;
    sim_device *d = retain(deviceId, __func__, &rc);
    if (!d)
        return rc;
    d->set_refs++;
    t_ctx = d->default_ctx->obj.handle;
    pthread_mutex_unlock(&d->lock);
    return ACL_SUCCESS;
}

/* Runtime::PrimaryContextRelease: a reset releases one retain of the device's primary context,
 * which only aclrtSetDevice takes; with none left -- a device never set, or reset once too
 * often -- it is RT_ERROR_CONTEXT_DEL, 507007 (ApiErrorDecorator::DeviceReset: "The device has
 * not been set or has already been reset"). A forced reset drops every retain at once and
 * needs one too (DecideForcePrimaryReleaseAction). The last reference tears the device down. */
static aclError reset(int32_t deviceId, bool force, const char *func)
{
    SIM_REQUIRE_INIT();
    sim_device *d = sim_device_of(deviceId);
    if (!d)
        return invalid_device(func, deviceId);
    pthread_mutex_lock(&d->lock);
    if (d->set_refs <= 0) {
        pthread_mutex_unlock(&d->lock);
        return sim_fail_(func, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                         "device %d has not been set or has already been reset", deviceId);
    }
    if (force) {
        /* A forced reset does not wait for host callbacks nobody processes (sim_callback_close:
         * they are dropped; one running is waited for). The callback registry's locks come
         * before a device's, so d->lock is let go meanwhile; a set or reset in that gap only
         * moves the counts this reset then clears. */
        pthread_mutex_unlock(&d->lock);
        sim_callback_close(d);
        pthread_mutex_lock(&d->lock);
        d->set_refs = 0;
        d->refcount = 1;
    } else {
        d->set_refs--;
    }
    release(d);
    pthread_mutex_unlock(&d->lock);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtResetDevice(int32_t deviceId) { return reset(deviceId, false, __func__); }
SIM_API aclError aclrtResetDeviceForce(int32_t deviceId) { return reset(deviceId, true, __func__); }

SIM_API aclError aclrtGetDevice(int32_t *deviceId)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(deviceId);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *deviceId = c->dev->id;
    sim_obj_put(&c->obj);
    return ACL_SUCCESS;
}

/* Works before aclInit: the first call boots the runtime (RuntimeKeeper::BootRuntime), which
 * reads the configuration. */
SIM_API aclError aclrtGetDeviceCount(uint32_t *count)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(count);
    SIM_REQUIRE_INIT();
    const char *problem = sim_visible_problem();
    if (problem) /* ApiImpl::GetDeviceCount: RT_ERROR_DRV_NO_DEVICE, EE2002 */
        return sim_fail(ACL_ERROR_RT_NO_DEVICE, "no device: ASCEND_RT_VISIBLE_DEVICES=\"%s\" is invalid (%s)",
                        g_rt.cfg.visible_str, problem);
    *count = (uint32_t)g_rt.cfg.num_devices;
    return ACL_SUCCESS;
}

/* The user device id an application passes (aclrtSetDevice) is an index into the devices
 * ASCEND_RT_VISIBLE_DEVICES lists; the logical id is the machine's. Without the variable they are
 * the same. (ApiErrorDecorator / ApiImpl::GetLogicDevIdByUserDevId, GetUserDevIdByLogicDevId;
 * Runtime::ChgUserDevIdToDeviceId, GetUserDevIdByDeviceId.) The simulator has no containers,
 * so its logical ids are also its physical ones. */
SIM_API aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId)
{
    SIM_CHECK_PROCESS();
    SIM_REQUIRE_INIT();
    if (userDevid < 0)
        return sim_fail(ACL_ERROR_RT_INVALID_DEVICEID, "userDevid must be >= 0, got %d", userDevid);
    if (!logicDevId)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "logicDevId must not be NULL");
    if (userDevid >= g_rt.cfg.num_devices)
        return invalid_device(__func__, userDevid);
    *logicDevId = g_rt.cfg.logic_id[userDevid];
    return ACL_SUCCESS;
}

SIM_API aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid)
{
    SIM_CHECK_PROCESS();
    SIM_REQUIRE_INIT();
    const sim_config *c = &g_rt.cfg;
    if (logicDevId < 0)
        return sim_fail(ACL_ERROR_RT_INVALID_DEVICEID, "logicDevId must be >= 0, got %d", logicDevId);
    if (!userDevid)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "userDevid must not be NULL");
    if (logicDevId >= c->physical_devices)
        return sim_fail(ACL_ERROR_RT_INVALID_DEVICEID, "logical device %d does not exist (%d devices)", logicDevId,
                        c->physical_devices);
    for (int i = 0; i < c->num_devices; i++)
        if (c->logic_id[i] == logicDevId) {
            *userDevid = i;
            return ACL_SUCCESS;
        }
    return sim_fail(ACL_ERROR_RT_INVALID_DEVICEID,
                    "logical device %d is not visible to this process (ASCEND_RT_VISIBLE_DEVICES=\"%s\")", logicDevId,
                    c->visible_str);
}

/* Context::Synchronize: the streams of the current context only -- another context's streams,
 * on this device too, are not waited for. A capturing stream refuses first, then the
 * context's stop-on-failure error (CheckStatus); otherwise it waits for each stream, within
 * timeout ms overall (-1: forever), and returns the first task error, consuming every
 * stream's error (SyncStreamsWithTimeout). */
static aclError synchronize_device(int32_t timeout, const char *func)
{
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_device *d = c->dev;
    /* Context::Synchronize refuses a context with a capturing stream before anything else. */
    aclError failed = sim_capture_context_busy(c, func);
    if (!failed)
        failed = sim_context_failure(c, func);
    if (!failed && atomic_load(&d->task_abort)) /* issue 11: Stream::GetSynchronizeError */
        failed = sim_fail_(func, ACL_ERROR_RT_DEVICE_TASK_ABORT, "the device is aborting its tasks");
    if (failed) {
        sim_obj_put(&c->obj);
        return failed;
    }

    /* Snapshot the context's streams with references, then wait for each outside the device
     * lock. (The context's own reference keeps `c` comparable until then.) */
    pthread_mutex_lock(&d->lock);
    int n = d->num_streams, k = 0;
    sim_stream **list = calloc((size_t)(n > 0 ? n : 1), sizeof *list);
    if (!list) {
        pthread_mutex_unlock(&d->lock);
        sim_obj_put(&c->obj);
        return sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    for (sim_stream *s = d->streams; s && k < n; s = s->next) {
        if (s->ctx != c)
            continue;
        sim_obj_get(&s->obj);
        list[k++] = s;
    }
    pthread_mutex_unlock(&d->lock);
    sim_obj_put(&c->obj);

    aclError first = ACL_SUCCESS;
    /* One deadline for the whole device: each stream gets what is left of it. */
    uint64_t deadline = timeout >= 0 ? sim_now_ns() + (uint64_t)timeout * 1000000ull : 0;
    bool timed_out = false;
    for (int i = 0; i < k; i++) {
        pthread_mutex_lock(&list[i]->lock);
        uint64_t target = list[i]->submitted;
        pthread_mutex_unlock(&list[i]->lock);
        int32_t left = -1;
        if (timeout >= 0) {
            uint64_t now = sim_now_ns();
            left = now >= deadline ? 0 : (int32_t)((deadline - now + 999999ull) / 1000000ull);
        }
        int w = timed_out ? 0 : sim_stream_wait_seq(list[i], target, left);
        if (w == ETIMEDOUT)
            timed_out = true;
        aclError e = w == ECANCELED ? sim_fail_(func, atomic_load(&list[i]->abort_code),
                                                "a stream was aborted while the device was being synchronized")
                                    : sim_stream_take_error(list[i], func);
        if (e && !first)
            first = e;
        sim_obj_put(&list[i]->obj);
    }
    free(list);
    if (!first && timed_out)
        first = sim_fail_(func, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "device tasks still pending after %d ms", timeout);
    return first;
}

SIM_API aclError aclrtSynchronizeDevice(void)
{
    SIM_CHECK_PROCESS();
    return synchronize_device(-1, __func__);
}

/* ACL checks the range ([-1, INT_MAX], else 107000; aclrtSynchronizeDeviceWithTimeoutImpl), the
 * runtime refuses 0 too (ApiErrorDecorator::DeviceSynchronize: "greater than or equal to -1 and
 * not equal to 0", 107000), and 507046 comes back on expiry. */
SIM_API aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    SIM_CHECK_PROCESS();
    if (timeout < -1 || timeout == 0)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "timeout %d is invalid (-1 waits forever, > 0 is a limit in ms; 0 is not allowed)", timeout);
    return synchronize_device(timeout, __func__);
}

SIM_API aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(context);
    aclError rc = ACL_SUCCESS;
    sim_device *d = retain(deviceId, __func__, &rc);
    if (!d)
        return rc;
    sim_context *c = context_new(d, false, &rc);
    if (!c) {
        release(d);
        pthread_mutex_unlock(&d->lock);
        return rc;
    }
    *context = c->obj.handle;
    t_ctx = c->obj.handle;
    pthread_mutex_unlock(&d->lock);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtDestroyContext(aclrtContext context)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(context);
    sim_context *c = (sim_context *)sim_handle_get(context, SIM_KIND_CONTEXT);
    if (!c)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "context %p is not a live context", context);
    if (c->is_default) {
        sim_obj_put(&c->obj);
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "the default context of a device cannot be destroyed; reset the device");
    }
    sim_device *d = c->dev;
    pthread_mutex_lock(&d->lock);
    /* Another thread may have closed it between the lookup and the lock. */
    sim_context *still = (sim_context *)sim_handle_get(context, SIM_KIND_CONTEXT);
    if (still) {
        context_close(d, c);
        sim_obj_put(&still->obj);
        release(d);
    }
    pthread_mutex_unlock(&d->lock);
    sim_obj_put(&c->obj);
    if (t_ctx == context)
        t_ctx = NULL;
    return still ? ACL_SUCCESS : sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "context %p was already destroyed", context);
}

SIM_API aclError aclrtSetCurrentContext(aclrtContext context)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(context);
    sim_obj *o = sim_handle_get(context, SIM_KIND_CONTEXT);
    if (!o)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "context %p is not a live context", context);
    t_ctx = context;
    sim_obj_put(o);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtGetCurrentContext(aclrtContext *context)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(context);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *context = c->obj.handle;
    sim_obj_put(&c->obj);
    return ACL_SUCCESS;
}
