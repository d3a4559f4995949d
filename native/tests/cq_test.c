/*
 * The completion queue and the report thread (native/completion_queue.c) as a C program, built
 * with the extension's own sources -- completion_queue.c, fastpath.c, loader.c -- and the
 * runtime loaded through aiocann_load(), as the extension does. The test-suite builds it with
 * ThreadSanitizer and AddressSanitizer (tests/sim/test_cq_c.py), against the simulator built with
 * the same sanitizer, so that every lock and lifetime of the completion path runs under them:
 *
 *  1. two threads launch on their own streams through the fast path (kernels, markers, and
 *     every 64th launch a kernel that faults) while two threads drain the queue: every token
 *     arrives exactly once, in submission order per stream and drainer, with status 0 -- or,
 *     for exactly the faulting launches, the kernel's error and a message naming it (the
 *     runtime's exception report matched to its completion);
 *  2. a stream record is freed while its completions are still to come: they still arrive;
 *  3. the stream record and the queue are freed with failed completions (and their messages)
 *     still queued, and more still to come: nothing leaks, nothing is touched after its free.
 *
 *   cq_test RUNTIME_LIBRARY TEST_KERNELS_SO   (tests/kernels/test_kernels.c, built by
 *                                             aiocann.sim.build_kernel)
 * Exit status 0 when every check passed.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aiocann_native.h"

#include "acl_table.h"

#include "check.h"

#define OK(expr)                                                                            \
    do {                                                                                    \
        aclError rc_ = (expr);                                                              \
        if (rc_ != ACL_SUCCESS) {                                                           \
            const char *m_ = aclGetRecentErrMsg();                                          \
            fprintf(stderr, "%s:%d: %s returned %d (%s)\n", __FILE__, __LINE__, #expr, rc_, \
                    m_ ? m_ : "no message");                                                \
            g_failures++;                                                                   \
        }                                                                                   \
    } while (0)

#define KEY_SHIFT 40 /* as aiocann/_submission.py: key << 40 | sequence number */
enum { LAUNCHERS = 2, PER_LAUNCHER = 1500, FAULT_EVERY = 64, MARKER_EVERY = 10, DRAINERS = 2 };

static aclrtContext g_ctx;
static aiocann_cq *g_cq;
static aclrtFuncHandle g_write, g_divide, g_wait;

/* ---- kernel arguments: each list in memory of its own, as aiocann's KernelArgs ---- */

typedef struct {
    void *handle_mem, *buf;
    aclrtArgsHandle args;
} arglist;

static void args_begin(arglist *a, aclrtFuncHandle fn, size_t user_size)
{
    size_t hs = 0, bs = 0;
    OK(aclrtKernelArgsGetHandleMemSize(fn, &hs));
    OK(aclrtKernelArgsGetMemSize(fn, user_size, &bs));
    a->handle_mem = aligned_alloc(64, (hs + 63) / 64 * 64);
    a->buf = aligned_alloc(64, (bs + 63) / 64 * 64);
    a->args = a->handle_mem;
    OK(aclrtKernelArgsInitByUserMem(fn, a->args, a->buf, bs));
}

static void args_add(arglist *a, const void *value, size_t size)
{
    aclrtParamHandle p;
    OK(aclrtKernelArgsAppend(a->args, (void *)value, size, &p));
}

static void args_end(arglist *a) { OK(aclrtKernelArgsFinalize(a->args)); }

static void args_free(arglist *a)
{
    free(a->handle_mem);
    free(a->buf);
}

/* write_value(out, index, value) / divide(out, divisor) / wait_us(out, usec) */
static void write_args(arglist *a, void *out, uint32_t index, int32_t value)
{
    args_begin(a, g_write, 24);
    args_add(a, &out, sizeof out);
    args_add(a, &index, sizeof index);
    args_add(a, &value, sizeof value);
    args_end(a);
}

static void divide_args(arglist *a, void *out, int32_t divisor)
{
    args_begin(a, g_divide, 16);
    args_add(a, &out, sizeof out);
    args_add(a, &divisor, sizeof divisor);
    args_end(a);
}

static void wait_args(arglist *a, void *out, uint64_t usec)
{
    args_begin(a, g_wait, 16);
    args_add(a, &out, sizeof out);
    args_add(a, &usec, sizeof usec);
    args_end(a);
}

/* ---- streams registered with the queue ---- */

typedef struct {
    aclrtStream stream;
    aiocann_cq_stream *qs;
    uint64_t key, next;
} registered;

static void stream_open(registered *r, aiocann_reporter *rep, uint64_t key)
{
    aclError rc = ACL_SUCCESS;
    OK(aclrtCreateStream(&r->stream));
    OK(aclrtSubscribeReport(aiocann_reporter_thread_id(rep), r->stream));
    r->qs = aiocann_cq_stream_new(g_cq, r->stream, key, &rc);
    OK(rc);
    r->key = key;
    r->next = (key << KEY_SHIFT) + 1;
}

/* Synchronize reports the stream's last failure once (continue-on-failure): `failed` says
 * whether a launch on it faulted. */
static void stream_close(registered *r, aiocann_reporter *rep, int failed)
{
    aclError rc = aclrtSynchronizeStream(r->stream);
    CHECK(rc == (failed ? ACL_ERROR_RT_AICORE_EXCEPTION : ACL_SUCCESS));
    aclGetRecentErrMsg();
    OK(aclrtUnSubscribeReport(aiocann_reporter_thread_id(rep), r->stream));
    OK(aclrtDestroyStream(r->stream));
}

/* ---- 1. launches from two threads, faults among them, two drainers ---- */

typedef struct {
    registered reg;
    void *out;
    int index;
} launcher;

/* What each token must resolve to: 0, or the faulting kernel's code. */
static int32_t g_expect[LAUNCHERS][PER_LAUNCHER + 1];
static atomic_int g_seen[LAUNCHERS][PER_LAUNCHER + 1];
static atomic_int g_done, g_halfway;

static void *launch_main(void *arg)
{
    launcher *l = arg;
    /* Args are built here, so this thread's task ids and context are the launching ones. */
    OK(aiocann_bind_context(g_ctx));
    arglist ok_args, fault_args;
    write_args(&ok_args, l->out, (uint32_t)l->index, 7);
    divide_args(&fault_args, l->out, 0);
    for (int i = 1; i <= PER_LAUNCHER; i++) {
        uint64_t token = l->reg.next++;
        int launched = 0;
        aclError rc;
        /* The expectation is written before the submission: its completion may be drained
         * before the submitting call returns. */
        if (i % MARKER_EVERY == 0) {
            g_expect[l->index][i] = 0;
            rc = aiocann_cq_enqueue(l->reg.qs, token, 0); /* a marker: no work of its own */
        } else if (i % FAULT_EVERY == 0) {
            g_expect[l->index][i] = ACL_ERROR_RT_AICORE_EXCEPTION;
            rc = aiocann_launch(l->reg.qs, g_divide, 1, NULL, fault_args.args, token, &launched);
        } else {
            g_expect[l->index][i] = 0;
            rc = aiocann_launch(l->reg.qs, g_write, 1, NULL, ok_args.args, token, &launched);
        }
        OK(rc);
        if (i == PER_LAUNCHER / 2)
            atomic_fetch_add(&g_halfway, 1);
    }
    args_free(&ok_args);
    args_free(&fault_args);
    return NULL;
}

typedef struct {
    int id;
    uint64_t last[LAUNCHERS]; /* the last token of each stream this drainer saw */
} drainer;

static void *drain_main(void *arg)
{
    drainer *d = arg;
    /* Start once both launchers are half done, so that the queue has grown past its initial
     * capacity and the report thread pushes while it is drained. */
    while (atomic_load(&g_halfway) < LAUNCHERS) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    uint64_t tokens[64];
    int32_t status[64];
    char *messages[64];
    struct pollfd pfd = {.fd = aiocann_cq_fd(g_cq), .events = POLLIN};
    int idle = 0;
    while (atomic_load(&g_done) < LAUNCHERS * PER_LAUNCHER && idle < 300) {
        if (poll(&pfd, 1, 100) == 0) {
            idle++; /* 30 s without a completion: give up (reported as missing tokens) */
            continue;
        }
        idle = 0;
        size_t n = aiocann_cq_drain(g_cq, tokens, status, messages, 64);
        for (size_t i = 0; i < n; i++) {
            if (tokens[i] & AIOCANN_TASK_REPORT) { /* the early word of a failure: for a faulting launch */
                uint64_t t = tokens[i] & ~AIOCANN_TASK_REPORT;
                uint64_t k = t >> KEY_SHIFT, q = t & ((1ull << KEY_SHIFT) - 1);
                CHECK(k >= 1 && k <= LAUNCHERS && q >= 1 && q <= PER_LAUNCHER);
                if (k >= 1 && k <= LAUNCHERS && q >= 1 && q <= PER_LAUNCHER)
                    CHECK(status[i] == ACL_ERROR_RT_AICORE_EXCEPTION && g_expect[k - 1][q] == status[i]);
                aiocann_free(messages[i]);
                continue;
            }
            uint64_t key = tokens[i] >> KEY_SHIFT, seq = tokens[i] & ((1ull << KEY_SHIFT) - 1);
            CHECK(!(tokens[i] & AIOCANN_STREAM_REPORT)); /* every task here is ours */
            CHECK(key >= 1 && key <= LAUNCHERS && seq >= 1 && seq <= PER_LAUNCHER);
            if (key >= 1 && key <= LAUNCHERS && seq >= 1 && seq <= PER_LAUNCHER) {
                int l = (int)key - 1;
                CHECK(tokens[i] > d->last[l]); /* in submission order, per stream */
                d->last[l] = tokens[i];
                CHECK(atomic_fetch_add(&g_seen[l][seq], 1) == 0); /* exactly once */
                if (status[i] != g_expect[l][seq])
                    fprintf(stderr, "token %d/%llu: status %d, expected %d\n", l, (unsigned long long)seq, status[i],
                            g_expect[l][seq]);
                CHECK(status[i] == g_expect[l][seq]);
                if (status[i])
                    CHECK(messages[i] && strstr(messages[i], "divide")); /* names the failed kernel */
                atomic_fetch_add(&g_done, 1);
            }
            aiocann_free(messages[i]);
        }
    }
    return NULL;
}

static void test_launches_faults_and_concurrent_drains(aiocann_reporter *rep, void *out)
{
    launcher launchers[LAUNCHERS];
    drainer drainers[DRAINERS];
    pthread_t lt[LAUNCHERS], dt[DRAINERS];
    for (int d = 0; d < DRAINERS; d++) {
        memset(&drainers[d], 0, sizeof drainers[d]);
        drainers[d].id = d;
        pthread_create(&dt[d], NULL, drain_main, &drainers[d]);
    }
    for (int l = 0; l < LAUNCHERS; l++) {
        stream_open(&launchers[l].reg, rep, (uint64_t)l + 1);
        launchers[l].out = out;
        launchers[l].index = l;
        pthread_create(&lt[l], NULL, launch_main, &launchers[l]);
    }
    for (int l = 0; l < LAUNCHERS; l++)
        pthread_join(lt[l], NULL);
    for (int d = 0; d < DRAINERS; d++)
        pthread_join(dt[d], NULL);
    CHECK(atomic_load(&g_done) == LAUNCHERS * PER_LAUNCHER);
    int missing = 0;
    for (int l = 0; l < LAUNCHERS; l++)
        for (int i = 1; i <= PER_LAUNCHER; i++)
            missing += atomic_load(&g_seen[l][i]) != 1;
    CHECK(missing == 0);
    for (int l = 0; l < LAUNCHERS; l++) {
        stream_close(&launchers[l].reg, rep, 1);
        aiocann_cq_stream_free(launchers[l].reg.qs);
    }
}

/* Drains until `want` completions of `key` arrived (at most 30 s); returns how many did. */
static int drain_key(aiocann_cq *cq, uint64_t key, int want, int *failed)
{
    uint64_t tokens[64];
    int32_t status[64];
    char *messages[64];
    struct pollfd pfd = {.fd = aiocann_cq_fd(cq), .events = POLLIN};
    int got = 0;
    for (int waited = 0; got < want && waited < 300;) {
        if (poll(&pfd, 1, 100) == 0) {
            waited++;
            continue;
        }
        size_t n = aiocann_cq_drain(cq, tokens, status, messages, 64);
        for (size_t i = 0; i < n; i++) {
            if (tokens[i] >> KEY_SHIFT == key) {
                got++;
                *failed += status[i] != 0;
            }
            aiocann_free(messages[i]);
        }
    }
    return got;
}

/* ---- 2. a stream record freed while its completions are still to come ---- */

static void test_stream_freed_with_completions_in_flight(aiocann_reporter *rep, void *out)
{
    registered r;
    stream_open(&r, rep, 3);
    OK(aiocann_bind_context(g_ctx));
    arglist slow, quick;
    wait_args(&slow, out, 20000); /* 20 ms: the completions below are still to come */
    write_args(&quick, out, 3, 3);
    int launched = 0;
    OK(aiocann_launch(r.qs, g_wait, 1, NULL, slow.args, r.next++, &launched));
    for (int i = 0; i < 50; i++)
        OK(aiocann_launch(r.qs, g_write, 1, NULL, quick.args, r.next++, &launched));
    OK(aiocann_cq_enqueue(r.qs, r.next++, 0));
    aiocann_cq_stream_free(r.qs); /* the owner lets go: the records in flight keep it alive */
    int failed = 0;
    CHECK(drain_key(g_cq, 3, 52, &failed) == 52);
    CHECK(failed == 0);
    stream_close(&r, rep, 0);
    args_free(&slow);
    args_free(&quick);
}

/* ---- 3. the stream record and the queue freed with failed completions still queued ---- */

static void test_queue_freed_with_completions_queued(aiocann_reporter *rep, void *out)
{
    aclError rc = ACL_SUCCESS;
    aiocann_cq *cq = aiocann_cq_new(g_ctx, &rc);
    OK(rc);
    aclrtStream stream;
    OK(aclrtCreateStream(&stream));
    OK(aclrtSubscribeReport(aiocann_reporter_thread_id(rep), stream));
    aiocann_cq_stream *qs = aiocann_cq_stream_new(cq, stream, 4, &rc);
    OK(rc);
    arglist fault;
    divide_args(&fault, out, 0);
    int launched = 0;
    for (uint64_t i = 1; i <= 3; i++)
        OK(aiocann_launch(qs, g_divide, 1, NULL, fault.args, (4ull << KEY_SHIFT) + i, &launched));
    CHECK(aclrtSynchronizeStream(stream) == ACL_ERROR_RT_AICORE_EXCEPTION); /* reported there too, once */
    aclGetRecentErrMsg();
    for (int waited = 0; aiocann_cq_pending(cq) < 6 && waited < 3000; waited++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    /* Three failures, each as its early report and its completion, with their messages, undrained. */
    CHECK(aiocann_cq_pending(cq) == 6);
    arglist slow, quick;
    wait_args(&slow, out, 20000);
    write_args(&quick, out, 4, 4);
    OK(aiocann_launch(qs, g_wait, 1, NULL, slow.args, (4ull << KEY_SHIFT) + 4, &launched));
    for (uint64_t i = 5; i <= 8; i++)
        OK(aiocann_launch(qs, g_write, 1, NULL, quick.args, (4ull << KEY_SHIFT) + i, &launched));
    /* Both owners let go while five completions are still to come: the last of them frees
     * the record, then the queue with everything in it (AddressSanitizer checks for leaks). */
    aiocann_cq_stream_free(qs);
    aiocann_cq_free(cq);
    OK(aclrtSynchronizeStream(stream));
    OK(aclrtUnSubscribeReport(aiocann_reporter_thread_id(rep), stream));
    OK(aclrtDestroyStream(stream)); /* the reports already handed over still run */
    args_free(&fault);
    args_free(&slow);
    args_free(&quick);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s RUNTIME_LIBRARY TEST_KERNELS_SO\n", argv[0]);
        return 2;
    }
    char err[2048];
    if (aiocann_load(argv[1], err, sizeof err) != 0) {
        fprintf(stderr, "aiocann_load: %s\n", err);
        return 2;
    }
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    OK(aclrtGetCurrentContext(&g_ctx));
    aiocann_forget_context(); /* set behind aiocann_bind_context's back */
    aclError rc = ACL_SUCCESS;
    aiocann_reporter *rep = aiocann_reporter_start(g_ctx, &rc);
    OK(rc);
    g_cq = aiocann_cq_new(g_ctx, &rc);
    OK(rc);
    if (!rep || !g_cq)
        return 1;
    aclrtBinHandle bin;
    OK(aclrtBinaryLoadFromFile(argv[2], NULL, &bin));
    OK(aclrtBinaryGetFunction(bin, "write_value", &g_write));
    OK(aclrtBinaryGetFunction(bin, "divide", &g_divide));
    OK(aclrtBinaryGetFunction(bin, "wait_us", &g_wait));
    void *out;
    OK(aclrtMalloc(&out, 64, ACL_MEM_MALLOC_HUGE_FIRST));

    test_launches_faults_and_concurrent_drains(rep, out);
    test_stream_freed_with_completions_in_flight(rep, out);
    test_queue_freed_with_completions_queued(rep, out);

    OK(aclrtFree(out));
    OK(aclrtBinaryUnLoad(bin));
    aiocann_cq_free(g_cq);
    OK(aiocann_reporter_stop(rep));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    if (g_failures) {
        fprintf(stderr, "cq_test: %d check(s) failed\n", g_failures);
        return 1;
    }
    printf("cq_test: all checks passed\n");
    return 0;
}
