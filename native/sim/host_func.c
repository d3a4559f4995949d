/*
 * aiocann simulator: host functions on a stream (issue 23) -- aclrtLaunchHostFunc and the
 * subscription calls aclrtSubscribeHostFunc / aclrtProcessHostFunc / aclrtUnSubscribeHostFunc.
 *
 * aclrtLaunchHostFunc (ApiImpl::LaunchHostFunc): the runtime itself runs the function, on a
 * callback thread it creates on first use, when the stream reaches it; the stream waits for it
 * to return (a blocking callback: CallbackLaunchWithoutEvent(..., isBlock = true)), and the
 * program subscribes nothing. The first launch on a stream subscribes it to that thread
 * (JudgeNeedSubscribe -> SubscribeCallback). A stream whose callbacks a user thread processes
 * (aclrtSubscribeReport) refuses it, 107011 (ApiErrorDecorator::LaunchHostFunc); a NULL fn is
 * 107000. The simulator keeps one such thread per device (the real one is per context: a
 * context is on one device, and the thread only runs user functions, so the number of threads
 * is not observable beyond their ids); it is made on first use -- no thread for a device that
 * never launches one -- and joined at aclFinalize. It serves the stream through the report
 * machinery of callback.c: subscribed with aclrtSubscribeReport, draining with
 * aclrtProcessReport.
 *
 * aclrtSubscribeHostFunc / aclrtProcessHostFunc / aclrtUnSubscribeHostFunc (aclrt_c/runtime/
 * host_func.c -> src/runtime_compact/feature/src/host_func.c): the report subscription of a
 * user thread (SubscribeReport(..., SUBSCRIBE_HOSTFUNC)), so the host functions of a stream
 * launched with aclrtLaunchCallback run in the thread that calls aclrtProcessHostFunc; its
 * timeout is -1 or > 0 (107000 otherwise), a thread subscribed to nothing is 107012.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

typedef struct hf_thread {
    bool started;
    pthread_t thread;
    int device;
} hf_thread;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER; /* a stream was subscribed, or stop */
static hf_thread g_threads[SIM_MAX_DEVICES];
static bool g_stop;
static uint64_t g_wakeups; /* counts subscriptions, so a waiting thread sees a new one */

/* How long one aclrtProcessReport waits: the latency of aclFinalize joining an idle thread.
 * A report wakes the thread at once. */
#define HF_POLL_MS 50

static void *hf_main(void *arg)
{
    hf_thread *me = arg;
    char name[16];
    snprintf(name, sizeof name, "aclsim%d-hostfn", me->device);
    pthread_setname_np(pthread_self(), name);
    for (;;) {
        pthread_mutex_lock(&g_lock);
        bool stop = g_stop;
        uint64_t seen = g_wakeups;
        pthread_mutex_unlock(&g_lock);
        if (stop)
            break;
        aclError rc = aclrtProcessReport(HF_POLL_MS);
        if (rc == ACL_ERROR_RT_THREAD_SUBSCRIBE || rc == ACL_ERROR_UNINITIALIZE) {
            /* Serves no stream now (their streams were destroyed): sleep until a launch
             * subscribes one, instead of polling. */
            pthread_mutex_lock(&g_lock);
            while (!g_stop && g_wakeups == seen)
                pthread_cond_wait(&g_cv, &g_lock);
            pthread_mutex_unlock(&g_lock);
        }
    }
    return NULL;
}

/* The callback thread of device d, started on first use; its id in *tid. g_lock held. */
static aclError thread_of(int d, uint64_t *tid, const char *func)
{
    hf_thread *t = &g_threads[d];
    if (!t->started) {
        t->device = d;
        g_stop = false;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 1 << 20);
        int err = pthread_create(&t->thread, &attr, hf_main, t);
        pthread_attr_destroy(&attr);
        if (err)
            return sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot create the host function thread: %s",
                             strerror(err));
        t->started = true;
    }
    *tid = (uint64_t)t->thread;
    return ACL_SUCCESS;
}

void sim_host_func_stop(void)
{
    pthread_mutex_lock(&g_lock);
    g_stop = true;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_lock);
    for (int i = 0; i < SIM_MAX_DEVICES; i++) {
        if (g_threads[i].started && !pthread_equal(g_threads[i].thread, pthread_self())) {
            pthread_join(g_threads[i].thread, NULL);
            g_threads[i].started = false;
        }
    }
}

SIM_API aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    SIM_CHECK_PROCESS();
    if (!fn)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "fn must not be NULL");
    aclError rc;
    sim_stream *s = sim_stream_for_work(stream, __func__, &rc);
    if (!s)
        return rc;
    int dev = s->dev->id;
    pthread_mutex_lock(&s->lock);
    uint64_t served_by = s->subscriber ? s->subscriber->tid : 0;
    bool subscribed = s->subscriber != NULL;
    pthread_mutex_unlock(&s->lock);
    uint64_t tid = 0;
    pthread_mutex_lock(&g_lock);
    rc = thread_of(dev, &tid, __func__);
    pthread_mutex_unlock(&g_lock);
    if (!rc && subscribed && served_by != tid)
        rc = sim_fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                      "the stream's callbacks are processed by thread %llu (aclrtSubscribeReport): it cannot take "
                      "aclrtLaunchHostFunc",
                      (unsigned long long)served_by);
    if (!rc && !subscribed) {
        rc = aclrtSubscribeReport(tid, s->obj.handle);
        if (rc == ACL_ERROR_RT_STREAM_SUBSCRIBE || rc == ACL_ERROR_REPEAT_SUBSCRIBE) {
            /* Another launch (another thread) subscribed it to the same host-function thread
             * between our check and here: a second subscription by one thread is 107011
             * (CbSubscribe::CheckForInsert), and that is the state we wanted. */
            pthread_mutex_lock(&s->lock);
            bool ours = s->subscriber && s->subscriber->tid == tid;
            pthread_mutex_unlock(&s->lock);
            if (ours)
                rc = ACL_SUCCESS;
        }
        pthread_mutex_lock(&g_lock);
        g_wakeups++;
        pthread_cond_broadcast(&g_cv);
        pthread_mutex_unlock(&g_lock);
    }
    if (!rc)
        rc = aclrtLaunchCallback(fn, args, ACL_CALLBACK_BLOCK, stream);
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
    return aclrtSubscribeReport(hostFuncThreadId, exeStream);
}

SIM_API aclError aclrtProcessHostFunc(int32_t timeout)
{
    SIM_CHECK_PROCESS();
    if (timeout < -1 || timeout == 0)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d is invalid (-1 waits forever, > 0 is a limit in ms)",
                        timeout);
    return aclrtProcessReport(timeout);
}

SIM_API aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
    return aclrtUnSubscribeReport(hostFuncThreadId, exeStream);
}
