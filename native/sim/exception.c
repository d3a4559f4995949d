/*
 * aiocann simulator: exception-info callbacks -- how the runtime tells a program which task
 * failed (aclrtExceptionInfoCallbackRegister / Unregister, the deprecated
 * aclrtSetExceptionInfoCallback, and the aclrtGet...FromExceptionInfo getters).
 *
 * As in the real runtime (src/acl/aclrt_impl/callback.cpp, src/runtime/core/src/common/
 * task_fail_callback_data_manager.cc, task/task_info/task_manager.cc TaskFailCallBack):
 *  - one process-wide registry: Register adds a callback (registering the same function again
 *    keeps one entry), Unregister removes it (unknown functions succeed), NULL is 107000;
 *    SetExceptionInfoCallback owns one separate slot, the last call wins and NULL clears it, so
 *    a function set both ways is called twice;
 *  - a failed task calls every callback synchronously, on the thread that processes the
 *    failure (here the stream's worker), before its stream moves on: so the report for a task
 *    always precedes whatever the stream does after it. Different streams report on different
 *    threads, concurrently; the callbacks are called outside the registry lock, so they may
 *    (un)register;
 *  - the info carries the task id (as aclrtGetThreadLastTaskId gave it when it was submitted),
 *    the stream id (aclrtStreamGetId), the Linux thread id of the submitting thread, the
 *    device id and the external error code (e.g. 507015); the getters return 0xFFFFFFFF for a
 *    NULL info. The info lives only during the call.
 *
 * Two more paths report a failure, both following the real runtime:
 *  - HWTS chips (aclsim_chip.h: 910A, 310P): the source has no barrier between the callbacks
 *    and the stream's next task (the STARS one is ProcLogicCqReport, then StarsResumeRtsq), so
 *    here the report is made from a thread of its own a moment later while the stream goes on:
 *    a host callback behind the failed task may run before it (simulator choice: how much
 *    later -- 20 ms, long enough for a loaded host to run the callback first -- is ours; the
 *    order not being guaranteed is the source's).
 *  - The fast ring buffer (device/v100/device_error_proc.cc ProcessReportFastRingBuffer), where
 *    the driver supports millisecond operator timeouts (Runtime::IsSupportOpTimeoutMs, here
 *    AIOCANN_SIM_OP_TIMEOUT_INTERVAL_US below 100 ms): the device also writes a failed
 *    kernel's report into one slot per device, if the slot is free; the next thread that
 *    submits a task (Context::CheckTaskSend) or checks a stream (Context::CheckStatus:
 *    synchronize, query) on that device takes it, sets the stream's error slot again
 *    (SetErrCode) and calls the exception callbacks again, on its own thread -- so a task is
 *    reported twice, once possibly before its regular report, once possibly long after, and
 *    callbacks run on a user's thread. Not while the context has failed in stop mode
 *    (Context::ProcessReportFastRingBuffer returns first), and the slot stays full until then.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aclsim_chip.h"
#include "sim.h"

/* The real rtExceptionInfo (pkg_inc/runtime/rt_external_base.h): the ids, then its expand info,
 * of which the simulator keeps what aclrtGetArgsFromExceptionInfo and
 * aclrtGetFuncHandleFromExceptionInfo read for an AI-core exception (issue 23): the kernel's
 * argument block and its function handle. `aicore` is the expand info's type test
 * (RT_EXCEPTION_AICORE); a failure that is not a kernel's (a copy) has none. */
struct rtExceptionInfo {
    uint32_t taskid;
    uint32_t streamid;
    uint32_t tid;
    uint32_t deviceid;
    uint32_t retcode;
    bool aicore;
    void *args;
    uint32_t args_size;
    aclrtFuncHandle func;
};

#define MAX_CALLBACKS 64

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static aclrtExceptionInfoCallback g_registered[MAX_CALLBACKS];
static int g_nregistered;
static aclrtExceptionInfoCallback g_slot; /* aclrtSetExceptionInfoCallback's */

SIM_API aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
    SIM_CHECK_PROCESS();
    pthread_mutex_lock(&g_lock);
    g_slot = callback;
    pthread_mutex_unlock(&g_lock);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback)
{
    SIM_CHECK_PROCESS();
    if (!callback)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "callback must not be NULL");
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_lock);
    int i = 0;
    while (i < g_nregistered && g_registered[i] != callback)
        i++;
    if (i == g_nregistered) {
        if (g_nregistered < MAX_CALLBACKS)
            g_registered[g_nregistered++] = callback;
        else
            rc = sim_fail(ACL_ERROR_RT_OVER_LIMIT, "already %d exception callbacks registered", MAX_CALLBACKS);
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

SIM_API aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback)
{
    SIM_CHECK_PROCESS();
    if (!callback)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "callback must not be NULL");
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_nregistered; i++) {
        if (g_registered[i] == callback) {
            g_registered[i] = g_registered[--g_nregistered];
            break;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return ACL_SUCCESS;
}

void sim_exception_notify(uint32_t task_id, uint32_t stream_id, uint32_t tid, int32_t device, aclError code,
                          const sim_exception_kernel *kernel)
{
    aclrtExceptionInfoCallback calls[MAX_CALLBACKS + 1];
    int n = 0;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_nregistered; i++)
        calls[n++] = g_registered[i];
    if (g_slot)
        calls[n++] = g_slot;
    pthread_mutex_unlock(&g_lock);
    struct rtExceptionInfo info = {
        .taskid = task_id, .streamid = stream_id, .tid = tid, .deviceid = (uint32_t)device, .retcode = (uint32_t)code};
    if (kernel) {
        info.aicore = true;
        info.args = kernel->args;
        info.args_size = (uint32_t)kernel->args_size;
        info.func = kernel->func;
    }
    for (int i = 0; i < n; i++)
        calls[i](&info);
}

#define GETTER(name, field)                                                                                    \
    SIM_API uint32_t name(const aclrtExceptionInfo *info) { return info ? info->field : UINT32_MAX; }
GETTER(aclrtGetTaskIdFromExceptionInfo, taskid)
GETTER(aclrtGetStreamIdFromExceptionInfo, streamid)
GETTER(aclrtGetThreadIdFromExceptionInfo, tid)
GETTER(aclrtGetDeviceIdFromExceptionInfo, deviceid)
GETTER(aclrtGetErrorCodeFromExceptionInfo, retcode)

/* ------------------------------------------------------------------ HWTS: no barrier ----- */

typedef struct late_report {
    uint32_t task_id, stream_id, tid;
    int32_t device;
    aclError code;
    bool kernel;
    sim_exception_kernel k; /* k.args points at args_copy: the task's own block is gone by then */
    char msg[512];
    unsigned char args_copy[]; /* k.args_size bytes */
} late_report;

static void *late_main(void *arg)
{
    late_report *r = arg;
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    sim_error_message("task", r->msg);
    sim_exception_notify(r->task_id, r->stream_id, r->tid, r->device, r->code, r->kernel ? &r->k : NULL);
    free(r);
    return NULL;
}

void sim_exception_report(uint32_t task_id, uint32_t stream_id, uint32_t tid, int32_t device, aclError code,
                          const char *msg, const sim_exception_kernel *kernel)
{
    const aclsimChip *chip = aclsimGetChip();
    if (chip && chip->engine == ACLSIM_ENGINE_HWTS) {
        size_t args_size = kernel ? kernel->args_size : 0;
        late_report *r = malloc(sizeof *r + args_size);
        pthread_t th;
        pthread_attr_t attr;
        if (r) {
            *r = (late_report){task_id, stream_id, tid, device, code, kernel != NULL, {0}, {0}};
            if (kernel) {
                r->k = *kernel;
                r->k.args = args_size ? r->args_copy : NULL;
                if (args_size)
                    memcpy(r->args_copy, kernel->args, args_size);
            }
            snprintf(r->msg, sizeof r->msg, "%s", msg);
            pthread_attr_init(&attr);
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            int err = pthread_create(&th, &attr, late_main, r);
            pthread_attr_destroy(&attr);
            if (!err)
                return;
            free(r);
        }
    }
    sim_exception_notify(task_id, stream_id, tid, device, code, kernel); /* STARS (or no thread): inline */
}

/* ------------------------------------------------------------------ fast ring buffer ----- */

#define FAST_DEVICES 64

static struct fast_slot {
    pthread_mutex_t lock;
    atomic_bool full;        /* read without the lock by every submission */
    sim_stream *stream;      /* +1 while full */
    uint32_t task_id, tid;
    aclError code;
    char msg[512];
} g_fast[FAST_DEVICES] = {[0 ... FAST_DEVICES - 1] = {.lock = PTHREAD_MUTEX_INITIALIZER}};

void sim_exception_fast_post(sim_stream *s, uint32_t task_id, uint32_t tid, aclError code, const char *msg)
{
    int d = s->dev->id;
    if (d < 0 || d >= FAST_DEVICES || !sim_op_timeout_ms_mode())
        return;
    struct fast_slot *f = &g_fast[d];
    pthread_mutex_lock(&f->lock);
    if (!atomic_load(&f->full)) { /* a full slot keeps the older report */
        sim_obj_get(&s->obj);
        f->stream = s;
        f->task_id = task_id;
        f->tid = tid;
        f->code = code;
        snprintf(f->msg, sizeof f->msg, "%s", msg);
        atomic_store(&f->full, true);
    }
    pthread_mutex_unlock(&f->lock);
}

void sim_exception_fast_poll(sim_device *dev, sim_context *c)
{
    int d = dev->id;
    if (d < 0 || d >= FAST_DEVICES || !atomic_load_explicit(&g_fast[d].full, memory_order_relaxed))
        return;
    if (atomic_load(&c->mode) == ACL_STOP_ON_FAILURE && atomic_load(&c->failure_error))
        return; /* Context::ProcessReportFastRingBuffer: GetFailureError() != RT_ERROR_NONE */
    struct fast_slot *f = &g_fast[d];
    pthread_mutex_lock(&f->lock);
    if (!atomic_load(&f->full)) {
        pthread_mutex_unlock(&f->lock);
        return;
    }
    sim_stream *s = f->stream;
    uint32_t task_id = f->task_id, tid = f->tid;
    aclError code = f->code;
    char msg[sizeof f->msg];
    memcpy(msg, f->msg, sizeof msg);
    f->stream = NULL;
    atomic_store(&f->full, false);
    pthread_mutex_unlock(&f->lock);
    pthread_mutex_lock(&s->lock); /* tsk->stream->SetErrCode(report.errorCode) */
    s->error = code;
    snprintf(s->errmsg, sizeof s->errmsg, "%s", msg);
    pthread_mutex_unlock(&s->lock);
    sim_error_message("task", msg); /* RT_LOG_OUTER_MSG: this thread's error message */
    sim_exception_notify(task_id, s->id, tid, d, code, NULL); /* the duplicate: the task's args are gone */
    sim_obj_put(&s->obj);
}

/* A device starts with an empty fast ring buffer (DeviceErrorProc::ProcClearFastRingBuffer). */
void sim_exception_fast_clear(int device)
{
    if (device < 0 || device >= FAST_DEVICES)
        return;
    struct fast_slot *f = &g_fast[device];
    pthread_mutex_lock(&f->lock);
    sim_stream *s = atomic_load(&f->full) ? f->stream : NULL;
    f->stream = NULL;
    atomic_store(&f->full, false);
    pthread_mutex_unlock(&f->lock);
    if (s)
        sim_obj_put(&s->obj);
}

/* aclrtGetArgsFromExceptionInfo (callback.cpp, aclrtGetArgsFromExceptionInfoImpl): a NULL info
 * is ACL_ERROR_INVALID_EXCEPTION_INFO, which callback.cpp defines as 0xFFFFFFFF (-1 as an
 * aclError; no public header has it), NULL outputs 100000, an exception that is not an AI-core
 * one 100000 ("type is invalid"). The args are the kernel's argument block as the kernel saw it. */
#define SIM_ERROR_INVALID_EXCEPTION_INFO ((aclError)-1)
SIM_API aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info, void **devArgsPtr, uint32_t *devArgsLen)
{
    SIM_CHECK_PROCESS();
    if (!info)
        return sim_fail(SIM_ERROR_INVALID_EXCEPTION_INFO, "info must not be NULL");
    SIM_CHECK_NOT_NULL(devArgsPtr);
    SIM_CHECK_NOT_NULL(devArgsLen);
    if (!info->aicore)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "the exception is not an AI-core exception: it has no kernel arguments");
    *devArgsPtr = info->args;
    *devArgsLen = info->args_size;
    return ACL_SUCCESS;
}

/* aclrtGetFuncHandleFromExceptionInfo (rtGetFuncHandleFromExceptionInfo): the failed kernel's
 * function handle; 107000 when the exception is not a kernel's. */
SIM_API aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo *info, aclrtFuncHandle *func)
{
    SIM_CHECK_PROCESS();
    if (!info)
        return sim_fail(SIM_ERROR_INVALID_EXCEPTION_INFO, "info must not be NULL");
    SIM_CHECK_NOT_NULL(func);
    if (!info->aicore || !info->func)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "the exception is not a kernel's: it has no function handle");
    *func = info->func;
    return ACL_SUCCESS;
}
