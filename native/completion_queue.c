/*
 * aiocann native helpers: the completion queue and the report thread.
 *
 * This is how a device's work reaches the event loop without Python ever running on a
 * runtime thread:
 *
 *   stream reaches the completion callback task (ACL_CALLBACK_NO_BLOCK: the stream goes on)
 *     -> report thread (C, below) is inside aclrtProcessReport and runs on_complete()
 *        -> on_complete appends (token, status, message) to the queue and, only when the
 *           queue was empty, writes the eventfd
 *   event loop: the dispatcher task awaits the eventfd, drains every queued completion in one
 *   batch and resolves the matching futures.
 *
 * No GIL is taken on the runtime side, so no runtime lock can ever wait for the GIL (the
 * deadlock host callbacks invite), and a burst of completions costs one wake-up. The eventfd
 * is readable exactly while the queue is non-empty: it is written on the empty->non-empty
 * transition and read back when a drain empties the queue, both under the queue lock.
 *
 * Failures. A completion callback cannot learn whether the work before it failed: on the real
 * runtime aclrtStreamQuery never reports a task's error, and only one synchronize gets it. What
 * the runtime does say is which task failed: it calls the exception-info callbacks with the
 * stream id, task id and error code, on one of its own threads, before the failed stream moves
 * past that task (so before the completion callback behind it runs). So every completion
 * records the task id of its work (aclrtGetThreadLastTaskId, right after submitting it);
 * on_exception() parks each report in the record of the stream it names; on_complete(), which
 * runs after the report of its work if there was one, claims the report of its own task:
 *  - nothing is locked on the way in (a launch takes no lock here), and on the way out only
 *    when reports are parked, which is rare;
 *  - a parked report of a task before this completion's work that no completion claimed is
 *    about a task no completion is for (work another library submitted to the stream): its
 *    completion would have run first and claimed it. It is delivered as a stream-level
 *    failure (AIOCANN_STREAM_REPORT);
 *  - a marker (a completion with no work of its own: a synchronize point, say) is a blocking
 *    callback: the stream waits for it, so when it runs every parked report is of a task
 *    before it, and all go out before it. (Work completions never block the stream.)
 *
 * Duplicates. Where the driver supports millisecond operator timeouts the runtime reports a
 * failed kernel a second time, from its fast ring buffer, on whichever thread next submits or
 * checks a stream of the device (v100/device_error_proc.cc ProcessReportFastRingBuffer, from
 * Context::CheckTaskSend / CheckStatus): before the regular report or long after its
 * completion. A report is a duplicate when the stream already has one parked for that task,
 * or when the task is not after the newest work whose completion has run (`hw`): by the order
 * above, every regular report of a task up to it arrived before that completion ran and was
 * consumed by it -- so a later one can only be the second. That holds for as long as a
 * duplicate can arrive (the fast report waits in its slot until some thread takes it), at the
 * cost of one word per stream. Duplicates are dropped: they never fail another completion or
 * the stream.
 *
 * Stopped streams. On a stream that stops on failure (aclrtSetStreamFailureMode, by any code)
 * the failed task's completion callback never runs (Stream::EnterFailureAbort discards it). So
 * each report that names a completion's work is also queued at once as an AIOCANN_TASK_REPORT
 * entry with that completion's token, found in a small ring of the tokens and task ids in
 * flight (written by the submitting thread, one pair per work completion): the async core
 * learns of the failure without waiting for a callback that may never come. The ring has a
 * slot per token modulo RING (1024, the default in-flight bound of a stream): with more in
 * flight a newer token may take an older one's slot, and that older one's report then comes
 * without the early word (its completion waits for the watchdog if the stream stopped).
 *
 * Replays. A replayed model's failure is reported on the model's own stream and captured task
 * (model_execute_task.cc ReportErrorInfoForModelExecuteTask), before the executing stream goes
 * on past the replay -- the same order as above, on the executing stream. A registered model
 * (aiocann_cq_model) knows its streams' ids (aclmdlRIGetStreams); reports on them are parked in
 * it, and the replay's completion, a blocking callback, claims what is parked: the caller
 * keeps replays of one model from overlapping (graph.py), so all of it is this replay's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "aiocann_native.h"
#include "spares.h"

#include "acl_table.h"

#define NO_TASK UINT32_MAX
#define HW_VALID (1ull << 32) /* aiocann_cq_stream.hw: a task id is set */
#define RING 1024u            /* in-flight (token, task) pairs a stream remembers; a power of 2 */

typedef struct cq_entry {
    uint64_t token;
    int32_t status;
    char *message; /* malloc'ed or NULL; owned by the queue until drained */
} cq_entry;

struct aiocann_cq {
    atomic_int refs;         /* the owner's, and one per registered stream */
    aclrtContext ctx;
    pthread_mutex_t lock;
    cq_entry *ring;
    size_t cap, head, count; /* ring buffer, grows by doubling */
    int fd;
};

/* One completion in flight: the callback's user data. */
typedef struct pending {
    struct pending *next; /* while a spare (spares.h) */
    aiocann_cq_stream *qs;
    uint64_t token;
    uint32_t work_task; /* task id of the work it completes, or NO_TASK (a marker) */
    uint64_t hw;        /* a marker's: HW_VALID | the stream's newest work task then, or 0 */
    aiocann_cq_model *model; /* a replay's model (+1), or NULL */
} pending;

/* A failure report that no completion has claimed (yet). */
typedef struct parked {
    struct parked *next;
    uint32_t task;
    int32_t code;
    int early; /* its early word went out (stream reports: see stream_report, enqueue) */
    char *message;
} parked;

struct aiocann_cq_stream {
    /* The owner's reference and one per completion in flight: a completion callback may run
     * after the stream was destroyed and unregistered (its report was already queued for the
     * report thread), so the record and its queue live until the last one has run. */
    atomic_int refs;
    aiocann_cq *cq;           /* holds a reference */
    aclrtStream stream;
    uint64_t key;
    int32_t device, stream_id;
    pthread_mutex_t lock;    /* parked; taken by the runtime thread that reports an exception,
                              * and by the report thread only while reports are parked */
    parked *parked, **parked_tail; /* in the order reported */
    atomic_int nparked;      /* read without the lock by on_complete: anything to claim? */
    aiocann_cq_stream *next; /* g_streams */
    /* HW_VALID | the task id of the newest work whose completion has run (0: none yet), stored
     * by the report thread, read by on_exception: what a duplicate report is told by. */
    _Atomic uint64_t hw;
    uint64_t last_work;      /* HW_VALID | the newest work task enqueued; the submitting thread's */
    struct {
        _Atomic uint64_t token;
        _Atomic uint32_t task;
    } ring[RING];            /* token -> task of work in flight, at token % RING (see the top) */
};

/* A registered model: its streams' ids and the reports parked on them. */
struct aiocann_cq_model {
    atomic_int refs;         /* the owner's, and one per replay completion in flight */
    int32_t device;
    uint32_t nids;
    int32_t *ids;
    pthread_mutex_t lock;
    parked *parked, **parked_tail;
    /* The tokens of its replay completions in flight, oldest first (a ring; under lock): a
     * report is the oldest one's, since replays of one model do not overlap. */
    aiocann_cq *cq;          /* holds a reference */
    uint64_t *tokens;
    size_t head, count, cap;
    aiocann_cq_model *next;  /* g_models, under g_streams_lock */
};

/* Streams by (device, stream id), for on_exception. Lock order: g_streams_lock > qs->lock >
 * cq->lock. */
static pthread_mutex_t g_streams_lock = PTHREAD_MUTEX_INITIALIZER;
static aiocann_cq_stream *g_streams;
static aiocann_cq_model *g_models;

static __thread aclrtContext t_ctx; /* what aiocann_bind_context last made current here */

aclError aiocann_bind_context(aclrtContext ctx)
{
    if (ctx == t_ctx)
        return ACL_SUCCESS;
    aclError rc = aclrtSetCurrentContext(ctx);
    t_ctx = rc ? NULL : ctx;
    return rc;
}

void aiocann_forget_context(void) { t_ctx = NULL; }

void aiocann_free(void *p) { free(p); }

/* Pending records are made by the submitting thread (the event loop's) and finished by the
 * report thread: spares (spares.h) rather than a cross-thread free each, which made the event
 * loop's thread sleep on the allocator's lock (issue 25: about 75 times a second at a million
 * launches a second on 1900 streams). 16384 of them are 768 KB. */
static spare_pool g_spare_pending = SPARE_POOL(pending, next, 16384);
static __thread spare_list t_spare_pending;

static pending *pending_new(void)
{
    pending *p = spare_take(&g_spare_pending, &t_spare_pending);
    return p ? p : malloc(sizeof *p);
}

/* Task ids of one stream increase as tasks are submitted and wrap at 2^32 (a 16-bit counter
 * with its wrap count above it): compare them as serial numbers. */
static int task_before(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }

static void push(aiocann_cq *cq, uint64_t token, int32_t status, char *message)
{
    pthread_mutex_lock(&cq->lock);
    if (cq->count == cq->cap) {
        /* Grow; on failure spin-wait for the consumer rather than lose a completion. */
        cq_entry *n = malloc(cq->cap * 2 * sizeof *n);
        while (!n) {
            pthread_mutex_unlock(&cq->lock);
            usleep(1000);
            pthread_mutex_lock(&cq->lock);
            if (cq->count < cq->cap)
                break;
            n = malloc(cq->cap * 2 * sizeof *n);
        }
        if (n) {
            for (size_t i = 0; i < cq->count; i++)
                n[i] = cq->ring[(cq->head + i) % cq->cap];
            free(cq->ring);
            cq->ring = n;
            cq->cap *= 2;
            cq->head = 0;
        }
    }
    cq->ring[(cq->head + cq->count) % cq->cap] = (cq_entry){token, status, message};
    if (cq->count++ == 0) {
        uint64_t one = 1;
        ssize_t w = write(cq->fd, &one, sizeof one);
        (void)w; /* cannot fail short of a closed fd: the counter is reset on every drain */
    }
    pthread_mutex_unlock(&cq->lock);
}

/* ---- failure reports ---- */

static char *recent_message(void)
{
    /* Whatever the runtime recorded on the thread that reports the failure (the simulator puts
     * the failed task's description there); NULL is fine. */
    const char *m = aclGetRecentErrMsg();
    return m ? strdup(m) : NULL;
}

static void append(parked ***tail, parked *k)
{
    **tail = k;
    *tail = &k->next;
}

static int parked_has(const parked *k, uint32_t task)
{
    for (; k; k = k->next)
        if (k->task == task)
            return 1;
    return 0;
}

/* The token of the work completion in flight for task, or 0 (see the ring at the top). */
static uint64_t token_of(aiocann_cq_stream *qs, uint32_t task)
{
    for (uint32_t i = 0; i < RING; i++) {
        uint64_t tok = atomic_load_explicit(&qs->ring[i].token, memory_order_seq_cst); /* see early_word_late */
        if (tok && atomic_load_explicit(&qs->ring[i].task, memory_order_relaxed) == task &&
            atomic_load_explicit(&qs->ring[i].token, memory_order_relaxed) == tok)
            return tok;
    }
    return 0;
}

/* A report on stream qs. qs->lock held. Takes message. */
static void stream_report(aiocann_cq_stream *qs, uint32_t task, int32_t code, char *message)
{
    uint64_t hw = atomic_load(&qs->hw); /* seq_cst, against on_complete's store (see there) */
    if ((hw && !task_before((uint32_t)hw, task)) || parked_has(qs->parked, task)) {
        free(message); /* a duplicate (see the top of the file) */
        return;
    }
    parked *k = malloc(sizeof *k);
    if (!k) {
        free(message); /* out of memory: this report is lost */
        return;
    }
    *k = (parked){NULL, task, code, 0, message};
    append(&qs->parked_tail, k);
    atomic_fetch_add(&qs->nparked, 1); /* seq_cst: before the ring is read, against enqueue */
    uint64_t token = token_of(qs, task);
    if (token) {
        k->early = 1;
        push(qs->cq, AIOCANN_TASK_REPORT | token, code, message ? strdup(message) : NULL);
    }
}

/* The early word of a report that came before its task was in the ring: a kernel can fault,
 * and the runtime report it, before the thread that launched it has asked for its task id and
 * written the ring (enqueue). Then stream_report found no token, and this -- called by the
 * submitter right after its ring write -- sends the word. The two sides are a Dekker pair:
 * each writes (the ring entry, nparked) then reads the other's (seq_cst both), so at least one
 * sees the other, and `early`, under the lock, lets only one of them send. */
static void early_word_late(aiocann_cq_stream *qs, uint64_t token, uint32_t task)
{
    pthread_mutex_lock(&qs->lock);
    for (parked *k = qs->parked; k; k = k->next) {
        if (k->task == task && !k->early) {
            k->early = 1;
            push(qs->cq, AIOCANN_TASK_REPORT | token, k->code, k->message ? strdup(k->message) : NULL);
            break;
        }
    }
    pthread_mutex_unlock(&qs->lock);
}

/* Runs on a runtime thread, before the failed stream goes on (see the top of the file) -- or,
 * for a duplicate, on whichever thread the runtime takes it on. */
static void on_exception(aclrtExceptionInfo *info)
{
    uint32_t sid = aclrtGetStreamIdFromExceptionInfo(info), task = aclrtGetTaskIdFromExceptionInfo(info);
    int32_t device = (int32_t)aclrtGetDeviceIdFromExceptionInfo(info);
    int32_t code = (int32_t)aclrtGetErrorCodeFromExceptionInfo(info);
    if (sid == UINT32_MAX || task == UINT32_MAX || code == 0)
        return; /* a device-level event, not a task: the device's streams report it at sync */
    pthread_mutex_lock(&g_streams_lock);
    for (aiocann_cq_stream *qs = g_streams; qs; qs = qs->next) {
        if (qs->device != device || (uint32_t)qs->stream_id != sid)
            continue;
        char *message = recent_message();
        pthread_mutex_lock(&qs->lock);
        stream_report(qs, task, code, message);
        pthread_mutex_unlock(&qs->lock);
        pthread_mutex_unlock(&g_streams_lock);
        return;
    }
    for (aiocann_cq_model *m = g_models; m; m = m->next) {
        if (m->device != device)
            continue;
        for (uint32_t i = 0; i < m->nids; i++) {
            if ((uint32_t)m->ids[i] != sid)
                continue;
            pthread_mutex_lock(&m->lock);
            parked *k = parked_has(m->parked, task) ? NULL : malloc(sizeof *k);
            if (k) { /* else a duplicate, or out of memory */
                *k = (parked){NULL, task, code, m->count != 0, recent_message()};
                append(&m->parked_tail, k);
                if (k->early) /* the early word, as for a stream's work (see the top) */
                    push(m->cq, AIOCANN_TASK_REPORT | m->tokens[m->head], code,
                         k->message ? strdup(k->message) : NULL);
            }
            pthread_mutex_unlock(&m->lock);
            pthread_mutex_unlock(&g_streams_lock);
            return;
        }
    }
    pthread_mutex_unlock(&g_streams_lock);
}

/* Registers on_exception once per process (the runtime's registry is process-wide). The
 * deprecated single-slot call is the fallback for runtimes without Register; it would replace
 * a callback the program set the same way, so it is only used when there is no other way. */
static aclError register_exception_callback(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int done;
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&lock);
    if (!done) {
        rc = aclrtExceptionInfoCallbackRegister(on_exception);
        if (rc == ACL_ERROR_API_NOT_SUPPORT)
            rc = aclrtSetExceptionInfoCallback(on_exception);
        done = rc == ACL_SUCCESS;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* ---- the queue ---- */

aiocann_cq *aiocann_cq_new(aclrtContext ctx, aclError *rc)
{
    uint32_t probe;
    if ((*rc = register_exception_callback()) != ACL_SUCCESS)
        return NULL;
    if ((*rc = aclrtGetThreadLastTaskId(&probe)) != ACL_SUCCESS)
        return NULL; /* without task ids, reports cannot be matched to completions */
    aiocann_cq *cq = calloc(1, sizeof *cq);
    *rc = ACL_ERROR_BAD_ALLOC;
    if (!cq)
        return NULL;
    atomic_init(&cq->refs, 1);
    cq->ctx = ctx;
    cq->cap = 1024;
    cq->ring = malloc(cq->cap * sizeof *cq->ring);
    cq->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!cq->ring || cq->fd < 0) {
        free(cq->ring);
        if (cq->fd >= 0)
            close(cq->fd);
        free(cq);
        return NULL;
    }
    pthread_mutex_init(&cq->lock, NULL);
    *rc = ACL_SUCCESS;
    return cq;
}

static void cq_put(aiocann_cq *cq)
{
    if (atomic_fetch_sub(&cq->refs, 1) != 1)
        return;
    for (size_t i = 0; i < cq->count; i++)
        free(cq->ring[(cq->head + i) % cq->cap].message);
    close(cq->fd);
    pthread_mutex_destroy(&cq->lock);
    free(cq->ring);
    free(cq);
}

void aiocann_cq_free(aiocann_cq *cq)
{
    if (cq)
        cq_put(cq);
}

int aiocann_cq_fd(aiocann_cq *cq) { return cq->fd; }

size_t aiocann_cq_drain(aiocann_cq *cq, uint64_t *tokens, int32_t *status, char **messages, size_t max)
{
    pthread_mutex_lock(&cq->lock);
    size_t n = cq->count < max ? cq->count : max;
    for (size_t i = 0; i < n; i++) {
        cq_entry e = cq->ring[(cq->head + i) % cq->cap];
        tokens[i] = e.token;
        status[i] = e.status;
        messages[i] = e.message;
    }
    cq->head = (cq->head + n) % cq->cap;
    cq->count -= n;
    if (cq->count == 0) {
        uint64_t v;
        ssize_t r = read(cq->fd, &v, sizeof v); /* EAGAIN if already clear */
        (void)r;
    }
    pthread_mutex_unlock(&cq->lock);
    return n;
}

size_t aiocann_cq_pending(aiocann_cq *cq)
{
    pthread_mutex_lock(&cq->lock);
    size_t n = cq->count;
    pthread_mutex_unlock(&cq->lock);
    return n;
}

/* ---- streams ---- */

aiocann_cq_stream *aiocann_cq_stream_new(aiocann_cq *cq, aclrtStream stream, uint64_t key, aclError *rc)
{
    int32_t device = -1, sid = -1;
    if ((*rc = aiocann_bind_context(cq->ctx)) || (*rc = aclrtGetDevice(&device)) ||
        (*rc = aclrtStreamGetId(stream, &sid)))
        return NULL;
    aiocann_cq_stream *qs = calloc(1, sizeof *qs);
    if (!qs) {
        *rc = ACL_ERROR_BAD_ALLOC;
        return NULL;
    }
    *qs = (aiocann_cq_stream){.cq = cq, .stream = stream, .key = key, .device = device, .stream_id = sid};
    atomic_init(&qs->refs, 1);
    atomic_init(&qs->nparked, 0);
    atomic_init(&qs->hw, 0); /* the ring is zero (calloc): no token is 0 */
    qs->parked_tail = &qs->parked;
    atomic_fetch_add(&cq->refs, 1);
    pthread_mutex_init(&qs->lock, NULL);
    pthread_mutex_lock(&g_streams_lock);
    qs->next = g_streams;
    g_streams = qs;
    pthread_mutex_unlock(&g_streams_lock);
    return qs;
}

static void stream_put(aiocann_cq_stream *qs)
{
    if (atomic_fetch_sub(&qs->refs, 1) != 1)
        return;
    for (parked *k = qs->parked, *n; k; k = n) {
        n = k->next;
        free(k->message);
        free(k);
    }
    pthread_mutex_destroy(&qs->lock);
    cq_put(qs->cq);
    free(qs);
}

void aiocann_cq_stream_free(aiocann_cq_stream *qs)
{
    if (!qs)
        return;
    pthread_mutex_lock(&g_streams_lock);
    for (aiocann_cq_stream **pp = &g_streams; *pp; pp = &(*pp)->next) {
        if (*pp == qs) {
            *pp = qs->next;
            break;
        }
    }
    pthread_mutex_unlock(&g_streams_lock);
    stream_put(qs);
}

aclrtContext aiocann_cq_stream_context(aiocann_cq_stream *qs) { return qs->cq->ctx; }
aclrtStream aiocann_cq_stream_handle(aiocann_cq_stream *qs) { return qs->stream; }

static void model_put(aiocann_cq_model *m)
{
    if (atomic_fetch_sub(&m->refs, 1) != 1)
        return;
    for (parked *k = m->parked, *n; k; k = n) {
        n = k->next;
        free(k->message);
        free(k);
    }
    pthread_mutex_destroy(&m->lock);
    cq_put(m->cq);
    free(m->tokens);
    free(m->ids);
    free(m);
}

/* The replay of token is in flight (1) or over (0: the oldest, or the newest when it was never
 * queued). Returns 0 if out of memory for the ring (the replay then gets no early word). */
static int model_track(aiocann_cq_model *m, uint64_t token, int in_flight, int newest)
{
    int ok = 1;
    pthread_mutex_lock(&m->lock);
    if (in_flight) {
        if (m->count == m->cap) {
            size_t cap = m->cap ? m->cap * 2 : 8;
            uint64_t *n = malloc(cap * sizeof *n);
            if (n) {
                for (size_t i = 0; i < m->count; i++)
                    n[i] = m->tokens[(m->head + i) % m->cap];
                free(m->tokens);
                m->tokens = n;
                m->cap = cap;
                m->head = 0;
            }
        }
        if (m->count < m->cap)
            m->tokens[(m->head + m->count++) % m->cap] = token;
        else
            ok = 0;
        /* A replay can fail, and be reported, before its submitter tracks it here (the
         * replay is submitted first): the early word of such a report goes out now. */
        for (parked *k = m->parked; ok && k; k = k->next) {
            if (!k->early) {
                k->early = 1;
                push(m->cq, AIOCANN_TASK_REPORT | m->tokens[m->head], k->code, k->message ? strdup(k->message) : NULL);
            }
        }
    } else if (m->count && newest && m->tokens[(m->head + m->count - 1) % m->cap] == token) {
        m->count--;
    } else if (m->count && !newest && m->tokens[m->head] == token) {
        m->head = (m->head + 1) % m->cap;
        m->count--;
    }
    pthread_mutex_unlock(&m->lock);
    return ok;
}

/* A replay's completion: what its model's streams reported since the previous replay of the
 * model completed -- this replay's failure, the first of them (see the top of the file). */
static void claim_model(aiocann_cq_model *m, int32_t *status, char **message)
{
    pthread_mutex_lock(&m->lock);
    parked *k = m->parked;
    m->parked = NULL;
    m->parked_tail = &m->parked;
    pthread_mutex_unlock(&m->lock);
    for (parked *n; k; k = n) {
        n = k->next;
        if (!*status) {
            *status = k->code;
            *message = k->message;
        } else {
            free(k->message);
        }
        free(k);
    }
}

/* Runs on the report thread, inside aclrtProcessReport, after the report of its work's task
 * if that failed (see the top of the file). */
static void on_complete(void *user)
{
    pending *p = user;
    aiocann_cq_stream *qs = p->qs;
    int32_t status = 0;
    char *message = NULL;
    if (p->model) {
        model_track(p->model, p->token, 0, 0);
        claim_model(p->model, &status, &message);
        model_put(p->model);
    }
    /* The newest work whose completion ran, before the parked reports are looked at: a report
     * that comes after this store and names a task up to it is a duplicate, and on_exception
     * sees the store, or on_complete sees the report parked (both sequentially consistent). */
    uint64_t prev = atomic_load_explicit(&qs->hw, memory_order_relaxed);
    uint64_t now = p->work_task != NO_TASK ? HW_VALID | p->work_task : p->hw;
    if (now && (!prev || task_before((uint32_t)prev, (uint32_t)now)))
        atomic_store(&qs->hw, now);
    if (p->work_task != NO_TASK) { /* out of the ring: no report can be for it any more */
        uint64_t tok = p->token;
        atomic_compare_exchange_strong(&qs->ring[tok % RING].token, &tok, 0);
    }
    if (atomic_load(&qs->nparked)) {
        pthread_mutex_lock(&qs->lock);
        for (parked **kp = &qs->parked; *kp;) {
            parked *k = *kp;
            int dup = prev && !task_before((uint32_t)prev, k->task);
            int mine = !dup && p->work_task != NO_TASK && k->task == p->work_task && !status;
            if (!dup && !mine && p->work_task != NO_TASK && !task_before(k->task, p->work_task)) {
                kp = &k->next; /* a later task's: its own completion claims it */
                continue;
            }
            *kp = k->next;
            if (qs->parked_tail == &k->next)
                qs->parked_tail = kp;
            atomic_fetch_sub_explicit(&qs->nparked, 1, memory_order_relaxed);
            if (dup) { /* a second report of a task whose completion ran: dropped */
                free(k->message);
            } else if (mine) {
                status = k->code;
                message = k->message;
            } else if (k->task == p->work_task) { /* a duplicate of our own, parked twice */
                free(k->message);
            } else { /* no completion's: a failure of the stream, before this completion */
                push(qs->cq, AIOCANN_STREAM_REPORT | qs->key, k->code, k->message);
            }
            free(k);
        }
        push(qs->cq, p->token, status, message);
        pthread_mutex_unlock(&qs->lock); /* after the push: a stream's entries stay in order */
    } else {
        push(qs->cq, p->token, status, message);
    }
    spare_give(&g_spare_pending, p);
    stream_put(qs);
}

static aclError enqueue(aiocann_cq_stream *qs, uint64_t token, int work, aiocann_cq_model *model)
{
    aclError rc = aiocann_bind_context(qs->cq->ctx);
    if (rc)
        return rc;
    pending *p = pending_new();
    if (!p)
        return ACL_ERROR_BAD_ALLOC;
    *p = (pending){.qs = qs, .token = token, .work_task = NO_TASK, .hw = qs->last_work, .model = model};
    atomic_fetch_add(&qs->refs, 1); /* dropped by on_complete, or below if never queued */
    if (model) {
        atomic_fetch_add(&model->refs, 1);
        model_track(model, token, 1, 0);
    }
    if (work && aclrtGetThreadLastTaskId(&p->work_task) != ACL_SUCCESS)
        p->work_task = NO_TASK;
    if (p->work_task != NO_TASK) {
        qs->last_work = HW_VALID | p->work_task;
        atomic_store_explicit(&qs->ring[token % RING].task, p->work_task, memory_order_relaxed);
        atomic_store_explicit(&qs->ring[token % RING].token, token, memory_order_seq_cst);
        if (atomic_load_explicit(&qs->nparked, memory_order_seq_cst)) /* rare: a report is parked */
            early_word_late(qs, token, p->work_task);
    }
    /* A marker or a replay blocks the stream until it has run (see the top of the file);
     * everything else lets the stream go on. From here on_complete may run at any moment on
     * the report thread. */
    int block = !work || model;
    rc = aclrtLaunchCallback(on_complete, p, block ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK, qs->stream);
    if (rc) { /* never queued: the caller raises, and the work runs on without a completion */
        if (p->work_task != NO_TASK) {
            uint64_t tok = token;
            atomic_compare_exchange_strong(&qs->ring[token % RING].token, &tok, 0);
        }
        if (model) {
            model_track(model, token, 0, 1);
            model_put(model);
        }
        spare_give(&g_spare_pending, p);
        stream_put(qs);
        return rc;
    }
    return ACL_SUCCESS;
}

aclError aiocann_cq_enqueue_replay(aiocann_cq_stream *qs, uint64_t token, aiocann_cq_model *m)
{
    return enqueue(qs, token, 1, m);
}

/* ---- models ---- */

aiocann_cq_model *aiocann_cq_model_new(aiocann_cq *cq, aclmdlRI model, aclError *rc)
{
    uint32_t n = 0;
    int32_t device = -1;
    if ((*rc = aiocann_bind_context(cq->ctx)) || (*rc = aclrtGetDevice(&device)) ||
        (*rc = aclmdlRIGetStreams(model, NULL, &n)))
        return NULL;
    aiocann_cq_model *m = calloc(1, sizeof *m);
    aclrtStream *streams = calloc(n ? n : 1, sizeof *streams);
    if (m)
        m->ids = calloc(n ? n : 1, sizeof *m->ids);
    if (!m || !streams || !m->ids) {
        if (m)
            free(m->ids);
        free(m);
        free(streams);
        *rc = ACL_ERROR_BAD_ALLOC;
        return NULL;
    }
    if (!(*rc = aclmdlRIGetStreams(model, streams, &n))) {
        for (uint32_t i = 0; i < n && !*rc; i++)
            if (streams[i])
                *rc = aclrtStreamGetId(streams[i], &m->ids[m->nids++]);
    }
    free(streams);
    if (*rc) {
        free(m->ids);
        free(m);
        return NULL;
    }
    m->device = device;
    m->cq = cq;
    atomic_fetch_add(&cq->refs, 1);
    atomic_init(&m->refs, 1);
    m->parked_tail = &m->parked;
    pthread_mutex_init(&m->lock, NULL);
    pthread_mutex_lock(&g_streams_lock);
    m->next = g_models;
    g_models = m;
    pthread_mutex_unlock(&g_streams_lock);
    return m;
}

void aiocann_cq_model_free(aiocann_cq_model *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&g_streams_lock);
    for (aiocann_cq_model **pp = &g_models; *pp; pp = &(*pp)->next) {
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    }
    pthread_mutex_unlock(&g_streams_lock);
    model_put(m);
}

aclError aiocann_cq_enqueue(aiocann_cq_stream *qs, uint64_t token, int work)
{
    return enqueue(qs, token, work, NULL);
}

/* ------------------------------------------------------------------ report thread -------- */

struct aiocann_reporter {
    pthread_t thread;
    aclrtContext ctx;
    aclrtStream wake;        /* private stream used to wake the thread for stopping */
    atomic_int stop;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int started;             /* 1 running, -1 failed to start */
    aclError start_rc;
};

static void noop(void *user) { (void)user; }

static void *reporter_main(void *arg)
{
    aiocann_reporter *r = arg;
    aclError rc = aclrtSetCurrentContext(r->ctx);
    if (!rc)
        rc = aclrtCreateStream(&r->wake);
    if (!rc && (rc = aclrtSubscribeReport((uint64_t)pthread_self(), r->wake)) != 0)
        aclrtDestroyStream(r->wake);
    pthread_mutex_lock(&r->lock);
    r->started = rc ? -1 : 1;
    r->start_rc = rc;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->lock);
    if (rc)
        return NULL;
    /* The timeout only bounds how long a lost wake-up could delay stopping. */
    while (!atomic_load(&r->stop))
        aclrtProcessReport(1000);
    /* Run whatever was delivered before the stop, so no blocked stream is left waiting. */
    while (aclrtProcessReport(1) == ACL_SUCCESS)
        ;
    aclrtUnSubscribeReport((uint64_t)pthread_self(), r->wake);
    aclrtDestroyStream(r->wake);
    return NULL;
}

aiocann_reporter *aiocann_reporter_start(aclrtContext ctx, aclError *rc)
{
    aiocann_reporter *r = calloc(1, sizeof *r);
    if (!r) {
        *rc = ACL_ERROR_BAD_ALLOC;
        return NULL;
    }
    r->ctx = ctx;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cv, NULL);
    if (pthread_create(&r->thread, NULL, reporter_main, r) != 0) {
        *rc = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
        free(r);
        return NULL;
    }
    pthread_mutex_lock(&r->lock);
    while (!r->started)
        pthread_cond_wait(&r->cv, &r->lock);
    pthread_mutex_unlock(&r->lock);
    if (r->started < 0) {
        *rc = r->start_rc;
        pthread_join(r->thread, NULL);
        free(r);
        return NULL;
    }
    *rc = ACL_SUCCESS;
    return r;
}

uint64_t aiocann_reporter_thread_id(aiocann_reporter *r) { return (uint64_t)r->thread; }

aclError aiocann_reporter_stop(aiocann_reporter *r)
{
    atomic_store(&r->stop, 1);
    /* Wake aclrtProcessReport with a no-op callback on the private stream. Launching needs the
     * stream's context current in this thread; restore the caller's afterwards. */
    aclrtContext old = NULL;
    int had = aclrtGetCurrentContext(&old) == ACL_SUCCESS;
    aclError rc = aclrtSetCurrentContext(r->ctx);
    if (!rc)
        rc = aclrtLaunchCallback(noop, NULL, ACL_CALLBACK_NO_BLOCK, r->wake);
    if (had)
        aclrtSetCurrentContext(old);
    pthread_join(r->thread, NULL); /* if the wake failed, the 1 s timeout ends the wait */
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->cv);
    free(r);
    return rc;
}
