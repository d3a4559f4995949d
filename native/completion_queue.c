/*
 * aiocann native helpers: the completion queue and the report thread.
 *
 * This is how a device's work reaches the event loop without Python ever running on a
 * runtime thread:
 *
 *   stream reaches the callback task
 *     -> report thread (C, below) is inside aclrtProcessReport and runs on_complete()
 *        -> on_complete appends (token, stream status) to the queue and, only when the queue
 *           was empty, writes the eventfd
 *   event loop: the dispatcher task awaits the eventfd, drains every queued token in one
 *   batch and resolves the matching futures.
 *
 * No GIL is taken on the runtime side, so no runtime lock can ever wait for the GIL (the
 * deadlock host callbacks invite), and a burst of completions costs one wake-up. The eventfd
 * is readable exactly while the queue is non-empty: it is written on the empty->non-empty
 * transition and read back when a drain empties the queue, both under the queue lock.
 *
 * on_complete records the stream's status (aclrtStreamQuery) so a failure is attributed to
 * exactly the work that failed, never to earlier work. That needs the status *as of the
 * callback's place in the stream*: where the runtime guarantees it for non-blocking callbacks
 * (the simulator: aclsimCallbackStatusSnapshot), completion callbacks are ACL_CALLBACK_NO_BLOCK
 * and the stream runs on while the report thread catches up in batches; elsewhere they are
 * ACL_CALLBACK_BLOCK, pausing the stream for the few microseconds on_complete takes.
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

#include "acl_table.h"

typedef struct cq_entry {
    uint64_t token;
    int32_t status;
} cq_entry;

struct aiocann_cq {
    aclrtContext ctx;
    aclrtCallbackBlockType cb_type; /* see the top of this file */
    pthread_mutex_t lock;
    cq_entry *ring;
    size_t cap, head, count; /* ring buffer, grows by doubling */
    int fd;
};

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

aiocann_cq *aiocann_cq_new(aclrtContext ctx)
{
    aiocann_cq *cq = calloc(1, sizeof *cq);
    if (!cq)
        return NULL;
    cq->ctx = ctx;
    cq->cb_type = aclsimCallbackStatusSnapshot() ? ACL_CALLBACK_NO_BLOCK : ACL_CALLBACK_BLOCK;
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
    return cq;
}

void aiocann_cq_free(aiocann_cq *cq)
{
    if (!cq)
        return;
    close(cq->fd);
    pthread_mutex_destroy(&cq->lock);
    free(cq->ring);
    free(cq);
}

int aiocann_cq_fd(aiocann_cq *cq) { return cq->fd; }

static void push(aiocann_cq *cq, uint64_t token, int32_t status)
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
    cq->ring[(cq->head + cq->count) % cq->cap] = (cq_entry){token, status};
    if (cq->count++ == 0) {
        uint64_t one = 1;
        ssize_t w = write(cq->fd, &one, sizeof one);
        (void)w; /* cannot fail short of a closed fd: the counter is reset on every drain */
    }
    pthread_mutex_unlock(&cq->lock);
}

size_t aiocann_cq_drain(aiocann_cq *cq, uint64_t *tokens, int32_t *status, size_t max)
{
    pthread_mutex_lock(&cq->lock);
    size_t n = cq->count < max ? cq->count : max;
    for (size_t i = 0; i < n; i++) {
        cq_entry e = cq->ring[(cq->head + i) % cq->cap];
        tokens[i] = e.token;
        status[i] = e.status;
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

typedef struct pending {
    aiocann_cq *cq;
    aclrtStream stream;
    uint64_t token;
} pending;

/* Runs on the report thread, inside aclrtProcessReport, while the stream is paused here. */
static void on_complete(void *user)
{
    pending *p = user;
    aclrtStreamStatus st;
    int32_t status = aclrtStreamQuery(p->stream, &st); /* the stream's error, if it failed */
    push(p->cq, p->token, status);
    free(p);
}

aclError aiocann_cq_enqueue(aiocann_cq *cq, aclrtStream stream, uint64_t token)
{
    aclError rc = aiocann_bind_context(cq->ctx);
    if (rc)
        return rc;
    pending *p = malloc(sizeof *p);
    if (!p)
        return ACL_ERROR_BAD_ALLOC;
    *p = (pending){cq, stream, token};
    rc = aclrtLaunchCallback(on_complete, p, cq->cb_type, stream);
    if (rc)
        free(p);
    return rc;
}

aclrtContext aiocann_cq_context(aiocann_cq *cq) { return cq->ctx; }

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
