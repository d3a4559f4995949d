/*
 * aiocann simulator: models built by stream binding (issue 23) -- aclmdlRIBuildBegin,
 * aclmdlRIBindStream / aclmdlRIUnbindStream, aclmdlRIEndTask, aclmdlRIBuildEnd -- their replay,
 * and aclmdlRIDebugJsonPrint for every model.
 *
 * A built model is the same aclmdlRI object as a captured one (capture.c owns the object, its
 * handle, aclmdlRIExecuteAsync and aclmdlRIDestroy); what differs is its program, which this
 * file owns (sim_built): the streams bound to it, each with the tasks launched on it while it
 * was bound. The real runtime (hicann/runtime src/runtime/api/api_c_model.cc rtsModelCreate,
 * rtsModelBindStream, rtsEndGraph, rtsModelLoadComplete; api/impl/api_error.cc and api_impl.cc
 * ModelBindStream, ModelUnbindStream, ModelEndGraph, ModelLoadComplete; feature/model/model.cc
 * Model::BindStream, UnbindStream; core/src/context/context.cc ModelAddEndGraph) keeps them in
 * the streams' own queues on the device; the rules below name where, docs/fidelity.md lists
 * them.
 *
 *  - Binding: only a persistent stream (ACL_STREAM_PERSISTENT) can be bound, to one model at a
 *    time; a capturing stream, a DEVICE_USE_ONLY one, one in stop-on-failure mode cannot. The
 *    flag says whether the stream is a head stream (ACL_MODEL_STREAM_FLAG_HEAD, 0: it runs when
 *    the model runs) or waits to be activated (ACL_MODEL_STREAM_FLAG_DEFAULT, 0x7FFFFFFF: by
 *    aclrtActiveStream or aclrtSwitchStream, stream_switch.c, or a label switch, label.c).
 *  - Recording: every task launched on a bound stream is recorded in its model instead of
 *    running (sim_stream_submit routes it here) -- kernels, copies, memsets, host callbacks,
 *    and the control tasks of label.c and stream_switch.c. Event records, resets and waits on a
 *    bound stream are recorded as operations on the event done at each replay, as capture.c
 *    records an ACL_EVENT_EXTERNAL event's (sim_build_event_op).
 *  - aclmdlRIEndTask adds the model's end-of-graph task (one per model: a second is 507000);
 *    aclmdlRIBuildEnd ends the build: the model can run, its streams take no more work.
 *  - Replay (simulator choice on scheduling; the hardware runs the model's streams at once):
 *    the head streams run one after the other in the order they were bound, each from its
 *    first task; a stream activated during the replay runs after the one running now, from its
 *    first task (activating a stream that is running or waiting to run changes nothing); a
 *    jump -- a true stream switch, a label switch -- ends the running stream there and runs the
 *    target next (from its first task, or from the label); a wait for an event not yet set
 *    gives way to the streams waiting to run, and when none of them moves it parks the replay's
 *    stream (executor.c; the replay keeps its schedule and goes on from the wait), as every
 *    other wait of the model does. A replay that loops forever (a label switch back to an
 *    earlier label) runs until its stream is aborted or destroyed, as the hardware's does. A
 *    failed task fails the replay as capture.c's replays fail (the report names the bound
 *    stream and the task).
 *  - Teardown: a bound stream cannot be destroyed (107005, Context::TearDownOwnedStream);
 *    destroying the model unbinds its streams (Model::TearDown).
 *
 * State. The build lock guards every sim_built while it is built, and every stream's binding
 * (sim_stream.mbind). A replay reads its model's program without it: a replay needs a ready
 * model, and a ready model's program no longer changes -- only the `unbound` flags of its
 * streams, which are atomic. Lock order: the build lock is a leaf but for the handle table's;
 * label.c's label lock ranks above it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

#define FLAG_HEAD 0x0u           /* RT_MODEL_STREAM_FLAG_HEAD (pkg_inc rts_model.h) */
#define FLAG_DEFAULT 0x7FFFFFFFu /* RT_MODEL_STREAM_FLAG_DEFAULT: waits to be activated */

typedef struct mstream {
    sim_stream *stream;       /* +1 for the model's life, bound or not */
    bool head;
    atomic_bool unbound;      /* aclmdlRIUnbindStream: the model no longer runs it */
    sim_task **tasks;         /* in launch order; fixed once the model is ready */
    size_t n, cap;
    uint16_t last_task, flip; /* ids of its recorded tasks, counted as stream.c counts */
} mstream;

struct sim_built {
    struct sim_model *model;  /* the model that owns this (no reference: it frees this) */
    mstream *streams;         /* in bind order */
    uint32_t n, cap;
    uint32_t end_graphs;
    bool ready;               /* aclmdlRIBuildEnd done */
    uint64_t uid;             /* unique in the process (sim_build_pos) */
};

static atomic_uint_fast64_t g_uids;

/* A stream's binding (sim_stream.mbind): its model and its index there. */
struct sim_mbind {
    sim_built *b;
    uint32_t index;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* the build lock */

/* ------------------------------------------------------------------ the program ---------- */

static bool grow_streams(sim_built *b)
{
    if (b->n < b->cap)
        return true;
    uint32_t cap = b->cap ? b->cap * 2 : 4;
    mstream *p = realloc(b->streams, cap * sizeof *p);
    if (!p)
        return false;
    b->streams = p;
    b->cap = cap;
    return true;
}

static uint32_t next_task_id(mstream *ms)
{
    uint16_t id = ms->last_task != UINT16_MAX ? (uint16_t)((ms->last_task + 1u) % 0xFFFFu) : 0;
    if (id == 0 && ms->last_task != UINT16_MAX)
        ms->flip++;
    ms->last_task = id;
    return ((uint32_t)ms->flip << 16) | id;
}

static bool is_event_op(const sim_task *t)
{
    return t->ops == &sim_task_event_record || t->ops == &sim_task_event_reset || t->ops == &sim_task_event_wait;
}

/* Records t on mb's stream (build lock held). Takes t on success. */
static aclError add_locked(sim_stream *s, struct sim_mbind *mb, sim_task *t, const char *func, sim_build_pos *where)
{
    sim_built *b = mb->b;
    mstream *ms = &b->streams[mb->index];
    if (b->ready)
        return sim_fail_(func, ACL_ERROR_RT_STREAM_MODEL,
                         "stream %u is bound to a model whose build has ended (aclmdlRIBuildEnd): it takes no more "
                         "work until it is unbound",
                         s->id);
    if (t->ops == &sim_task_model) /* ApiErrorDecorator::ModelExecute */
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                         "stream %u is bound to a model: a model cannot be executed on a model's stream", s->id);
    if (ms->n == ms->cap) {
        size_t cap = ms->cap ? ms->cap * 2 : 16;
        sim_task **p = realloc(ms->tasks, cap * sizeof *p);
        if (!p)
            return sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the model");
        ms->tasks = p;
        ms->cap = cap;
    }
    t->task_id = next_task_id(ms);
    if (where)
        *where = (sim_build_pos){b, b->uid, mb->index, ms->n};
    ms->tasks[ms->n++] = t;
    return ACL_SUCCESS;
}

bool sim_build_route(sim_stream *s, sim_task *t, const char *func, aclError *rc, uint32_t *task_id)
{
    pthread_mutex_lock(&g_lock);
    struct sim_mbind *mb = atomic_load_explicit(&s->mbind, memory_order_relaxed);
    if (mb && is_event_op(t)) {
        /* An event task with a generation fixed at submission: the stream was bound after
         * event.c asked the event hook (sim_build_event_op), and it is refused (event.c then
         * takes the record back). */
        *rc = sim_fail_(func, ACL_ERROR_RT_STREAM_MODEL, "stream %u was bound to a model meanwhile", s->id);
    } else if (mb) {
        *rc = add_locked(s, mb, t, func, NULL);
        if (!*rc)
            *task_id = t->task_id;
    }
    pthread_mutex_unlock(&g_lock);
    if (mb && *rc)
        sim_task_free(t);
    return mb != NULL;
}

aclError sim_build_add(sim_stream *s, sim_task *t, const char *func, sim_build_pos *where)
{
    pthread_mutex_lock(&g_lock);
    struct sim_mbind *mb = atomic_load_explicit(&s->mbind, memory_order_relaxed);
    aclError rc = mb ? add_locked(s, mb, t, func, where)
                     : sim_fail_(func, ACL_ERROR_RT_STREAM_MODEL, "stream %u is not bound to a model", s->id);
    pthread_mutex_unlock(&g_lock);
    if (rc)
        sim_task_free(t);
    return rc;
}

aclError sim_build_event_op(sim_stream *s, sim_event *e, const sim_task_ops *kind, const char *func)
{
    /* As capture.c captures an ACL_EVENT_EXTERNAL event's operations: the task acts on the
     * event's state when a replay reaches it (event.c's replay ops: a record sets the event, a
     * reset clears it, a wait holds until it is set). Nothing is submitted now, so the event's
     * own generations do not move. */
    sim_task *t = sim_task_new(kind);
    if (!t)
        return sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
    sim_obj_get(&e->obj);
    t->u.event.event = e;
    return sim_build_add(s, t, func, NULL);
}

bool sim_build_is_bound(sim_stream *s)
{
    return atomic_load_explicit(&s->mbind, memory_order_acquire) != NULL || s->bound;
}

/* Model::TearDown unbinds what is still bound: at aclmdlRIDestroy, so the streams are free
 * when it returns (a replay still running keeps what they recorded until sim_build_free). */
void sim_build_unbind_all(sim_built *b)
{
    pthread_mutex_lock(&g_lock);
    for (uint32_t i = 0; i < b->n; i++) {
        sim_stream *s = b->streams[i].stream;
        struct sim_mbind *mb = atomic_load_explicit(&s->mbind, memory_order_relaxed);
        atomic_store(&b->streams[i].unbound, true);
        if (mb && mb->b == b) {
            atomic_store_explicit(&s->mbind, NULL, memory_order_release);
            free(mb);
        }
    }
    pthread_mutex_unlock(&g_lock);
}

void sim_build_free(sim_built *b)
{
    sim_build_unbind_all(b);
    for (uint32_t i = 0; i < b->n; i++) {
        mstream *ms = &b->streams[i];
        for (size_t k = 0; k < ms->n; k++)
            sim_task_free(ms->tasks[k]);
        free(ms->tasks);
        sim_obj_put(&ms->stream->obj);
    }
    free(b->streams);
    free(b);
}

uint32_t sim_build_streams(sim_built *b, aclrtStream *out, uint32_t max)
{
    pthread_mutex_lock(&g_lock);
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        if (atomic_load(&b->streams[i].unbound))
            continue;
        if (out && n < max)
            out[n] = b->streams[i].stream->obj.handle;
        n++;
    }
    pthread_mutex_unlock(&g_lock);
    return n;
}

/* ------------------------------------------------------------------ replay --------------- */

/* A stream to run and where from. */
typedef struct run_ent {
    uint32_t index;
    size_t pos;
} run_ent;

/* One replay's schedule: the streams waiting to run, the one running. The replay runs on one
 * stream worker; the control tasks it runs reach it through t_run (sim_build_run_*). */
typedef struct sim_run {
    sim_built *b;
    run_ent *q;
    size_t n;
    uint32_t current;   /* the running stream's index, UINT32_MAX between streams */
    bool stop_current;  /* a jump ended the running stream */
    bool failed;        /* out of memory for the schedule */
    uint64_t steps;     /* tasks run (the abort checks, the yields to other workers) */
    size_t yields;      /* waits that gave way in a row */
} sim_run;

static __thread sim_run *t_run;

static bool queued(const sim_run *r, uint32_t index)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->q[i].index == index)
            return true;
    return false;
}

static void dequeue(sim_run *r, uint32_t index)
{
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->q[i].index != index)
            r->q[k++] = r->q[i];
    r->n = k;
}

/* The queue never holds a stream twice, so b->n entries are enough (allocated at the start). */
static void enqueue(sim_run *r, run_ent e, bool front)
{
    dequeue(r, e.index);
    if (front) {
        memmove(r->q + 1, r->q, r->n * sizeof *r->q);
        r->q[0] = e;
    } else {
        r->q[r->n] = e;
    }
    r->n++;
}

static aclError start(sim_run *r, uint32_t index, size_t pos, bool jump, char *msg, size_t msglen)
{
    mstream *ms = &r->b->streams[index];
    if (atomic_load(&ms->unbound)) {
        snprintf(msg, msglen, "stream %u was unbound from the model (aclmdlRIUnbindStream): it cannot run",
                 ms->stream->id);
        return ACL_ERROR_RT_STREAM_MODEL;
    }
    if (jump) {
        r->stop_current = true;
        enqueue(r, (run_ent){index, pos}, true);
    } else if (index != r->current && !queued(r, index)) {
        enqueue(r, (run_ent){index, 0}, false);
    }
    return ACL_SUCCESS;
}

aclError sim_build_run_stream(sim_stream *target, bool jump, char *msg, size_t msglen)
{
    sim_run *r = t_run;
    if (!r) {
        snprintf(msg, msglen, "a stream control task ran outside the replay of a model");
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    /* The newest entry of the stream: a stream unbound and bound again during the build has
     * an entry per binding, and only the last can be bound (Model::UnbindStream removes the
     * stream; binding it again adds it anew). */
    for (uint32_t i = r->b->n; i-- > 0;)
        if (r->b->streams[i].stream == target)
            return start(r, i, 0, jump, msg, msglen);
    snprintf(msg, msglen, "stream %u is not a stream of the running model", target->id);
    return ACL_ERROR_RT_STREAM_MODEL;
}

aclError sim_build_run_jump(const sim_build_pos *to, char *msg, size_t msglen)
{
    sim_run *r = t_run;
    if (!r) {
        snprintf(msg, msglen, "a label switch ran outside the replay of a model");
        return ACL_ERROR_RT_INTERNAL_ERROR;
    }
    if (to->uid != r->b->uid || to->index >= r->b->n || to->pos > r->b->streams[to->index].n) {
        /* a label set on a stream of another model */
        snprintf(msg, msglen, "the label is set on a stream of another model than the one running");
        return ACL_ERROR_RT_INTERNAL_ERROR; /* RT_ERROR_LABEL_MODEL maps to 507000 */
    }
    return start(r, to->index, to->pos, true, msg, msglen);
}

/* The event's flag a replayed wait waits for (event.c's sim_event_wait_set) is set. */
static bool event_set(sim_event *e)
{
    pthread_mutex_lock(&e->lock);
    bool set = e->done_gen > e->reset_gen;
    pthread_mutex_unlock(&e->lock);
    return set;
}

/* A replay that parks (a wait of it not over, sim_replay_item) keeps its schedule -- the queue,
 * with the waiting stream at its head at the wait, and its counts -- in rt->u.model.built_run,
 * and goes on from it when the stream is woken: the wait runs again first and checks again. */
aclError sim_build_replay(sim_stream *s, sim_task *rt, sim_built *b, char *msg, size_t msglen)
{
    sim_run *r = rt->parked ? rt->u.model.built_run : NULL; /* a model task is never nested */
    rt->u.model.built_run = NULL;
    /* Going on from a park, the wait it parked at runs first, whatever happened meanwhile: it
     * ends itself (it leaves the queue of what it waits for), even when the stream is aborted. */
    bool back = r != NULL;
    if (!r) {
        r = calloc(1, sizeof *r);
        run_ent *q = r ? calloc(b->n ? b->n : 1, sizeof *q) : NULL;
        if (!q) {
            free(r);
            snprintf(msg, msglen, "out of host memory for the model's replay");
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
        }
        *r = (sim_run){.b = b, .q = q, .current = UINT32_MAX};
        for (uint32_t i = 0; i < b->n; i++)
            if (b->streams[i].head && !atomic_load(&b->streams[i].unbound))
                r->q[r->n++] = (run_ent){i, 0};
    }
    sim_run *outer = t_run;
    t_run = r;
    char buf[512];
    aclError first = sim_replay_resume(rt, msg, msglen); /* parked after a failure: as it was */
    bool stop = false;
    while (!stop && r->n) {
        run_ent cur = r->q[0];
        memmove(r->q, r->q + 1, --r->n * sizeof *r->q);
        r->current = cur.index;
        mstream *ms = &b->streams[cur.index];
        for (size_t pc = cur.pos; pc < ms->n; pc++) {
            /* Every task of the replay checks the abort flag; the rest, which take the stream
             * lock, every few hundred (a model that loops forever still ends with its stream). */
            bool ending = sim_stream_abort_requested(s) || (++r->steps % 256 == 0 && sim_stream_must_end_task(s));
            if (ending && !back) {
                stop = true;
                break;
            }
            if (r->steps % 4096 == 0)
                sched_yield(); /* a loop of control tasks alone gives the other workers their turn */
            const sim_task *t = ms->tasks[pc];
            /* A wait for an event not set yet gives its turn to the streams waiting to run (one
             * of them may record it); once every one of them has given way since the last task
             * ran, the wait parks the replay's stream -- or blocks its worker, inside another
             * replay -- as the record may come from outside the model. */
            bool gives_way = t->ops == &sim_task_event_wait && r->n && r->yields <= r->n;
            if (!back && gives_way && !event_set(t->u.event.event)) {
                r->yields++;
                enqueue(r, (run_ent){cur.index, pc}, false);
                break;
            }
            back = false;
            r->stop_current = false;
            bool trace = sim_trace_on();
            uint64_t t0 = trace ? sim_now_ns() : 0;
            buf[0] = '\0';
            aclError rc = sim_replay_item(s, rt, t, !outer, buf, sizeof buf);
            if (rc == SIM_TASK_PARKED) {
                enqueue(r, (run_ent){cur.index, pc}, true); /* the wait, first when it goes on */
                r->current = UINT32_MAX;
                rt->u.model.built_run = r;
                t_run = outer;
                return SIM_TASK_PARKED;
            }
            r->yields = 0;
            if (rc && sim_overflow_absorb(s, rc, buf))
                rc = ACL_SUCCESS;
            if (trace && t->ops->trace_type) {
                sim_task view;
                memcpy(&view, t, offsetof(sim_task, inline_args));
                view.seq = rt->seq;
                sim_stream_trace_task(s, &view, t0, rc);
            }
            if (rc && !first) {
                first = rc;
                snprintf(msg, msglen, "replay of a built model, task %zu of stream %u: %s", pc + 1, ms->stream->id,
                         buf);
                /* As a captured model's replay reports (capture.c): the executing stream's error,
                 * a report naming the bound stream and its task. */
                sim_stream_task_failed_as(s, rc, msg, ms->stream->id, t->task_id, rt->tid, NULL);
                sim_replay_keep_failure(rt, rc, msg);
                stop = s->aborted; /* stop on failure: the rest is not run */
            }
            if (stop || r->stop_current)
                break;
        }
        r->current = UINT32_MAX;
    }
    t_run = outer;
    sim_build_run_free(r);
    sim_replay_done(rt);
    return first;
}

void sim_build_run_free(void *run)
{
    sim_run *r = run;
    if (r)
        free(r->q);
    free(r);
}

/* ------------------------------------------------------------------ the end-graph task --- */

/* The model's end: the hardware tells the host the model is done. The simulator's replay is
 * done when every stream it started has run (see above), so the task itself does nothing. */
static aclError end_graph_replay(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)rt, (void)t, (void)msg, (void)msglen;
    return ACL_SUCCESS;
}

static aclError control_outside_model(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)t;
    snprintf(msg, msglen, "a model's control task ran outside the model");
    return ACL_ERROR_RT_INTERNAL_ERROR;
}

static const sim_task_ops k_end_graph = {
    .run = control_outside_model,
    .replay = end_graph_replay,
};

/* ------------------------------------------------------------------ the API -------------- */

/* The built model behind modelRI, +1 on the model: 107017 for a dead handle, 107000 for a
 * captured model ("ACL Graph mode is not supported", ApiErrorDecorator), 107004 for a model of
 * another context. */
static sim_built *lookup(aclmdlRI modelRI, const char *func, struct sim_model **mp, aclError *rc)
{
    struct sim_model *m = sim_model_get(modelRI, func, rc);
    if (!m)
        return NULL;
    sim_built *b = sim_model_built(m);
    if (!b)
        *rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                        "the model was captured (aclmdlRICaptureBegin): ACL Graph mode is not supported here");
    else
        *rc = sim_model_in_current_context(m, func);
    if (*rc) {
        sim_model_put(m);
        return NULL;
    }
    *mp = m;
    return b;
}

SIM_API aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(modelRI);
    if (flag != 0) /* rtsModelCreate */
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "flag %u is reserved and must be 0", flag);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    aclError rc = ACL_SUCCESS;
    sim_built *b = calloc(1, sizeof *b);
    struct sim_model *m = NULL;
    if (b)
        b->uid = atomic_fetch_add(&g_uids, 1) + 1;
    if (!b)
        rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the model");
    else if (!(m = sim_model_new_built(c, b, __func__, &rc)))
        free(b);
    else
        *modelRI = sim_model_handle(m);
    sim_obj_put(&c->obj);
    return rc;
}

/* The built model and the stream a model call names, +1 each (the stream: the current
 * context's default stream for NULL); NULL with *rc and nothing held when either is bad. */
static sim_built *lookup_with_stream(aclmdlRI modelRI, aclrtStream stream, const char *func, struct sim_model **mp,
                                     sim_stream **sp, aclError *rc)
{
    sim_built *b = lookup(modelRI, func, mp, rc);
    if (!b)
        return NULL;
    if (!(*sp = sim_stream_resolve(stream, func, rc))) {
        sim_model_put(*mp);
        return NULL;
    }
    return b;
}

SIM_API aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(modelRI);
    if (flag != FLAG_HEAD && flag != FLAG_DEFAULT) /* rtsModelBindStream */
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "flag %#x is neither ACL_MODEL_STREAM_FLAG_HEAD (0) nor ACL_MODEL_STREAM_FLAG_DEFAULT "
                        "(0x7FFFFFFF)",
                        flag);
    aclError rc;
    struct sim_model *m;
    sim_stream *s;
    sim_built *b = lookup_with_stream(modelRI, stream, __func__, &m, &s, &rc);
    if (!b)
        return rc;
    sim_context *c = sim_current_context(__func__);
    if (!c)
        rc = ACL_ERROR_RT_CONTEXT_NULL;
    else if (!(s->flags & ACL_STREAM_PERSISTENT) || s->is_default) /* rtsModelBindStream */
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                      "stream %u is not persistent: only a stream created with ACL_STREAM_PERSISTENT can be bound to "
                      "a model",
                      s->id);
    else if (sim_build_is_bound(s))
        rc = sim_fail(ACL_ERROR_RT_STREAM_MODEL, "stream %u is already bound to a model", s->id);
    else if (!(rc = sim_capture_stream_busy(s, __func__))) { /* ApiErrorDecorator::ModelBindStream */
        if (s->flags & ACL_STREAM_DEVICE_USE_ONLY)
            rc = sim_fail(ACL_ERROR_RT_INTERNAL_ERROR,
                          "stream %u has the flag ACL_STREAM_DEVICE_USE_ONLY and cannot be bound to a model", s->id);
        else if (s->ctx != c)
            rc = sim_fail(ACL_ERROR_RT_STREAM_CONTEXT, "stream %u does not belong to the current context", s->id);
        else {
            pthread_mutex_lock(&s->lock);
            bool stop_mode = s->fail_mode || s->aborted;
            pthread_mutex_unlock(&s->lock);
            if (stop_mode)
                rc = sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                              "stream %u is in stop-on-failure mode, which a model's stream does not support", s->id);
        }
    }
    if (c)
        sim_obj_put(&c->obj);
    if (!rc) {
        struct sim_mbind *mb = malloc(sizeof *mb);
        pthread_mutex_lock(&g_lock);
        if (atomic_load(&s->mbind)) {
            rc = sim_fail(ACL_ERROR_RT_STREAM_MODEL, "stream %u is already bound to a model", s->id);
        } else if (b->ready) {
            rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "the model's build has ended (aclmdlRIBuildEnd)");
        } else if (!mb || !grow_streams(b)) {
            rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the model");
        } else {
            mstream *ms = &b->streams[b->n];
            memset(ms, 0, sizeof *ms);
            sim_obj_get(&s->obj);
            ms->stream = s;
            ms->head = flag == FLAG_HEAD;
            ms->last_task = UINT16_MAX;
            *mb = (struct sim_mbind){b, b->n++};
            atomic_store_explicit(&s->mbind, mb, memory_order_release);
            mb = NULL;
        }
        pthread_mutex_unlock(&g_lock);
        free(mb);
    }
    sim_obj_put(&s->obj);
    sim_model_put(m);
    return rc;
}

SIM_API aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(modelRI);
    aclError rc;
    struct sim_model *m;
    sim_stream *s;
    sim_built *b = lookup_with_stream(modelRI, stream, __func__, &m, &s, &rc);
    if (!b)
        return rc;
    struct sim_mbind *mb = NULL;
    if (!(rc = sim_capture_stream_busy(s, __func__))) {
        pthread_mutex_lock(&g_lock);
        mb = atomic_load_explicit(&s->mbind, memory_order_relaxed);
        if (!mb || mb->b != b) { /* Model::UnbindStream */
            rc = sim_fail(ACL_ERROR_RT_STREAM_MODEL, "stream %u is not bound to this model", s->id);
            mb = NULL;
        } else {
            /* The stream leaves; what it recorded stays with the model (a replay that runs now
             * reads it), which no longer runs it. */
            atomic_store(&b->streams[mb->index].unbound, true);
            atomic_store_explicit(&s->mbind, NULL, memory_order_release);
        }
        pthread_mutex_unlock(&g_lock);
    }
    free(mb);
    sim_obj_put(&s->obj);
    sim_model_put(m);
    return rc;
}

SIM_API aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(modelRI);
    aclError rc;
    struct sim_model *m;
    sim_stream *s;
    sim_built *b = lookup_with_stream(modelRI, stream, __func__, &m, &s, &rc);
    if (!b)
        return rc;
    if (!(rc = sim_capture_stream_busy(s, __func__))) { /* ApiErrorDecorator::ModelEndGraph */
        sim_context *c = sim_current_context(__func__);
        if (!c)
            rc = ACL_ERROR_RT_CONTEXT_NULL;
        else if (s->ctx != c)
            rc = sim_fail(ACL_ERROR_RT_STREAM_CONTEXT, "stream %u does not belong to the current context", s->id);
        if (c)
            sim_obj_put(&c->obj);
    }
    if (!rc) { /* Context::ModelAddEndGraph */
        sim_task *t = sim_task_new(&k_end_graph);
        pthread_mutex_lock(&g_lock);
        struct sim_mbind *mb = atomic_load_explicit(&s->mbind, memory_order_relaxed);
        if (b->end_graphs >= 1)
            rc = sim_fail(ACL_ERROR_RT_INTERNAL_ERROR, "the model has its end task already: a model has only one");
        else if (!mb || mb->b != b)
            rc = sim_fail(ACL_ERROR_RT_INTERNAL_ERROR, "stream %u must be bound to the model", s->id);
        else if (!t)
            rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        else if (!(rc = add_locked(s, mb, t, __func__, NULL)))
            b->end_graphs++, t = NULL;
        pthread_mutex_unlock(&g_lock);
        if (t)
            sim_task_free(t);
    }
    sim_obj_put(&s->obj);
    sim_model_put(m);
    return rc;
}

SIM_API aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(modelRI);
    if (reserve) /* aclmdlRIBuildEndImpl */
        return sim_fail(ACL_ERROR_INVALID_PARAM, "reserve is a reserved parameter and must be NULL");
    aclError rc;
    struct sim_model *m;
    sim_built *b = lookup(modelRI, __func__, &m, &rc);
    if (!b)
        return rc;
    pthread_mutex_lock(&g_lock);
    b->ready = true; /* Model::LoadComplete: the streams' queues are the model's now */
    pthread_mutex_unlock(&g_lock);
    sim_model_set_ready(m);
    sim_model_put(m);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ the JSON dump -------- */

/* The task types the dump names (the real runtime's TaskInfo type names where the simulator
 * has the kind); a kind not listed is "TASK". */
typedef struct json_out {
    FILE *f;
    bool first;
    uint32_t model_id;
    uint64_t ts;
} json_out;

static const char *type_name(const sim_task *t)
{
    static const struct {
        const sim_task_ops *ops;
        const char *name;
    } k_names[] = {
        {&sim_task_kernel, "KERNEL_AICORE"}, {&sim_task_memcpy, "MEMCPY"},
        {&sim_task_memset, "MEMSET"},        {&sim_task_event_record, "EVENT_RECORD"},
        {&sim_task_event_reset, "EVENT_RESET"}, {&sim_task_event_wait, "EVENT_WAIT"},
        {&sim_task_callback, "HOST_FUNC_CALLBACK"}, {&k_end_graph, "MODEL_END_GRAPH"},
        {&sim_task_label_set, "LABEL_SET"}, {&sim_task_label_switch, "STREAM_LABEL_SWITCH_BY_INDEX"},
        {&sim_task_stream_switch, "STREAM_SWITCH"}, {&sim_task_stream_active, "STREAM_ACTIVE"},
        {&sim_task_cond, "CAPTURE_CONDITION"},
    };
    for (size_t i = 0; i < sizeof k_names / sizeof k_names[0]; i++)
        if (k_names[i].ops == t->ops)
            return k_names[i].name;
    return "TASK";
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* One task as a trace event of the real dump's shape (Stream::TraceEventToJson): name, pid,
 * tid "stream<id>", ts, dur, ph "X", and args with the model, stream and task ids and type. */
static void json_task(void *arg, uint32_t stream_id, const sim_task *t)
{
    json_out *o = arg;
    const char *type = type_name(t);
    char name[64];
    if (t->ops == &sim_task_kernel && t->u.kernel.fn && t->u.kernel.fn->desc)
        snprintf(name, sizeof name, "%s", t->u.kernel.fn->desc->name);
    else
        snprintf(name, sizeof name, "%s", type);
    fprintf(o->f, "%s{\"name\":", o->first ? "" : ",\n");
    json_string(o->f, name);
    fprintf(o->f, ",\"pid\":\"%d aclGraph\",\"tid\":\"stream%u\",\"ts\":%llu,\"dur\":1,\"ph\":\"X\",", (int)getpid(),
            stream_id, (unsigned long long)o->ts++);
    fprintf(o->f, "\"args\":{\"Model Id\":%u,\"Stream Id\":%u,\"Task Id\":%u,\"Task Type\":\"%s\"", o->model_id,
            stream_id, t->task_id & 0xFFFFu, type);
    uint32_t active = sim_stream_control_target(t);
    if (active != UINT32_MAX) /* the real dump's, for STREAM_ACTIVE tasks */
        fprintf(o->f, ",\"Active Stream Id\":%u", active);
    if (t->ops == &sim_task_kernel)
        fprintf(o->f, ",\"Numblocks\":%u", t->u.kernel.num_blocks);
    fputs("}}", o->f);
    o->first = false;
}

/* Visits a built model's tasks, stream by stream in bind order (what the dump lists). */
static void visit_built(sim_built *b, void (*fn)(void *, uint32_t, const sim_task *), void *arg)
{
    pthread_mutex_lock(&g_lock);
    for (uint32_t i = 0; i < b->n; i++) {
        const mstream *ms = &b->streams[i];
        if (atomic_load(&ms->unbound))
            continue;
        for (size_t k = 0; k < ms->n; k++)
            fn(arg, ms->stream->id, ms->tasks[k]);
    }
    pthread_mutex_unlock(&g_lock);
}

/* Model::ModelDebugJsonPrint: a JSON array of trace events (Chrome's trace format), one per
 * task of the model's streams, written to path. The real runtime fills ts and dur with fixed
 * per-type durations; the simulator numbers the tasks instead (ts 0, 1, ..., dur 1), and names
 * the task types after the real ones where it has them (simulator choice). flags is not read. */
SIM_API aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags)
{
    (void)flags;
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(modelRI);
    SIM_CHECK_NOT_NULL(path);
    aclError rc;
    struct sim_model *m = sim_model_get(modelRI, __func__, &rc);
    if (!m)
        return rc;
    if ((rc = sim_model_in_current_context(m, __func__))) {
        sim_model_put(m);
        return rc;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        int err = errno;
        sim_model_put(m);
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "cannot open %s for the JSON dump: %s", path, strerror(err));
    }
    json_out o = {.f = f, .first = true, .model_id = sim_model_id(m)};
    fputs("[\n", f);
    sim_built *b = sim_model_built(m);
    if (b)
        visit_built(b, json_task, &o);
    else
        sim_capture_model_visit(m, json_task, &o);
    fputs("\n]", f);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "writing the JSON dump to %s failed", path);
    sim_model_put(m);
    return rc;
}
