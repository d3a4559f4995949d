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
 */
#include <stdlib.h>
#include <string.h>

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
