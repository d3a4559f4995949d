/*
 * aiocann simulator: C tests, linked against the standalone libascendcl.so exactly as an ACL
 * program would be. The suite runs the seed flow (load a binary, build args with a
 * placeholder, launch, update, relaunch) and the concurrent paths (many streams, events,
 * callbacks processed by a subscribed thread, stream capture replayed and updated from several
 * threads, notifies, stream and device abort, core limits, streams parked on waits) so that ThreadSanitizer and
 * AddressSanitizer builds exercise every lock and lifetime of the runtime.
 *
 *   sim_test KERNEL_SO        (KERNEL_SO built by aiocann.sim.build_kernel from
 *                              examples/kernels/vector_add.c)
 * Exit status 0 when every check passed.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"

#include "check.h"
#define OK(expr) CHECK_RC(expr, ACL_SUCCESS)

typedef struct {
    uint32_t total;
    uint32_t pad;
} add_tiling;

enum { N = 100000, BLOCKS = 8 };

/* One launch of add_custom on stream s: z = x + y over `total` elements. */
static void build_args(aclrtFuncHandle fn, void *handle_mem, void *buf, size_t buf_size, void *x, void *y, void *z,
                       uint32_t total, aclrtArgsHandle *out, aclrtParamHandle *z_param)
{
    aclrtArgsHandle args = handle_mem;
    aclrtParamHandle p, ph;
    OK(aclrtKernelArgsInitByUserMem(fn, args, buf, buf_size));
    OK(aclrtKernelArgsAppend(args, &x, sizeof x, &p));
    OK(aclrtKernelArgsAppend(args, &y, sizeof y, &p));
    OK(aclrtKernelArgsAppend(args, &z, sizeof z, z_param));
    OK(aclrtKernelArgsAppendPlaceHolder(args, &ph));
    void *tiling = NULL;
    OK(aclrtKernelArgsGetPlaceHolderBuffer(args, ph, sizeof(add_tiling), &tiling));
    if (tiling)
        ((add_tiling *)tiling)->total = total;
    OK(aclrtKernelArgsFinalize(args));
    *out = args;
}

static void test_seed_flow(const char *kernel_path)
{
    aclrtStream stream;
    OK(aclrtCreateStream(&stream));
    aclrtBinHandle bin;
    OK(aclrtBinaryLoadFromFile(kernel_path, NULL, &bin));
    aclrtFuncHandle fn;
    OK(aclrtBinaryGetFunction(bin, "add_custom", &fn));
    CHECK_RC(aclrtBinaryGetFunction(bin, "no_such_kernel", &fn), ACL_ERROR_RT_KERNEL_LOOKUP);
    OK(aclrtBinaryGetFunction(bin, "add_custom", &fn));

    size_t bytes = N * sizeof(float);
    float *hx = malloc(bytes), *hy = malloc(bytes), *hz = malloc(bytes);
    for (int i = 0; i < N; i++) {
        hx[i] = (float)i;
        hy[i] = (float)(2 * i);
    }
    void *dx, *dy, *dz, *dw;
    OK(aclrtMalloc(&dx, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&dy, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&dz, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&dw, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy(dx, bytes, hx, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMemcpy(dy, bytes, hy, bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    size_t handle_size, buf_size;
    OK(aclrtKernelArgsGetHandleMemSize(fn, &handle_size));
    OK(aclrtKernelArgsGetMemSize(fn, 4 * 8 + sizeof(add_tiling), &buf_size));
    void *handle_mem = aligned_alloc(64, (handle_size + 63) / 64 * 64);
    void *buf = malloc(buf_size);
    aclrtArgsHandle args;
    aclrtParamHandle z_param;
    build_args(fn, handle_mem, buf, buf_size, dx, dy, dz, N, &args, &z_param);

    OK(aclrtLaunchKernelWithConfig(fn, BLOCKS, stream, NULL, args, NULL));
    /* ParaUpdate + Finalize + relaunch: the second launch writes w instead of z. */
    OK(aclrtKernelArgsParaUpdate(args, z_param, &dw, sizeof dw));
    CHECK_RC(aclrtLaunchKernelWithConfig(fn, BLOCKS, stream, NULL, args, NULL), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtKernelArgsFinalize(args));
    OK(aclrtLaunchKernelWithConfig(fn, BLOCKS, stream, NULL, args, NULL));
    OK(aclrtSynchronizeStream(stream));

    OK(aclrtMemcpy(hz, bytes, dz, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += hz[i] != (float)(3 * i);
    CHECK(bad == 0);
    memset(hz, 0, bytes);
    OK(aclrtMemcpy(hz, bytes, dw, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += hz[i] != (float)(3 * i);
    CHECK(bad == 0);

    /* Wrong directions and bad pointers are errors, never crashes. */
    CHECK_RC(aclrtMemcpy(dz, bytes, hx, bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_RC(aclrtMemcpy(dz, bytes + 4096, hx, bytes + 4096, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_RC(aclrtMemcpy(dz, bytes, (void *)16, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_SYS_DMA);

    OK(aclrtBinaryUnLoad(bin));
    CHECK_RC(aclrtLaunchKernelWithConfig(fn, BLOCKS, stream, NULL, args, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    OK(aclrtFree(dx));
    OK(aclrtFree(dy));
    OK(aclrtFree(dz));
    OK(aclrtFree(dw));
    CHECK_RC(aclrtFree(dw), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtDestroyStream(stream));
    CHECK_RC(aclrtDestroyStream(stream), ACL_ERROR_RT_INVALID_HANDLE);
    free(handle_mem);
    free(buf);
    free(hx);
    free(hy);
    free(hz);
}

/* ---- callbacks processed by a subscribed thread, many streams, events across streams ---- */

typedef struct {
    atomic_int stop;
    pthread_mutex_t lock;
    int count;
} reporter;

static void *report_main(void *arg)
{
    reporter *r = arg;
    OK(aclrtSetDevice(0));
    while (!r->stop) {
        aclError rc = aclrtProcessReport(50);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_REPORT_TIMEOUT && rc != ACL_ERROR_RT_THREAD_SUBSCRIBE) {
            fprintf(stderr, "aclrtProcessReport: %d\n", rc);
            g_failures++;
            break;
        }
    }
    OK(aclrtResetDevice(0));
    return NULL;
}

static void on_done(void *user)
{
    reporter *r = user;
    pthread_mutex_lock(&r->lock);
    r->count++;
    pthread_mutex_unlock(&r->lock);
}

enum { STREAMS = 6, ROUNDS = 40 };

static void test_concurrency(const char *kernel_path)
{
    aclrtBinHandle bin;
    aclrtFuncHandle fn;
    OK(aclrtBinaryLoadFromFile(kernel_path, NULL, &bin));
    OK(aclrtBinaryGetFunction(bin, "add_custom", &fn));

    reporter r = {.count = 0};
    atomic_init(&r.stop, 0);
    pthread_mutex_init(&r.lock, NULL);
    pthread_t tid;
    pthread_create(&tid, NULL, report_main, &r);

    aclrtStream streams[STREAMS];
    aclrtEvent events[STREAMS];
    void *x[STREAMS], *z[STREAMS];
    const size_t n = 4096, bytes = n * sizeof(float);
    float *host;
    OK(aclrtMallocHost((void **)&host, bytes));
    for (size_t i = 0; i < n; i++)
        host[i] = 1.0f;
    for (int s = 0; s < STREAMS; s++) {
        OK(aclrtCreateStream(&streams[s]));
        OK(aclrtCreateEvent(&events[s]));
        OK(aclrtSubscribeReport((uint64_t)tid, streams[s]));
        OK(aclrtMalloc(&x[s], bytes, ACL_MEM_MALLOC_HUGE_FIRST));
        OK(aclrtMalloc(&z[s], bytes, ACL_MEM_MALLOC_HUGE_FIRST));
        OK(aclrtMemcpyAsync(x[s], bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, streams[s]));
        OK(aclrtMemsetAsync(z[s], bytes, 0, bytes, streams[s]));
    }
    for (int round = 0; round < ROUNDS; round++) {
        for (int s = 0; s < STREAMS; s++) {
            aclrtArgsHandle args;
            aclrtParamHandle p, ph;
            OK(aclrtKernelArgsInit(fn, &args));
            OK(aclrtKernelArgsAppend(args, &x[s], 8, &p));
            OK(aclrtKernelArgsAppend(args, &z[s], 8, &p)); /* z = x + z: accumulates */
            OK(aclrtKernelArgsAppend(args, &z[s], 8, &p));
            OK(aclrtKernelArgsAppendPlaceHolder(args, &ph));
            void *t;
            OK(aclrtKernelArgsGetPlaceHolderBuffer(args, ph, sizeof(add_tiling), &t));
            ((add_tiling *)t)->total = (uint32_t)n;
            OK(aclrtKernelArgsFinalize(args));
            /* Each stream also waits for its neighbour's previous round. */
            if (round > 0)
                OK(aclrtStreamWaitEvent(streams[s], events[(s + 1) % STREAMS]));
            OK(aclrtLaunchKernelWithConfig(fn, 4, streams[s], NULL, args, NULL));
            OK(aclrtLaunchCallback(on_done, &r, round % 2 ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK, streams[s]));
        }
        for (int s = 0; s < STREAMS; s++)
            OK(aclrtRecordEvent(events[s], streams[s]));
    }
    OK(aclrtSynchronizeDevice());
    float *out = malloc(bytes);
    for (int s = 0; s < STREAMS; s++) {
        OK(aclrtMemcpy(out, bytes, z[s], bytes, ACL_MEMCPY_DEVICE_TO_HOST));
        int bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += out[i] != (float)ROUNDS;
        CHECK(bad == 0);
    }
    free(out);
    /* Non-blocking callbacks may still be queued after the synchronize: wait for them. */
    for (int spin = 0; spin < 1000; spin++) {
        pthread_mutex_lock(&r.lock);
        int c = r.count;
        pthread_mutex_unlock(&r.lock);
        if (c == STREAMS * ROUNDS)
            break;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&r.lock);
    CHECK(r.count == STREAMS * ROUNDS);
    pthread_mutex_unlock(&r.lock);

    for (int s = 0; s < STREAMS; s++) {
        OK(aclrtUnSubscribeReport((uint64_t)tid, streams[s]));
        CHECK_RC(aclrtLaunchCallback(on_done, &r, ACL_CALLBACK_NO_BLOCK, streams[s]), ACL_ERROR_RT_STREAM_NO_CB_REG);
        OK(aclrtDestroyEvent(events[s]));
        OK(aclrtDestroyStream(streams[s]));
        OK(aclrtFree(x[s]));
        OK(aclrtFree(z[s]));
    }
    OK(aclrtFreeHost(host));
    r.stop = 1;
    pthread_join(tid, NULL);
    pthread_mutex_destroy(&r.lock);
    OK(aclrtBinaryUnLoad(bin));
}

/* Issue 11's queries racing the work they observe: a thread polls utilization, event and wait
 * status, stream attributes, pointer attributes and resource counts while the main thread
 * launches, waits on events across streams, copies in 2-D and force-destroys busy streams. */
typedef struct poller {
    atomic_int stop;
    aclrtStream stream;
    aclrtEvent event;
    void *dev;
    atomic_int polls;
} poller;

static void *poll_main(void *arg)
{
    poller *p = arg;
    OK(aclrtSetDevice(0));
    while (!atomic_load(&p->stop)) {
        aclrtUtilizationInfo u = {0};
        OK(aclrtGetDeviceUtilizationRate(0, &u));
        CHECK(u.cubeUtilization >= 0 && u.cubeUtilization <= 100);
        aclrtEventWaitStatus ws;
        aclrtEventStatus es;
        OK(aclrtQueryEventWaitStatus(p->event, &ws));
        OK(aclrtQueryEvent(p->event, &es));
        aclrtStreamAttrValue v;
        OK(aclrtGetStreamAttribute(p->stream, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
        aclrtPtrAttributes pa;
        OK(aclrtPointerGetAttributes(p->dev, &pa));
        CHECK(pa.location.type == ACL_MEM_LOCATION_TYPE_DEVICE);
        uint32_t n;
        OK(aclrtGetStreamAvailableNum(&n));
        OK(aclrtGetEventAvailNum(&n));
        int32_t status;
        OK(aclrtDevicePeerAccessStatus(0, 1, &status));
        atomic_fetch_add(&p->polls, 1);
    }
    OK(aclrtResetDevice(0));
    return NULL;
}

static void test_queries_under_load(const char *kernel_path)
{
    aclrtBinHandle bin;
    aclrtFuncHandle fn;
    OK(aclrtBinaryLoadFromFile(kernel_path, NULL, &bin));
    OK(aclrtBinaryGetFunction(bin, "add_custom", &fn));
    const size_t n = 4096, bytes = n * sizeof(float);
    aclrtStream s1, s2;
    aclrtEvent ev;
    void *x, *z, *host;
    OK(aclrtCreateStream(&s1));
    OK(aclrtCreateStream(&s2));
    OK(aclrtCreateEvent(&ev));
    OK(aclrtMalloc(&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMallocAlign32(&z, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMallocHost(&host, bytes));
    memset(host, 0, bytes);
    OK(aclrtMemset(x, bytes, 0, bytes));

    poller p = {.stream = s1, .event = ev, .dev = x};
    atomic_init(&p.stop, 0);
    atomic_init(&p.polls, 0);
    pthread_t tid;
    pthread_create(&tid, NULL, poll_main, &p);
    /* The work starts once the poller is polling: otherwise the 40 rounds can be over before a
     * loaded machine first runs the poller, and nothing raced. */
    while (atomic_load(&p.polls) == 0)
        sched_yield();
    for (int round = 0; round < 40; round++) {
        aclrtArgsHandle args;
        aclrtParamHandle prm, ph;
        OK(aclrtKernelArgsInit(fn, &args));
        OK(aclrtKernelArgsAppend(args, &x, 8, &prm));
        OK(aclrtKernelArgsAppend(args, &x, 8, &prm));
        OK(aclrtKernelArgsAppend(args, &z, 8, &prm));
        OK(aclrtKernelArgsAppendPlaceHolder(args, &ph));
        void *t;
        OK(aclrtKernelArgsGetPlaceHolderBuffer(args, ph, sizeof(add_tiling), &t));
        ((add_tiling *)t)->total = (uint32_t)n;
        OK(aclrtKernelArgsFinalize(args));
        OK(aclrtLaunchKernelWithConfig(fn, 4, s1, NULL, args, NULL));
        OK(aclrtRecordEvent(ev, s1));
        OK(aclrtStreamWaitEvent(s2, ev));
        /* 2-D: 16 rows of 64 floats, every other row of the host buffer */
        OK(aclrtMemcpy2dAsync(z, 256, host, 512, 256, 8, ACL_MEMCPY_HOST_TO_DEVICE, s2));
        aclrtStreamAttrValue tag = {.userCustomTag = (uint32_t)round};
        OK(aclrtSetStreamAttribute(s1, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &tag));
        /* A busy stream destroyed by force: its queue is discarded while the poller looks on. */
        aclrtStream doomed;
        OK(aclrtCreateStream(&doomed));
        OK(aclrtStreamWaitEvent(doomed, ev));
        OK(aclrtMemsetAsync(z, bytes, 0, bytes, doomed));
        OK(aclrtRecordEvent(ev, doomed));
        OK(aclrtDestroyStreamForce(doomed));
        if (round % 10 == 0) {
            OK(aclrtDeviceEnablePeerAccess(1, 0));
            OK(aclrtDeviceDisablePeerAccess(1));
        }
    }
    OK(aclrtSynchronizeDeviceWithTimeout(20000));
    atomic_store(&p.stop, 1);
    pthread_join(tid, NULL);
    CHECK(atomic_load(&p.polls) > 0);
    aclrtEventWaitStatus ws;
    OK(aclrtQueryEventWaitStatus(ev, &ws));
    CHECK(ws == ACL_EVENT_WAIT_STATUS_COMPLETE);
    OK(aclrtDestroyEvent(ev));
    OK(aclrtDestroyStream(s1));
    OK(aclrtDestroyStream(s2));
    OK(aclrtFree(x));
    OK(aclrtFree(z));
    OK(aclrtFreeHost(host));
    OK(aclrtBinaryUnLoad(bin));
}

/* ---- stream capture: a cross-stream capture replayed from several threads at once while
 * another thread updates its task group, then destroyed under running replays, and a
 * capture left in progress for the device reset to tear down ---- */

enum { REPLAYERS = 4, REPLAYS = 25, UPDATES = 10, CAP_N = 4096 };

typedef struct {
    aclrtContext ctx;
    aclmdlRI model;
    aclrtStream stream;
} replayer;

typedef struct {
    aclrtContext ctx;
    aclrtFuncHandle fn;
    aclrtTaskGrp grp;
    void *x, *y, *out[2];
} updater;

/* z = x + y over CAP_N floats, on stream s (the thread's system-managed args handle). */
static aclError launch_add(aclrtFuncHandle fn, aclrtStream s, void *x, void *y, void *z)
{
    aclrtArgsHandle args;
    aclrtParamHandle p, ph;
    OK(aclrtKernelArgsInit(fn, &args));
    OK(aclrtKernelArgsAppend(args, &x, 8, &p));
    OK(aclrtKernelArgsAppend(args, &y, 8, &p));
    OK(aclrtKernelArgsAppend(args, &z, 8, &p));
    OK(aclrtKernelArgsAppendPlaceHolder(args, &ph));
    void *t;
    OK(aclrtKernelArgsGetPlaceHolderBuffer(args, ph, sizeof(add_tiling), &t));
    ((add_tiling *)t)->total = CAP_N;
    OK(aclrtKernelArgsFinalize(args));
    return aclrtLaunchKernelWithConfig(fn, 4, s, NULL, args, NULL);
}

static void *replay_main(void *arg)
{
    replayer *r = arg;
    OK(aclrtSetCurrentContext(r->ctx));
    for (int i = 0; i < REPLAYS; i++)
        OK(aclmdlRIExecuteAsync(r->model, r->stream));
    OK(aclrtSynchronizeStream(r->stream));
    return NULL;
}

static void *update_main(void *arg)
{
    updater *u = arg;
    OK(aclrtSetCurrentContext(u->ctx));
    aclrtStream s;
    OK(aclrtCreateStream(&s));
    for (int i = 0; i < UPDATES; i++) { /* the group's kernel writes out[0], out[1], out[0], ... */
        OK(aclmdlRICaptureTaskUpdateBegin(s, u->grp));
        OK(launch_add(u->fn, s, u->x, u->y, u->out[(i + 1) % 2]));
        OK(aclmdlRICaptureTaskUpdateEnd(s));
    }
    OK(aclrtSynchronizeStream(s));
    OK(aclrtDestroyStream(s));
    return NULL;
}

static int count_not(void *dev, float want)
{
    float *h = malloc(CAP_N * sizeof(float));
    OK(aclrtMemcpy(h, CAP_N * sizeof(float), dev, CAP_N * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST));
    int bad = 0;
    for (int i = 0; i < CAP_N; i++)
        bad += h[i] != want;
    free(h);
    return bad;
}

static void *sync_copy_main(void *arg)
{
    /* Another thread, while a GLOBAL capture is in progress: no synchronous copy. */
    aclrtContext ctx = arg;
    OK(aclrtSetCurrentContext(ctx));
    float v = 0;
    void *dev;
    OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_RC(aclrtMemcpy(dev, 64, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    OK(aclmdlRICaptureThreadExchangeMode(&mode));
    OK(aclrtMemcpy(dev, 64, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtFree(dev));
    return NULL;
}

static void test_capture(const char *kernel_path)
{
    aclrtBinHandle bin;
    aclrtFuncHandle fn;
    OK(aclrtBinaryLoadFromFile(kernel_path, NULL, &bin));
    OK(aclrtBinaryGetFunction(bin, "add_custom", &fn));
    aclrtContext ctx;
    OK(aclrtGetCurrentContext(&ctx));
    const size_t bytes = CAP_N * sizeof(float);
    float *host;
    OK(aclrtMallocHost((void **)&host, bytes));
    for (int i = 0; i < CAP_N; i++)
        host[i] = 1.0f;
    void *x, *y, *z1, *z2, *w;
    void **bufs[] = {&x, &y, &z1, &z2, &w};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        OK(aclrtMalloc(bufs[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy(x, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    /* s0 (origin): y = 2 (memset + copy), record e1 | s1 joins: z1 = x + y, record e2 |
     * s0 waits e2, then a task group: z2 = x + z1. */
    aclrtStream s0, s1;
    aclrtEvent e1, e2;
    OK(aclrtCreateStream(&s0));
    OK(aclrtCreateStream(&s1));
    OK(aclrtCreateEventExWithFlag(&e1, ACL_EVENT_SYNC));
    OK(aclrtCreateEventExWithFlag(&e2, ACL_EVENT_SYNC));
    for (int i = 0; i < CAP_N; i++)
        host[i] = 2.0f;
    OK(aclmdlRICaptureBegin(s0, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    pthread_t copier;
    pthread_create(&copier, NULL, sync_copy_main, ctx);
    OK(aclrtMemsetAsync(y, bytes, 0, bytes, s0));
    OK(aclrtMemcpyAsync(y, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, s0));
    OK(aclrtRecordEvent(e1, s0));
    OK(aclrtStreamWaitEvent(s1, e1));
    OK(launch_add(fn, s1, x, y, z1));
    OK(aclrtRecordEvent(e2, s1));
    OK(aclrtStreamWaitEvent(s0, e2));
    OK(aclmdlRICaptureTaskGrpBegin(s0));
    OK(launch_add(fn, s0, x, z1, z2));
    aclrtTaskGrp grp;
    OK(aclmdlRICaptureTaskGrpEnd(s0, &grp));
    pthread_join(copier, NULL);
    CHECK_RC(aclrtSynchronizeStream(s1), ACL_ERROR_RT_STREAM_CAPTURED);
    aclmdlRI model;
    OK(aclmdlRICaptureEnd(s0, &model));
    OK(aclrtSynchronizeEvent(e2));

    /* Replays from several threads at once, while another thread updates the group. */
    replayer r[REPLAYERS];
    pthread_t rt[REPLAYERS], ut;
    updater u = {ctx, fn, grp, x, z1, {z2, w}};
    for (int i = 0; i < REPLAYERS; i++) {
        r[i] = (replayer){ctx, model, NULL};
        OK(aclrtCreateStream(&r[i].stream));
        pthread_create(&rt[i], NULL, replay_main, &r[i]);
    }
    pthread_create(&ut, NULL, update_main, &u);
    for (int i = 0; i < REPLAYERS; i++)
        pthread_join(rt[i], NULL);
    pthread_join(ut, NULL);
    /* Now that all is settled: an update on the executing stream itself precedes the replay
     * behind it, so each replay writes where the latest update says. */
    void *targets[] = {w, z2};
    for (int i = 0; i < 2; i++) {
        OK(aclrtMemsetAsync(targets[i], bytes, 0, bytes, s0));
        OK(aclmdlRICaptureTaskUpdateBegin(s0, grp));
        OK(launch_add(fn, s0, x, z1, targets[i]));
        OK(aclmdlRICaptureTaskUpdateEnd(s0));
        OK(aclmdlRIExecuteAsync(model, s0));
        OK(aclrtSynchronizeStream(s0));
        CHECK(count_not(targets[i], 4.0f) == 0);
    }
    CHECK(count_not(z1, 3.0f) == 0);

    /* Destroy waits for the replays still running. */
    for (int i = 0; i < REPLAYERS; i++)
        for (int j = 0; j < 5; j++)
            OK(aclmdlRIExecuteAsync(model, r[i].stream));
    OK(aclmdlRIDestroy(model));
    CHECK_RC(aclmdlRIExecuteAsync(model, s0), ACL_ERROR_RT_INVALID_HANDLE);
    for (int i = 0; i < REPLAYERS; i++) {
        OK(aclrtSynchronizeStream(r[i].stream));
        OK(aclrtDestroyStream(r[i].stream));
    }

    /* Left for the device reset to tear down: a ready model whose group a stream is updating,
     * and a cross-stream capture in progress. */
    OK(aclmdlRICaptureBegin(s0, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    OK(aclmdlRICaptureTaskGrpBegin(s0));
    OK(launch_add(fn, s0, x, y, z1));
    OK(aclmdlRICaptureTaskGrpEnd(s0, &grp));
    OK(aclmdlRICaptureEnd(s0, &model));
    aclrtStream upd;
    OK(aclrtCreateStream(&upd));
    OK(aclmdlRICaptureTaskUpdateBegin(upd, grp));
    OK(launch_add(fn, upd, x, y, w));
    OK(aclmdlRIExecuteAsync(model, s1));
    OK(aclmdlRICaptureBegin(s0, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    OK(aclrtRecordEvent(e1, s0));
    OK(aclrtStreamWaitEvent(s1, e1));
    OK(launch_add(fn, s1, x, y, z1));
    OK(aclrtFreeHost(host));
}

/* ---- issue 11, device share: notifies ordering streams of several threads, abort of streams
 * and of the device with waits pending, core limits, overflow switches and operator timeouts
 * changed under running launches, a notify shared through its key, AI CPU registrations ---- */

enum { RING = 4, RING_ROUNDS = 12, RINGS = 2 };

typedef struct {
    aclrtContext ctx;
    aclrtFuncHandle fn;
    void *x;
} ring_arg;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* RING streams in a ring: stream i waits for notify i, adds x to its z, records notify i+1.
 * One record of notify 0 starts it; after the last round notify 0 stays set (batch reset). */
static void *ring_main(void *arg)
{
    ring_arg *a = arg;
    OK(aclrtSetCurrentContext(a->ctx));
    aclrtStream s[RING], kick;
    aclrtNotify n[RING];
    void *z[RING];
    OK(aclrtCreateStream(&kick));
    for (int i = 0; i < RING; i++) {
        OK(aclrtCreateStream(&s[i]));
        OK(aclrtCreateNotify(&n[i], ACL_NOTIFY_DEFAULT));
        OK(aclrtMalloc(&z[i], CAP_N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
        OK(aclrtMemset(z[i], CAP_N * sizeof(float), 0, CAP_N * sizeof(float)));
    }
    for (int round = 0; round < RING_ROUNDS; round++) {
        for (int i = 0; i < RING; i++) {
            OK(aclrtWaitAndResetNotify(n[i], s[i], 0));
            OK(launch_add(a->fn, s[i], a->x, z[i], z[i]));
            OK(aclrtRecordNotify(n[(i + 1) % RING], s[i]));
        }
    }
    OK(aclrtRecordNotify(n[0], kick));
    for (int i = 0; i < RING; i++)
        OK(aclrtSynchronizeStream(s[i]));
    OK(aclrtNotifyBatchReset(n, RING));
    for (int i = 0; i < RING; i++) {
        CHECK(count_not(z[i], (float)RING_ROUNDS) == 0);
        OK(aclrtDestroyNotify(n[i]));
        OK(aclrtDestroyStream(s[i]));
        OK(aclrtFree(z[i]));
    }
    OK(aclrtDestroyStream(kick));
    return NULL;
}

typedef struct {
    aclrtContext ctx;
    aclrtStream stream; /* NULL: synchronize the device */
    aclError rc;
} sync_arg;

static void *sync_main(void *arg)
{
    sync_arg *a = arg;
    OK(aclrtSetCurrentContext(a->ctx));
    a->rc = a->stream ? aclrtSynchronizeStream(a->stream) : aclrtSynchronizeDevice();
    return NULL;
}

typedef struct {
    aclrtContext ctx;
    aclrtStream stream;
    atomic_int stop;
    atomic_int turns;
} churn_arg;

/* Changes what launches read when they are submitted while the main thread launches: the
 * overflow switch, the operator timeout, core limits of the device and the thread. */
static void *churn_main(void *arg)
{
    churn_arg *a = arg;
    OK(aclrtSetCurrentContext(a->ctx));
    while (!atomic_load(&a->stop)) {
        int turn = atomic_load(&a->turns);
        uint32_t flag = (uint32_t)(turn % 2), v = 0, ms = 0;
        uint64_t actual = 0;
        OK(aclrtSetStreamOverflowSwitch(a->stream, flag));
        OK(aclrtGetStreamOverflowSwitch(a->stream, &flag));
        OK(aclrtSetOpExecuteTimeOutV2((uint64_t)(turn % 3) * 5000000u, &actual));
        OK(aclrtGetOpExecuteTimeout(&ms));
        CHECK(ms >= 4295);
        OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, (uint32_t)(turn % 8)));
        OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
        if (turn % 2)
            OK(aclrtUseStreamResInCurrentThread(a->stream));
        else
            OK(aclrtUnuseStreamResInCurrentThread(a->stream));
        atomic_fetch_add(&a->turns, 1);
    }
    OK(aclrtResetDeviceResLimit(0));
    OK(aclrtSetOpExecuteTimeOut(0));
    return NULL;
}

typedef struct {
    aclrtContext ctx;
    aclrtBinHandle bin;
    aclrtFuncHandle fn;
} cpu_reg_arg;

static void *cpu_reg_main(void *arg)
{
    cpu_reg_arg *a = arg;
    OK(aclrtSetCurrentContext(a->ctx));
    OK(aclrtRegisterCpuFunc(a->bin, "RunCpuKernel", "CpuOp", &a->fn));
    return NULL;
}

static void test_device_share(const char *kernel_path)
{
    aclrtContext ctx;
    OK(aclrtGetCurrentContext(&ctx));
    aclrtBinHandle bin;
    aclrtFuncHandle fn;
    OK(aclrtBinaryLoadFromFile(kernel_path, NULL, &bin));
    OK(aclrtBinaryGetFunction(bin, "add_custom", &fn));
    const size_t bytes = CAP_N * sizeof(float);
    float *host = malloc(bytes);
    for (int i = 0; i < CAP_N; i++)
        host[i] = 1.0f;
    void *x, *z;
    OK(aclrtMalloc(&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&z, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy(x, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));

    /* Notify rings on several threads at once. */
    pthread_t rings[RINGS];
    ring_arg ra = {ctx, fn, x};
    for (int i = 0; i < RINGS; i++)
        pthread_create(&rings[i], NULL, ring_main, &ra);
    for (int i = 0; i < RINGS; i++)
        pthread_join(rings[i], NULL);

    /* A stream abort ends a pending wait whose notify is already destroyed (the wait holds
     * it), drops the launch behind it, and the synchronize waiting meanwhile gets 107023. */
    aclrtStream s, t;
    aclrtNotify never;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateStream(&t));
    OK(aclrtMemset(z, bytes, 0, bytes));
    OK(aclrtCreateNotify(&never, ACL_NOTIFY_DEFAULT));
    OK(aclrtWaitAndResetNotify(never, s, 0));
    OK(launch_add(fn, s, x, z, z));
    OK(aclrtDestroyNotify(never));
    sync_arg sa = {ctx, s, ACL_SUCCESS};
    pthread_t syncer;
    pthread_create(&syncer, NULL, sync_main, &sa);
    sleep_ms(50);
    OK(aclrtStreamAbort(s));
    pthread_join(syncer, NULL);
    CHECK(sa.rc == ACL_ERROR_RT_STREAM_ABORT || sa.rc == ACL_SUCCESS); /* it may start after */
    OK(aclrtSynchronizeStream(s));
    CHECK(count_not(z, 0.0f) == 0);
    /* ... and a running launch: its blocks are interrupted or skipped. */
    for (int i = 0; i < 20; i++)
        OK(launch_add(fn, s, x, z, z));
    OK(aclrtStreamAbort(s));
    OK(aclrtSynchronizeStream(s));
    OK(launch_add(fn, s, x, x, z)); /* usable again: z = 2 */
    OK(aclrtSynchronizeStream(s));
    CHECK(count_not(z, 2.0f) == 0);

    /* A device abort with waits pending on two streams and a device synchronize waiting. */
    aclrtNotify a, b;
    OK(aclrtCreateNotify(&a, ACL_NOTIFY_DEFAULT));
    OK(aclrtCreateNotify(&b, ACL_NOTIFY_DEVICE_USE_ONLY));
    OK(aclrtWaitAndResetNotify(a, s, 0));
    OK(aclrtWaitAndResetNotify(b, t, 0));
    OK(launch_add(fn, t, x, z, z));
    sync_arg da = {ctx, NULL, ACL_SUCCESS};
    pthread_create(&syncer, NULL, sync_main, &da);
    sleep_ms(50);
    CHECK_RC(aclrtDeviceTaskAbort(0, 36u * 60u * 1000u + 1u), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtDeviceTaskAbort(0, 10000));
    pthread_join(syncer, NULL);
    CHECK(da.rc == ACL_ERROR_RT_DEVICE_TASK_ABORT || da.rc == ACL_SUCCESS);
    OK(aclrtSynchronizeDevice());
    CHECK(count_not(z, 2.0f) == 0);

    /* The same notify in two handles, as another process would import it: a record through
     * one releases a wait on the other. */
    char key[128];
    aclrtNotify twin;
    CHECK_RC(aclrtNotifyGetExportKey(a, key, 64, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtNotifyGetExportKey(a, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    CHECK_RC(aclrtNotifyGetExportKey(a, key, sizeof key, 0), ACL_ERROR_RT_INTERNAL_ERROR);
    OK(aclrtNotifyImportByKey(&twin, key, ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT));
    OK(aclrtWaitAndResetNotify(a, s, 0));
    OK(aclrtRecordNotify(twin, t));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtDestroyNotify(a));
    CHECK_RC(aclrtNotifyImportByKey(&twin, key, 0), ACL_ERROR_RT_PARAM_INVALID); /* gone with a */
    OK(aclrtDestroyNotify(twin));
    OK(aclrtDestroyNotify(b));

    /* Launches while another thread changes the switch, the timeout and the core limits. */
    churn_arg ca = {.ctx = ctx, .stream = s};
    atomic_init(&ca.stop, 0);
    atomic_init(&ca.turns, 0);
    pthread_t churner;
    pthread_create(&churner, NULL, churn_main, &ca);
    OK(aclrtMemset(z, bytes, 0, bytes));
    void *status;
    OK(aclrtMalloc(&status, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    /* At least 30 launches, and on until the other thread has had a few turns. */
    for (int i = 0; i < 30 || atomic_load(&ca.turns) < 3; i++) {
        OK(launch_add(fn, i % 2 ? s : t, x, x, z)); /* no overflow: z = 2 every time */
        OK(aclrtGetOverflowStatus(status, 64, t));
        OK(aclrtResetOverflowStatus(s));
        if (i >= 30)
            sleep_ms(1);
    }
    atomic_store(&ca.stop, 1);
    pthread_join(churner, NULL);
    CHECK(atomic_load(&ca.turns) >= 3);
    OK(aclrtSynchronizeDevice());
    CHECK(count_not(z, 2.0f) == 0);
    uint32_t limit = 0;
    OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &limit));
    CHECK(limit > 0);
    OK(aclrtFree(status));

    /* AI CPU registrations of one op type from two threads: one function. */
    static const char so_bytes[] = "an AI CPU kernel library";
    aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE, .value = {.cpuKernelMode = 2}};
    aclrtBinaryLoadOptions opts = {&opt, 1};
    aclrtBinHandle cpu;
    OK(aclrtBinaryLoadFromData(so_bytes, sizeof so_bytes, &opts, &cpu));
    cpu_reg_arg r1 = {ctx, cpu, NULL}, r2 = {ctx, cpu, NULL};
    pthread_t c1, c2;
    pthread_create(&c1, NULL, cpu_reg_main, &r1);
    pthread_create(&c2, NULL, cpu_reg_main, &r2);
    pthread_join(c1, NULL);
    pthread_join(c2, NULL);
    CHECK(r1.fn && r1.fn == r2.fn);
    aclrtArgsHandle cpu_args;
    OK(aclrtKernelArgsInit(r1.fn, &cpu_args));
    OK(aclrtKernelArgsFinalize(cpu_args));
    CHECK_RC(aclrtLaunchKernelWithConfig(r1.fn, 1, s, NULL, cpu_args, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    OK(aclrtBinaryUnLoad(cpu));
    CHECK_RC(aclrtRegisterCpuFunc(bin, "f", "k", &r1.fn), ACL_ERROR_RT_PARAM_INVALID);

    /* Groups and topology: an A2 has no groups; every pair of devices is linked by HCCS. */
    uint32_t count = 0;
    uint64_t topo = 0;
    CHECK_RC(aclrtGetGroupCount(&count), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    CHECK(aclrtCreateGroupInfo() == NULL);
    OK(aclrtGetDevicesTopo(0, 1, &topo));
    CHECK(topo == ACL_RT_DEVS_TOPOLOGY_HCCS);

    OK(aclrtDestroyStream(s));
    OK(aclrtDestroyStream(t));
    OK(aclrtFree(x));
    OK(aclrtFree(z));
    free(host);
    OK(aclrtBinaryUnLoad(bin));
}

/* ASCEND_RT_VISIBLE_DEVICES, read at aclInit (the Python tests go through every rule; here the
 * parsing runs under the sanitizers, long values included). */
static void test_visible_devices(void)
{
    static const struct {
        const char *value;
        int count; /* -1: no device (aclrtGetDeviceCount fails) */
        int32_t first_logic_id;
    } cases[] = {
        {"1", 1, 1},      {"0,1", 2, 0},  {"1,0", -1, 0}, {"1,1", -1, 0}, {"", -1, 0},
        {"1, 0", 1, 1},   {"0,1,1", 2, 0}, {"9", -1, 0},
    };
    char long_value[300];
    memset(long_value, '0', sizeof long_value - 2);
    long_value[sizeof long_value - 2] = '1'; /* past the 128 characters the runtime reads */
    long_value[sizeof long_value - 1] = '\0';
    setenv("AIOCANN_SIM_DEVICES", "2", 1);
    for (size_t i = 0; i <= sizeof cases / sizeof cases[0]; i++) {
        const char *value = i < sizeof cases / sizeof cases[0] ? cases[i].value : long_value;
        int want = i < sizeof cases / sizeof cases[0] ? cases[i].count : 1; /* 128 zeros: device 0 */
        int32_t logic = -1, first = i < sizeof cases / sizeof cases[0] ? cases[i].first_logic_id : 0;
        uint32_t count = 0;
        setenv("ASCEND_RT_VISIBLE_DEVICES", value, 1);
        OK(aclInit(NULL));
        if (want < 0) {
            CHECK_RC(aclrtGetDeviceCount(&count), ACL_ERROR_RT_NO_DEVICE);
            CHECK_RC(aclrtSetDevice(0), ACL_ERROR_RT_INVALID_DEVICEID);
        } else {
            OK(aclrtGetDeviceCount(&count));
            CHECK((int)count == want);
            OK(aclrtGetLogicDevIdByUserDevId(0, &logic));
            CHECK(logic == first);
            OK(aclrtSetDevice(0));
            OK(aclrtResetDevice(0));
            CHECK_RC(aclrtSetDevice(want), ACL_ERROR_RT_INVALID_DEVICEID);
        }
        OK(aclFinalize());
    }
    unsetenv("ASCEND_RT_VISIBLE_DEVICES");
}

/* Parking (executor.c): on a pool of two workers, 48 streams wait at once -- on an event whose
 * record sits behind a notify wait, on blocking callbacks a reporter thread processes while
 * they park, and on values another stream writes later -- while an abort ends one parked wait
 * and the records, reports and writes end the others concurrently. Every stream then finishes
 * in order (the task behind each wait ran after it), and nothing is left parked at the end. */
enum { PARKERS = 48 };

/* Begins capturing, on `cap`, a model of `depth` IFs nested in one another (each condition's
 * value 1 by default: every IF takes its branch), sub-model d + 1 captured on lv[d]: m[0] is the
 * model, m[depth] the innermost sub-model, whose capture on lv[depth - 1] stays open for the
 * caller's tasks. */
static void begin_nested_ifs(aclrtStream cap, const aclrtStream *lv, int depth, aclmdlRI *m)
{
    aclmdlRICaptureStatus cst;
    OK(aclmdlRICaptureBegin(cap, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    OK(aclmdlRICaptureGetInfo(cap, &cst, &m[0]));
    for (int d = 0; d < depth; d++) {
        aclmdlRICondHandle h;
        OK(aclmdlRICondHandleCreate(m[d], 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
        aclmdlRICondTaskParams p = {h, ACL_MODEL_RI_COND_TYPE_IF, 1, &m[d + 1]};
        OK(aclmdlRIAddCondTask(p, d ? lv[d - 1] : cap, 0));
        OK(aclmdlRICaptureToModelRIBegin(lv[d], m[d + 1], ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    }
}

/* Ends what begin_nested_ifs began, the innermost capture first; returns the model. */
static aclmdlRI end_nested_ifs(aclrtStream cap, const aclrtStream *lv, int depth)
{
    aclmdlRI ended, model = NULL;
    for (int d = depth - 1; d >= 0; d--)
        OK(aclmdlRICaptureEnd(lv[d], &ended));
    OK(aclmdlRICaptureEnd(cap, &model));
    return model;
}

/* The process's threads (/proc/self/task). */
static int threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* The parking test's end of a step: every stream done, and its marks in host. */
static void settle(aclrtStream *st, aclrtStream gate, aclrtStream release, const uint64_t *marks, uint64_t *host)
{
    for (int i = 0; i < PARKERS; i++)
        OK(aclrtSynchronizeStream(st[i]));
    OK(aclrtSynchronizeStream(gate));
    OK(aclrtSynchronizeStream(release));
    OK(aclrtMemcpy(host, PARKERS * 8, marks, PARKERS * 8, ACL_MEMCPY_DEVICE_TO_HOST));
}

/* Of the racing rounds (1 to 200, each marking slot round % PARKERS), the last PARKERS whose
 * mark is not theirs. */
static int rounds_wrong(const uint64_t *host)
{
    int bad = 0;
    for (int round = 200 - PARKERS + 1; round <= 200; round++)
        bad += host[round % PARKERS] != (uint64_t)round;
    return bad;
}

static void test_parking(void)
{
    setenv("AIOCANN_SIM_STREAM_WORKERS", "2", 1);
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    reporter r = {.count = 0};
    atomic_init(&r.stop, 0);
    pthread_mutex_init(&r.lock, NULL);
    pthread_t tid;
    pthread_create(&tid, NULL, report_main, &r);

    aclrtNotify gate_open;
    aclrtEvent e;
    aclrtStream gate, release, st[PARKERS];
    uint64_t *vals, *marks;
    OK(aclrtCreateNotify(&gate_open, 0));
    OK(aclrtCreateEvent(&e));
    OK(aclrtCreateStream(&gate));
    OK(aclrtCreateStream(&release));
    OK(aclrtMalloc((void **)&vals, PARKERS * 8, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc((void **)&marks, PARKERS * 8, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(vals, PARKERS * 8, 0, PARKERS * 8));
    OK(aclrtMemset(marks, PARKERS * 8, 0, PARKERS * 8));
    OK(aclrtWaitAndResetNotify(gate_open, gate, 0));
    OK(aclrtRecordEvent(e, gate)); /* behind the notify wait: not before the gate opens */
    for (int i = 0; i < PARKERS; i++) {
        OK(aclrtCreateStream(&st[i]));
        if (i % 3 == 0) {
            OK(aclrtStreamWaitEvent(st[i], e));
        } else if (i % 3 == 1) {
            OK(aclrtSubscribeReport((uint64_t)tid, st[i]));
            OK(aclrtLaunchCallback(on_done, &r, ACL_CALLBACK_BLOCK, st[i]));
        } else {
            OK(aclrtValueWait(&vals[i], 1, 1 /* EQ */, st[i]));
        }
        OK(aclrtValueWrite(&marks[i], (uint64_t)i + 1, 0, st[i])); /* runs after the wait */
    }
    OK(aclrtStreamAbort(st[0])); /* parked on the event: its wait ends, its mark is dropped */
    for (int i = 2; i < PARKERS; i += 3)
        OK(aclrtValueWrite(&vals[i], 1, 0, release));
    OK(aclrtRecordNotify(gate_open, release));
    for (int i = 0; i < PARKERS; i++)
        OK(aclrtSynchronizeStream(st[i]));
    OK(aclrtSynchronizeStream(gate));
    OK(aclrtSynchronizeStream(release));
    uint64_t host[PARKERS];
    OK(aclrtMemcpy(host, sizeof host, marks, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    int bad = 0;
    for (int i = 0; i < PARKERS; i++)
        bad += host[i] != (i == 0 ? 0u : (uint64_t)i + 1);
    CHECK(bad == 0);
    pthread_mutex_lock(&r.lock);
    CHECK(r.count == PARKERS / 3);
    pthread_mutex_unlock(&r.lock);
    /* Waits racing the records, notifies and writes that end them (a wake-up between a wait's
     * check and its park must not be lost): rounds of a record and a value write on one
     * stream, each waited for on another, and a notify ping-pong between two streams (a notify
     * is one bit: the handshake keeps two records from meeting before a wait). */
    aclrtNotify ping, pong;
    OK(aclrtCreateNotify(&ping, 0));
    OK(aclrtCreateNotify(&pong, 0));
    OK(aclrtMemset(vals, PARKERS * 8, 0, PARKERS * 8));
    for (int round = 1; round <= 200; round++) {
        aclrtStream w = st[round % PARKERS], p = st[(round + 1) % PARKERS];
        OK(aclrtRecordEvent(e, p));
        OK(aclrtStreamWaitEvent(w, e));
        OK(aclrtRecordNotify(ping, gate));
        OK(aclrtWaitAndResetNotify(ping, release, 0));
        OK(aclrtRecordNotify(pong, release));
        OK(aclrtWaitAndResetNotify(pong, gate, 0));
        /* A slot per pair of streams: its writes all come from one stream, in order, so its
         * value only grows (one shared slot could be overwritten with a smaller round). */
        OK(aclrtValueWrite(&vals[round % PARKERS], (uint64_t)round, 0, p));
        OK(aclrtValueWait(&vals[round % PARKERS], (uint64_t)round, 0 /* GEQ */, w));
        OK(aclrtValueWrite(&marks[round % PARKERS], (uint64_t)round, 0, w));
    }
    settle(st, gate, release, marks, host);
    CHECK(rounds_wrong(host) == 0);
    /* Replays that park (capture.c, sim_replay_can_park): a graph that waits on an EXTERNAL
     * event, then a value, then a blocking callback, replayed on every stream while those are
     * released from other streams; one replay is aborted while it is parked. */
    aclrtEvent ext;
    aclrtStream cap;
    aclmdlRI model;
    OK(aclrtCreateEventWithFlag(&ext, ACL_EVENT_EXTERNAL));
    OK(aclrtCreateStream(&cap));
    OK(aclrtSubscribeReport((uint64_t)tid, cap));
    OK(aclrtMemset(vals, PARKERS * 8, 0, PARKERS * 8));
    OK(aclrtMemset(marks, PARKERS * 8, 0, PARKERS * 8));
    OK(aclmdlRICaptureBegin(cap, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    OK(aclrtStreamWaitEvent(cap, ext));
    OK(aclrtValueWait(&vals[0], 1, 0 /* GEQ */, cap));
    OK(aclrtLaunchCallback(on_done, &r, ACL_CALLBACK_BLOCK, cap));
    OK(aclrtValueWrite(&marks[0], 7, 0, cap));
    OK(aclmdlRICaptureEnd(cap, &model));
    OK(aclrtWaitAndResetNotify(gate_open, gate, 0));
    OK(aclrtRecordEvent(ext, gate)); /* behind the gate: every replay's wait is for it */
    pthread_mutex_lock(&r.lock);
    int callbacks = r.count;
    pthread_mutex_unlock(&r.lock);
    for (int i = 0; i < PARKERS; i++)
        OK(aclmdlRIExecuteAsync(model, st[i]));
    OK(aclrtStreamAbort(st[0])); /* parked at the event wait, or not started: nothing more of it runs */
    OK(aclrtRecordNotify(gate_open, release));
    OK(aclrtValueWrite(&vals[0], 1, 0, release));
    settle(st, gate, release, marks, host);
    CHECK(host[0] == 7);
    pthread_mutex_lock(&r.lock);
    CHECK(r.count - callbacks == PARKERS - 1);
    pthread_mutex_unlock(&r.lock);
    /* A replay parks after one of its tasks failed (a memset of freed memory): it keeps the
     * failure, reports it when done, and one aborted while parked leaks nothing. */
    aclmdlRI failing;
    void *freed;
    OK(aclrtMalloc(&freed, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(marks, PARKERS * 8, 0, PARKERS * 8));
    OK(aclmdlRICaptureBegin(cap, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    OK(aclrtMemsetAsync(freed, 64, 1, 64, cap));
    OK(aclrtStreamWaitEvent(cap, ext));
    OK(aclrtValueWrite(&marks[0], 9, 0, cap));
    OK(aclmdlRICaptureEnd(cap, &failing));
    OK(aclrtFree(freed));
    OK(aclrtWaitAndResetNotify(gate_open, gate, 0));
    OK(aclrtRecordEvent(ext, gate));
    for (int i = 0; i < PARKERS; i++)
        OK(aclmdlRIExecuteAsync(failing, st[i]));
    sleep_ms(20);
    OK(aclrtStreamAbort(st[0]));
    OK(aclrtRecordNotify(gate_open, release));
    int failed = 0;
    for (int i = 1; i < PARKERS; i++)
        failed += aclrtSynchronizeStream(st[i]) != ACL_SUCCESS;
    CHECK(failed == PARKERS - 1);
    OK(aclrtSynchronizeStream(st[0]));
    OK(aclrtSynchronizeStream(gate));
    OK(aclrtSynchronizeStream(release));
    OK(aclrtMemcpy(host, 8, marks, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(host[0] == 9);
    OK(aclmdlRIDestroy(failing));
    /* Waits inside condition tasks' sub-models park too (capture.c goes back down to them,
     * without evaluating the conditions again): on 8 streams, each replaying a model of its own
     * (a model's condition values are its replays' to share) -- a WHILE whose body runs an IF
     * whose branch waits for a value. No thread joins while they all wait; then every loop ends
     * after one turn, each of its items run once. */
    enum { LOOPS = 8 };
    aclrtStream sub, sub2;
    aclmdlRI looped[LOOPS];
    uint64_t *zero;
    OK(aclrtCreateStream(&sub));
    OK(aclrtCreateStream(&sub2));
    OK(aclrtMalloc((void **)&zero, 8, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(zero, 8, 0, 8));
    OK(aclrtMemset(vals, PARKERS * 8, 0, PARKERS * 8));
    OK(aclrtMemset(marks, PARKERS * 8, 0, PARKERS * 8));
    for (int i = 0; i < LOOPS; i++) {
        aclmdlRI top, body[1], then[1], ended;
        aclmdlRICaptureStatus cst;
        aclmdlRICondHandle wh, ih;
        uint64_t *wcond;
        OK(aclmdlRICaptureBegin(cap, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
        OK(aclmdlRICaptureGetInfo(cap, &cst, &top));
        OK(aclmdlRICondHandleCreate(top, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &wh));
        OK(aclmdlRICondHandleGetCondPtr(wh, &wcond));
        aclmdlRICondTaskParams wp = {wh, ACL_MODEL_RI_COND_TYPE_WHILE, 1, body};
        OK(aclmdlRIAddCondTask(wp, cap, 0));
        OK(aclmdlRICaptureToModelRIBegin(sub, body[0], ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
        OK(aclmdlRICondHandleCreate(body[0], 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &ih));
        aclmdlRICondTaskParams ip = {ih, ACL_MODEL_RI_COND_TYPE_IF, 1, then};
        OK(aclmdlRIAddCondTask(ip, sub, 0));
        OK(aclmdlRICaptureToModelRIBegin(sub2, then[0], ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
        OK(aclrtValueWait(&vals[0], 1, 0 /* GEQ */, sub2));
        OK(aclrtValueWrite(&marks[2 * i], 5, 0, sub2));
        OK(aclmdlRICaptureEnd(sub2, &ended));
        OK(aclrtValueWrite(&marks[2 * i + 1], 3, 0, sub));
        OK(aclrtMemcpyAsync(wcond, 8, zero, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, sub)); /* one turn */
        OK(aclmdlRICaptureEnd(sub, &ended));
        OK(aclmdlRICaptureEnd(cap, &looped[i]));
    }
    int idle = threads_now();
    for (int i = 0; i < LOOPS; i++)
        OK(aclmdlRIExecuteAsync(looped[i], st[i]));
    sleep_ms(50);
    CHECK(threads_now() == idle); /* 8 waits two sub-models down, no thread for any */
    OK(aclrtStreamAbort(st[0]));
    OK(aclrtValueWrite(&vals[0], 1, 0, release));
    for (int i = 0; i < LOOPS; i++)
        OK(aclrtSynchronizeStream(st[i]));
    OK(aclrtSynchronizeStream(release));
    OK(aclrtMemcpy(host, sizeof host, marks, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    bad = 0;
    for (int i = 1; i < LOOPS; i++) /* st[0]'s replay was aborted */
        bad += host[2 * i] != 5 || host[2 * i + 1] != 3;
    CHECK(bad == 0);
    for (int i = 0; i < LOOPS; i++)
        OK(aclmdlRIDestroy(looped[i]));
    OK(aclrtFree(zero));
    OK(aclrtDestroyStream(sub));
    OK(aclrtDestroyStream(sub2));
    /* They park at any depth and after a failure in their own sub-model: 10 IFs nested in one
     * another (the replay keeps a level of its path for each), the innermost sub-model a
     * memset of freed memory, then a value wait, then a mark. Every replay parks at its wait
     * (before, a wait after a failure below the top level, or deeper than 8 levels, blocked its
     * worker: a thread joined for each); when released, each writes its mark and returns the
     * memset's failure, kept while it was parked, through every level -- as a replay that never
     * parked does. One is aborted while parked. */
    enum { DEEP = 10, DEEPS = 6 };
    aclrtStream lv[DEEP];
    aclmdlRI deep[DEEPS], plain;
    void *gone;
    for (int d = 0; d < DEEP; d++)
        OK(aclrtCreateStream(&lv[d]));
    OK(aclrtMalloc(&gone, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(vals, PARKERS * 8, 0, PARKERS * 8));
    OK(aclrtMemset(marks, PARKERS * 8, 0, PARKERS * 8));
    for (int i = 0; i <= DEEPS; i++) { /* DEEPS models that wait, and one whose wait is over */
        aclmdlRI m[DEEP + 1];
        begin_nested_ifs(cap, lv, DEEP, m);
        OK(aclrtMemsetAsync(gone, 64, 1, 64, lv[DEEP - 1]));
        OK(aclrtValueWait(&vals[i < DEEPS ? 0 : 1], 1, 0 /* GEQ */, lv[DEEP - 1]));
        OK(aclrtValueWrite(&marks[i], 4, 0, lv[DEEP - 1]));
        *(i < DEEPS ? &deep[i] : &plain) = end_nested_ifs(cap, lv, DEEP);
    }
    OK(aclrtFree(gone));
    OK(aclrtMemset(&vals[1], 8, 1, 1)); /* the plain model's wait is over before it starts */
    OK(aclmdlRIExecuteAsync(plain, st[DEEPS]));
    aclError plain_rc = aclrtSynchronizeStream(st[DEEPS]);
    CHECK(plain_rc != ACL_SUCCESS);
    idle = threads_now();
    for (int i = 0; i < DEEPS; i++)
        OK(aclmdlRIExecuteAsync(deep[i], st[i]));
    sleep_ms(50);
    CHECK(threads_now() == idle); /* DEEPS waits 10 sub-models down after a failure, no thread */
    OK(aclrtStreamAbort(st[0]));
    OK(aclrtValueWrite(&vals[0], 1, 0, release));
    OK(aclrtSynchronizeStream(release));
    (void)aclrtSynchronizeStream(st[0]); /* aborted while parked: it ends, whatever it returns */
    int same = 0;
    for (int i = 1; i < DEEPS; i++)
        same += aclrtSynchronizeStream(st[i]) == plain_rc;
    CHECK(same == DEEPS - 1);
    OK(aclrtMemcpy(host, sizeof host, marks, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    bad = host[DEEPS] != 4;
    for (int i = 1; i < DEEPS; i++)
        bad += host[i] != 4;
    CHECK(bad == 0);
    for (int i = 0; i < DEEPS; i++)
        OK(aclmdlRIDestroy(deep[i]));
    OK(aclmdlRIDestroy(plain));
    for (int d = 0; d < DEEP; d++)
        OK(aclrtDestroyStream(lv[d]));
    /* Sub-models nest at most 32 deep (capture.c, SIM_COND_MAX_DEPTH: a replay recurses on its
     * worker's stack, which overflowed at about 140): 32 levels replay, and a condition task
     * in the 32nd is refused with a clear error instead of a crash; the capture goes on. */
    enum { MAXD = 32 };
    aclrtStream nest[MAXD];
    aclmdlRI lm[MAXD + 1], limited;
    aclmdlRICondHandle extra;
    aclmdlRI extra_sub;
    for (int d = 0; d < MAXD; d++)
        OK(aclrtCreateStream(&nest[d]));
    OK(aclrtMemset(marks, 8, 0, 8));
    begin_nested_ifs(cap, nest, MAXD, lm);
    OK(aclmdlRICondHandleCreate(lm[MAXD], 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &extra));
    aclmdlRICondTaskParams too_deep = {extra, ACL_MODEL_RI_COND_TYPE_IF, 1, &extra_sub};
    CHECK(aclmdlRIAddCondTask(too_deep, nest[MAXD - 1], 0) == ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    CHECK(strstr(aclGetRecentErrMsg(), "nested at most 32 deep") != NULL);
    OK(aclrtValueWrite(&marks[0], 6, 0, nest[MAXD - 1]));
    limited = end_nested_ifs(cap, nest, MAXD);
    OK(aclmdlRIExecuteAsync(limited, st[0]));
    OK(aclrtSynchronizeStream(st[0]));
    OK(aclrtMemcpy(host, 8, marks, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(host[0] == 6);
    OK(aclmdlRIDestroy(limited));
    for (int d = 0; d < MAXD; d++)
        OK(aclrtDestroyStream(nest[d]));
    /* A model built by stream binding parks at its wait too (model_build.c keeps the replay's
     * schedule): with a label switch ahead of the wait, replayed on every stream, no thread
     * joins the pool while they all wait; one is aborted while parked. */
    aclrtStream bound;
    aclrtEvent bev;
    aclmdlRI built;
    aclrtLabel skip[2];
    aclrtLabelList labels;
    uint32_t *index;
    OK(aclrtCreateStreamWithConfig(&bound, 0, ACL_STREAM_PERSISTENT));
    OK(aclrtCreateEventWithFlag(&bev, ACL_EVENT_EXTERNAL));
    OK(aclrtMalloc((void **)&index, 4, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(index, 4, 0, 4)); /* branch 0: the wait and the mark */
    OK(aclrtMemset(marks, PARKERS * 8, 0, PARKERS * 8));
    OK(aclrtCreateLabel(&skip[0]));
    OK(aclrtCreateLabel(&skip[1]));
    OK(aclrtCreateLabelList(skip, 2, &labels));
    OK(aclmdlRIBuildBegin(&built, 0));
    OK(aclmdlRIBindStream(built, bound, 0x0U)); /* RT_MODEL_STREAM_FLAG_HEAD: acl_rt.h names no constant */
    OK(aclrtSwitchLabelByIndex(index, 2, labels, bound));
    OK(aclrtSetLabel(skip[0], bound));
    OK(aclrtStreamWaitEvent(bound, bev));
    OK(aclrtValueWrite(&marks[0], 5, 0, bound));
    OK(aclrtSetLabel(skip[1], bound));
    OK(aclmdlRIEndTask(built, bound));
    OK(aclmdlRIBuildEnd(built, NULL));
    OK(aclrtWaitAndResetNotify(gate_open, gate, 0));
    OK(aclrtRecordEvent(bev, gate));
    int before = threads_now();
    for (int i = 0; i < PARKERS; i++)
        OK(aclmdlRIExecuteAsync(built, st[i]));
    sleep_ms(50);
    CHECK(threads_now() == before); /* 48 waits, no thread for any */
    OK(aclrtStreamAbort(st[0]));
    OK(aclrtRecordNotify(gate_open, release));
    settle(st, gate, release, marks, host);
    CHECK(host[0] == 5);
    OK(aclmdlRIDestroy(built));
    OK(aclrtDestroyLabelList(labels));
    OK(aclrtDestroyLabel(skip[0]));
    OK(aclrtDestroyLabel(skip[1]));
    OK(aclrtFree(index));
    OK(aclrtDestroyStream(bound));
    OK(aclrtDestroyEvent(bev));
    OK(aclmdlRIDestroy(model));
    OK(aclrtUnSubscribeReport((uint64_t)tid, cap));
    OK(aclrtDestroyStream(cap));
    OK(aclrtDestroyEvent(ext));
    /* Waits on words another process may write park on the futex watch (futex_watch.c): IPC
     * events and an exported notify, recorded here in this process through the same futexes;
     * one stream is aborted while it is watched. Then rounds in which records race the waits. */
    aclrtEvent ipc[PARKERS];
    aclrtNotify shared, twin;
    char key[128];
    OK(aclrtCreateNotify(&shared, 0));
    OK(aclrtNotifyGetExportKey(shared, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    OK(aclrtNotifyImportByKey(&twin, key, ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT));
    OK(aclrtMemset(marks, PARKERS * 8, 0, PARKERS * 8));
    OK(aclrtWaitAndResetNotify(gate_open, gate, 0));
    for (int i = 0; i < PARKERS; i++) {
        OK(aclrtCreateEventExWithFlag(&ipc[i], ACL_EVENT_IPC));
        OK(aclrtRecordEvent(ipc[i], gate)); /* behind the gate: every wait below is for it */
    }
    for (int i = 0; i < PARKERS; i++) {
        if (i == PARKERS - 1)
            OK(aclrtWaitAndResetNotify(twin, st[i], 0));
        else
            OK(aclrtStreamWaitEvent(st[i], ipc[i]));
        OK(aclrtValueWrite(&marks[i], (uint64_t)i + 1, 0, st[i])); /* runs after the wait */
    }
    sleep_ms(20);
    OK(aclrtStreamAbort(st[1])); /* watched, or not started yet: its mark is dropped */
    OK(aclrtRecordNotify(gate_open, release));
    OK(aclrtRecordNotify(shared, release));
    settle(st, gate, release, marks, host);
    bad = 0;
    for (int i = 0; i < PARKERS; i++)
        bad += host[i] != (i == 1 ? 0u : (uint64_t)i + 1);
    CHECK(bad == 0);
    for (int round = 1; round <= 200; round++) {
        aclrtStream w = st[round % PARKERS], p = st[(round + 1) % PARKERS];
        OK(aclrtRecordEvent(ipc[round % PARKERS], p));
        OK(aclrtStreamWaitEvent(w, ipc[round % PARKERS]));
        OK(aclrtRecordNotify(shared, gate)); /* the handshake of the rounds above, shared */
        OK(aclrtWaitAndResetNotify(twin, release, 0));
        OK(aclrtRecordNotify(pong, release));
        OK(aclrtWaitAndResetNotify(pong, gate, 0));
        OK(aclrtValueWrite(&marks[round % PARKERS], (uint64_t)round, 0, w));
    }
    settle(st, gate, release, marks, host);
    CHECK(rounds_wrong(host) == 0);
    for (int i = 0; i < PARKERS; i++)
        OK(aclrtDestroyEvent(ipc[i]));
    OK(aclrtDestroyNotify(twin));
    OK(aclrtDestroyNotify(shared));
    OK(aclrtDestroyNotify(ping));
    OK(aclrtDestroyNotify(pong));
    for (int i = 0; i < PARKERS; i++) {
        if (i % 3 == 1)
            OK(aclrtUnSubscribeReport((uint64_t)tid, st[i]));
        OK(aclrtDestroyStream(st[i]));
    }
    OK(aclrtDestroyStream(gate));
    OK(aclrtDestroyStream(release));
    OK(aclrtDestroyEvent(e));
    OK(aclrtDestroyNotify(gate_open));
    OK(aclrtFree(vals));
    OK(aclrtFree(marks));
    r.stop = 1;
    pthread_join(tid, NULL);
    pthread_mutex_destroy(&r.lock);
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    unsetenv("AIOCANN_SIM_STREAM_WORKERS");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s KERNEL_SO\n", argv[0]);
        return 2;
    }
    int32_t major, minor, patch;
    OK(aclrtGetVersion(&major, &minor, &patch));
    CHECK(major == 1 && minor == 17);
    /* The runtime boots on first use: devices work before aclInit, as in CANN. */
    uint32_t ndev = 0;
    OK(aclrtGetDeviceCount(&ndev));
    CHECK(ndev >= 1);
    OK(aclrtSetDevice(0));
    OK(aclrtResetDevice(0));
    CHECK_RC(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR); /* once too often */
    OK(aclInit(NULL));
    CHECK_RC(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    OK(aclrtSetDevice(0));
    test_seed_flow(argv[1]);
    test_concurrency(argv[1]);
    test_queries_under_load(argv[1]);
    test_device_share(argv[1]); /* before test_capture, which leaves a capture in progress */
    test_capture(argv[1]);
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    CHECK_RC(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    test_parking();
    test_visible_devices();
    if (g_failures)
        fprintf(stderr, "%d check(s) failed\n", g_failures);
    else
        printf("sim_test: all checks passed\n");
    return g_failures ? 1 : 0;
}
