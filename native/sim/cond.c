/*
 * aiocann simulator: condition handles and condition tasks of captured models (issue 23) --
 * aclmdlRICondHandleCreate, aclmdlRICondHandleGetCondPtr, aclmdlRIAddCondTask. (The capture
 * into a sub-model, aclmdlRICaptureToModelRIBegin, is capture.c's.)
 *
 * A condition handle is an 8-byte value in device memory that belongs to a model being
 * captured; with ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT every run of the model starts with it
 * set to the handle's default (docs/zh/api_ref/15, aclmdlRICondHandleCreate). aclmdlRIAddCondTask
 * captures a condition task on a capturing stream of that model and makes its sub-models, one
 * per branch, empty until aclmdlRICaptureToModelRIBegin ... aclmdlRICaptureEnd fill them; the
 * parent's capture cannot end before they are (107045, capture.c). When a replay of the parent
 * reaches the task it reads the value (stars_cond_isa_helper.cc ConstructIfCondSetupBranch,
 * ConstructWhileCondSetupBranch, ConstructSwitchCondSetupBranch):
 *  - IF: value != 0 runs sub-model 0; value == 0 runs sub-model 1 if there are two;
 *  - WHILE: runs sub-model 0 while the value, read again after each run, is not 0;
 *  - SWITCH: runs sub-model `value` when it is below the number of sub-models, else nothing.
 * A sub-model runs inside the task, on the replaying stream; a WHILE that never ends runs until
 * the stream is aborted or destroyed, as on the device. The checks and codes follow
 * hicann/runtime src/acl/aclrt_impl/model_ri.cpp (NULLs, 100000), src/runtime/api/
 * api_c_standard_soc.cc (handles), feature/aclgraph/v100/api_impl_aclgraph.cc
 * (ModelCondHandleCreate: a captured model that is capturing, 107000; StreamAddCondTaskParasCheck:
 * a handle used once, a capturing stream of the handle's model, 107000 / 107029) and
 * core/src/task/task_info/cond_op/aclgraph_cond_task.cc (CheckCondTaskParamsSize: IF 1 or 2
 * branches, WHILE 1, SWITCH at least 1, 107000). docs/fidelity.md lists them.
 *
 * State. The cond lock guards a handle's `used`; everything else is fixed once its task is
 * captured. The parent model holds each handle (+1) and closes it when it goes; the task holds
 * one too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

typedef struct sim_cond {
    sim_obj obj;
    aclmdlRI parent;          /* the model that holds this handle (looked up when used) */
    uint64_t *dev;            /* the value: 8 bytes of the model's device's memory */
    uint64_t def;
    bool assign;              /* ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT */
    bool used;                /* its condition task is captured (cond lock) */
    uint32_t type, n;
    struct sim_model **subs;  /* +1 each */
} sim_cond;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* the cond lock */

static void cond_destroy(sim_obj *o)
{
    sim_cond *c = (sim_cond *)o;
    for (uint32_t i = 0; i < c->n; i++)
        if (c->subs && c->subs[i])
            sim_model_put(c->subs[i]);
    free(c->subs);
    if (c->dev)
        (void)aclrtFree(c->dev); /* the model's device memory, gone already if the device was reset */
    free(c);
}

void sim_cond_close(sim_cond *c)
{
    sim_obj *table = sim_handle_close(c->obj.handle, SIM_KIND_COND);
    if (table)
        sim_obj_put(table);
}

void sim_cond_release(sim_cond *c)
{
    sim_cond_close(c);
    sim_obj_put(&c->obj); /* the parent's */
}

void sim_cond_launch(sim_cond *c)
{
    if (c->assign)
        __atomic_store_n(c->dev, c->def, __ATOMIC_RELEASE);
}

SIM_API aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue, aclmdlRICondHandleFlag flag,
                                          aclmdlRICondHandle *handle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(modelRI);
    SIM_CHECK_NOT_NULL(handle);
    aclError rc;
    struct sim_model *m = sim_model_get(modelRI, __func__, &rc);
    if (!m)
        return rc;
    sim_cond *c = NULL;
    if (sim_model_built(m) || !sim_model_capturing(m)) /* ApiImpl::ModelCondHandleCreate */
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "the model is not a captured model in its capture stage");
    else if ((rc = sim_model_in_current_context(m, __func__)))
        ;
    else if ((unsigned)flag > ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT) /* simulator choice: the documented values */
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "flag %d is neither 0 nor ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT",
                      (int)flag);
    else if (!(c = calloc(1, sizeof *c)))
        rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    if (!rc) {
        sim_obj_init(&c->obj, SIM_KIND_COND, cond_destroy);
        c->parent = sim_model_handle(m);
        c->def = defaultLaunchValue;
        c->assign = flag == ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT;
        sim_context *ctx = sim_current_context(__func__);
        /* CondHandle::Setup: the value lives in device memory (a fresh handle reads 0). */
        if (!ctx)
            rc = ACL_ERROR_RT_CONTEXT_NULL;
        else if ((rc = sim_dev_alloc(ctx->dev, sizeof *c->dev, true, (void **)&c->dev)))
            c->dev = NULL;
        if (ctx)
            sim_obj_put(&ctx->obj);
        if (!rc) {
            memset(c->dev, 0, sizeof *c->dev);
            if (!(*handle = sim_handle_open(&c->obj))) { /* the table holds the creation reference */
                rc = sim_fail(ACL_ERROR_RT_INTERNAL_ERROR, "the handle table is full");
            } else {
                sim_obj_get(&c->obj); /* the parent's */
                if ((rc = sim_model_add_cond(m, c, __func__))) {
                    sim_obj_put(&c->obj);
                    sim_obj_put(sim_handle_close(*handle, SIM_KIND_COND)); /* the last: destroys it */
                }
                c = NULL;
            }
        }
        if (c)
            cond_destroy(&c->obj);
    }
    sim_model_put(m);
    return rc;
}

SIM_API aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(handle);
    SIM_CHECK_NOT_NULL(ptr);
    sim_cond *c = (sim_cond *)sim_handle_get(handle, SIM_KIND_COND);
    if (!c)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "condition handle %p is not live (its model destroyed?)", handle);
    sim_context *ctx = sim_current_context(__func__);
    aclError rc = ctx ? ACL_SUCCESS : ACL_ERROR_RT_CONTEXT_NULL;
    if (ctx) {
        sim_obj_put(&ctx->obj);
        *ptr = c->dev;
    }
    sim_obj_put(&c->obj);
    return rc;
}

/* ------------------------------------------------------------------ the task ------------- */

static aclError outside_model(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)t;
    snprintf(msg, msglen, "a condition task ran outside a model");
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

static bool value(const sim_cond *c, uint64_t *v, char *msg, size_t msglen)
{
    if (sim_guarded_read(v, c->dev, sizeof *v))
        return true;
    snprintf(msg, msglen, "condition task: its value at %p cannot be read", (void *)c->dev);
    return false;
}


/* A branch whose wait parked the replay's stream: SIM_TASK_PARKED, the branch kept in the
 * replay to go back to (capture.c). */
static aclError branch(sim_stream *s, const sim_task *rt, const sim_cond *c, uint32_t i, char *msg, size_t msglen)
{
    char inner[448];
    inner[0] = '\0';
    aclError rc = sim_capture_replay_model(s, rt, c->subs[i], inner, sizeof inner);
    if (rc == SIM_TASK_PARKED)
        sim_replay_park_branch(rt, i);
    else if (rc)
        snprintf(msg, msglen, "condition task, branch %u: %s", i, inner);
    return rc;
}

/* A replay going back to a wait inside the task's branch takes that branch again without
 * evaluating the condition -- the hardware evaluated it once -- and a WHILE goes on looping
 * after it. */
static aclError cond_replay(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    const sim_cond *c = t->u.op.obj;
    int resume = sim_replay_resume_branch(rt);
    if (resume >= 0 && c->type != ACL_MODEL_RI_COND_TYPE_WHILE)
        return branch(s, rt, c, (uint32_t)resume, msg, msglen);
    if (resume >= 0) { /* WHILE: the rest of the iteration it parked in, then on */
        aclError rc = branch(s, rt, c, 0, msg, msglen);
        if (rc)
            return rc;
    }
    uint64_t v;
    if (!value(c, &v, msg, msglen))
        return ACL_ERROR_RT_SYS_DMA;
    switch (c->type) { /* the condition's kind, not a task kind */
    case ACL_MODEL_RI_COND_TYPE_IF:
        if (v != 0)
            return branch(s, rt, c, 0, msg, msglen);
        return c->n == 2 ? branch(s, rt, c, 1, msg, msglen) : ACL_SUCCESS;
    case ACL_MODEL_RI_COND_TYPE_WHILE:
        while (v != 0) {
            if (sim_stream_must_end_task(s))
                return ACL_SUCCESS; /* aborted or destroyed: the worker drops what follows */
            aclError rc = branch(s, rt, c, 0, msg, msglen);
            if (rc)
                return rc;
            if (!value(c, &v, msg, msglen))
                return ACL_ERROR_RT_SYS_DMA;
        }
        return ACL_SUCCESS;
    default: /* ACL_MODEL_RI_COND_TYPE_SWITCH */
        return v < c->n ? branch(s, rt, c, (uint32_t)v, msg, msglen) : ACL_SUCCESS;
    }
}

static void release_cond(sim_task *t)
{
    if (t->u.op.obj)
        sim_obj_put(t->u.op.obj);
}

/* u.op.obj: the condition handle (+1). */
const sim_task_ops sim_task_cond = {
    .run = outside_model,
    .replay = cond_replay,
    .release = release_cond,
};

/* CheckCondTaskParamsSize. */
static aclError check_size(const aclmdlRICondTaskParams *p, const char *func)
{
    switch (p->type) {
    case ACL_MODEL_RI_COND_TYPE_IF:
        if (p->size == 1 || p->size == 2)
            return ACL_SUCCESS;
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "an IF condition has 1 or 2 branches, not %u", p->size);
    case ACL_MODEL_RI_COND_TYPE_WHILE:
        if (p->size == 1)
            return ACL_SUCCESS;
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "a WHILE condition has 1 branch, not %u", p->size);
    case ACL_MODEL_RI_COND_TYPE_SWITCH:
        if (p->size > 0)
            return ACL_SUCCESS;
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "a SWITCH condition has at least 1 branch");
    default:
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "condition type %d is not in [0, %d]", (int)p->type,
                         ACL_MODEL_RI_COND_TYPE_SWITCH);
    }
}

SIM_API aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags)
{
    (void)flags; /* reserved: the real runtime does not read it */
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    SIM_CHECK_NOT_NULL(params.handle);
    SIM_CHECK_NOT_NULL(params.modelRIArray); /* the ACL layer writes the sub-models there */
    sim_cond *c = (sim_cond *)sim_handle_get(params.handle, SIM_KIND_COND);
    if (!c)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "condition handle %p is not live", params.handle);
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s) {
        sim_obj_put(&c->obj);
        return rc;
    }
    struct sim_model *parent = sim_model_get(c->parent, __func__, &rc);
    if (!parent) {
        sim_obj_put(&s->obj);
        sim_obj_put(&c->obj);
        return rc;
    }
    pthread_mutex_lock(&g_lock);
    bool used = c->used;
    c->used = true; /* claimed: a concurrent second task is refused */
    pthread_mutex_unlock(&g_lock);
    sim_context *ctx = NULL;
    struct sim_model **subs = NULL;
    if (used) /* StreamAddCondTaskParasCheck */
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                      "the handle has a condition task already: create a new handle for another condition task");
    else if (!(ctx = sim_current_context(__func__)))
        rc = ACL_ERROR_RT_CONTEXT_NULL;
    else if (s->ctx != ctx)
        rc = sim_fail(ACL_ERROR_RT_STREAM_CONTEXT, "stream %u does not belong to the current context", s->id);
    else if (!(rc = check_size(&params, __func__)) && !(subs = calloc(params.size, sizeof *subs)))
        rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    if (ctx)
        sim_obj_put(&ctx->obj);
    if (!rc) {
        sim_task *t = sim_task_new(&sim_task_cond);
        if (!t) {
            rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
        } else {
            c->type = (uint32_t)params.type;
            c->n = params.size;
            sim_obj_get(&c->obj);
            t->u.op.obj = c;
            /* The sub-models are made before the task is captured (Context::CreateSubCaptureModels);
             * the handle keeps them for its task's replays. */
            c->subs = subs;
            rc = sim_capture_cond_task(s, parent, t, params.size, subs, __func__);
            subs = NULL;
            if (!rc) {
                for (uint32_t i = 0; i < params.size; i++)
                    params.modelRIArray[i] = sim_model_handle(c->subs[i]);
            } else { /* the sub-models made stay with the parent; the handle keeps none */
                for (uint32_t i = 0; i < c->n; i++)
                    if (c->subs[i])
                        sim_model_put(c->subs[i]);
                free(c->subs);
                c->subs = NULL;
                c->n = 0;
            }
        }
    }
    free(subs);
    if (rc && !used) { /* refused: the handle can still be used */
        pthread_mutex_lock(&g_lock);
        c->used = false;
        pthread_mutex_unlock(&g_lock);
    }
    sim_model_put(parent);
    sim_obj_put(&s->obj);
    sim_obj_put(&c->obj);
    return rc;
}
