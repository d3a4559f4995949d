/*
 * aiocann simulator: stream configuration and state (issue 23) -- aclrtCreateStreamConfigHandle
 * and its options, aclrtCreateStreamV2, aclrtStreamGetFlags / aclrtStreamGetPriority,
 * aclrtRegStreamStateCallback, aclrtStreamStop.
 *
 * Sources (hicann/runtime): src/acl/aclrt_c/runtime/stream.c (the config handle: zeroed at
 * creation; options WORK_ADDR_PTR (void *), WORK_SIZE (size_t), FLAG (size_t), PRIORITY
 * (uint32_t, 0..7), each of exactly that size; a NULL handle or value, an attribute past
 * PRIORITY, a wrong size or a priority > 7 are 100000; aclrtCreateStreamV2: a NULL stream is
 * 100000, a NULL handle the defaults, then rtStreamCreateWithConfig with the handle's flag and
 * priority), src/acl/aclrt_impl/stream.cpp and src/runtime/api/impl/api_impl.cc
 * (StreamGetFlags / StreamGetPriority: NULL output 107000, a NULL stream the current context's
 * default stream, the flags the stream was created with), stream_state_callback_manager.cc
 * (RegStreamStateCallback: a name registers once, 107000 the second time; a NULL callback
 * unregisters the name; Notify calls every registered one, outside the lock, after a stream is
 * created and before it is destroyed), api_impl.cc (StreamStop = StreamClear(RT_STREAM_STOP):
 * only on a task scheduler with the MC2-enhance feature).
 *
 * Simulator choices: the work address and size of a config handle (memory the real runtime may
 * use for the stream's task buffers) are kept and not used; the simulated task scheduler has no
 * MC2-enhance feature, so aclrtStreamStop is 207000 after its checks, as on such a device.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* ------------------------------------------------------------------ config handle -------- */

SIM_API aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
    aclrtStreamConfigHandle *h = calloc(1, sizeof *h);
    if (!h)
        sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
    return h;
}

SIM_API aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
    SIM_CHECK_NOT_NULL(handle);
    free(handle);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
                                         const void *attrValue, size_t valueSize)
{
    SIM_CHECK_NOT_NULL(handle);
    SIM_CHECK_NOT_NULL(attrValue);
    size_t want;
    switch ((int)attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR:
        want = sizeof(void *);
        break;
    case ACL_RT_STREAM_WORK_SIZE:
    case ACL_RT_STREAM_FLAG:
        want = sizeof(size_t);
        break;
    case ACL_RT_STREAM_PRIORITY:
        want = sizeof(uint32_t);
        break;
    default:
        return sim_fail(ACL_ERROR_INVALID_PARAM, "attr %d is not an aclrtStreamConfigAttr", (int)attr);
    }
    if (valueSize != want)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "valueSize %zu is invalid, it should be %zu", valueSize, want);
    switch ((int)attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR:
        memcpy(&handle->workptr, attrValue, want);
        break;
    case ACL_RT_STREAM_WORK_SIZE:
        memcpy(&handle->workSize, attrValue, want);
        break;
    case ACL_RT_STREAM_FLAG:
        memcpy(&handle->flag, attrValue, want);
        break;
    default: {
        uint32_t prio;
        memcpy(&prio, attrValue, want);
        if (prio > 7)
            return sim_fail(ACL_ERROR_INVALID_PARAM, "priority %u is invalid, it should be in [0, 7]", prio);
        handle->priority = prio;
    }
    }
    return ACL_SUCCESS;
}

SIM_API aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    uint32_t prio = handle ? handle->priority : 0;
    size_t flag = handle ? handle->flag : 0;
    if (flag > UINT32_MAX)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "unknown stream flag bits 0x%zx", flag);
    return aclrtCreateStreamWithConfig(stream, prio, (uint32_t)flag);
}

/* ------------------------------------------------------------------ queries -------------- */

/* ApiImpl::StreamGetFlags / StreamGetPriority: the stream of the current context (NULL: its
 * default stream). */
static sim_stream *query_stream(aclrtStream stream, const char *func, aclError *rc)
{
    sim_context *c = sim_current_context(func);
    if (!c) {
        *rc = ACL_ERROR_RT_CONTEXT_NULL;
        return NULL;
    }
    sim_obj_put(&c->obj);
    return sim_stream_resolve(stream, func, rc);
}

SIM_API aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(flags);
    aclError rc;
    sim_stream *s = query_stream(stream, __func__, &rc);
    if (!s)
        return rc;
    *flags = s->flags;
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(priority);
    aclError rc;
    sim_stream *s = query_stream(stream, __func__, &rc);
    if (!s)
        return rc;
    *priority = s->priority;
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ state callbacks ------ */

#define MAX_STATE_CALLBACKS 64
#define STATE_NAME_MAX 128

typedef struct state_cb {
    char name[STATE_NAME_MAX];
    aclrtStreamStateCallback fn;
    void *args;
} state_cb;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static state_cb g_cbs[MAX_STATE_CALLBACKS];
static int g_ncbs;

SIM_API aclError aclrtRegStreamStateCallback(const char *regName, aclrtStreamStateCallback callback, void *args)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(regName);
    if (strlen(regName) >= STATE_NAME_MAX)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "regName is longer than %d characters", STATE_NAME_MAX - 1);
    pthread_mutex_lock(&g_lock);
    int at = -1;
    for (int i = 0; i < g_ncbs; i++)
        if (!strcmp(g_cbs[i].name, regName))
            at = i;
    aclError rc = ACL_SUCCESS;
    if (!callback) {
        if (at >= 0)
            g_cbs[at] = g_cbs[--g_ncbs];
    } else if (at >= 0) {
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "the callback name %s has already been registered", regName);
    } else if (g_ncbs >= MAX_STATE_CALLBACKS) {
        rc = sim_fail(ACL_ERROR_RT_OVER_LIMIT, "already %d stream state callbacks (the limit)", g_ncbs);
    } else {
        state_cb *c = &g_cbs[g_ncbs++];
        snprintf(c->name, sizeof c->name, "%s", regName);
        c->fn = callback;
        c->args = args;
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

void sim_stream_state_notify(aclrtStream stream, bool created)
{
    state_cb calls[MAX_STATE_CALLBACKS];
    pthread_mutex_lock(&g_lock);
    int n = g_ncbs;
    memcpy(calls, g_cbs, (size_t)n * sizeof calls[0]);
    pthread_mutex_unlock(&g_lock);
    for (int i = 0; i < n; i++)
        calls[i].fn(stream, created ? ACL_RT_STREAM_STATE_CREATE_POST : ACL_RT_STREAM_STATE_DESTROY_PRE, calls[i].args);
}

/* ------------------------------------------------------------------ stop ----------------- */

SIM_API aclError aclrtStreamStop(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    if (!stream)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "stream must not be NULL");
    aclError rc;
    sim_stream *s = sim_stream_for_work(stream, __func__, &rc);
    if (!s)
        return rc;
    sim_obj_put(&s->obj);
    return sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                    "the simulated task scheduler has no MC2-enhance feature, which stopping a stream's tasks needs");
}
