/*
 * aiocann simulator: labels (issue 23) -- aclrtCreateLabel, aclrtDestroyLabel,
 * aclrtCreateLabelList, aclrtDestroyLabelList, aclrtSetLabel, aclrtSwitchLabelByIndex.
 *
 * A label marks a place in the task list of a stream bound to a model (model_build.c):
 * aclrtSetLabel records a label task there. aclrtSwitchLabelByIndex records a switch task
 * that, when a replay of the model reaches it, reads a uint32 index from device memory and
 * jumps to the label at that index of its label list: the stream it runs on stops there, and
 * the label's stream runs from the label on (docs/zh/api_ref/10_label_management.md). An index
 * beyond the last label -- of maxValue labels, and of the list -- jumps to the last one (the
 * same page). The rules and codes follow hicann/runtime: src/acl/aclrt_impl/label.cpp (NULL
 * arguments, 100000); src/runtime/api/api_c_model.cc rtsLabelSwitchListCreate (num in
 * (0, 65535], 107000); api/impl/api_impl.cc LabelSet, LabelSwitchByIndex (the context checks:
 * 507031 for a label of another context, 107003 for a stream; a stream not bound to a model,
 * 107005); core/src/launch/label.cc Label::Set and label_starsv2.cc CondLabelSet (a label is
 * set once, on one stream, and only after it is put in a label list: 507000 each); and
 * core/src/common/errcode_manage.cc for the codes. docs/fidelity.md lists them.
 *
 * State. The label lock guards every label's `listed` and placement; it ranks above the build
 * lock (aclrtSetLabel records its task while holding it, so a label is placed exactly where its
 * task is). A list is fixed at creation and holds a reference to each of its labels; a switch
 * task holds one to its list; so destroying a label or a list while a model still uses it
 * closes the handle only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define MAX_LIST 65535u /* MAX_UINT16_NUM: the most labels in one list */

typedef struct sim_label {
    sim_obj obj;
    sim_context *ctx;       /* +1: labels belong to the context that made them */
    bool listed;            /* in a label list (the real label's device address is known) */
    bool set;
    uint32_t stream_id;     /* where it is set */
    sim_build_pos at;
} sim_label;

typedef struct sim_label_list {
    sim_obj obj;
    sim_context *ctx;       /* +1 */
    size_t n;
    sim_label *labels[];    /* +1 each */
} sim_label_list;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* the label lock */

static void label_destroy(sim_obj *o)
{
    sim_label *l = (sim_label *)o;
    sim_obj_put(&l->ctx->obj);
    free(l);
}

static void list_destroy(sim_obj *o)
{
    sim_label_list *ll = (sim_label_list *)o;
    for (size_t i = 0; i < ll->n; i++)
        sim_obj_put(&ll->labels[i]->obj);
    sim_obj_put(&ll->ctx->obj);
    free(ll);
}

static sim_label *label_get(aclrtLabel h, const char *func, aclError *rc)
{
    sim_label *l = (sim_label *)sim_handle_get(h, SIM_KIND_LABEL);
    if (!l)
        *rc = sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "label %p is not a live label (destroyed, or not a label)", h);
    return l;
}

/* The label must belong to the current context (COND_RETURN_AND_MSG_INVALID_CONTEXT_LABEL). */
static aclError label_context(const sim_label *l, const char *func)
{
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    bool same = c == l->ctx;
    sim_obj_put(&c->obj);
    return same ? ACL_SUCCESS : sim_fail_(func, ACL_ERROR_RT_LABEL_CONTEXT, "the label belongs to another context");
}

/* The stream must belong to the current context (107003). */
static aclError stream_context(const sim_stream *s, const char *func)
{
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    bool same = c == s->ctx;
    sim_obj_put(&c->obj);
    return same ? ACL_SUCCESS
                : sim_fail_(func, ACL_ERROR_RT_STREAM_CONTEXT, "stream %u does not belong to the current context", s->id);
}

SIM_API aclError aclrtCreateLabel(aclrtLabel *label)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(label);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_label *l = calloc(1, sizeof *l);
    if (!l) {
        sim_obj_put(&c->obj);
        return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the label");
    }
    sim_obj_init(&l->obj, SIM_KIND_LABEL, label_destroy);
    l->ctx = c; /* takes the lookup's reference */
    if (!(*label = sim_handle_open(&l->obj))) {
        label_destroy(&l->obj);
        return sim_fail(ACL_ERROR_RT_INTERNAL_ERROR, "the handle table is full (label allocator error)");
    }
    return ACL_SUCCESS;
}

SIM_API aclError aclrtDestroyLabel(aclrtLabel label)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(label);
    aclError rc;
    sim_label *l = label_get(label, __func__, &rc);
    if (!l)
        return rc;
    if (!(rc = label_context(l, __func__))) {
        sim_obj *table = sim_handle_close(label, SIM_KIND_LABEL);
        if (table)
            sim_obj_put(table);
        else
            rc = sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "label %p was destroyed concurrently", label);
    }
    sim_obj_put(&l->obj);
    return rc;
}

SIM_API aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(labels);
    SIM_CHECK_NOT_NULL(labelList);
    if (num == 0 || num > MAX_LIST) /* rtsLabelSwitchListCreate */
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "num %zu is not in (0, %u]", num, MAX_LIST);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_label_list *ll = calloc(1, sizeof *ll + num * sizeof ll->labels[0]);
    if (!ll) {
        sim_obj_put(&c->obj);
        return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the label list");
    }
    sim_obj_init(&ll->obj, SIM_KIND_LABEL_LIST, list_destroy);
    ll->ctx = c;
    aclError rc = ACL_SUCCESS;
    for (size_t i = 0; i < num && !rc; i++) {
        if (!labels[i])
            rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "labels[%zu] is NULL", i);
        else if ((ll->labels[i] = label_get(labels[i], __func__, &rc)))
            ll->n = i + 1;
        for (size_t k = 0; k < i && !rc; k++)
            if (ll->labels[k] == ll->labels[i]) /* RT_ERROR_SAME_LABELS_IN_SWITCH */
                rc = sim_fail(ACL_ERROR_RT_INTERNAL_ERROR, "labels[%zu] and labels[%zu] are the same label", k, i);
    }
    if (!rc && !(*labelList = sim_handle_open(&ll->obj)))
        rc = sim_fail(ACL_ERROR_RT_INTERNAL_ERROR, "the handle table is full");
    if (rc) {
        list_destroy(&ll->obj);
        return rc;
    }
    pthread_mutex_lock(&g_lock);
    for (size_t i = 0; i < ll->n; i++)
        ll->labels[i]->listed = true;
    pthread_mutex_unlock(&g_lock);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtDestroyLabelList(aclrtLabelList labelList)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(labelList);
    sim_obj *table = sim_handle_close(labelList, SIM_KIND_LABEL_LIST);
    if (!table)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "label list %p is not a live label list", labelList);
    sim_obj_put(table);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ the tasks ------------ */

/* A label marks a place: replaying it does nothing. */
static aclError label_set_replay(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)rt, (void)t, (void)msg, (void)msglen;
    return ACL_SUCCESS;
}

static aclError outside_model(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)t;
    snprintf(msg, msglen, "a label task ran outside a model");
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

static void release_obj(sim_task *t)
{
    if (t->u.op.obj)
        sim_obj_put(t->u.op.obj);
}

const sim_task_ops sim_task_label_set = {
    .run = outside_model,
    .replay = label_set_replay,
};

/* u.op.obj: the label list (+1); a: the index's device address; b: maxValue. */
static aclError label_switch_replay(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)rt;
    const sim_label_list *ll = t->u.op.obj;
    const void *ptr = (const void *)(uintptr_t)t->u.op.a;
    uint32_t index;
    if (!sim_guarded_read(&index, ptr, sizeof index)) {
        snprintf(msg, msglen, "label switch: the index at %p cannot be read", ptr);
        return ACL_ERROR_RT_SYS_DMA;
    }
    size_t last = ll->n < t->u.op.b ? ll->n - 1 : (size_t)t->u.op.b - 1;
    const sim_label *l = ll->labels[index > last ? last : index]; /* beyond the last: the last */
    pthread_mutex_lock(&g_lock);
    bool set = l->set;
    sim_build_pos at = l->at;
    pthread_mutex_unlock(&g_lock);
    if (!set) {
        snprintf(msg, msglen, "label switch: label %zu of the list is not set on a stream (aclrtSetLabel)",
                 index > last ? last : (size_t)index);
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    return sim_build_run_jump(&at, msg, msglen);
}

const sim_task_ops sim_task_label_switch = {
    .run = outside_model,
    .replay = label_switch_replay,
    .release = release_obj,
};

/* ------------------------------------------------------------------ set and switch ------- */

SIM_API aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(label);
    SIM_CHECK_NOT_NULL(stream);
    aclError rc;
    sim_label *l = label_get(label, __func__, &rc);
    if (!l)
        return rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s) {
        sim_obj_put(&l->obj);
        return rc;
    }
    if (!(rc = label_context(l, __func__)) && !(rc = stream_context(s, __func__))) { /* ApiImpl::LabelSet */
        sim_task *t = sim_task_new(&sim_task_label_set);
        pthread_mutex_lock(&g_lock);
        if (!sim_build_is_bound(s)) /* Label::Set: the stream's model */
            rc = sim_fail(ACL_ERROR_RT_STREAM_MODEL, "stream %u is not bound to a model (aclmdlRIBindStream)", s->id);
        else if (l->set && l->stream_id != s->id)
            rc = sim_fail(ACL_ERROR_RT_INTERNAL_ERROR, "the label is set on stream %u already, not on stream %u",
                          l->stream_id, s->id);
        else if (l->set)
            rc = sim_fail(ACL_ERROR_RT_INTERNAL_ERROR, "the label cannot be set repeatedly");
        else if (!l->listed)
            rc = sim_fail(ACL_ERROR_RT_INTERNAL_ERROR,
                          "before setting the label with aclrtSetLabel, put it in a label list (aclrtCreateLabelList)");
        else if (!t)
            rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        else {
            sim_build_pos at;
            rc = sim_build_add(s, t, __func__, &at); /* takes t */
            t = NULL;
            if (!rc) {
                l->set = true;
                l->stream_id = s->id;
                l->at = at;
            }
        }
        pthread_mutex_unlock(&g_lock);
        if (t)
            sim_task_free(t);
    }
    sim_obj_put(&s->obj);
    sim_obj_put(&l->obj);
    return rc;
}

SIM_API aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(ptr);
    SIM_CHECK_NOT_NULL(labelList);
    SIM_CHECK_NOT_NULL(stream);
    sim_label_list *ll = (sim_label_list *)sim_handle_get(labelList, SIM_KIND_LABEL_LIST);
    if (!ll)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "label list %p is not a live label list", labelList);
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s) {
        sim_obj_put(&ll->obj);
        return rc;
    }
    if ((rc = stream_context(s, __func__))) {
        ;
    } else if (!sim_build_is_bound(s)) { /* ApiImpl::LabelSwitchByIndex */
        rc = sim_fail(ACL_ERROR_RT_STREAM_MODEL, "stream %u is not bound to a model", s->id);
    } else if (maxValue == 0) { /* simulator choice: no label to switch to */
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "maxValue must be at least 1 (the labels in the list)");
    } else if (!(rc = sim_op_device_address(ptr, "ptr", __func__, NULL))) {
        sim_task *t = sim_task_new(&sim_task_label_switch);
        if (!t) {
            rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
        } else {
            sim_obj_get(&ll->obj);
            t->u.op.obj = ll;
            t->u.op.a = (uint64_t)(uintptr_t)ptr;
            t->u.op.b = maxValue;
            rc = sim_stream_submit(s, t, __func__, NULL);
        }
    }
    sim_obj_put(&s->obj);
    sim_obj_put(&ll->obj);
    return rc;
}
