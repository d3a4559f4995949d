/*
 * P2's baseline: completions per second of a C program on the same runtime -- each launch
 * followed by a non-blocking completion callback, run by a report thread looping
 * aclrtProcessReport, no Python anywhere. The ceiling any binding's per-launch completions
 * can reach on this runtime.
 *
 *   completions KERNEL_SO COUNT STREAMS   -> prints completions per second
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
    if (argc != 4) {
        fprintf(stderr, "usage: %s KERNEL_SO COUNT STREAMS\n", argv[0]);
        return 2;
    }
    long n = atol(argv[2]);
    int ns = atoi(argv[3]);
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtGetCurrentContext(&g_ctx));
    pthread_t reporter;
    pthread_create(&reporter, NULL, report_main, NULL);
    aclrtStream streams[64];
    for (int i = 0; i < ns && i < 64; i++) {
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
    double t0 = now();
    for (long i = 0; i < n; i++) {
        aclrtStream s = streams[i % ns];
        CHECK(aclrtLaunchKernelWithConfig(fn, 1, s, NULL, args, NULL));
        CHECK(aclrtLaunchCallback(on_done, NULL, ACL_CALLBACK_NO_BLOCK, s));
    }
    while (atomic_load_explicit(&g_done, memory_order_relaxed) < n)
        sched_yield();
    double dt = now() - t0;
    printf("%.0f\n", (double)n / dt);
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
