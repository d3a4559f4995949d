/*
 * Issue 23's runtime functions, called from C as a CANN program calls them: every result code
 * and effect is checked, every failure printed with its line; the program exits with the number
 * of failed checks and prints "[SUCCESS]" when there are none. Built and run by
 * tests/toolkit/test_toolkit.py. argv[1]: a kernel binary holding test_kernels.c's `poke`.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl.h"
#include "acl/acl_dump.h"
#include "acl/acl_prof.h"
#include "acl/acl_tdt.h"
#include "acl/acl_tdt_queue.h"

static int g_failures;

#define EXPECT(cond)                                                                 \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "[FAILED] line %d: %s\n", __LINE__, #cond);              \
            g_failures++;                                                            \
        }                                                                            \
    } while (0)
#define EXPECT_RC(call, want)                                                        \
    do {                                                                             \
        aclError rc_ = (call);                                                       \
        if (rc_ != (aclError)(want)) {                                               \
            fprintf(stderr, "[FAILED] line %d: %s returned %d, want %d (%s)\n", __LINE__, #call, rc_, \
                    (int)(want), aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");  \
            g_failures++;                                                            \
        }                                                                            \
    } while (0)
#define OK(call) EXPECT_RC(call, ACL_SUCCESS)

/* ------------------------------------------------------------------ base helpers */

static void test_base(void)
{
    EXPECT(aclFloatToFloat16(1.0f) == 0x3C00);
    EXPECT(aclFloatToFloat16(-2.0f) == 0xC000);
    EXPECT(aclFloatToFloat16(65504.0f) == 0x7BFF);
    EXPECT(aclFloatToFloat16(1e6f) == 0x7C00);          /* overflow: infinity */
    EXPECT(aclFloatToFloat16(ldexpf(1.0f, -24)) == 0x0001); /* the smallest subnormal */
    EXPECT(aclFloatToFloat16(1.0f + ldexpf(1.0f, -11)) == 0x3C00); /* a tie: to even */
    EXPECT(aclFloatToFloat16(1.0f + 3 * ldexpf(1.0f, -11)) == 0x3C02);
    EXPECT((aclFloatToFloat16(NAN) & 0x7C00) == 0x7C00 && (aclFloatToFloat16(NAN) & 0x3FF) != 0);
    EXPECT(aclFloat16ToFloat(0x3C00) == 1.0f);
    EXPECT(aclFloat16ToFloat(0x0001) == ldexpf(1.0f, -24));
    EXPECT(aclFloat16ToFloat(0x7BFF) == 65504.0f);
    EXPECT(isinf(aclFloat16ToFloat(0xFC00)) && aclFloat16ToFloat(0xFC00) < 0);
    EXPECT(isnan(aclFloat16ToFloat(0x7E00)));
    for (uint32_t h = 0; h < 0x7C00; h++) /* every finite half survives a round trip */
        if (aclFloatToFloat16(aclFloat16ToFloat((aclFloat16)h)) != h) {
            EXPECT(!"fp16 round trip");
            break;
        }

    int payload = 7;
    aclDataBuffer *b = aclCreateDataBuffer(&payload, sizeof payload);
    EXPECT(b && aclGetDataBufferAddr(b) == &payload && aclGetDataBufferSizeV2(b) == sizeof payload);
    OK(aclUpdateDataBuffer(b, NULL, 0));
    EXPECT(aclGetDataBufferAddr(b) == NULL && aclGetDataBufferSizeV2(b) == 0);
    OK(aclDestroyDataBuffer(b));
    EXPECT_RC(aclDestroyDataBuffer(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclUpdateDataBuffer(NULL, NULL, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclGetDataBufferAddr(NULL) == NULL && aclGetDataBufferSizeV2(NULL) == 0);

    EXPECT(aclDataTypeSize(ACL_FLOAT) == 4 && aclDataTypeSize(ACL_FLOAT16) == 2 && aclDataTypeSize(ACL_BF16) == 2);
    EXPECT(aclDataTypeSize(ACL_INT8) == 1 && aclDataTypeSize(ACL_BOOL) == 1 && aclDataTypeSize(ACL_INT4) == 1);
    EXPECT(aclDataTypeSize(ACL_INT64) == 8 && aclDataTypeSize(ACL_DOUBLE) == 8 && aclDataTypeSize(ACL_COMPLEX64) == 8);
    EXPECT(aclDataTypeSize(ACL_COMPLEX128) == 16 && aclDataTypeSize(ACL_COMPLEX32) == 4);
    EXPECT(aclDataTypeSize(ACL_STRING) == 0 && aclDataTypeSize(ACL_DT_UNDEFINED) == 0);

    int32_t num = 0;
    char runtime[] = "runtime", driver[] = "driver";
    OK(aclsysGetVersionNum(runtime, &num));
    EXPECT(num == 90100000); /* 9.1.0: 9 * 10^7 + 1 * 10^5 + 0 * 10^3 */
    EXPECT_RC(aclsysGetVersionNum(driver, &num), ACL_ERROR_INVALID_FILE);
    EXPECT_RC(aclsysGetVersionNum(NULL, &num), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclsysGetVersionNum(runtime, NULL), ACL_ERROR_INVALID_PARAM);

    const aclCannAttr *attrs = NULL;
    size_t n = 0;
    OK(aclGetCannAttributeList(&attrs, &n));
    int has_infnan = 0, has_bf16 = 0;
    for (size_t i = 0; i < n; i++) {
        has_infnan |= attrs[i] == ACL_CANN_ATTR_INF_NAN;
        has_bf16 |= attrs[i] == ACL_CANN_ATTR_BF16;
    }
    EXPECT(n == 2 && has_infnan && has_bf16); /* the default chip, Ascend910B1 */
    int32_t v = -1;
    OK(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &v));
    EXPECT(v == 1);
    OK(aclGetCannAttribute(ACL_CANN_ATTR_JIT_COMPILE, &v));
    EXPECT(v == 0);
    EXPECT_RC(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &v), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclGetCannAttribute(ACL_CANN_ATTR_BF16, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclGetCannAttributeList(NULL, &n), ACL_ERROR_INVALID_PARAM);

    int32_t can = -1;
    OK(aclrtCheckArchCompatibility("Ascend910B3", &can));
    EXPECT(can == 1);
    OK(aclrtCheckArchCompatibility("Ascend310P3", &can));
    EXPECT(can == 0);
    EXPECT_RC(aclrtCheckArchCompatibility("Ascend999", &can), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtCheckArchCompatibility(NULL, &can), ACL_ERROR_INVALID_PARAM);

    EXPECT_RC(aclmdlInitDump(), ACL_ERROR_API_NOT_SUPPORT);
    EXPECT(strstr(aclGetRecentErrMsg(), "does not provide") != NULL);
    EXPECT_RC(aclmdlSetDump("x.json"), ACL_ERROR_API_NOT_SUPPORT);
    EXPECT_RC(aclmdlFinalizeDump(), ACL_ERROR_API_NOT_SUPPORT);
    /* the dump and profiler packages are not simulated: they link and say so */
    EXPECT_RC(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, "/tmp"), ACL_ERROR_API_NOT_SUPPORT);
    EXPECT(acldumpGetPath(DATA_DUMP) == NULL && strstr(aclGetRecentErrMsg(), "data dump") != NULL);
    EXPECT_RC(aclprofInit("/tmp", 4), ACL_ERROR_API_NOT_SUPPORT);
    EXPECT(strstr(aclGetRecentErrMsg(), "does not provide the profiler") != NULL);
    EXPECT(aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API) == NULL);
    EXPECT(aclprofGetOpStart(NULL, 0, 0) == 0 && aclprofGetOpFlag(NULL, 0, 0) == ACL_SUBSCRIBE_NONE);
    EXPECT(acltdtCreateChannel(0, "toolkit") == NULL && strstr(aclGetRecentErrMsg(), "tdt channels") != NULL);
    EXPECT(acltdtGetTensorTypeFromItem(NULL) == ACL_TENSOR_DATA_UNDEFINED);
    uint32_t qid = 0;
    EXPECT_RC(acltdtCreateQueue(NULL, &qid), ACL_ERROR_API_NOT_SUPPORT);
    ACL_APP_LOG(ACL_ERROR, "app log from the toolkit test %d", 23);
}

/* ------------------------------------------------------------------ exception info */

static aclrtFuncHandle g_poke;
static void *g_exc_args, *g_exc_func;
static uint32_t g_exc_len;
static aclError g_exc_args_rc = 1, g_exc_func_rc = 1;

static void on_exception(aclrtExceptionInfo *info)
{
    g_exc_args_rc = aclrtGetArgsFromExceptionInfo(info, &g_exc_args, &g_exc_len);
    g_exc_func_rc = aclrtGetFuncHandleFromExceptionInfo(info, (aclrtFuncHandle *)&g_exc_func);
}

static void test_exception(const char *kernels)
{
    aclrtErrorInfo info;
    memset(&info, 0xAB, sizeof info);
    OK(aclrtGetErrorVerbose(0, &info));
    EXPECT(info.errorType == ACL_RT_NO_ERROR && info.tryRepair == 0 && info.hasDetail == 0);
    EXPECT_RC(aclrtGetErrorVerbose(99, &info), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_RC(aclrtGetErrorVerbose(0, NULL), ACL_ERROR_INVALID_PARAM);
    void *p;
    uint32_t len;
    EXPECT_RC(aclrtGetArgsFromExceptionInfo(NULL, &p, &len), -1); /* ACL_ERROR_INVALID_EXCEPTION_INFO */
    EXPECT_RC(aclrtGetFuncHandleFromExceptionInfo(NULL, (aclrtFuncHandle *)&p), -1);
    if (!kernels)
        return;

    aclrtBinHandle bin;
    OK(aclrtBinaryLoadFromFile(kernels, NULL, &bin));
    OK(aclrtBinaryGetFunction(bin, "poke", &g_poke));
    OK(aclrtSetExceptionInfoCallback(on_exception));
    aclrtStream s;
    OK(aclrtCreateStream(&s));
    void *buf;
    OK(aclrtMalloc(&buf, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    struct { void *buf; uint64_t offset; } args = {buf, 1ull << 40}; /* far past the allocation */
    void *dev_args; /* aclrtLaunchKernel takes its argument block in device memory */
    OK(aclrtMalloc(&dev_args, sizeof args, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy(dev_args, sizeof args, &args, sizeof args, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtLaunchKernel(g_poke, 1, dev_args, sizeof args, s));
    EXPECT_RC(aclrtSynchronizeStream(s), ACL_ERROR_RT_AICORE_EXCEPTION);
    OK(g_exc_args_rc);
    OK(g_exc_func_rc);
    EXPECT(g_exc_len == sizeof args && g_exc_args == dev_args && g_exc_func == (void *)g_poke);
    OK(aclrtGetErrorVerbose(0, &info));
    EXPECT(info.errorType == ACL_RT_ERROR_AICORE && info.detail.aicoreErrType == ACL_RT_AICORE_ERROR_SW);
    OK(aclrtSetExceptionInfoCallback(NULL));
    OK(aclrtFree(dev_args));
    OK(aclrtFree(buf));
    OK(aclrtDestroyStream(s));
    OK(aclrtBinaryUnLoad(bin));
}

/* ------------------------------------------------------------------ host functions */

static pthread_t g_main;
static int g_calls, g_off_main, g_seen_value;
static int32_t *g_host_word;

static void host_fn(void *arg)
{
    g_calls += *(int *)arg;
    g_off_main += !pthread_equal(pthread_self(), g_main);
    g_seen_value = *g_host_word;
}

static void test_host_func(void)
{
    aclrtStream s;
    OK(aclrtCreateStream(&s));
    void *dev;
    OK(aclrtMalloc(&dev, 4, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMallocHost((void **)&g_host_word, 4));
    *g_host_word = 0;
    int one = 1;
    /* The function runs when the stream reaches it: after the copy submitted before it. */
    OK(aclrtMemsetAsync(dev, 4, 0x11, 4, s));
    OK(aclrtMemcpyAsync(g_host_word, 4, dev, 4, ACL_MEMCPY_DEVICE_TO_HOST, s));
    OK(aclrtLaunchHostFunc(s, host_fn, &one));
    OK(aclrtLaunchHostFunc(s, host_fn, &one));
    OK(aclrtLaunchHostFunc(NULL, host_fn, &one)); /* the default stream */
    OK(aclrtSynchronizeStream(s));
    OK(aclrtSynchronizeStream(NULL));
    EXPECT(g_calls == 3 && g_off_main == 3 && g_seen_value == 0x11111111);
    EXPECT_RC(aclrtLaunchHostFunc(s, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);

    /* A stream whose callbacks a thread of the program processes refuses it. */
    aclrtStream user;
    OK(aclrtCreateStream(&user));
    OK(aclrtSubscribeHostFunc((uint64_t)pthread_self(), user));
    EXPECT_RC(aclrtLaunchHostFunc(user, host_fn, &one), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    /* ... and runs what aclrtLaunchCallback puts on it in aclrtProcessHostFunc. */
    g_calls = 0;
    OK(aclrtLaunchCallback(host_fn, &one, ACL_CALLBACK_NO_BLOCK, user));
    OK(aclrtSynchronizeStream(user));
    OK(aclrtProcessHostFunc(1000));
    EXPECT(g_calls == 1);
    EXPECT_RC(aclrtProcessHostFunc(0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtProcessHostFunc(-2), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtUnSubscribeHostFunc((uint64_t)pthread_self(), user));
    EXPECT_RC(aclrtProcessHostFunc(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    OK(aclrtDestroyStream(user));
    OK(aclrtFree(dev));
    OK(aclrtFreeHost(g_host_word));
    OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------ stream configuration */

static aclrtStream g_state_stream[4];
static aclrtStreamState g_state[4];
static int g_nstate;

static void on_state(aclrtStream stm, aclrtStreamState state, void *args)
{
    if (g_nstate < 4 && args == (void *)&g_nstate) {
        g_state_stream[g_nstate] = stm;
        g_state[g_nstate++] = state;
    }
}

static void test_stream_config(void)
{
    aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
    EXPECT(h && h->priority == 0 && h->flag == 0 && h->workptr == NULL);
    uint32_t prio = 3, bad_prio = 8, small = 0;
    size_t flag = ACL_STREAM_FAST_LAUNCH;
    OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio));
    OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof flag));
    EXPECT_RC(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &small, sizeof small), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &bad_prio, sizeof bad_prio), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtSetStreamConfigOpt(h, (aclrtStreamConfigAttr)9, &prio, sizeof prio), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtSetStreamConfigOpt(NULL, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, NULL, sizeof prio), ACL_ERROR_INVALID_PARAM);

    OK(aclrtRegStreamStateCallback("toolkit-test", on_state, &g_nstate));
    EXPECT_RC(aclrtRegStreamStateCallback("toolkit-test", on_state, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtRegStreamStateCallback(NULL, on_state, NULL), ACL_ERROR_INVALID_PARAM);
    aclrtStream s;
    OK(aclrtCreateStreamV2(&s, h));
    uint32_t got = 99;
    OK(aclrtStreamGetFlags(s, &got));
    EXPECT(got == ACL_STREAM_FAST_LAUNCH);
    OK(aclrtStreamGetPriority(s, &got));
    EXPECT(got == 3);
    OK(aclrtStreamGetFlags(NULL, &got)); /* the default stream */
    EXPECT(got == 0);
    EXPECT_RC(aclrtStreamGetFlags(s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtStreamGetPriority(s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtStreamStop(NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtStreamStop(s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    OK(aclrtDestroyStream(s));
    EXPECT(g_nstate == 2 && g_state[0] == ACL_RT_STREAM_STATE_CREATE_POST && g_state_stream[0] == s &&
           g_state[1] == ACL_RT_STREAM_STATE_DESTROY_PRE && g_state_stream[1] == s);
    OK(aclrtRegStreamStateCallback("toolkit-test", NULL, NULL)); /* unregisters */
    aclrtStream d;
    OK(aclrtCreateStreamV2(&d, NULL)); /* the defaults */
    OK(aclrtStreamGetPriority(d, &got));
    EXPECT(got == 0 && g_nstate == 2);
    OK(aclrtDestroyStream(d));
    EXPECT_RC(aclrtCreateStreamV2(NULL, h), ACL_ERROR_INVALID_PARAM);
    OK(aclrtDestroyStreamConfigHandle(h));
    EXPECT_RC(aclrtDestroyStreamConfigHandle(NULL), ACL_ERROR_INVALID_PARAM);
}

/* ------------------------------------------------------------------ events with flags */

static void test_event_flags(void)
{
    aclrtStream s;
    OK(aclrtCreateStream(&s));
    aclrtEvent e, ex;
    OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    EXPECT_RC(aclrtRecordEventWithFlag(e, s, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtRecordEventWithFlag(NULL, s, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtRecordEventWithFlag(e, s, ACL_EVENT_RECORD_EXTERNAL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    OK(aclrtRecordEventWithFlag(e, s, ACL_EVENT_RECORD_DEFAULT));
    OK(aclrtStreamWaitEventWithFlag(s, e, 0, ACL_EVENT_WAIT_DEFAULT));
    OK(aclrtSynchronizeEvent(e));
    EXPECT_RC(aclrtStreamWaitEventWithFlag(s, e, 0, 7), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtStreamWaitEventWithFlag(s, e, 0, ACL_EVENT_WAIT_EXTERNAL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);

    OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
    /* EXTERNAL records and waits belong in captured graphs (ApiImpl::EventRecord, StreamWaitEvent):
     * 107029 on a stream that is not capturing -- the flag is taken all the same (ApiErrorDecorator). */
    EXPECT_RC(aclrtRecordEventWithFlag(ex, s, ACL_EVENT_RECORD_EXTERNAL), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    EXPECT_RC(aclrtStreamWaitEventWithFlag(s, ex, 5, ACL_EVENT_WAIT_EXTERNAL), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtStreamWaitEventWithFlag(s, ex, 0, ACL_EVENT_WAIT_EXTERNAL), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    EXPECT_RC(aclrtStreamWaitEventWithFlag(s, ex, 0, ACL_EVENT_WAIT_DEFAULT), ACL_ERROR_RT_PARAM_INVALID);
    /* One record flag per event: a DEFAULT record -- aclrtRecordEvent's too -- is refused now. */
    EXPECT_RC(aclrtRecordEventWithFlag(ex, s, ACL_EVENT_RECORD_DEFAULT), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtRecordEvent(ex, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtStreamWaitEvent(s, ex), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtSynchronizeStream(s));
    aclrtEventRecordedStatus st;
    OK(aclrtQueryEventStatus(e, &st));
    EXPECT(st == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    OK(aclrtDestroyEvent(e));
    OK(aclrtDestroyEvent(ex));
    OK(aclrtDestroyStream(s));
}

/* EXTERNAL records and waits inside captured graphs (hicann/runtime example/2_advanced_features/
 * model_ri/4_model_sync_external): each execution of the model records / waits the real event
 * outside the graph -- the record is the event's newest from aclmdlRIExecuteAsync on, the wait
 * waits for the record the event had then. A notify holds streams back so that the order is
 * observed, not raced. */
static void test_external_in_graph(void)
{
    const size_t n = 4096;
    aclrtStream gs, xs, side;
    OK(aclrtCreateStream(&gs));
    OK(aclrtCreateStream(&xs));
    OK(aclrtCreateStream(&side));
    aclrtNotify gate;
    OK(aclrtCreateNotify(&gate, ACL_NOTIFY_DEFAULT));
    void *src, *src2, *dst;
    OK(aclrtMalloc(&src, n, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&src2, n, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&dst, n, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(src, n, 1, n));
    OK(aclrtMemset(src2, n, 2, n));
    OK(aclrtMemset(dst, n, 0, n));
    unsigned char host[4096];

    /* 1. An external wait: the graph's copy waits for the record made outside it. */
    aclrtEvent in;
    OK(aclrtCreateEventExWithFlag(&in, ACL_EVENT_SYNC));
    aclmdlRI waiter = NULL;
    OK(aclmdlRICaptureBegin(gs, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    OK(aclrtStreamWaitEventWithFlag(gs, in, 0, ACL_EVENT_WAIT_EXTERNAL));
    EXPECT_RC(aclrtStreamWaitEventWithFlag(gs, in, 0, ACL_EVENT_WAIT_EXTERNAL), ACL_ERROR_RT_PARAM_INVALID); /* once */
    OK(aclrtMemcpyAsync(dst, n, src, n, ACL_MEMCPY_DEVICE_TO_DEVICE, gs));
    OK(aclmdlRICaptureEnd(gs, &waiter));
    OK(aclmdlRIExecuteAsync(waiter, gs)); /* never recorded: nothing to wait for */
    OK(aclrtSynchronizeStream(gs));
    OK(aclrtWaitAndResetNotify(gate, xs, 0));
    OK(aclrtMemcpyAsync(src, n, src2, n, ACL_MEMCPY_DEVICE_TO_DEVICE, xs)); /* src becomes 2s ... */
    OK(aclrtRecordEvent(in, xs));                                           /* ... before this record */
    OK(aclmdlRIExecuteAsync(waiter, gs));
    EXPECT_RC(aclrtSynchronizeStreamWithTimeout(gs, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT); /* held by the wait */
    OK(aclrtRecordNotify(gate, side));
    OK(aclrtSynchronizeStream(gs));
    OK(aclrtMemcpy(host, n, dst, n, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(host[0] == 2 && host[n - 1] == 2); /* the copy ran after the external record */
    OK(aclmdlRIExecuteAsync(waiter, gs)); /* recorded and done: passes */
    OK(aclrtSynchronizeStream(gs));
    OK(aclmdlRIDestroy(waiter));

    /* 2. An external record: from aclmdlRIExecuteAsync on, the event's newest record is the
     * replay's -- a host synchronize and a stream wait issued right after wait for it. */
    aclrtEvent out;
    OK(aclrtCreateEventExWithFlag(&out, ACL_EVENT_SYNC));
    aclmdlRI recorder = NULL;
    OK(aclmdlRICaptureBegin(gs, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    OK(aclrtMemcpyAsync(dst, n, src, n, ACL_MEMCPY_DEVICE_TO_DEVICE, gs));
    OK(aclrtRecordEventWithFlag(out, gs, ACL_EVENT_RECORD_EXTERNAL));
    EXPECT_RC(aclrtRecordEventWithFlag(out, gs, ACL_EVENT_RECORD_EXTERNAL), ACL_ERROR_RT_PARAM_INVALID); /* once */
    /* One event for both an external record and an external wait in one graph: 107000 (the
     * flags are taken before that check, so the event keeps them). */
    aclrtEvent both;
    OK(aclrtCreateEventExWithFlag(&both, ACL_EVENT_SYNC));
    OK(aclrtRecordEventWithFlag(both, gs, ACL_EVENT_RECORD_EXTERNAL));
    EXPECT_RC(aclrtStreamWaitEventWithFlag(gs, both, 0, ACL_EVENT_WAIT_EXTERNAL), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclmdlRICaptureEnd(gs, &recorder));
    aclrtEventRecordedStatus st;
    OK(aclrtQueryEventStatus(out, &st));
    EXPECT(st == ACL_EVENT_RECORDED_STATUS_COMPLETE); /* capture recorded nothing yet */
    OK(aclrtMemset(dst, n, 0, n));
    OK(aclrtWaitAndResetNotify(gate, gs, 0));
    OK(aclmdlRIExecuteAsync(recorder, gs));
    OK(aclrtQueryEventStatus(out, &st));
    EXPECT(st == ACL_EVENT_RECORDED_STATUS_NOT_READY);
    EXPECT_RC(aclrtSynchronizeEventWithTimeout(out, 50), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    OK(aclrtStreamWaitEvent(xs, out));
    OK(aclrtMemcpyAsync(src2, n, dst, n, ACL_MEMCPY_DEVICE_TO_DEVICE, xs)); /* after the replay's copy */
    EXPECT_RC(aclrtSynchronizeStreamWithTimeout(xs, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    OK(aclrtRecordNotify(gate, side));
    OK(aclrtSynchronizeEvent(out));
    OK(aclrtSynchronizeStream(xs));
    OK(aclrtQueryEventStatus(out, &st));
    EXPECT(st == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    OK(aclrtMemcpy(host, n, src2, n, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(host[0] == 2 && host[n - 1] == 2);
    OK(aclmdlRIDestroy(recorder));

    OK(aclrtDestroyEvent(in));
    OK(aclrtDestroyEvent(out));
    OK(aclrtDestroyEvent(both));
    OK(aclrtDestroyNotify(gate));
    OK(aclrtFree(src));
    OK(aclrtFree(src2));
    OK(aclrtFree(dst));
    OK(aclrtDestroyStream(gs));
    OK(aclrtDestroyStream(xs));
    OK(aclrtDestroyStream(side));
}

/* ------------------------------------------------------------------ random numbers */

static void fill_value(aclrtRandomParaInfo *p, const void *v, uint8_t size)
{
    memset(p, 0, sizeof *p);
    memcpy(p->valueOrAddr, v, size);
    p->size = size;
}

static aclError uniform_i32(int32_t lo, int32_t hi, uint64_t n, void *counter, void *out, aclrtStream s)
{
    aclrtRandomNumTaskInfo t;
    memset(&t, 0, sizeof t);
    t.dataType = ACL_INT32;
    t.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
    fill_value(&t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, &lo, 4);
    fill_value(&t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max, &hi, 4);
    uint64_t seed = 42;
    fill_value(&t.randomSeed, &seed, 8);
    fill_value(&t.randomNum, &n, 8);
    t.randomCounterAddr = counter;
    t.randomResultAddr = out;
    return aclrtRandomNumAsync(&t, s, NULL);
}

static void test_random(void)
{
    enum { N = 4096 };
    aclrtStream s;
    OK(aclrtCreateStream(&s));
    void *counter, *out;
    OK(aclrtMalloc(&counter, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&out, N * 8, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(counter, 16, 0, 16));
    static int32_t a[N], b[N];
    OK(uniform_i32(1, 100, N, counter, out, s));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtMemcpy(a, sizeof a, out, sizeof a, ACL_MEMCPY_DEVICE_TO_HOST));
    int in_range = 1, distinct = 0;
    for (int i = 0; i < N; i++) {
        in_range &= a[i] >= 1 && a[i] < 100;
        distinct += i && a[i] != a[i - 1];
    }
    EXPECT(in_range && distinct > N / 2);
    uint64_t ctr[2];
    OK(aclrtMemcpy(ctr, 16, counter, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(ctr[0] != 0); /* advanced: the next task continues the sequence */
    OK(uniform_i32(1, 100, N, counter, out, s));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtMemcpy(b, sizeof b, out, sizeof b, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(memcmp(a, b, sizeof a) != 0);
    OK(aclrtMemset(counter, 16, 0, 16)); /* same seed, same counter: the same numbers */
    OK(uniform_i32(1, 100, N, counter, out, s));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtMemcpy(b, sizeof b, out, sizeof b, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(memcmp(a, b, sizeof a) == 0);

    /* normal(3, 2) in float: the sample's mean and deviation */
    aclrtRandomNumTaskInfo t;
    memset(&t, 0, sizeof t);
    t.dataType = ACL_FLOAT;
    t.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS;
    float mean = 3.0f, sd = 2.0f;
    fill_value(&t.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean, &mean, 4);
    fill_value(&t.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev, &sd, 4);
    uint64_t n = N, seed = 7;
    fill_value(&t.randomSeed, &seed, 8);
    fill_value(&t.randomNum, &n, 8);
    t.randomCounterAddr = counter;
    t.randomResultAddr = out;
    OK(aclrtRandomNumAsync(&t, s, NULL));
    OK(aclrtSynchronizeStream(s));
    static float f[N];
    OK(aclrtMemcpy(f, sizeof f, out, sizeof f, ACL_MEMCPY_DEVICE_TO_HOST));
    double sum = 0, sq = 0;
    for (int i = 0; i < N; i++) {
        sum += f[i];
        sq += (double)f[i] * f[i];
    }
    double m = sum / N, dev = sqrt(sq / N - m * m);
    EXPECT(fabs(m - 3.0) < 0.2 && fabs(dev - 2.0) < 0.2);

    /* truncated: within two deviations */
    t.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS;
    OK(aclrtRandomNumAsync(&t, s, NULL));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtMemcpy(f, sizeof f, out, sizeof f, ACL_MEMCPY_DEVICE_TO_HOST));
    int within = 1;
    for (int i = 0; i < N; i++)
        within &= f[i] >= -1.0f - 1e-4f && f[i] <= 7.0f + 1e-4f;
    EXPECT(within);

    /* dropout with ratio 0 keeps every bit; the parameter by device address */
    float ratio = 0.0f;
    void *ratio_dev;
    OK(aclrtMalloc(&ratio_dev, 4, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy(ratio_dev, 4, &ratio, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(&t.randomNumFuncParaInfo, 0, sizeof t.randomNumFuncParaInfo);
    t.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK;
    aclrtRandomParaInfo *r = &t.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation;
    r->isAddr = 1;
    memcpy(r->valueOrAddr, &ratio_dev, sizeof ratio_dev);
    r->size = 4;
    n = 64;
    fill_value(&t.randomNum, &n, 8);
    OK(aclrtRandomNumAsync(&t, s, NULL));
    OK(aclrtSynchronizeStream(s));
    uint64_t bits = 0;
    OK(aclrtMemcpy(&bits, 8, out, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(bits == UINT64_MAX);

    /* checks */
    EXPECT_RC(aclrtRandomNumAsync(NULL, s, NULL), ACL_ERROR_INVALID_PARAM);
    t.dataType = ACL_DOUBLE;
    EXPECT_RC(aclrtRandomNumAsync(&t, s, NULL), ACL_ERROR_INVALID_PARAM);
    t.dataType = ACL_FLOAT;
    EXPECT_RC(aclrtRandomNumAsync(&t, s, (void *)&t), ACL_ERROR_RT_PARAM_INVALID);
    static uint8_t host[64];
    t.randomResultAddr = host;
    EXPECT_RC(aclrtRandomNumAsync(&t, s, NULL), ACL_ERROR_RT_PARAM_INVALID);
    t.randomResultAddr = out;
    n = (uint64_t)N * 8 * 8 * 4; /* more bits than the output holds: the task fails, nothing is written */
    fill_value(&t.randomNum, &n, 8);
    OK(aclrtRandomNumAsync(&t, s, NULL));
    EXPECT_RC(aclrtSynchronizeStream(s), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtFree(ratio_dev));
    OK(aclrtFree(counter));
    OK(aclrtFree(out));
    OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------ memory */

static void test_memory(void)
{
    int32_t *m = NULL;
    EXPECT_RC(aclrtMemAllocManaged((void **)&m, 64, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtMemAllocManaged((void **)&m, 0, ACL_RT_MEM_ATTACH_GLOBAL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtMemAllocManaged(NULL, 64, ACL_RT_MEM_ATTACH_GLOBAL), ACL_ERROR_INVALID_PARAM);
    OK(aclrtMemAllocManaged((void **)&m, 64, ACL_RT_MEM_ATTACH_GLOBAL));
    m[3] = 1234; /* the host writes it at the device address */
    int32_t back[16];
    OK(aclrtMemcpy(back, sizeof back, m, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(back[3] == 1234);
    aclrtPtrAttributes attr;
    OK(aclrtPointerGetAttributes(m, &attr));
    EXPECT(attr.location.type == ACL_MEM_LOCATION_TYPE_DEVICE);

    aclrtMemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = 1;
    OK(aclrtMemSetAccess(m, 64, &desc, 1));
    desc.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    EXPECT_RC(aclrtMemSetAccess(m, 64, &desc, 1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtMemSetAccess(NULL, 64, &desc, 1), ACL_ERROR_INVALID_PARAM);
    OK(aclrtFree(m));

    uint64_t shareable = 0;
    EXPECT_RC(aclrtMemExportToShareableHandleV2(NULL, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &shareable),
              ACL_ERROR_INVALID_PARAM);
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &gran));
    aclrtDrvMemHandle ph;
    OK(aclrtMallocPhysical(&ph, gran, &prop, 0));
    EXPECT_RC(aclrtMemExportToShareableHandleV2(ph, 0, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &shareable),
              ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_RC(aclrtMemExportToShareableHandleV2(ph, 0, (aclrtMemSharedHandleType)7, &shareable),
              ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtMemExportToShareableHandleV2(ph, 2, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &shareable),
              ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtMemExportToShareableHandleV2(ph, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                                         ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &shareable));
    EXPECT(shareable != 0);
    aclrtDrvMemHandle imported;
    EXPECT_RC(aclrtMemImportFromShareableHandleV2(&shareable, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 1, &imported),
              ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtMemImportFromShareableHandleV2(&shareable, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &imported),
              ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    OK(aclrtFreePhysical(ph));
}

/* ------------------------------------------------------------------ model tasks, IPC events */

/* The checks these make before anything else, and the refusals on an ordinary stream. (Their
 * behaviour: tests/toolkit/programs/model_build_c and ipc_event_c.) Everything the toolkit's
 * headers declare is simulated or, for other packages, refused with 200001. */
static void test_model_task_checks(void)
{
    aclrtIpcEventHandle ipc;
    aclrtEvent e;
    aclmdlRICondHandle cond;
    EXPECT_RC(aclmdlRICondHandleCreate(NULL, 0, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &cond), ACL_ERROR_INVALID_PARAM);
    OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC)); /* IPC events are simulated: programs/ipc_event_c */
    OK(aclrtIpcGetEventHandle(e, &ipc));
    EXPECT_RC(aclrtIpcGetEventHandle(e, NULL), ACL_ERROR_INVALID_PARAM);
    OK(aclrtDestroyEvent(e));
    int32_t lv = 0, rv = 0;
    aclrtStream s;
    OK(aclrtCreateStream(&s));
    EXPECT_RC(aclrtSwitchStream(&lv, ACL_RT_EQUAL, &rv, ACL_RT_SWITCH_INT32, s, s, s), ACL_ERROR_INVALID_PARAM);
    /* An ordinary stream is no model's: switching and activating need a model's streams. */
    EXPECT_RC(aclrtSwitchStream(&lv, ACL_RT_EQUAL, &rv, ACL_RT_SWITCH_INT32, s, NULL, s), ACL_ERROR_RT_STREAM_MODEL);
    EXPECT_RC(aclrtActiveStream(s, s), ACL_ERROR_RT_STREAM_MODEL);
    OK(aclrtDestroyStream(s));
}

int main(int argc, char **argv)
{
    g_main = pthread_self();
    test_base(); /* before aclInit: none of these needs the runtime started */
    OK(aclInit(NULL));
    uint32_t count = 0;
    OK(aclrtGetDeviceCount(&count));
    OK(aclrtSetDevice(0));
    test_exception(argc > 1 ? argv[1] : NULL);
    test_host_func();
    test_stream_config();
    test_event_flags();
    test_external_in_graph();
    test_random();
    test_memory();
    test_model_task_checks();
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    printf("devices=%u\n", count);
    if (g_failures) {
        printf("[FAILURE] %d checks failed\n", g_failures);
        return g_failures;
    }
    printf("[SUCCESS] toolkit runtime functions from C\n");
    return 0;
}
