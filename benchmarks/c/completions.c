/*
 * P2's baseline: completions per second of a C program on the same runtime -- each launch
 * followed by a non-blocking completion callback, run by a report thread looping
 * aclrtProcessReport, no Python anywhere. The ceiling any binding's per-launch completions
 * can reach on this runtime.
 *
 *   completions KERNEL_SO COUNT STREAMS   -> prints completions per second
 *
 * P12's C reference is the same program in the shape of P12's 8-task side:
 *
 *   completions KERNEL_SO COUNT STREAMS EACH ROUNDS
 *
 * launches EACH at a time on a stream before it moves on to the next (P2's shape is EACH = 1:
 * round-robin), and prints the best of ROUNDS rounds, each stream having had one launch
 * (synchronized) first so that its runtime side exists before the count. With 1900 streams and
 * EACH = 10 every stream turn is short; with 8 streams and EACH = COUNT / 8 one turn runs a
 * stream's whole share: what a stream turn costs the runtime shows as the difference.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "acl/acl.h"

#define CHECK(x)                                                                                \
    do {                                                                                        \
        aclError rc_ = (x);                                                                     \
        if (rc_) {                                                                              \
            fprintf(stderr, "%s failed: %d (%s)\n", #x, rc_, aclGetRecentErrMsg());             \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

#define MAX_STREAMS 4096

static atomic_long g_done;
static atomic_int g_stop;
static aclrtContext g_ctx;

static void on_done(void *user)
{
    (void)user;
    atomic_fetch_add_explicit(&g_done, 1, memory_order_relaxed);
}

static void *report_main(void *arg)
{
    (void)arg;
    CHECK(aclrtSetCurrentContext(g_ctx));
    while (!atomic_load(&g_stop))
        aclrtProcessReport(100);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 6) {
        fprintf(stderr, "usage: %s KERNEL_SO COUNT STREAMS [EACH ROUNDS]\n", argv[0]);
        return 2;
    }
    long n = atol(argv[2]), each = argc == 6 ? atol(argv[4]) : 1;
    int ns = atoi(argv[3]), rounds = argc == 6 ? atoi(argv[5]) : 1;
    if (n < 1 || ns < 1 || ns > MAX_STREAMS || each < 1 || rounds < 1) {
        fprintf(stderr, "COUNT, EACH and ROUNDS must be at least 1, STREAMS 1..%d\n", MAX_STREAMS);
        return 2;
    }
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtGetCurrentContext(&g_ctx));
    pthread_t reporter;
    pthread_create(&reporter, NULL, report_main, NULL);
    static aclrtStream streams[MAX_STREAMS];
    for (int i = 0; i < ns; i++) {
        CHECK(aclrtCreateStream(&streams[i]));
        CHECK(aclrtSubscribeReport((uint64_t)reporter, streams[i]));
    }
    aclrtBinHandle bin;
    aclrtFuncHandle fn;
    CHECK(aclrtBinaryLoadFromFile(argv[1], NULL, &bin));
    CHECK(aclrtBinaryGetFunction(bin, "empty", &fn));
    aclrtArgsHandle args;
    aclrtParamHandle ph;
    uint64_t zero = 0;
    CHECK(aclrtKernelArgsInit(fn, &args));
    CHECK(aclrtKernelArgsAppend(args, &zero, sizeof zero, &ph));
    CHECK(aclrtKernelArgsFinalize(args));
    if (argc == 6) {
        for (int i = 0; i < ns; i++) {
            CHECK(aclrtLaunchKernelWithConfig(fn, 1, streams[i], NULL, args, NULL));
            CHECK(aclrtSynchronizeStream(streams[i]));
        }
    }
    double best = 0;
    for (int r = 0; r < rounds; r++) {
        atomic_store(&g_done, 0);
        double t0 = now();
        for (long i = 0; i < n; i++) {
            aclrtStream s = streams[(i / each) % ns];
            CHECK(aclrtLaunchKernelWithConfig(fn, 1, s, NULL, args, NULL));
            CHECK(aclrtLaunchCallback(on_done, NULL, ACL_CALLBACK_NO_BLOCK, s));
        }
        while (atomic_load_explicit(&g_done, memory_order_relaxed) < n)
            sched_yield();
        double rate = (double)n / (now() - t0);
        if (rate > best)
            best = rate;
    }
    printf("%.0f\n", best);
    atomic_store(&g_stop, 1);
    pthread_join(reporter, NULL);
    for (int i = 0; i < ns; i++) {
        CHECK(aclrtUnSubscribeReport((uint64_t)reporter, streams[i]));
        CHECK(aclrtDestroyStream(streams[i]));
    }
    CHECK(aclrtBinaryUnLoad(bin));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
