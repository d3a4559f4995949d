/*
 * aiocann simulator: the stream control tasks of a model built by stream binding (issue 23) --
 * aclrtSwitchStream and aclrtActiveStream.
 *
 * Both are tasks of a stream bound to a model (model_build.c), done when a replay of the model
 * reaches them (docs/zh/api_ref/06_stream_management.md): a switch compares two values in
 * device memory, read then, with its condition as int32 or int64, and when it holds jumps to
 * trueStream -- the stream it is on stops there, trueStream runs from its first task -- and
 * otherwise goes on; an activation starts another stream of the model, which runs beside the
 * activating one (after it, in the simulator's one-stream-at-a-time replay). The checks follow
 * hicann/runtime: src/acl/aclrt_impl/stream.cpp (NULL arguments and a falseStream that is not
 * NULL, 100000); src/runtime/api/impl/api_error.cc StreamSwitchEx (a condition outside
 * [ACL_RT_EQUAL, ACL_RT_LESS_OR_EQUAL] or a data type outside [INT32, INT64], 107000) and
 * api_impl.cc StreamSwitchEx, StreamActive (both streams must be a model's, 107005; the stream
 * must belong to the current context, 107003). docs/fidelity.md lists them.
 */
#include <stdio.h>
#include <string.h>

#include "sim.h"

/* The operands of a switch, in inline_args: left and right addresses, condition, data type. */
enum { ARG_LEFT, ARG_RIGHT, ARG_COND, ARG_TYPE, NARGS };

static aclError outside_model(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)t;
    snprintf(msg, msglen, "a stream control task ran outside a model");
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

static void release_target(sim_task *t)
{
    if (t->u.op.obj)
        sim_obj_put(t->u.op.obj);
}

static uint64_t arg(const sim_task *t, size_t i)
{
    uint64_t v;
    memcpy(&v, t->inline_args + i * sizeof v, sizeof v);
    return v;
}

/* One operand, as the data type says (int32 or int64, signed); false when it cannot be read. */
static bool operand(const sim_task *t, size_t i, int64_t *v)
{
    const void *p = (const void *)(uintptr_t)arg(t, i);
    if (arg(t, ARG_TYPE) == ACL_RT_SWITCH_INT32) {
        int32_t x;
        if (!sim_guarded_read(&x, p, sizeof x))
            return false;
        *v = x;
        return true;
    }
    return sim_guarded_read(v, p, sizeof *v);
}

static bool holds(int64_t l, int64_t r, uint64_t cond)
{
    switch (cond) {
    case ACL_RT_EQUAL: return l == r;
    case ACL_RT_NOT_EQUAL: return l != r;
    case ACL_RT_GREATER: return l > r;
    case ACL_RT_GREATER_OR_EQUAL: return l >= r;
    case ACL_RT_LESS: return l < r;
    default: return l <= r; /* ACL_RT_LESS_OR_EQUAL: checked at submission */
    }
}

static aclError switch_replay(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)rt;
    int64_t l, r;
    if (!operand(t, ARG_LEFT, &l) || !operand(t, ARG_RIGHT, &r)) {
        snprintf(msg, msglen, "stream switch: its values at %p and %p cannot be read",
                 (void *)(uintptr_t)arg(t, ARG_LEFT), (void *)(uintptr_t)arg(t, ARG_RIGHT));
        return ACL_ERROR_RT_SYS_DMA;
    }
    if (!holds(l, r, arg(t, ARG_COND)))
        return ACL_SUCCESS; /* the stream goes on */
    return sim_build_run_stream(t->u.op.obj, true, msg, msglen);
}

static aclError active_replay(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)rt;
    return sim_build_run_stream(t->u.op.obj, false, msg, msglen);
}

/* u.op.obj: trueStream (+1); inline_args: the operands above. */
const sim_task_ops sim_task_stream_switch = {
    .run = outside_model,
    .replay = switch_replay,
    .release = release_target,
};

/* u.op.obj: the stream to activate (+1). */
const sim_task_ops sim_task_stream_active = {
    .run = outside_model,
    .replay = active_replay,
    .release = release_target,
};

uint32_t sim_stream_control_target(const sim_task *t)
{
    if (t->ops != &sim_task_stream_switch && t->ops != &sim_task_stream_active)
        return UINT32_MAX;
    return ((const sim_stream *)t->u.op.obj)->id;
}

/* Both streams resolved (+1 each) and checked as ApiImpl::StreamSwitchEx / StreamActive do. */
static aclError two_streams(aclrtStream other, aclrtStream stream, const char *what, sim_stream **o, sim_stream **s,
                            const char *func)
{
    aclError rc;
    if (!(*o = sim_stream_resolve(other, func, &rc)))
        return rc;
    if (!(*s = sim_stream_resolve(stream, func, &rc))) {
        sim_obj_put(&(*o)->obj);
        return rc;
    }
    sim_context *c = sim_current_context(func);
    if (!c)
        rc = ACL_ERROR_RT_CONTEXT_NULL;
    else if (!sim_build_is_bound(*o))
        rc = sim_fail_(func, ACL_ERROR_RT_STREAM_MODEL, "%s (stream %u) is not bound to a model", what, (*o)->id);
    else if (!sim_build_is_bound(*s))
        rc = sim_fail_(func, ACL_ERROR_RT_STREAM_MODEL, "stream %u is not bound to a model", (*s)->id);
    else if ((*s)->ctx != c)
        rc = sim_fail_(func, ACL_ERROR_RT_STREAM_CONTEXT, "stream %u does not belong to the current context",
                       (*s)->id);
    if (c)
        sim_obj_put(&c->obj);
    if (rc) {
        sim_obj_put(&(*o)->obj);
        sim_obj_put(&(*s)->obj);
    }
    return rc;
}

SIM_API aclError aclrtSwitchStream(void *leftValue, aclrtCondition cond, void *rightValue,
                                   aclrtCompareDataType dataType, aclrtStream trueStream, aclrtStream falseStream,
                                   aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(leftValue);
    SIM_CHECK_NOT_NULL(rightValue);
    SIM_CHECK_NOT_NULL(trueStream);
    SIM_CHECK_NOT_NULL(stream);
    if (falseStream)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "falseStream is a reserved parameter and must be NULL");
    if ((int)cond < ACL_RT_EQUAL || (int)cond > ACL_RT_LESS_OR_EQUAL)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "cond %d is not in [0, %d]", (int)cond, ACL_RT_LESS_OR_EQUAL);
    if ((int)dataType < ACL_RT_SWITCH_INT32 || (int)dataType > ACL_RT_SWITCH_INT64)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "dataType %d is not in [0, %d]", (int)dataType,
                        ACL_RT_SWITCH_INT64);
    sim_stream *target, *s;
    aclError rc = two_streams(trueStream, stream, "trueStream", &target, &s, __func__);
    if (rc)
        return rc;
    /* Simulator choice: the values are read on the device, so they must be device memory. */
    if (!(rc = sim_op_device_address(leftValue, "leftValue", __func__, NULL)) &&
        !(rc = sim_op_device_address(rightValue, "rightValue", __func__, NULL))) {
        sim_task *t = sim_task_new(&sim_task_stream_switch);
        if (!t) {
            rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
        } else {
            const uint64_t a[NARGS] = {(uint64_t)(uintptr_t)leftValue, (uint64_t)(uintptr_t)rightValue,
                                       (uint64_t)cond, (uint64_t)dataType};
            memcpy(t->inline_args, a, sizeof a);
            sim_obj_get(&target->obj);
            t->u.op.obj = target;
            rc = sim_stream_submit(s, t, __func__, NULL);
        }
    }
    sim_obj_put(&target->obj);
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(activeStream);
    SIM_CHECK_NOT_NULL(stream);
    sim_stream *target, *s;
    aclError rc = two_streams(activeStream, stream, "activeStream", &target, &s, __func__);
    if (rc)
        return rc;
    sim_task *t = sim_task_new(&sim_task_stream_active);
    if (!t) {
        rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
    } else {
        sim_obj_get(&target->obj);
        t->u.op.obj = target;
        rc = sim_stream_submit(s, t, __func__, NULL);
    }
    sim_obj_put(&target->obj);
    sim_obj_put(&s->obj);
    return rc;
}
