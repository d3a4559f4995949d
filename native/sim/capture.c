/*
 * aiocann simulator: stream capture (ACL Graph).
 *
 * aclmdlRICaptureBegin puts a stream in capture: the tasks then submitted to it -- kernels
 * with their args as copied at launch, async copies, memsets, host callbacks, event records
 * and waits -- are recorded in a model (an aclmdlRI) instead of being run.
 * aclmdlRICaptureEnd closes the model; aclmdlRIExecuteAsync replays it on any stream, as
 * often as wanted; aclmdlRIDestroy frees it. Everything follows the real runtime (hicann/
 * runtime: src/acl/aclrt_impl/model_ri.cpp; src/runtime/feature/aclgraph/context_aclgraph.cc,
 * capture_model.cc, capture_model_utils.cc, event_capture.cc, v100/api_impl_aclgraph.cc,
 * v100/api_impl_capture_event.cc, v100/capture_adapt_v100.cc; src/runtime/api/impl/
 * api_error.cc and api_impl.cc; docs/zh/dev_guide/04-01..04-03, docs/zh/api_ref/15_*); each
 * rule below names where, and docs/fidelity.md lists them.
 *
 *  - Across streams (04-02): a stream that waits on an event recorded in a capture joins that
 *    capture (GetCaptureStream). Such events come from aclrtCreateEventExWithFlag; recording
 *    another kind on a capturing stream is 207000, except ACL_EVENT_EXTERNAL events, whose
 *    records, resets and waits are captured as real operations on the event, done at each
 *    replay (how a graph synchronises with the outside, 04-03). Every joined stream must end
 *    with a record that a captured wait consumes, and one such wait must be on the origin
 *    stream, or aclmdlRICaptureEnd fails with 107025 (CheckCaptureModelValidity).
 *  - Capture modes (Context::IsCaptureModeSupport): while a context has a capture, the modes
 *    decide which threads may make synchronous copies (aclrtMemcpy, aclrtMemcpy2d) and memsets
 *    (107030), and an async copy of pageable memory, which becomes one, fails with 107041
 *    (ApiErrorDecorator::MemcpyAsync, MemCopy2DAsync); the stream in capture cannot be
 *    synchronized, queried, destroyed (even forcibly) or tagged (107027), nor can an event with
 *    a captured record be synchronized, queried or timed (107028).
 *  - Replay: one task on the executing stream runs every captured task, in the order they
 *    were captured across all the model's streams -- an order in which each captured record
 *    precedes the waits that name it, so those waits are already satisfied and the replay
 *    keeps none of them (simulator choice: the real runtime runs the capture streams
 *    concurrently on their own queues). A replay is one submission whatever the model holds.
 *  - Task groups (aclmdlRICaptureTaskGrpBegin/End) mark captured kernels that a later update
 *    (aclmdlRICaptureTaskUpdateBegin/End, on a stream that is not capturing) replaces one by
 *    one: each kernel launched on the updating stream becomes an update task there, which
 *    swaps the captured kernel -- function, blocks and args -- when that stream reaches it
 *    (the update is asynchronous, api_ref 15).
 *  - Failures: a replay is a task of its stream. Its first failed captured task fails it: the
 *    executing stream's error slot gets the code, and the exception-info callbacks a report
 *    naming the model's own stream and the failed captured task (model_execute_task.cc
 *    ReportErrorInfoForModelExecuteTask), at the moment of the failure; the rest of the
 *    captured tasks run (continue on failure) or are discarded (stop on failure).
 *  - The model's own streams (Context::StreamAddToCaptureModelProc creates one per captured
 *    stream): made when its capture ends, handed out by aclmdlRIGetStreams, destroyed with the
 *    model. They are ids and handles only (stream.c sim_stream_create_bound): the replay runs
 *    on the executing stream, as above.
 *
 *  - Issue 23: a model built by stream binding is this model object with model_build.c's
 *    program (`built`); a condition task's sub-models (cond.c) are models of their parent,
 *    filled by aclmdlRICaptureToModelRIBegin, ended before the parent's capture can end
 *    (107045), destroyed with the parent only, and replayed inside the condition task.
 *
 * State. The capture lock guards every capture-time structure: models being captured, the
 * `cap` state of streams and events, task groups. A replay takes none of it: a model's replay
 * list is fixed when its capture ends, except the kernels of its task groups, which updates
 * swap under the model's run lock, each held by reference by the replays running it.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

typedef struct sim_model sim_model;

/* rtStreamCaptureMode: GLOBAL < THREAD_LOCAL < RELAXED, and MAX for none. */
enum { MODE_GLOBAL, MODE_THREAD_LOCAL, MODE_RELAXED, MODE_NONE };
/* RtCaptureModelStatus as used here: CAPTURE_ACTIVE, CAPTURE_INVALIDATED, READY; and, issue 23,
 * a model built by stream binding before aclmdlRIBuildEnd (model_build.c). */
enum { M_CAPTURING, M_INVALIDATED, M_READY, M_BUILDING, M_EMPTY };
/* (M_EMPTY: a condition task's sub-model before aclmdlRICaptureToModelRIBegin captures into it,
 * RtCaptureModelStatus::NONE; cond.c.) */
/* StreamTaskGroupStatus. */
enum { GRP_NONE, GRP_SAMPLE, GRP_UPDATE };

static const char *const k_mode_names[] = {"GLOBAL", "THREAD_LOCAL", "RELAXED", "none"};

static sim_model *model_lookup(aclmdlRI modelRI, const char *func, aclError *rc);
static void capture_exit(sim_model *m);
static aclError model_in_current_context(sim_model *m, const char *func);

/* A captured kernel of a task group, which an update may replace while replays run it: the
 * slot and each replay running it hold a reference. */
struct sim_capkernel {
    atomic_int refs;
    sim_task *task;
};

struct sim_capslot {
    struct sim_capkernel *k; /* model->run_lock */
};

/* One captured record of an event: the real runtime's shadow event (Event::captureEvent_),
 * which the capture's own waits name. */
typedef struct shadow {
    struct shadow *next;    /* model->shadows */
    bool waited;            /* a captured wait named it (Event::IsCaptureStreamWaited) */
    bool waited_by_origin;  /* one on the origin stream (Event::IsRecordOrigCaptureStream) */
} shadow;

enum { ENTRY_RUN, ENTRY_RECORD, ENTRY_WAIT };

/* A captured task, in capture order across the model's streams. Records and waits of the
 * capture's own events only serve the checks at aclmdlRICaptureEnd: a replay, which runs the
 * entries in this order, needs neither. */
typedef struct entry {
    uint8_t kind;
    uint32_t stream;          /* the index of the capture stream it was captured on */
    sim_task *task;           /* ENTRY_RUN, outside a task group */
    struct sim_capslot *slot; /* ENTRY_RUN, a kernel of a task group */
    shadow *rec;              /* ENTRY_RECORD */
} entry;

/* A stream of the capture (the real runtime's capture stream). */
typedef struct capstream {
    sim_stream *stream;        /* +1 while it captures */
    sim_stream *bound;         /* the model's own stream for it (from aclmdlRICaptureEnd; +1) */
    bool origin;               /* the stream aclmdlRICaptureBegin named */
    size_t last;               /* its newest entry, SIZE_MAX for none */
    uint16_t last_task, flip;  /* ids of its captured tasks, counted as stream.c does */
    struct sim_taskgrp *grp;   /* open task group (+1) */
} capstream;

typedef struct run_item {
    sim_task *task;
    struct sim_capslot *slot;
    uint32_t stream; /* capture stream index: its bound stream is what a failure report names */
} run_item;

/* issue 23: an ACL_EVENT_RECORD_EXTERNAL record or ACL_EVENT_WAIT_EXTERNAL wait captured into a
 * model (CaptureModel::externalRecordEventItems_ / externalWaitEventItems_). */
typedef struct ext_item {
    sim_event *e; /* +1 */
    bool record;
} ext_item;

struct sim_model {
    sim_obj obj;
    sim_context *ctx;          /* +1: the origin stream's */
    struct sim_model *next;    /* g_models */
    bool open;                 /* its handle is open */
    int status;                /* M_* */
    int mode;                  /* its capture mode while it counts for its context, else MODE_NONE */
    /* capture time */
    capstream *streams;
    uint32_t nstreams, cap_streams;
    entry *entries;
    size_t nentries, cap_entries;
    shadow *shadows;
    sim_event **events;        /* events its records linked to it (+1 each) */
    uint32_t nevents, cap_events;
    struct sim_taskgrp **groups; /* the task groups it handed out (+1 each) */
    uint32_t ngroups, cap_groups;
    uint32_t open_groups;
    aclError grp_err;          /* CaptureModel::taskGroupErrCode_ */
    /* replay: fixed once ready */
    run_item *run;
    size_t nrun;
    pthread_mutex_t run_lock;  /* task-group slots and `running` */
    pthread_cond_t run_cv;
    int running;               /* replays submitted and not finished (CaptureModel::refCount_) */
    /* issue 23: its external records and waits, in capture order; each captured one's task
     * names its place (u.event.gen = index + 1), each replay the generations its
     * aclmdlRIExecuteAsync took for them (u.model.ext_gen). */
    ext_item *ext;
    uint32_t n_ext, cap_ext;
    sim_built *built;          /* issue 23: built by stream binding, its program (model_build.c) */
    uint32_t id;               /* aclmdlRIDebugJsonPrint's model id: models made so far */
    /* issue 23, condition tasks (cond.c): a sub-model belongs to the model whose condition task
     * made it (CaptureModel::IsSubCaptureModel), which holds it (+1) and its condition handles
     * (+1), and destroys them with itself. Under the capture lock while it captures. */
    bool sub;
    uint32_t depth;            /* a sub-model's: its parent's + 1 (a top-level model: 0) */
    struct sim_model **subs;
    uint32_t nsubs, cap_subs;
    struct sim_cond **conds;
    uint32_t nconds, cap_conds;
};

/* Simulator limit: sub-models nested at most this deep. A replay runs a condition task's
 * sub-model by recursion on its stream worker, about 1.8 KB of the worker's stack a level, and
 * a kernel at the innermost level runs its blocks on that stack too (SIM_KERNEL_STACK_BYTES):
 * with 256 KB, about 140 levels overflowed it; 32 leave a kernel nearly all of its 1 MB. The
 * real runtime states no limit
 * (its condition tasks are the device's); aclmdlRIAddCondTask refuses a deeper one here, with
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT, instead of a replay crashing the process. */
#define SIM_COND_MAX_DEPTH 32u

static __thread int t_nested; /* replays of sub-models inside a condition task's replay */
/* The replay task whose current item may park its stream (sim_replay_can_park), while that
 * item's replay runs on this worker. */
static __thread const sim_task *t_parkable;

struct sim_taskgrp {
    sim_obj obj;
    sim_model *model;          /* not a reference: its users hold one on the model */
    struct sim_capslot **slots;
    uint32_t n, cap;
    bool updating;             /* TaskGroup::isUpdate */
    uint32_t index;            /* TaskGroup::updateTaskIndex */
};

/* A stream's capture state (sim_stream.cap). */
struct sim_capstate {
    sim_model *model;          /* the model it captures into, or NULL */
    uint32_t index;            /* its capstream there */
    int mode;                  /* Stream::streamCaptureMode_: MODE_NONE once out of the count */
    uint32_t begin_tid;        /* Stream::beginCaptureThreadId_ */
    int grp;                   /* GRP_* (Stream::taskGroupStatus_) */
    struct sim_taskgrp *upd;   /* GRP_UPDATE: the group it updates (+1) */
    sim_model *upd_model;      /* and its model (+1) */
};

/* An event's link to the capture that recorded it last. */
struct sim_capevent {
    sim_model *model;
    shadow *last;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* the capture lock */
static sim_model *g_models;        /* every model with an open handle */
static atomic_int g_active;        /* models capturing: the hooks' fast path */

/* InnerThreadLocalContainer: how many captures this thread began per mode, and the mode
 * aclmdlRICaptureThreadExchangeMode gave it (GLOBAL until then). */
static __thread uint32_t t_mode_refs[MODE_NONE];
static __thread int t_exchange = MODE_GLOBAL;

static uint32_t current_tid(void)
{
    static __thread uint32_t tid;
    if (!tid)
        tid = (uint32_t)gettid();
    return tid;
}

static bool grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    uint32_t n = *cap ? *cap * 2 : 8;
    while (n < need)
        n *= 2;
    void *p = realloc(*arr, (size_t)n * elem);
    if (!p)
        return false;
    *arr = p;
    *cap = n;
    return true;
}

/* ------------------------------------------------------------------ captured kernels ----- */

static void kernel_put(struct sim_capkernel *k)
{
    if (k && atomic_fetch_sub_explicit(&k->refs, 1, memory_order_acq_rel) == 1) {
        sim_task_free(k->task);
        free(k);
    }
}

static struct sim_capkernel *kernel_new(sim_task *t)
{
    struct sim_capkernel *k = malloc(sizeof *k);
    if (k) {
        atomic_init(&k->refs, 1);
        k->task = t;
    }
    return k;
}

/* ------------------------------------------------------------------ models --------------- */

static void group_destroy(sim_obj *o)
{
    struct sim_taskgrp *g = (struct sim_taskgrp *)o;
    free(g->slots);
    free(g);
}

static void model_destroy(sim_obj *o)
{
    sim_model *m = (sim_model *)o;
    for (size_t i = 0; i < m->nentries; i++) {
        entry *en = &m->entries[i];
        if (en->slot) {
            kernel_put(en->slot->k);
            free(en->slot);
        } else if (en->task) {
            sim_task_free(en->task);
        }
    }
    while (m->shadows) {
        shadow *sh = m->shadows;
        m->shadows = sh->next;
        free(sh);
    }
    for (uint32_t i = 0; i < m->ngroups; i++)
        sim_obj_put(&m->groups[i]->obj);
    for (uint32_t i = 0; i < m->nstreams; i++) {
        if (m->streams[i].bound) {
            sim_stream_release_bound(m->streams[i].bound);
            sim_obj_put(&m->streams[i].bound->obj);
        }
    }
    for (uint32_t i = 0; i < m->n_ext; i++)
        sim_obj_put(&m->ext[i].e->obj);
    free(m->ext);
    free(m->entries);
    free(m->streams);
    free(m->events);
    free(m->groups);
    free(m->run);
    if (m->built)
        sim_build_free(m->built);
    for (uint32_t i = 0; i < m->nconds; i++)
        sim_cond_release(m->conds[i]);
    for (uint32_t i = 0; i < m->nsubs; i++)
        sim_obj_put(&m->subs[i]->obj);
    free(m->conds);
    free(m->subs);
    pthread_mutex_destroy(&m->run_lock);
    pthread_cond_destroy(&m->run_cv);
    sim_obj_put(&m->ctx->obj);
    free(m);
}

static sim_model *model_new(sim_context *ctx, const char *func, aclError *rc)
{
    sim_model *m = calloc(1, sizeof *m);
    if (!m) {
        *rc = sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the model");
        return NULL;
    }
    sim_obj_init(&m->obj, SIM_KIND_MODEL, model_destroy);
    static uint32_t next_id;
    m->id = next_id++; /* under the capture lock */
    sim_obj_get(&ctx->obj);
    m->ctx = ctx;
    m->mode = MODE_NONE;
    pthread_mutex_init(&m->run_lock, NULL);
    sim_cond_init_monotonic(&m->run_cv);
    if (!sim_handle_open(&m->obj)) {
        model_destroy(&m->obj);
        *rc = sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "the handle table is full");
        return NULL;
    }
    m->open = true;
    m->next = g_models;
    g_models = m;
    return m;
}

/* Closes m's handle and its task groups' (capture lock held): m can no longer be named. The
 * table's reference goes onto *dropped, for the caller to put once the lock is released. */
static void model_close(sim_model *m, sim_model **dropped)
{
    if (!m->open)
        return;
    m->open = false;
    for (sim_model **pp = &g_models; *pp; pp = &(*pp)->next) {
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    }
    for (uint32_t i = 0; i < m->ngroups; i++)
        sim_obj_put(sim_handle_close(m->groups[i]->obj.handle, SIM_KIND_TASKGRP));
    sim_handle_close(m->obj.handle, SIM_KIND_MODEL); /* its reference becomes the caller's */
    m->next = *dropped;
    *dropped = m;
    for (uint32_t i = 0; i < m->nsubs; i++) { /* its sub-models go with it, captures and all */
        sim_model *sub = m->subs[i];
        if (sub->status == M_CAPTURING || sub->status == M_INVALIDATED) {
            sub->mode = MODE_NONE; /* the begin thread's count stays, as after a wrong-thread end */
            capture_exit(sub);
            sub->status = M_EMPTY;
        }
        model_close(sub, dropped);
    }
    /* issue 23: its streams are free and its condition handles dead at once, not when the last
     * reference (a replay task a worker has yet to release) goes. */
    for (uint32_t i = 0; i < m->nconds; i++)
        sim_cond_close(m->conds[i]);
    if (m->built)
        sim_build_unbind_all(m->built);
}

static void put_dropped(sim_model *m)
{
    while (m) {
        sim_model *next = m->next;
        sim_obj_put(&m->obj);
        m = next;
    }
}

/* A failure inside the capture, which the capture cannot recover from (CaptureModel::
 * TerminateCapture): aclmdlRICaptureEnd will report it with 507903. */
static void invalidate(sim_model *m)
{
    if (m->status == M_CAPTURING)
        m->status = M_INVALIDATED;
}

/* ------------------------------------------------------------------ stream states -------- */

static struct sim_capstate *state_of(sim_stream *s)
{
    return atomic_load_explicit(&s->cap, memory_order_relaxed);
}

static struct sim_capstate *state_make(sim_stream *s)
{
    struct sim_capstate *st = state_of(s);
    if (!st && (st = calloc(1, sizeof *st))) {
        st->mode = MODE_NONE;
        atomic_store_explicit(&s->cap, st, memory_order_release);
    }
    return st;
}

/* Frees s's state once nothing is left in it. */
static void state_tidy(sim_stream *s)
{
    struct sim_capstate *st = state_of(s);
    if (st && !st->model && st->grp == GRP_NONE) {
        atomic_store_explicit(&s->cap, NULL, memory_order_release);
        free(st);
    }
}

/* Context::CaptureModeEnter / CaptureModeExit. The context's count is the model's mode; the
 * thread's is counted on the thread that ends the capture, as the real runtime does. */
static void mode_enter(sim_model *m, struct sim_capstate *st, int mode)
{
    st->mode = mode;
    st->begin_tid = current_tid();
    m->mode = mode;
    t_mode_refs[mode]++;
}

static void mode_exit(sim_model *m, struct sim_capstate *st)
{
    int mode = st->mode;
    st->mode = MODE_NONE;
    m->mode = MODE_NONE;
    if (mode != MODE_NONE && t_mode_refs[mode] > 0)
        t_mode_refs[mode]--;
}

static int thread_mode(void)
{
    for (int mode = MODE_GLOBAL; mode < MODE_NONE; mode++)
        if (t_mode_refs[mode])
            return mode;
    return MODE_NONE;
}

/* The strictest mode of the captures of context c (capture lock held). */
static int context_mode(const sim_context *c)
{
    int mode = MODE_NONE;
    for (sim_model *m = g_models; m; m = m->next)
        if (m->ctx == c && m->mode < mode)
            mode = m->mode;
    return mode;
}

/* Context::IsCaptureModeSupport: may the calling thread make an unsafe call (a synchronous
 * copy or memset) in context c? */
static bool mode_allows(const sim_context *c)
{
    int ctx_mode = context_mode(c), own = thread_mode();
    if (ctx_mode == MODE_NONE || t_exchange == MODE_RELAXED)
        return true;
    if (t_exchange == MODE_GLOBAL && (ctx_mode == MODE_GLOBAL || own == MODE_THREAD_LOCAL))
        return false;
    if (t_exchange == MODE_THREAD_LOCAL && (own == MODE_GLOBAL || own == MODE_THREAD_LOCAL))
        return false;
    return true;
}

/* Every stream of m leaves the capture and its events are unlinked (CaptureModel::
 * ExitCaptureNotify; capture lock held). */
static void capture_exit(sim_model *m)
{
    if (m->status != M_READY)
        atomic_fetch_sub(&g_active, 1);
    for (uint32_t i = 0; i < m->nstreams; i++) {
        capstream *cs = &m->streams[i];
        if (cs->grp) {
            sim_obj_put(&cs->grp->obj);
            cs->grp = NULL;
        }
        if (!cs->stream)
            continue;
        struct sim_capstate *st = state_of(cs->stream);
        if (st && st->model == m) {
            st->model = NULL;
            st->mode = MODE_NONE;
            /* Simulator choice: the stream's task-group state ends with the capture (the real
             * Stream::taskGroupStatus_ stays SAMPLE when a capture ends with a group open). */
            if (st->grp == GRP_SAMPLE)
                st->grp = GRP_NONE;
            state_tidy(cs->stream);
        }
        sim_obj_put(&cs->stream->obj);
        cs->stream = NULL;
    }
    m->open_groups = 0;
    for (uint32_t i = 0; i < m->nevents; i++) {
        sim_event *e = m->events[i];
        struct sim_capevent *ce = atomic_load_explicit(&e->cap, memory_order_relaxed);
        if (ce && ce->model == m) {
            atomic_store_explicit(&e->cap, NULL, memory_order_release);
            free(ce);
        }
        sim_obj_put(&e->obj);
    }
    m->nevents = 0;
}

/* ------------------------------------------------------------------ capturing tasks ------ */

static aclError in_current_context(sim_stream *s, const char *func)
{
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    bool same = c == s->ctx;
    sim_obj_put(&c->obj);
    return same ? ACL_SUCCESS
                : sim_fail_(func, ACL_ERROR_RT_STREAM_CONTEXT, "the stream does not belong to the current context");
}

/* The id of a task captured on cs: a 16-bit counter and its wrap count, like stream.c's. */
static uint32_t next_task_id(capstream *cs)
{
    uint16_t id = cs->last_task != UINT16_MAX ? (uint16_t)((cs->last_task + 1u) % 0xFFFFu) : 0;
    if (id == 0 && cs->last_task != UINT16_MAX)
        cs->flip++;
    cs->last_task = id;
    return ((uint32_t)cs->flip << 16) | id;
}

static bool add_stream(sim_model *m, sim_stream *s, bool origin, uint32_t *index)
{
    if (!grow((void **)&m->streams, &m->cap_streams, m->nstreams + 1, sizeof *m->streams))
        return false;
    sim_obj_get(&s->obj);
    m->streams[m->nstreams] = (capstream){.stream = s, .origin = origin, .last = SIZE_MAX, .last_task = UINT16_MAX};
    *index = m->nstreams++;
    return true;
}

/* A task-group error: it fails the group and the capture (Stream::SetTaskGroupErrCode). */
static aclError group_error(sim_model *m, aclError code, const char *func, const char *what)
{
    m->grp_err = code;
    invalidate(m);
    return sim_fail_(func, code, "%s; the task group and the capture are now invalid", what);
}

/* Whether a task may be captured on cs now (Stream::IsTaskGroupBreak, PackingTaskGroup). */
static aclError admit(sim_model *m, capstream *cs, bool kernel, const char *func)
{
    if (!cs->grp && m->open_groups)
        return group_error(m, ACL_ERROR_STREAM_TASK_GROUP_INTR, func,
                           "a task group is open on another stream of this capture, so this stream cannot "
                           "capture tasks until it ends");
    if (cs->grp && !kernel)
        return group_error(m, ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, func,
                           "only kernel launches can be captured in a task group");
    return ACL_SUCCESS;
}

static entry *add_entry(sim_model *m, capstream *cs, uint8_t kind)
{
    if (m->nentries == m->cap_entries) {
        size_t n = m->cap_entries ? m->cap_entries * 2 : 64;
        entry *p = realloc(m->entries, n * sizeof *p);
        if (!p)
            return NULL;
        m->entries = p;
        m->cap_entries = n;
    }
    entry *en = &m->entries[m->nentries];
    memset(en, 0, sizeof *en);
    en->kind = kind;
    en->stream = (uint32_t)(cs - m->streams);
    cs->last = m->nentries++;
    return en;
}

/* Captures task t on st's stream. Takes t on success; on failure the caller still owns it. */
static aclError capture_task(struct sim_capstate *st, sim_task *t, const char *func, uint32_t *task_id)
{
    sim_model *m = st->model;
    capstream *cs = &m->streams[st->index];
    aclError rc = admit(m, cs, t->ops == &sim_task_kernel, func);
    if (rc)
        return rc;
    struct sim_capslot *slot = NULL;
    if (cs->grp) {
        struct sim_taskgrp *g = cs->grp;
        slot = calloc(1, sizeof *slot);
        if (!slot || !(slot->k = kernel_new(t)) ||
            !grow((void **)&g->slots, &g->cap, g->n + 1, sizeof *g->slots)) {
            if (slot)
                free(slot->k);
            free(slot);
            return sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the capture");
        }
    }
    entry *en = add_entry(m, cs, ENTRY_RUN);
    if (!en) {
        if (slot) {
            free(slot->k);
            free(slot);
        }
        return sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the capture");
    }
    if (slot) {
        en->slot = slot;
        cs->grp->slots[cs->grp->n++] = slot;
    } else {
        en->task = t;
    }
    t->task_id = next_task_id(cs);
    *task_id = t->task_id;
    return ACL_SUCCESS;
}

/* A task submitted to an updating stream: a kernel becomes the update of the group's next
 * captured kernel; anything else is refused (Stream::AllocTask with UpdateTaskFlag). Returns
 * true with *rc when refused (the caller frees *tp); false with *tp replaced to enqueue it. */
static bool update_route(struct sim_capstate *st, sim_task **tp, const char *func, aclError *rc)
{
    sim_task *t = *tp;
    struct sim_taskgrp *g = st->upd;
    if (t->ops != &sim_task_kernel) {
        *rc = sim_fail_(func, ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT,
                        "the stream is updating a task group: only kernel launches are allowed until "
                        "aclmdlRICaptureTaskUpdateEnd");
        return true;
    }
    if (g->index >= g->n) {
        *rc = sim_fail_(func, ACL_ERROR_RT_INTERNAL_ERROR, "the task group holds %u kernels and all are updated already",
                        g->n);
        return true;
    }
    sim_task *u = sim_task_new(&sim_task_update);
    struct sim_capkernel *k = u ? kernel_new(t) : NULL;
    if (!k) {
        free(u);
        *rc = sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        return true;
    }
    sim_obj_get(&st->upd_model->obj);
    u->u.update.model = st->upd_model;
    u->u.update.slot = g->slots[g->index++];
    u->u.update.kernel = k;
    *tp = u;
    return false;
}

bool sim_capture_route(sim_stream *s, sim_task **tp, const char *func, aclError *rc, uint32_t *task_id)
{
    sim_task *refused = NULL;
    bool taken = false;
    pthread_mutex_lock(&g_lock);
    struct sim_capstate *st = state_of(s);
    if (st && st->grp == GRP_UPDATE) {
        taken = update_route(st, tp, func, rc);
        if (taken)
            refused = *tp;
    } else if (st && st->model) {
        taken = true;
        if ((*rc = capture_task(st, *tp, func, task_id)))
            refused = *tp;
    }
    pthread_mutex_unlock(&g_lock);
    if (refused)
        sim_task_free(refused);
    return taken;
}

/* ------------------------------------------------------------------ events --------------- */

/* A record of e in st's capture: a new shadow record that later captured waits on e name. */
static aclError capture_record(struct sim_capstate *st, sim_event *e, const char *func)
{
    sim_model *m = st->model;
    capstream *cs = &m->streams[st->index];
    aclError rc = admit(m, cs, false, func);
    if (rc)
        return rc;
    struct sim_capevent *ce = atomic_load_explicit(&e->cap, memory_order_relaxed);
    bool listed = false;
    for (uint32_t i = 0; i < m->nevents && !listed; i++)
        listed = m->events[i] == e;
    shadow *sh = calloc(1, sizeof *sh);
    entry *en = NULL;
    if (!sh || (!ce && !(ce = calloc(1, sizeof *ce))) ||
        (!listed && !grow((void **)&m->events, &m->cap_events, m->nevents + 1, sizeof *m->events)) ||
        !(en = add_entry(m, cs, ENTRY_RECORD))) {
        if (ce && ce != atomic_load_explicit(&e->cap, memory_order_relaxed))
            free(ce);
        free(sh);
        return sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the capture");
    }
    sh->next = m->shadows;
    m->shadows = sh;
    en->rec = sh;
    next_task_id(cs);
    if (!listed) {
        sim_obj_get(&e->obj);
        m->events[m->nevents++] = e;
    }
    /* Software-mode events (GetCaptureEvent with isNewEvt): each record makes a new shadow in
     * the recording stream's capture, which the event now names. */
    ce->model = m;
    ce->last = sh;
    atomic_store_explicit(&e->cap, ce, memory_order_release);
    return ACL_SUCCESS;
}

/* A wait on a captured record of e, by stream s (ApiImpl::CaptureEventWait): s joins the
 * capture if it is not in it yet. */
static aclError capture_wait(sim_stream *s, struct sim_capevent *ce, const char *func)
{
    sim_model *m = ce->model;
    struct sim_capstate *st = state_of(s);
    if (st && st->model && st->model != m) {
        invalidate(m);
        invalidate(st->model);
        return sim_fail_(func, ACL_ERROR_STREAM_CAPTURE_CONFLICT,
                         "the event was recorded in another capture than the one this stream is in; both "
                         "captures are now invalid");
    }
    if (!st || !st->model) { /* GetCaptureStream: the stream joins the capture */
        uint32_t index;
        if (!(st = state_make(s)) || !add_stream(m, s, false, &index)) {
            state_tidy(s);
            invalidate(m);
            return sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the capture");
        }
        st->model = m;
        st->index = index;
    }
    capstream *cs = &m->streams[st->index];
    aclError rc = admit(m, cs, false, func);
    if (rc)
        return rc;
    if (!add_entry(m, cs, ENTRY_WAIT)) {
        invalidate(m);
        return sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the capture");
    }
    next_task_id(cs);
    ce->last->waited = true;
    if (cs->origin)
        ce->last->waited_by_origin = true;
    return ACL_SUCCESS;
}

/* An operation on an ACL_EVENT_EXTERNAL event captured as such: done on the event at each
 * replay (event.c's *_now functions). */
static aclError capture_external(struct sim_capstate *st, sim_event *e, const sim_task_ops *type, const char *func)
{
    sim_task *t = sim_task_new(type);
    if (!t)
        return sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    sim_obj_get(&e->obj);
    t->u.event.event = e;
    uint32_t id;
    aclError rc = capture_task(st, t, func, &id);
    if (rc)
        sim_task_free(t); /* drops the event reference; the capture lock is outer to its lock */
    return rc;
}

/* issue 23: aclrtRecordEventWithFlag(ACL_EVENT_RECORD_EXTERNAL) / aclrtStreamWaitEventWithFlag(
 * ACL_EVENT_WAIT_EXTERNAL) -- ApiImpl::EventRecord / StreamWaitEvent: only on a capturing stream
 * (107029 otherwise), then SubmitExternalEventTaskCommon: CaptureModel::
 * CheckExternalEventConstraints (one external record and one external wait per event and graph,
 * and not both: 107000), a record / wait task of the model (CreateExternalRecordPlaceholder /
 * CreateExternalWaitPlaceholder) that each replay refreshes: the record becomes the event's
 * newest record when the model is executed (PrepareExternalRecordsForReplay,
 * CommitExternalEventRecords), the wait waits for the record the event had then
 * (PrepareExternalWaitsForReplay: none recorded, nothing to wait for). */
aclError sim_capture_external_flag_op(sim_stream *s, sim_event *e, bool record, const char *func)
{
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_lock);
    struct sim_capstate *st = state_of(s);
    sim_model *m = st ? st->model : NULL;
    uint32_t same = UINT32_MAX, other = UINT32_MAX;
    for (uint32_t i = 0; m && i < m->n_ext; i++)
        if (m->ext[i].e == e)
            *(m->ext[i].record == record ? &same : &other) = i;
    if (!m) {
        rc = sim_fail_(func, ACL_ERROR_RT_STREAM_NOT_CAPTURED, "ACL_EVENT_%s_EXTERNAL: stream %u is not in the capture "
                       "stage (external records and waits are for captured graphs)", record ? "RECORD" : "WAIT", s->id);
    } else if (same != UINT32_MAX) {
        rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                       "the same event can be used with ACL_EVENT_%s_EXTERNAL only once in the same graph",
                       record ? "RECORD" : "WAIT");
    } else if (other != UINT32_MAX) {
        rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "the same event cannot be used for both "
                       "ACL_EVENT_RECORD_EXTERNAL and ACL_EVENT_WAIT_EXTERNAL in the same graph");
    } else if (!grow((void **)&m->ext, &m->cap_ext, m->n_ext + 1, sizeof *m->ext)) {
        rc = sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the capture");
    } else {
        sim_task *t = sim_task_new(record ? &sim_task_event_record : &sim_task_event_wait);
        if (!t) {
            rc = sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        } else {
            sim_obj_get(&e->obj);
            t->u.event.event = e;
            t->u.event.gen = m->n_ext + 1;
            uint32_t id;
            if ((rc = capture_task(st, t, func, &id))) {
                sim_task_free(t);
            } else {
                sim_obj_get(&e->obj);
                m->ext[m->n_ext++] = (ext_item){e, record};
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

bool sim_capture_event_op(sim_stream *s, sim_event *e, const sim_task_ops *type, const char *func, aclError *rc)
{
    if (atomic_load_explicit(&s->mbind, memory_order_acquire)) { /* issue 23: a stream bound to a model */
        *rc = sim_build_event_op(s, e, type, func);
        return true;
    }
    if (!atomic_load_explicit(&s->cap, memory_order_acquire) && !atomic_load_explicit(&e->cap, memory_order_acquire))
        return false;
    bool taken = true;
    *rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_lock);
    struct sim_capstate *st = state_of(s);
    struct sim_capevent *ce = atomic_load_explicit(&e->cap, memory_order_relaxed);
    bool capturing = st && st->model;
    bool external = e->flags == ACL_EVENT_EXTERNAL;
    /* (An updating stream refuses event tasks when they are submitted: sim_capture_route.) */
    if (capturing && e->flags == ACL_EVENT_IPC) { /* ApiErrorDecorator::EventRecord / StreamWaitEvent */
        *rc = sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        "IPC events are not supported on a capturing stream");
    } else if (type == &sim_task_event_record) { /* ApiImpl::EventRecord */
        if (!capturing)
            taken = false; /* a plain record, even of an event a capture recorded */
        else if (external)
            *rc = capture_external(st, e, type, func);
        else if (!e->ex_mode)
            *rc = sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                            "a capturing stream can record only events made by aclrtCreateEventExWithFlag "
                            "(or ACL_EVENT_EXTERNAL ones)");
        else if (!(e->flags & ACL_EVENT_SYNC))
            ; /* Event::IsEventWithoutWaitTask: nothing to capture, and success */
        else
            *rc = capture_record(st, e, func);
    } else if (type == &sim_task_event_reset) { /* ApiImpl::EventReset (Ex events refused before) */
        if (capturing && external)
            *rc = capture_external(st, e, type, func);
        else if (capturing)
            *rc = sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                            "a capturing stream can reset only ACL_EVENT_EXTERNAL events");
        else
            taken = false;
    } else if (ce) { /* a wait on a captured record: ApiImpl::StreamWaitEvent, CaptureEventWait */
        if (s->is_default)
            *rc = sim_fail_(func, ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT,
                            "the default stream cannot wait on an event recorded in a capture (it cannot "
                            "join a capture)");
        else if (s->flags & ACL_STREAM_DEVICE_USE_ONLY)
            *rc = sim_fail_(func, ACL_ERROR_RT_INTERNAL_ERROR, "a DEVICE_USE_ONLY stream cannot join a capture");
        else
            *rc = capture_wait(s, ce, func);
    } else if (capturing) { /* a capturing stream waits on an event no capture recorded */
        if (external) {
            *rc = capture_external(st, e, type, func);
        } else if (!e->ex_mode) {
            *rc = sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                            "a capturing stream can wait only on events made by aclrtCreateEventExWithFlag "
                            "(or ACL_EVENT_EXTERNAL ones)");
        } else {
            pthread_mutex_lock(&e->lock);
            bool recorded = e->record_gen > 0; /* Event::HasRecord */
            pthread_mutex_unlock(&e->lock);
            if (recorded)
                *rc = sim_fail_(func, ACL_ERROR_RT_CAPTURE_DEPENDENCY,
                                "the event was recorded outside the capture: a capture cannot wait on it");
            /* else: never recorded, nothing to wait for */
        }
    } else {
        taken = false;
    }
    pthread_mutex_unlock(&g_lock);
    return taken;
}

aclError sim_capture_event_busy(sim_event *e, const char *func)
{
    if (!atomic_load_explicit(&e->cap, memory_order_acquire))
        return ACL_SUCCESS;
    pthread_mutex_lock(&g_lock);
    struct sim_capevent *ce = atomic_load_explicit(&e->cap, memory_order_relaxed);
    bool busy = ce && ce->model->status != M_READY;
    pthread_mutex_unlock(&g_lock);
    return busy ? sim_fail_(func, ACL_ERROR_RT_EVENT_CAPTURED,
                            "the event is recorded in a capture that has not ended: it cannot be synchronized, "
                            "queried or timed")
                : ACL_SUCCESS;
}

/* ------------------------------------------------------------------ what capture forbids - */

aclError sim_capture_stream_busy(sim_stream *s, const char *func)
{
    if (!atomic_load_explicit(&s->cap, memory_order_acquire))
        return ACL_SUCCESS;
    pthread_mutex_lock(&g_lock);
    struct sim_capstate *st = state_of(s);
    bool busy = st && st->model;
    pthread_mutex_unlock(&g_lock);
    return busy ? sim_fail_(func, ACL_ERROR_RT_STREAM_CAPTURED,
                            "stream %u is capturing: it cannot be synchronized, queried, destroyed or used to "
                            "execute or update a model until aclmdlRICaptureEnd", s->id)
                : ACL_SUCCESS;
}

aclError sim_capture_context_busy(sim_context *c, const char *func)
{
    if (!atomic_load(&g_active))
        return ACL_SUCCESS;
    uint32_t busy = UINT32_MAX;
    pthread_mutex_lock(&g_lock);
    for (sim_model *m = g_models; m && busy == UINT32_MAX; m = m->next) {
        if (m->status == M_READY)
            continue;
        for (uint32_t i = 0; i < m->nstreams; i++) {
            sim_stream *s = m->streams[i].stream;
            if (s && s->ctx == c) {
                busy = s->id;
                break;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    return busy != UINT32_MAX ? sim_fail_(func, ACL_ERROR_RT_STREAM_CAPTURED,
                                          "stream %u of the context is capturing: the device cannot be "
                                          "synchronized until aclmdlRICaptureEnd", busy)
                              : ACL_SUCCESS;
}

/* The message of ReportCaptureModeError (capture_model_utils.cc). */
static aclError mode_error(aclError code, const char *func, const char *what, int ctx_mode)
{
    return sim_fail_(func, code,
                     "%s is not permitted while a stream of this context is capturing in mode %s and this "
                     "thread's mode is %s (exchanged: %s); only RELAXED allows it (see "
                     "aclmdlRICaptureThreadExchangeMode)",
                     what, k_mode_names[ctx_mode], k_mode_names[thread_mode()], k_mode_names[t_exchange]);
}

aclError sim_capture_check_sync_call(const char *func)
{
    if (!atomic_load(&g_active))
        return ACL_SUCCESS;
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    pthread_mutex_lock(&g_lock);
    bool ok = mode_allows(c);
    int ctx_mode = context_mode(c);
    pthread_mutex_unlock(&g_lock);
    sim_obj_put(&c->obj);
    return ok ? ACL_SUCCESS : mode_error(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, func, "a synchronous copy or memset", ctx_mode);
}

aclError sim_capture_pageable_copy(sim_stream *s, const char *func)
{
    if (!atomic_load(&g_active))
        return ACL_SUCCESS;
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    pthread_mutex_lock(&g_lock);
    struct sim_capstate *st = state_of(s);
    bool capturing = st && st->model;
    bool ok = mode_allows(c);
    int ctx_mode = context_mode(c);
    pthread_mutex_unlock(&g_lock);
    sim_obj_put(&c->obj);
    if (capturing)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                         "a copy that touches pageable host memory cannot be captured: allocate its host side with "
                         "aclrtMallocHost");
    if (ok)
        return ACL_SUCCESS;
    /* The copy becomes a stream synchronize and a synchronous copy; the capture modes refuse
     * the copy once the synchronize is done. */
    pthread_mutex_lock(&s->lock);
    uint64_t target = s->submitted;
    pthread_mutex_unlock(&s->lock);
    sim_stream_wait_seq(s, target, -1);
    aclError rc = sim_stream_take_error(s, func);
    return rc ? rc
              : mode_error(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC, func,
                           "a copy of pageable host memory (which becomes a synchronous copy)", ctx_mode);
}

/* ------------------------------------------------------------------ the capture API ------ */

/* aclmdlRICaptureBegin, and with `into` aclmdlRICaptureToModelRIBegin: the capture goes into
 * that model, which must never have captured (Context::StreamBeginCapture,
 * CheckCaptureModelIsCaptured: 107026). */
static aclError capture_begin(aclrtStream stream, aclmdlRICaptureMode mode, sim_model *into, const char *func)
{
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, func, &rc);
    if (!s)
        return rc;
    if ((unsigned)mode >= MODE_NONE)
        rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                       "mode %d is not a capture mode (0 GLOBAL, 1 THREAD_LOCAL, 2 RELAXED)", (int)mode);
    else if (s->flags & ACL_STREAM_DEVICE_USE_ONLY) /* StreamFlagIsSupportCapture: RT_STREAM_CP_PROCESS_USE */
        rc = sim_fail_(func, ACL_ERROR_RT_INTERNAL_ERROR, "a DEVICE_USE_ONLY stream does not support capture");
    else if (!(rc = in_current_context(s, func)) && s->is_default)
        rc = sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the default stream cannot be captured");
    else if (!rc && into)
        rc = model_in_current_context(into, func);
    if (!rc) {
        pthread_mutex_lock(&g_lock);
        struct sim_capstate *st = state_of(s);
        sim_model *m = NULL;
        uint32_t index;
        if (into && (!into->open || into->status != M_EMPTY)) {
            rc = sim_fail_(func, ACL_ERROR_RT_MODEL_CAPTURED, "the model has been captured already");
        } else if (st && st->model) {
            rc = sim_fail_(func, ACL_ERROR_RT_STREAM_CAPTURED, "stream %u is already capturing", s->id);
        } else if (!(st = state_make(s)) || !(m = into ? into : model_new(s->ctx, func, &rc)) ||
                   !add_stream(m, s, true, &index)) {
            if (!rc)
                rc = sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the capture");
            sim_model *dropped = NULL;
            if (m && !into)
                model_close(m, &dropped);
            state_tidy(s);
            pthread_mutex_unlock(&g_lock);
            put_dropped(dropped);
            sim_obj_put(&s->obj);
            return rc;
        } else {
            m->status = M_CAPTURING;
            atomic_fetch_add(&g_active, 1);
            st->model = m;
            st->index = index;
            mode_enter(m, st, (int)mode);
        }
        pthread_mutex_unlock(&g_lock);
    }
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    return capture_begin(stream, mode, NULL, __func__);
}

/* issue 23: into a condition task's sub-model (model_ri.cpp, rtStreamBeginCaptureToModel). */
SIM_API aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI, aclmdlRICaptureMode mode)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    SIM_CHECK_NOT_NULL(modelRI);
    aclError rc;
    sim_model *m = model_lookup(modelRI, __func__, &rc);
    if (!m)
        return rc;
    rc = capture_begin(stream, mode, m, __func__);
    sim_obj_put(&m->obj);
    return rc;
}

SIM_API aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    if (!status && !modelRI)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "status and modelRI cannot both be NULL");
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    pthread_mutex_lock(&g_lock);
    struct sim_capstate *st = state_of(s);
    sim_model *m = st ? st->model : NULL;
    if (status) /* the stream's status: an invalidated model leaves it ACTIVE, as on the real one */
        *status = m ? ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE : ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    if (modelRI)
        *modelRI = m ? m->obj.handle : NULL;
    pthread_mutex_unlock(&g_lock);
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

SIM_API aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(mode);
    if ((unsigned)*mode >= MODE_NONE)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "mode %d is not a capture mode (0 GLOBAL, 1 THREAD_LOCAL, 2 RELAXED)",
                        (int)*mode);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_obj_put(&c->obj);
    int old = t_exchange;
    t_exchange = (int)*mode;
    *mode = (aclmdlRICaptureMode)old;
    return ACL_SUCCESS;
}

/* Context::CheckCaptureModelValidity. */
static aclError validate(sim_model *m, const char *func)
{
    if (m->open_groups)
        return sim_fail_(func, ACL_ERROR_STREAM_TASK_GROUP_STATUS,
                         "a task group is still open: end it with aclmdlRICaptureTaskGrpEnd first");
    bool joined = false, joined_back = false;
    for (uint32_t i = 0; i < m->nstreams; i++) {
        const capstream *cs = &m->streams[i];
        if (cs->origin)
            continue;
        joined = true;
        uint32_t id = cs->stream ? cs->stream->id : UINT32_MAX;
        const entry *last = cs->last != SIZE_MAX ? &m->entries[cs->last] : NULL;
        if (!last || last->kind != ENTRY_RECORD)
            return sim_fail_(func, ACL_ERROR_RT_STREAM_UNJOINED,
                             "stream %u joined the capture but its last task is not an event record: record an "
                             "event on it and wait for that event on the origin stream",
                             id);
        if (!last->rec->waited)
            return sim_fail_(func, ACL_ERROR_RT_STREAM_UNJOINED,
                             "stream %u joined the capture but no captured wait consumes its last event record",
                             id);
        joined_back |= last->rec->waited_by_origin;
    }
    if (joined && !joined_back)
        return sim_fail_(func, ACL_ERROR_RT_STREAM_UNJOINED,
                         "the origin stream waits on none of the joined streams' last event records: they are "
                         "not joined back to it");
    return ACL_SUCCESS;
}

/* A capture that ends in failure destroys its model -- but a sub-model, which goes only with its
 * parent (ClearCaptureModel), is left empty (capture lock held). */
static void end_failed(sim_model *m, sim_model **dropped)
{
    if (!m->sub) {
        model_close(m, dropped);
        return;
    }
    for (size_t i = 0; i < m->nentries; i++) {
        entry *en = &m->entries[i];
        if (en->slot) {
            kernel_put(en->slot->k);
            free(en->slot);
        } else if (en->task) {
            sim_task_free(en->task);
        }
    }
    m->nentries = 0;
    for (uint32_t i = 0; i < m->nstreams; i++)
        if (m->streams[i].bound) {
            sim_stream_release_bound(m->streams[i].bound);
            sim_obj_put(&m->streams[i].bound->obj);
        }
    m->nstreams = 0;
    free(m->run);
    m->run = NULL;
    m->nrun = 0;
    m->status = M_EMPTY;
}

/* Every sub-model of m, and theirs, has ended its capture. */
static bool subs_ready(const sim_model *m)
{
    for (uint32_t i = 0; i < m->nsubs; i++)
        if (m->subs[i]->status != M_READY || !subs_ready(m->subs[i]))
            return false;
    return true;
}

/* The replay list: the captured tasks that run, in capture order. */
static bool build_run(sim_model *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nentries; i++)
        n += m->entries[i].kind == ENTRY_RUN;
    m->run = n ? calloc(n, sizeof *m->run) : NULL;
    if (n && !m->run)
        return false;
    m->nrun = 0;
    for (size_t i = 0; i < m->nentries; i++)
        if (m->entries[i].kind == ENTRY_RUN)
            m->run[m->nrun++] = (run_item){m->entries[i].task, m->entries[i].slot, m->entries[i].stream};
    return true;
}

SIM_API aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    if (s->flags & ACL_STREAM_DEVICE_USE_ONLY) {
        sim_obj_put(&s->obj);
        return sim_fail(ACL_ERROR_RT_INTERNAL_ERROR, "a DEVICE_USE_ONLY stream does not support capture");
    }
    /* ApiImpl::StreamEndCapture: modelRI is required when the stream captures. */
    pthread_mutex_lock(&g_lock);
    struct sim_capstate *st = state_of(s);
    bool capturing = st && st->model;
    pthread_mutex_unlock(&g_lock);
    if (capturing && !modelRI)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "modelRI must not be NULL");
    else if (!(rc = in_current_context(s, __func__)) && s->is_default)
        rc = sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the default stream cannot be captured");
    if (rc) {
        sim_obj_put(&s->obj);
        return rc;
    }
    if (modelRI)
        *modelRI = NULL;
    sim_model *dropped = NULL;
    pthread_mutex_lock(&g_lock);
    st = state_of(s);
    sim_model *m = st ? st->model : NULL;
    if (!m) {
        rc = sim_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream %u is not capturing: call aclmdlRICaptureBegin first",
                      s->id);
    } else if (!m->streams[st->index].origin) {
        rc = sim_fail(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED,
                      "stream %u joined the capture through an event; end it on the stream that began it", s->id);
    } else if (st->begin_tid != current_tid() && st->mode != MODE_RELAXED) {
        /* CheckCaptureStreamThreadIsMatch; the capture is over (ClearCaptureModel). The real
         * runtime keeps the model until its context goes; the simulator frees it now. */
        rc = sim_fail(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
                      "the capture was begun on thread %u in mode %s; only RELAXED captures can end on another "
                      "thread. The capture is abandoned",
                      st->begin_tid, k_mode_names[st->mode]);
        mode_exit(m, st);
        capture_exit(m);
        end_failed(m, &dropped);
    } else {
        mode_exit(m, st);
        if (m->status == M_INVALIDATED)
            rc = sim_fail(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                          "an error during the capture invalidated it (see the failed call); the model is destroyed");
        else if (!subs_ready(m)) /* Context::CheckSubModelsIsEndCapture (issue 23) */
            rc = sim_fail(ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING,
                          "a sub-model of a condition task has not ended its capture (aclmdlRICaptureToModelRIBegin "
                          "... aclmdlRICaptureEnd); the model is destroyed");
        else if (!(rc = validate(m, __func__)) && !build_run(m))
            rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory for the model");
        capture_exit(m);
        if (rc)
            end_failed(m, &dropped);
        else
            sim_obj_get(&m->obj); /* kept while its streams are made, below */
    }
    pthread_mutex_unlock(&g_lock);
    if (!rc && m) {
        /* The model's own streams (Context::StreamCreate for each captured stream, in
         * context_aclgraph.cc), made outside the capture lock (they take the device lock, which
         * ranks above it). The model is not ready, and its handle not handed out, until then. */
        for (uint32_t i = 0; i < m->nstreams && !rc; i++)
            m->streams[i].bound = sim_stream_create_bound(m->ctx, &rc);
        pthread_mutex_lock(&g_lock);
        if (!rc && !m->open)
            rc = sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "the model was destroyed while its capture ended");
        if (rc) {
            end_failed(m, &dropped);
        } else {
            m->status = M_READY;
            *modelRI = m->obj.handle;
        }
        pthread_mutex_unlock(&g_lock);
        sim_obj_put(&m->obj);
    }
    put_dropped(dropped);
    sim_obj_put(&s->obj);
    return rc;
}

/* rtModelGetStreams / Model::ModelGetStreams: streams NULL asks for the count; else up to
 * *numStreams of the model's streams, the rest of the array NULL. Sub-models do not exist here. */
SIM_API aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(modelRI);
    SIM_CHECK_NOT_NULL(numStreams);
    aclError rc;
    sim_model *m = model_lookup(modelRI, __func__, &rc);
    if (!m)
        return rc;
    if (!(rc = model_in_current_context(m, __func__))) {
        pthread_mutex_lock(&g_lock);
        uint32_t n = m->status == M_READY ? m->nstreams : 0;
        if (m->built) { /* issue 23: the streams bound to it (Model::ModelGetStreams) */
            n = sim_build_streams(m->built, streams, streams ? *numStreams : 0);
            if (!streams)
                *numStreams = n;
            else
                for (uint32_t i = n; i < *numStreams; i++)
                    streams[i] = NULL;
        } else if (!streams) {
            *numStreams = n;
        } else {
            for (uint32_t i = 0; i < *numStreams; i++)
                streams[i] = i < n ? m->streams[i].bound->obj.handle : NULL;
        }
        pthread_mutex_unlock(&g_lock);
    }
    sim_obj_put(&m->obj);
    return rc;
}

/* ------------------------------------------------------------------ models: run, destroy - */

static sim_model *model_lookup(aclmdlRI modelRI, const char *func, aclError *rc)
{
    sim_model *m = (sim_model *)sim_handle_get(modelRI, SIM_KIND_MODEL);
    if (!m)
        *rc = sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "model %p is not a live model (destroyed, or not a model)",
                        modelRI);
    return m;
}

/* ApiImpl: the model must belong to the current context (107004). */
static aclError model_in_current_context(sim_model *m, const char *func)
{
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    bool same = c == m->ctx;
    sim_obj_put(&c->obj);
    return same ? ACL_SUCCESS
                : sim_fail_(func, ACL_ERROR_RT_MODEL_CONTEXT, "the model was captured in another context than the current one");
}

SIM_API aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(modelRI);
    aclError rc;
    sim_model *m = model_lookup(modelRI, __func__, &rc);
    if (!m)
        return rc;
    sim_stream *s = sim_stream_for_work(stream, __func__, &rc);
    if (!s) {
        sim_obj_put(&m->obj);
        return rc;
    }
    /* ApiErrorDecorator::ModelExecute, ApiImpl::ModelExecute, CaptureModel::CheckExecuteReady */
    if (!(rc = sim_capture_stream_busy(s, __func__)) && !(rc = model_in_current_context(m, __func__))) {
        pthread_mutex_lock(&g_lock);
        if (!m->open)
            rc = sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "model %p was destroyed", modelRI);
        else if (m->status == M_BUILDING || m->status == M_EMPTY) /* issue 23: simulator choice of code */
            rc = sim_fail(ACL_ERROR_RT_MODEL_EXECUTE, m->status == M_BUILDING
                                                          ? "the model is still being built: call aclmdlRIBuildEnd first"
                                                          : "the sub-model has captured nothing yet");
        else if (m->status != M_READY)
            rc = sim_fail(ACL_ERROR_RT_MODEL_CAPTURED, "the model is still capturing: end the capture first");
        if (!rc) {
            pthread_mutex_lock(&m->run_lock);
            m->running++;
            pthread_mutex_unlock(&m->run_lock);
        }
        pthread_mutex_unlock(&g_lock);
    }
    if (!rc) {
        sim_task *t = sim_task_new(&sim_task_model);
        /* issue 23: the external records and waits of this replay take their generations now
         * (CaptureModel::PreModelExecute); the list is fixed once the model is ready. */
        uint64_t *gens = t && m->n_ext ? calloc(m->n_ext, sizeof *gens) : NULL;
        if (t && m->n_ext && !gens) {
            sim_task_free(t);
            t = NULL;
        }
        if (t) {
            sim_obj_get(&m->obj);
            t->u.model.model = m; /* released with the task: running-- (sim_capture_task_release) */
            for (uint32_t i = 0; i < m->n_ext; i++)
                gens[i] = sim_event_external_take(m->ext[i].e, m->ext[i].record);
            t->u.model.ext_gen = gens; /* a refused task is freed: release_model undoes them */
            rc = sim_stream_submit(s, t, __func__, NULL);
        } else {
            pthread_mutex_lock(&m->run_lock);
            m->running--;
            pthread_cond_broadcast(&m->run_cv);
            pthread_mutex_unlock(&m->run_lock);
            rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
        }
    }
    sim_obj_put(&s->obj);
    sim_obj_put(&m->obj);
    return rc;
}

SIM_API aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(modelRI);
    aclError rc;
    sim_model *m = model_lookup(modelRI, __func__, &rc);
    if (!m)
        return rc;
    if (!(rc = model_in_current_context(m, __func__))) {
        pthread_mutex_lock(&g_lock);
        if (m->sub) /* ApiErrorDecorator::ModelDestroy (issue 23) */
            rc = sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "a condition task's sub-model cannot be destroyed: it goes with its parent model");
        else if (m->status == M_CAPTURING || m->status == M_INVALIDATED) /* Context::ModelDestroy */
            rc = sim_fail(ACL_ERROR_RT_MODEL_CAPTURED, "the model is still capturing: end the capture first");
        pthread_mutex_unlock(&g_lock);
    }
    if (rc) {
        sim_obj_put(&m->obj);
        return rc;
    }
    /* Context::ModelDestroy waits for running replays (10 s by default), then gives up. */
    int wait_ms = g_rt.cfg.model_destroy_wait_ms;
    struct timespec deadline;
    sim_deadline(wait_ms, &deadline);
    sim_model *dropped = NULL;
    for (;;) {
        int w = 0;
        pthread_mutex_lock(&m->run_lock);
        while (m->running > 0 && w == 0)
            w = pthread_cond_timedwait(&m->run_cv, &m->run_lock, &deadline);
        int running = m->running;
        pthread_mutex_unlock(&m->run_lock);
        if (running > 0) {
            rc = sim_fail(ACL_ERROR_RT_MODEL_RUNNING, "%d replays of the model are still running after %d ms", running,
                          wait_ms);
            break;
        }
        pthread_mutex_lock(&g_lock);
        pthread_mutex_lock(&m->run_lock);
        running = m->running; /* a replay submitted meanwhile: wait for it too */
        pthread_mutex_unlock(&m->run_lock);
        if (!m->open)
            rc = sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "model %p was destroyed concurrently", modelRI);
        else if (!running)
            model_close(m, &dropped);
        pthread_mutex_unlock(&g_lock);
        if (rc || !running)
            break;
    }
    put_dropped(dropped);
    sim_obj_put(&m->obj);
    return rc;
}

aclError sim_capture_replay_task(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    if (t->ops->replay)
        return t->ops->replay(s, rt, t, msg, msglen);
    return t->ops->run(s, (sim_task *)t, msg, msglen); /* run does not change a captured task */
}

/* The condition values of m and its sub-models that start every run at their default (cond.c;
 * their sub-models are part of the run). */
static void launch_conds(const sim_model *m)
{
    for (uint32_t i = 0; i < m->nconds; i++)
        sim_cond_launch(m->conds[i]);
    for (uint32_t i = 0; i < m->nsubs; i++)
        launch_conds(m->subs[i]);
}

bool sim_replay_can_park(const sim_stream *s, const sim_task *rt)
{
    return t_parkable == rt && sim_task_can_park(s, rt);
}

/* Where a parked replay goes on below its top level (its item there: u.model.resume), one
 * level per sub-model it is in: lv[d] is the descent from depth d to d + 1 -- the branch the
 * condition task at depth d took, the item of the sub-model it runs, and that sub-model's first
 * failure while the replay is parked (the top level's is u.model.failed). Sub-models nest at
 * most SIM_COND_MAX_DEPTH deep, so the path has a level for each; it is allocated when the
 * replay first enters a sub-model (sim_capture_replay_model), and without it -- out of memory --
 * the waits below block their worker. */
struct sim_replay_level {
    size_t item;      /* the item of the sub-model at depth d + 1 */
    uint32_t branch;  /* the branch taken by the condition task at depth d */
    aclError failed;  /* the sub-model's first failure, kept while parked, */
    char *failed_msg; /* and its message (owned) */
};
struct sim_replay_path {
    struct sim_replay_level lv[SIM_COND_MAX_DEPTH];
    int depth; /* the depth of the wait it parked at */
};

/* While a parked replay finds its way back to its wait (depth by depth, see replay_items). */
static __thread bool t_resuming;

/* The level of rt's path the sub-model at the current depth uses; NULL at the top, or without
 * a path (out of memory: the sub-model's waits then block, and nothing of it is kept). */
static struct sim_replay_level *level(const sim_task *rt)
{
    struct sim_replay_path *p = rt->u.model.path;
    return t_nested && p && t_nested <= (int)SIM_COND_MAX_DEPTH ? &p->lv[t_nested - 1] : NULL;
}

aclError sim_replay_item(sim_stream *s, sim_task *rt, const sim_task *t, bool may_park, char *msg, size_t msglen)
{
    /* A failure that could not be kept (out of memory: its message) would be lost if the
     * replay parked: after one, no item of the replay parks. Below its top level a wait parks
     * only where the replay has its path. */
    bool room = !t_nested || level(rt);
    t_parkable = may_park && !rt->u.model.unkept && room ? rt : NULL;
    aclError rc = sim_capture_replay_task(s, rt, t, msg, msglen);
    t_parkable = NULL;
    if (rc != SIM_TASK_PARKED) {
        rt->parked = false; /* the item it went on from is done: a later one parks afresh */
        rt->wait_deadline_ns = 0;
    }
    return rc;
}

void sim_replay_keep_failure(sim_task *rt, aclError rc, const char *msg)
{
    struct sim_replay_level *l = level(rt);
    if (t_nested && !l)
        return; /* no wait of this sub-model can park: nothing to keep */
    char *copy = strdup(msg);
    if (!copy) {
        rt->u.model.unkept = true; /* then no later item of the replay may park */
        return;
    }
    if (l) {
        l->failed = rc;
        l->failed_msg = copy;
    } else {
        rt->u.model.failed = rc;
        rt->u.model.failed_msg = copy;
    }
}

aclError sim_replay_resume(sim_task *rt, char *msg, size_t msglen)
{
    const struct sim_replay_level *l = level(rt);
    aclError failed = l ? l->failed : t_nested ? ACL_SUCCESS : rt->u.model.failed;
    if (!rt->parked || !failed)
        return ACL_SUCCESS;
    const char *kept = l ? l->failed_msg : rt->u.model.failed_msg;
    snprintf(msg, msglen, "%s", kept ? kept : "");
    return failed;
}

void sim_replay_done(sim_task *rt)
{
    struct sim_replay_level *l = level(rt);
    if (l) {
        free(l->failed_msg);
        l->failed_msg = NULL;
        l->failed = ACL_SUCCESS;
    } else if (!t_nested) {
        free(rt->u.model.failed_msg);
        rt->u.model.failed_msg = NULL;
        rt->u.model.failed = ACL_SUCCESS;
        rt->u.model.unkept = false;
    }
}

int sim_replay_resume_branch(const sim_task *rt)
{
    const struct sim_replay_path *p = rt->u.model.path;
    return t_resuming && p && t_nested < (int)SIM_COND_MAX_DEPTH ? (int)p->lv[t_nested].branch : -1;
}

void sim_replay_park_branch(const sim_task *rt, uint32_t branch)
{
    rt->u.model.path->lv[t_nested].branch = branch; /* set: a sub-model's wait parked only with it */
}

/* The items of model m, at depth t_nested of replay task rt (0: its own model; below: the
 * sub-model a condition task runs). A wait that is not over parks the replay's stream
 * (sim_replay_can_park): the item it stopped at, at every depth, and the branch of every
 * condition task on the way, are kept in rt (u.model.resume, u.model.path), and the replay
 * returns SIM_TASK_PARKED through them all; when the stream is woken, the turn runs rt again and
 * it goes back down the same way -- not evaluating those conditions again: the hardware did
 * once -- to the wait, which checks again; then on as usual. A replay that parks after one of
 * its tasks failed keeps the first failure and its message, at every depth (its own:
 * u.model.failed, failed_msg; a sub-model's: its level of the path), and each level returns
 * its own when it is done (the replay's report was made when its task failed; a sub-model's
 * failure is its condition task's, reported when that returns it). In stop mode
 * nothing runs after a failure, so nothing parks; an abort meanwhile is seen afresh. */
static aclError replay_items(sim_stream *s, sim_task *rt, sim_model *m, char *msg, size_t msglen)
{
    int depth = t_nested;
    size_t from = 0;
    aclError first = ACL_SUCCESS;
    bool back = t_resuming; /* this level goes back to the item it parked at */
    if (back) {
        /* A level parked only where the path held it (sim_replay_item), so level() is set
         * below the top. The path itself may have been made after this run of the replay
         * began: it is read where it is used. */
        from = depth ? level(rt)->item : rt->u.model.resume;
        first = sim_replay_resume(rt, msg, msglen); /* parked after a failure: as it was */
        if (depth == (rt->u.model.path ? rt->u.model.path->depth : 0))
            t_resuming = false; /* the wait's own depth: from its item on, a run as any */
    }
    char buf[512];
    bool stop = false;
    for (size_t i = from; i < m->nrun; i++) {
        const run_item *it = &m->run[i];
        struct sim_capkernel *k = NULL;
        const sim_task *t = it->task;
        if (it->slot) { /* a task-group kernel, which an update may swap: hold the current one */
            pthread_mutex_lock(&m->run_lock);
            k = it->slot->k;
            atomic_fetch_add_explicit(&k->refs, 1, memory_order_relaxed);
            pthread_mutex_unlock(&m->run_lock);
            t = k->task;
        }
        /* The item a parked replay goes back to runs even when the stream is aborted: a wait
         * ends itself -- it leaves the queue of what it waits for, which a discard would not --
         * and a condition task leads down to it. */
        if (!stop && !(back && i == from) && sim_stream_abort_requested(s))
            stop = true; /* issue 11: aborted mid-replay */
        if (stop) { /* discarded after a failure in stop mode or an abort; records still trigger */
            if (t->ops->replay_discard)
                t->ops->replay_discard(rt, t);
        } else {
            bool trace = sim_trace_on();
            uint64_t t0 = trace ? sim_now_ns() : 0;
            buf[0] = '\0';
            aclError rc = sim_replay_item(s, rt, t, true, buf, sizeof buf);
            if (rc == SIM_TASK_PARKED) { /* a wait that is not over: rt runs again from here */
                if (depth)
                    level(rt)->item = i;
                else
                    rt->u.model.resume = i;
                if (t->ops != &sim_task_cond && rt->u.model.path)
                    rt->u.model.path->depth = depth; /* the wait's own item (a condition's wait is deeper) */
                kernel_put(k);
                return SIM_TASK_PARKED;
            }
            if (rc && sim_overflow_absorb(s, rc, buf)) /* issue 11: an overflow is a warning */
                rc = ACL_SUCCESS;
            if (trace) {
                sim_task view;
                memcpy(&view, t, offsetof(sim_task, inline_args));
                view.seq = rt->seq;
                sim_stream_trace_task(s, &view, t0, rc);
            }
            if (rc && !first) {
                first = rc;
                snprintf(msg, msglen, "replay of a captured model, task %zu of %zu: %s", i + 1, m->nrun, buf);
                /* ReportErrorInfoForModelExecuteTask (model_execute_task.cc): the executing
                 * stream's error slot gets the code (stream->SetErrCode), the report names the
                 * model's own stream and the failed captured task, with the replay's thread. */
                /* Inside a condition task (issue 23), the task reports the sub-model's failure. */
                if (!depth)
                    sim_stream_task_failed_as(s, rc, msg, m->streams[it->stream].bound->id, t->task_id, rt->tid,
                                              NULL);
                sim_replay_keep_failure(rt, rc, msg);
                stop = s->aborted; /* only this thread, the stream's worker, writes it */
            }
        }
        kernel_put(k);
    }
    sim_replay_done(rt); /* this level's run is over: what it kept goes */
    return first;
}

static aclError sim_capture_replay(sim_stream *s, sim_task *rt, char *msg, size_t msglen)
{
    sim_model *m = rt->u.model.model;
    rt->u.model.ran = true; /* its external records happen (or are discarded) here */
    if (m->built) /* issue 23: a model built by stream binding runs its own program */
        return sim_build_replay(s, rt, m->built, msg, msglen); /* parks as below (model_build.c) */
    if (!rt->parked) /* issue 23: each run of a model starts with its conditions' defaults */
        launch_conds(m);
    t_resuming = rt->parked;
    aclError rc = replay_items(s, rt, m, msg, msglen);
    t_resuming = false;
    return rc;
}

/* A replay its stream discards: only its captured tasks' discards happen (the external event
 * records trigger). */
static void sim_capture_discard(sim_stream *s, sim_task *rt, bool stop_abort)
{
    (void)s, (void)stop_abort;
    sim_model *m = rt->u.model.model;
    rt->u.model.ran = true;
    for (size_t i = 0; i < m->nrun; i++) {
        const sim_task *t = m->run[i].task;
        if (t && t->ops->replay_discard)
            t->ops->replay_discard(rt, t);
    }
}

/* An update task swaps the captured kernel when its stream reaches it. */
static aclError sim_capture_apply_update(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)msg, (void)msglen;
    sim_model *m = t->u.update.model;
    struct sim_capkernel *k = t->u.update.kernel;
    t->u.update.kernel = NULL;
    pthread_mutex_lock(&m->run_lock);
    struct sim_capkernel *old = t->u.update.slot->k;
    k->task->task_id = old->task->task_id; /* the same captured task, with new parameters */
    t->u.update.slot->k = k;
    pthread_mutex_unlock(&m->run_lock);
    kernel_put(old);
    return ACL_SUCCESS;
}

/* A finished (or refused) replay: one running replay fewer for aclmdlRIDestroy to wait for. */
static void release_model(sim_task *t)
{
    sim_model *m = t->u.model.model;
    /* Refused by its stream (never run nor discarded): its external records never happen. */
    for (uint32_t i = 0; t->u.model.ext_gen && !t->u.model.ran && i < m->n_ext; i++)
        sim_event_external_untake(m->ext[i].e, t->u.model.ext_gen[i], m->ext[i].record);
    free(t->u.model.ext_gen);
    /* failed_msg and built_run: NULL, set only while a run is parked, and a parked task always
     * runs again; path: the replay's own once it entered a sub-model. */
    free(t->u.model.failed_msg);
    sim_build_run_free(t->u.model.built_run);
    struct sim_replay_path *path = t->u.model.path;
    for (uint32_t d = 0; path && d < SIM_COND_MAX_DEPTH; d++) /* as failed_msg: NULL once each level's run ended */
        free(path->lv[d].failed_msg);
    free(path);
    pthread_mutex_lock(&m->run_lock);
    if (--m->running == 0)
        pthread_cond_broadcast(&m->run_cv);
    pthread_mutex_unlock(&m->run_lock);
    sim_obj_put(&m->obj);
}

static void release_update(sim_task *t)
{
    kernel_put(t->u.update.kernel); /* not applied: discarded or refused */
    sim_obj_put(&t->u.update.model->obj);
}

/* Neither is ever captured (aclmdlRIExecuteAsync refuses a capturing stream; an updating
 * stream is not capturing), so neither has a replay of its own to do. */
static aclError never_captured(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    (void)s, (void)rt, (void)t, (void)msg, (void)msglen;
    return ACL_SUCCESS;
}

/* A replay is one task of its stream: it runs the captured tasks, in order, and reports its
 * first failed one itself when it fails; it is traced as the captured tasks it runs. */
const sim_task_ops sim_task_model = {
    .run = sim_capture_replay,
    .replay = never_captured,
    .discard = sim_capture_discard,
    .release = release_model,
    .reports_own_failure = true,
};

/* An update is not traced; a discarded one does not happen (the kernel stays as it was). */
const sim_task_ops sim_task_update = {
    .run = sim_capture_apply_update,
    .replay = never_captured,
    .release = release_update,
};

/* ------------------------------------------------------------------ task groups ---------- */

SIM_API aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    pthread_mutex_lock(&g_lock);
    struct sim_capstate *st = state_of(s);
    if (!st || !st->model) { /* ApiErrorDecorator::StreamBeginTaskGrp */
        rc = sim_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream %u is not capturing", s->id);
    } else if (st->grp != GRP_NONE) { /* Context::StreamBeginTaskGrp */
        rc = sim_fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, "a task group is already open on stream %u", s->id);
    } else {
        struct sim_taskgrp *g = calloc(1, sizeof *g);
        if (!g) {
            rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
        } else {
            sim_obj_init(&g->obj, SIM_KIND_TASKGRP, group_destroy);
            g->model = st->model;
            st->model->streams[st->index].grp = g; /* the capture stream's reference */
            st->model->open_groups++;
            st->grp = GRP_SAMPLE;
        }
    }
    pthread_mutex_unlock(&g_lock);
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    SIM_CHECK_NOT_NULL(handle);
    *handle = NULL;
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    struct sim_taskgrp *drop = NULL;
    pthread_mutex_lock(&g_lock);
    struct sim_capstate *st = state_of(s);
    if (!st || !st->model) {
        rc = sim_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "stream %u is not capturing", s->id);
    } else if (st->grp != GRP_SAMPLE) {
        rc = sim_fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, "no task group is open on stream %u", s->id);
    } else { /* Context::StreamEndTaskGrp */
        sim_model *m = st->model;
        capstream *cs = &m->streams[st->index];
        struct sim_taskgrp *g = cs->grp;
        cs->grp = NULL;
        m->open_groups--;
        st->grp = GRP_NONE;
        if (m->grp_err) {
            rc = sim_fail(m->grp_err, "a task of the group was refused earlier; the group is dropped");
            drop = g;
        } else if (m->status == M_INVALIDATED) {
            rc = sim_fail(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "the capture was invalidated; the group is dropped");
            drop = g;
        } else if (!grow((void **)&m->groups, &m->cap_groups, m->ngroups + 1, sizeof *m->groups) ||
                   !sim_handle_open(&g->obj)) {
            rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
            drop = g;
        } else {
            sim_obj_get(&g->obj);     /* the handle table's; the capture stream's goes to the model */
            m->groups[m->ngroups++] = g;
            *handle = g->obj.handle;
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (drop)
        sim_obj_put(&drop->obj);
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    SIM_CHECK_NOT_NULL(handle);
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    if ((rc = sim_capture_stream_busy(s, __func__)) || (rc = in_current_context(s, __func__))) {
        sim_obj_put(&s->obj);
        return rc;
    }
    pthread_mutex_lock(&g_lock);
    /* Looked up under the capture lock: a group whose handle is open has a live model. */
    struct sim_taskgrp *g = (struct sim_taskgrp *)sim_handle_get(handle, SIM_KIND_TASKGRP);
    struct sim_capstate *st = state_of(s);
    if (!g) {
        rc = sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "task group %p is not a live task group (its model destroyed?)",
                      handle);
    } else if (st && st->grp != GRP_NONE) { /* Context::StreamBeginTaskUpdate */
        rc = sim_fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, "stream %u is already in a task group or an update",
                      s->id);
    } else if (g->updating) {
        rc = sim_fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, "another stream is updating this task group");
    } else if (!(st = state_make(s))) {
        rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    } else {
        st->grp = GRP_UPDATE;
        st->upd = g; /* takes the lookup's reference */
        g = NULL;
        sim_obj_get(&st->upd->model->obj);
        st->upd_model = st->upd->model;
        st->upd->updating = true;
        st->upd->index = 0;
    }
    pthread_mutex_unlock(&g_lock);
    if (g)
        sim_obj_put(&g->obj);
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    aclError rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    if ((rc = sim_capture_stream_busy(s, __func__)) || (rc = in_current_context(s, __func__))) {
        sim_obj_put(&s->obj);
        return rc;
    }
    struct sim_taskgrp *g = NULL;
    sim_model *m = NULL;
    uint32_t done = 0;
    pthread_mutex_lock(&g_lock);
    struct sim_capstate *st = state_of(s);
    if (!st || st->grp != GRP_UPDATE) {
        rc = sim_fail(ACL_ERROR_STREAM_TASK_GROUP_STATUS, "stream %u is not updating a task group", s->id);
    } else { /* Context::StreamEndTaskUpdate */
        g = st->upd;
        m = st->upd_model;
        st->grp = GRP_NONE;
        st->upd = NULL;
        st->upd_model = NULL;
        done = g->index;
        g->updating = false;
        g->index = 0;
        state_tidy(s);
        if (done != g->n)
            rc = sim_fail(ACL_ERROR_RT_INTERNAL_ERROR, "the task group holds %u kernels but %u were launched to update "
                          "it", g->n, done);
    }
    pthread_mutex_unlock(&g_lock);
    if (g)
        sim_obj_put(&g->obj);
    if (m)
        sim_obj_put(&m->obj);
    sim_obj_put(&s->obj);
    return rc;
}

/* ------------------------------------------------------------------ teardown ------------- */

void sim_capture_stream_gone(sim_stream *s)
{
    if (!atomic_load_explicit(&s->cap, memory_order_acquire))
        return;
    sim_model *dropped = NULL;
    struct sim_taskgrp *g = NULL;
    sim_model *upd_model = NULL;
    pthread_mutex_lock(&g_lock);
    struct sim_capstate *st = state_of(s);
    if (st && st->model) {
        sim_model *m = st->model;
        capstream *cs = &m->streams[st->index];
        if (cs->origin) { /* its capture can never end: abandon it */
            st->mode = MODE_NONE; /* the begin thread's count stays, as after a wrong-thread end */
            m->mode = MODE_NONE;
            capture_exit(m);
            model_close(m, &dropped);
        } else { /* a joined stream: the capture cannot be completed any more */
            invalidate(m);
            st->model = NULL;
            sim_obj_put(&s->obj);
            cs->stream = NULL;
        }
    }
    if ((st = state_of(s)) && st->grp == GRP_UPDATE) {
        g = st->upd;
        upd_model = st->upd_model;
        g->updating = false;
        g->index = 0;
        st->upd = NULL;
        st->upd_model = NULL;
    }
    if ((st = state_of(s))) {
        st->grp = GRP_NONE;
        st->model = NULL;
        state_tidy(s);
    }
    pthread_mutex_unlock(&g_lock);
    if (g)
        sim_obj_put(&g->obj);
    if (upd_model)
        sim_obj_put(&upd_model->obj);
    put_dropped(dropped);
}

void sim_capture_context_gone(sim_context *c)
{
    sim_model *dropped = NULL;
    pthread_mutex_lock(&g_lock);
    for (sim_model *m = g_models, *next; m; m = next) {
        next = m->next;
        if (m->ctx != c)
            continue;
        if (m->status == M_CAPTURING || m->status == M_INVALIDATED) {
            m->mode = MODE_NONE;
            capture_exit(m);
        }
        model_close(m, &dropped);
    }
    pthread_mutex_unlock(&g_lock);
    put_dropped(dropped);
}

/* ------------------------------------------------------------------ built models --------- */

/* issue 23: what model_build.c needs of the model object (sim.h). */

struct sim_model *sim_model_get(aclmdlRI h, const char *func, aclError *rc)
{
    return model_lookup(h, func, rc);
}

void sim_model_put(struct sim_model *m) { sim_obj_put(&m->obj); }

aclError sim_model_in_current_context(struct sim_model *m, const char *func) { return model_in_current_context(m, func); }

struct sim_model *sim_model_new_built(sim_context *ctx, sim_built *b, const char *func, aclError *rc)
{
    pthread_mutex_lock(&g_lock);
    sim_model *m = model_new(ctx, func, rc);
    if (m) {
        m->status = M_BUILDING;
        m->built = b;
    }
    pthread_mutex_unlock(&g_lock);
    return m;
}

aclmdlRI sim_model_handle(struct sim_model *m) { return m->obj.handle; }

sim_built *sim_model_built(struct sim_model *m) { return m->built; }

uint32_t sim_model_id(struct sim_model *m) { return m->id; }

void sim_model_set_ready(struct sim_model *m)
{
    pthread_mutex_lock(&g_lock);
    if (m->status == M_BUILDING)
        m->status = M_READY;
    pthread_mutex_unlock(&g_lock);
}

void sim_capture_model_visit(struct sim_model *m, void (*fn)(void *arg, uint32_t stream_id, const sim_task *t),
                             void *arg)
{
    pthread_mutex_lock(&g_lock);
    bool ready = m->status == M_READY && !m->built;
    pthread_mutex_unlock(&g_lock);
    if (!ready) /* a capture in progress has no replay list yet */
        return;
    pthread_mutex_lock(&m->run_lock); /* task-group kernels an update may swap */
    for (size_t i = 0; i < m->nrun; i++) {
        const run_item *it = &m->run[i];
        fn(arg, m->streams[it->stream].bound->id, it->slot ? it->slot->k->task : it->task);
    }
    pthread_mutex_unlock(&m->run_lock);
}

/* ------------------------------------------------------------------ condition tasks ------ */

/* issue 23: what cond.c needs of models (sim.h). */

bool sim_model_capturing(struct sim_model *m)
{
    pthread_mutex_lock(&g_lock);
    bool capturing = m->status == M_CAPTURING;
    pthread_mutex_unlock(&g_lock);
    return capturing;
}

aclError sim_model_add_cond(struct sim_model *m, struct sim_cond *c, const char *func)
{
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_lock);
    if (m->status != M_CAPTURING)
        rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "the model is not capturing");
    else if (!grow((void **)&m->conds, &m->cap_conds, m->nconds + 1, sizeof *m->conds))
        rc = sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    else
        m->conds[m->nconds++] = c; /* the caller's reference becomes the model's */
    pthread_mutex_unlock(&g_lock);
    return rc;
}

aclError sim_capture_cond_task(sim_stream *s, struct sim_model *parent, sim_task *t, uint32_t n,
                               struct sim_model **subs, const char *func)
{
    aclError rc = ACL_SUCCESS;
    uint32_t made = 0, id;
    pthread_mutex_lock(&g_lock);
    struct sim_capstate *st = state_of(s);
    if (!st || !st->model || st->grp == GRP_UPDATE) {
        rc = sim_fail_(func, ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                       "stream %u must be capturing before a condition task is added to it", s->id);
    } else if (st->model != parent) { /* StreamAddCondTaskParasCheck */
        rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                       "the condition handle belongs to another model than the one stream %u captures into", s->id);
    } else if (parent->depth >= SIM_COND_MAX_DEPTH) {
        rc = sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                       "the model stream %u captures into is a sub-model %u levels deep: the simulator runs condition "
                       "tasks' sub-models nested at most %u deep",
                       s->id, parent->depth, SIM_COND_MAX_DEPTH);
    } else if (!grow((void **)&parent->subs, &parent->cap_subs, parent->nsubs + n, sizeof *parent->subs)) {
        rc = sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    } else {
        /* Context::CreateSubCaptureModels: one empty model per branch, the parent's. */
        for (; made < n && !rc; made++) {
            sim_model *sub = model_new(parent->ctx, func, &rc);
            if (!sub)
                break;
            sub->sub = true;
            sub->depth = parent->depth + 1;
            sub->status = M_EMPTY;
            sim_obj_get(&sub->obj); /* the parent's (the handle table has its own) */
            parent->subs[parent->nsubs++] = sub;
            sim_obj_get(&sub->obj); /* the caller's */
            subs[made] = sub;
        }
        if (!rc)
            rc = capture_task(st, t, func, &id);
    }
    pthread_mutex_unlock(&g_lock);
    if (rc)
        sim_task_free(t);
    return rc;
}

aclError sim_capture_replay_model(sim_stream *s, const sim_task *rt, struct sim_model *m, char *msg, size_t msglen)
{
    sim_task *root = (sim_task *)rt; /* the replay task: a wait in m parks it (replay_items) */
    if (!root->u.model.path) /* NULL out of memory: the waits in m block their worker */
        root->u.model.path = calloc(1, sizeof *root->u.model.path);
    t_nested++;
    aclError rc = replay_items(s, root, m, msg, msglen);
    t_nested--;
    return rc;
}
