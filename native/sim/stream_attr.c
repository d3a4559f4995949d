/*
 * aiocann simulator: stream attributes (aclrtSetStreamAttribute / aclrtGetStreamAttribute) and
 * forced stream destruction (aclrtDestroyStreamForce).
 *
 * Attributes (src/runtime/api/api_c_stream.cc rtsStreamSetAttribute/rtsStreamGetAttribute and
 * the ApiErrorDecorator/ApiImpl calls they make):
 *   USER_CUSTOM_TAG    kept on the stream; the stream must belong to the current device.
 *   CACHE_OP_INFO      kept on the stream; 0 or 1, else 107000.
 *   PRIORITY           the stream's priority, clamped to [0, 7] as the runtime clamps it. (The
 *                      simulator's executor runs streams first come, first served, so
 *                      priority orders nothing: it is recorded, and reported back.)
 *   FLOAT_OVERFLOW_CHECK  the stream's overflow switch: the runtime's SetStreamOverflowSwitch /
 *                      GetStreamOverflowSwitch, i.e. exactly aclrtSetStreamOverflowSwitch and
 *                      aclrtGetStreamOverflowSwitch (overflow.c), with their context checks;
 *                      a value >= 2 is 107000.
 *   FAILURE_MODE       set: the runtime's own StreamSetMode, i.e. exactly aclrtSetStreamFailureMode
 *                      (stream.c). get: StreamGetMode reads the mode *configured on that stream*
 *                      (Stream::modeConfig_, sim_stream.fail_mode): 1 once stop was set on it,
 *                      even after it aborted; 0 on a stream never set to stop, even when another
 *                      stream made its context stop on failure. No context check, as for the
 *                      other reads.
 * A NULL stream is the current context's default stream.
 *
 * aclrtDestroyStreamForce. The documentation says it does not wait for the stream's unfinished
 * tasks (docs/zh/api_ref/06_stream_management.md); the runtime's source does wait for what was
 * already submitted, for a while: Context::StreamDestroy -> TearDownOwnedStream ->
 * Stream::TearDown(force) sends a force-recycle message (SubmitStreamRecycle) and then polls the
 * stream's queue every millisecond until the device has consumed it (SQ head == tail), the
 * queue is disabled (a stream stopped by a failure), or 3000 polls have passed -- about 3 s --
 * and only then recycles what is left. The tasks already in the queue therefore run if they
 * finish within that time (CANN's memory samples launch a kernel and force-destroy the stream
 * without synchronizing, and read its output). What the force-recycle message makes the
 * device do with tasks still queued after that is the firmware's, not in the open source; the
 * simulator discards them (each task's kind says what its discard does, sim_task_ops; the
 * worker does the same for the tasks of a stream aborted by a stop-on-failure context), and a
 * task already running -- a kernel cannot be recalled from the cores -- is waited for.
 *
 * Locking: stream->lock for the attributes.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "sim.h"

/* Stream::TearDown polls the queue this often, 1 ms apart (waitTimeout = 3000 tries). */
#define FORCE_DESTROY_WAIT_MS 3000

SIM_API aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    aclError rc;
    sim_stream *s = sim_stream_for_work(stream, __func__, &rc);
    if (!s)
        return rc;
    /* What was submitted before the call may still run, for up to about 3 s -- unless the
     * stream stopped on a failure, whose queue is disabled (GetSqEnable) and is recycled at
     * once. A capturing stream has nothing queued: sim_stream_destroy refuses it. */
    pthread_mutex_lock(&s->lock);
    bool stopped = s->aborted;
    uint64_t target = s->submitted;
    pthread_mutex_unlock(&s->lock);
    if (!stopped)
        (void)sim_stream_wait_seq(s, target, FORCE_DESTROY_WAIT_MS); /* a timeout or an abort ends it */
    sim_obj_put(&s->obj);
    return sim_stream_destroy(stream, true, __func__); /* the worker discards what is left */
}

static aclError attr_stream(aclrtStream stream, aclrtStreamAttr attr, const char *func, sim_stream **out)
{
    aclError rc;
    /* The tag must be on the current device (ApiImpl::SetStreamTag checks the context). */
    *out = attr == ACL_STREAM_ATTR_USER_CUSTOM_TAG ? sim_stream_for_work(stream, func, &rc)
                                                   : sim_stream_resolve(stream, func, &rc);
    return rc;
}

SIM_API aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType, aclrtStreamAttrValue *value)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(value);
    if ((int)stmAttrType < ACL_STREAM_ATTR_FAILURE_MODE || (int)stmAttrType > ACL_STREAM_ATTR_PRIORITY)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "stmAttrType %d is not an aclrtStreamAttr ([1, 5])",
                        (int)stmAttrType);
    /* rtsStreamSetAttribute: the same StreamSetMode call aclrtSetStreamFailureMode makes. */
    if (stmAttrType == ACL_STREAM_ATTR_FAILURE_MODE)
        return aclrtSetStreamFailureMode(stream, value->failureMode);
    /* ... and the same SetStreamOverflowSwitch as aclrtSetStreamOverflowSwitch, whose ACL-layer
     * check (0 or 1) the attribute path does not have: the runtime's ([0, 2)) applies. */
    if (stmAttrType == ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK) {
        if (value->overflowSwitch >= ACL_RT_OVERFLOW_MODE_UNDEF)
            return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "overflowSwitch must be in [0, 2), not %u", value->overflowSwitch);
        return aclrtSetStreamOverflowSwitch(stream, value->overflowSwitch);
    }
    if (stmAttrType == ACL_STREAM_ATTR_CACHE_OP_INFO && value->cacheOpInfoSwitch > 1)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "cacheOpInfoSwitch must be 0 or 1, not %u", value->cacheOpInfoSwitch);
    sim_stream *s;
    aclError rc = attr_stream(stream, stmAttrType, __func__, &s);
    if (rc)
        return rc;
    /* ApiErrorDecorator::SetStreamTag: not on a capturing stream (capture.c). */
    if (stmAttrType == ACL_STREAM_ATTR_USER_CUSTOM_TAG && (rc = sim_capture_stream_busy(s, __func__))) {
        sim_obj_put(&s->obj);
        return rc;
    }
    pthread_mutex_lock(&s->lock);
    switch (stmAttrType) {
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG: s->user_tag = value->userCustomTag; break;
    case ACL_STREAM_ATTR_CACHE_OP_INFO: s->cache_op_info = value->cacheOpInfoSwitch; break;
    case ACL_STREAM_ATTR_PRIORITY: {
        int32_t p = (int32_t)value->streamPriority;
        s->priority = (uint32_t)(p < 0 ? 0 : p > 7 ? 7 : p);
        break;
    }
    default: break; /* FLOAT_OVERFLOW_CHECK: handled above */
    }
    pthread_mutex_unlock(&s->lock);
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType, aclrtStreamAttrValue *value)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(value);
    if ((int)stmAttrType < ACL_STREAM_ATTR_FAILURE_MODE || (int)stmAttrType > ACL_STREAM_ATTR_PRIORITY)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "stmAttrType %d is not an aclrtStreamAttr ([1, 5])",
                        (int)stmAttrType);
    if (stmAttrType == ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK) /* GetStreamOverflowSwitch */
        return aclrtGetStreamOverflowSwitch(stream, &value->overflowSwitch);
    sim_stream *s;
    aclError rc = attr_stream(stream, stmAttrType, __func__, &s);
    if (rc)
        return rc;
    pthread_mutex_lock(&s->lock);
    switch (stmAttrType) {
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG: value->userCustomTag = s->user_tag; break;
    case ACL_STREAM_ATTR_CACHE_OP_INFO: value->cacheOpInfoSwitch = s->cache_op_info; break;
    case ACL_STREAM_ATTR_PRIORITY: value->streamPriority = s->priority; break;
    case ACL_STREAM_ATTR_FAILURE_MODE: value->failureMode = s->fail_mode; break; /* StreamGetMode */
    default: break; /* FLOAT_OVERFLOW_CHECK: handled above */
    }
    pthread_mutex_unlock(&s->lock);
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}
