/*
 * Models built by stream binding, labels, stream switch and activation (issue 23), called from
 * C as CANN's label and model-building samples call them: the branch a replay takes is seen in
 * what its kernels computed -- test_kernels.c's add_value (out[index] += value) runs on the
 * bound streams, and out tells which launches ran. Every result code is checked, every failure
 * printed with its line; the program exits with the number of failed checks and prints
 * "[SUCCESS]" when there are none. Built and run by tests/toolkit/test_model_build.py.
 * argv[1]: a kernel binary holding test_kernels.c; argv[2]: a directory for the JSON dumps.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"

/* aclmdlRIBindStream's flags, named as acl_rt.h's comment names them (the header at hicann/runtime
 * 681ef7610 does not define them): the values of RT_MODEL_STREAM_FLAG_HEAD / _DEFAULT. */
#define ACL_MODEL_STREAM_FLAG_HEAD 0x0U
#define ACL_MODEL_STREAM_FLAG_DEFAULT 0x7FFFFFFFU

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

static aclrtFuncHandle g_add;
static int32_t *g_out;       /* device: what the kernels computed */
static aclrtStream g_exec;   /* an ordinary stream the models run on */

/* The argument blocks of aclrtLaunchKernel live in device memory, read when the kernel runs,
 * so each launch keeps its own for the program's life. */
static void add(aclrtStream s, uint32_t index, int32_t value)
{
    struct {
        int32_t *out;
        uint32_t index, pad;
        int32_t value;
    } args = {g_out, index, 0, value};
    void *dev;
    OK(aclrtMalloc(&dev, sizeof args, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy(dev, sizeof args, &args, sizeof args, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtLaunchKernel(g_add, 1, dev, sizeof args, s));
}

/* The argument block of one add, made before a capture (a capture refuses synchronous copies
 * on the thread that began it, unless RELAXED), launched during it. */
static void *add_args(uint32_t index, int32_t value)
{
    struct {
        int32_t *out;
        uint32_t index, pad;
        int32_t value;
    } args = {g_out, index, 0, value};
    void *dev;
    OK(aclrtMalloc(&dev, sizeof args, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy(dev, sizeof args, &args, sizeof args, ACL_MEMCPY_HOST_TO_DEVICE));
    return dev;
}

static void launch(aclrtStream s, void *args) { OK(aclrtLaunchKernel(g_add, 1, args, 24, s)); }

static void put_u64(void *dev, uint64_t v) { OK(aclrtMemcpy(dev, 8, &v, 8, ACL_MEMCPY_HOST_TO_DEVICE)); }

static void put_u32(void *dev, uint32_t v) { OK(aclrtMemcpy(dev, 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE)); }

/* Runs model m once on g_exec from out = 0 and copies out[0..3] back. */
static aclError run(aclmdlRI m, int32_t out[4])
{
    OK(aclrtMemset(g_out, 16, 0, 16));
    OK(aclmdlRIExecuteAsync(m, g_exec));
    aclError rc = aclrtSynchronizeStream(g_exec);
    OK(aclrtMemcpy(out, 16, g_out, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    return rc;
}

static aclrtStream persistent(void)
{
    aclrtStream s = NULL;
    OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT));
    return s;
}

/* ------------------------------------------------------------------ labels */

static void test_label_switch(const char *dump_dir)
{
    aclrtStream ls = persistent();
    aclmdlRI m;
    OK(aclmdlRIBuildBegin(&m, 0));
    OK(aclmdlRIBindStream(m, ls, ACL_MODEL_STREAM_FLAG_HEAD));
    aclrtLabel labels[2];
    OK(aclrtCreateLabel(&labels[0]));
    OK(aclrtCreateLabel(&labels[1]));
    /* A label must be in a list before it is set (Label::Set). */
    EXPECT_RC(aclrtSetLabel(labels[0], ls), ACL_ERROR_RT_INTERNAL_ERROR);
    aclrtLabelList list;
    OK(aclrtCreateLabelList(labels, 2, &list));
    uint32_t *index;
    OK(aclrtMalloc((void **)&index, 4, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtSwitchLabelByIndex(index, 2, list, ls));
    add(ls, 3, 100); /* after the switch: never runs */
    OK(aclrtSetLabel(labels[0], ls));
    add(ls, 0, 1);
    OK(aclrtSetLabel(labels[1], ls));
    add(ls, 1, 10);
    EXPECT_RC(aclrtSetLabel(labels[1], ls), ACL_ERROR_RT_INTERNAL_ERROR); /* set once */
    OK(aclmdlRIEndTask(m, ls));
    EXPECT_RC(aclmdlRIEndTask(m, ls), ACL_ERROR_RT_INTERNAL_ERROR); /* one end task per model */
    int32_t out[4];
    EXPECT_RC(aclmdlRIExecuteAsync(m, g_exec), ACL_ERROR_RT_MODEL_EXECUTE); /* not built yet */
    OK(aclmdlRIBuildEnd(m, NULL));
    EXPECT_RC(aclrtMemsetAsync(g_out, 16, 0, 16, ls), ACL_ERROR_RT_STREAM_MODEL); /* the build is over */

    put_u32(index, 0);
    OK(run(m, out));
    EXPECT(out[0] == 1 && out[1] == 10 && out[3] == 0); /* label 0, then on through label 1 */
    put_u32(index, 1);
    OK(run(m, out));
    EXPECT(out[0] == 0 && out[1] == 10 && out[3] == 0);
    put_u32(index, 7); /* beyond the last label: the last one */
    OK(run(m, out));
    EXPECT(out[0] == 0 && out[1] == 10 && out[3] == 0);
    put_u32(index, 0); /* the same model, again: the index is read at each run */
    for (int i = 0; i < 3; i++) {
        OK(run(m, out));
        EXPECT(out[0] == 1 && out[1] == 10);
    }

    /* The JSON dump: a trace-event array naming the tasks of the model's stream. */
    char path[512];
    snprintf(path, sizeof path, "%s/label_model.json", dump_dir);
    OK(aclmdlRIDebugJsonPrint(m, path, 0));
    FILE *f = fopen(path, "r");
    EXPECT(f != NULL);
    if (f) {
        char buf[8192];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        EXPECT(buf[0] == '[' && strstr(buf, "\"Task Type\":\"STREAM_LABEL_SWITCH_BY_INDEX\"") &&
               strstr(buf, "\"Task Type\":\"LABEL_SET\"") && strstr(buf, "\"name\":\"add_value\"") &&
               strstr(buf, "\"Task Type\":\"MODEL_END_GRAPH\""));
    }
    EXPECT_RC(aclmdlRIDebugJsonPrint(m, "/nonexistent-dir/x.json", 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclmdlRIDebugJsonPrint(m, NULL, 0), ACL_ERROR_INVALID_PARAM);

    aclrtStream got[2] = {NULL, NULL};
    uint32_t n = 0;
    OK(aclmdlRIGetStreams(m, NULL, &n));
    EXPECT(n == 1);
    n = 2;
    OK(aclmdlRIGetStreams(m, got, &n));
    EXPECT(got[0] == ls && got[1] == NULL);

    EXPECT_RC(aclrtDestroyStream(ls), ACL_ERROR_RT_STREAM_MODEL); /* bound */
    OK(aclmdlRIUnbindStream(m, ls));
    EXPECT_RC(aclmdlRIUnbindStream(m, ls), ACL_ERROR_RT_STREAM_MODEL);
    OK(aclmdlRIDestroy(m));
    OK(aclrtDestroyLabelList(list));
    OK(aclrtDestroyLabel(labels[0]));
    OK(aclrtDestroyLabel(labels[1]));
    EXPECT_RC(aclrtDestroyLabel(labels[1]), ACL_ERROR_RT_INVALID_HANDLE);
    OK(aclrtFree(index));
    OK(aclrtDestroyStream(ls));
}

/* A label set in one model and switched to from another: the replay fails, nothing crashes. */
static void test_label_across_models(void)
{
    aclrtStream a = persistent(), b = persistent();
    aclmdlRI ma, mb;
    OK(aclmdlRIBuildBegin(&ma, 0));
    OK(aclmdlRIBuildBegin(&mb, 0));
    OK(aclmdlRIBindStream(ma, a, ACL_MODEL_STREAM_FLAG_HEAD));
    OK(aclmdlRIBindStream(mb, b, ACL_MODEL_STREAM_FLAG_HEAD));
    EXPECT_RC(aclmdlRIBindStream(mb, a, ACL_MODEL_STREAM_FLAG_HEAD), ACL_ERROR_RT_STREAM_MODEL); /* one model */
    aclrtLabel l;
    OK(aclrtCreateLabel(&l));
    aclrtLabelList list;
    OK(aclrtCreateLabelList(&l, 1, &list));
    OK(aclrtSetLabel(l, a));
    EXPECT_RC(aclrtSetLabel(l, b), ACL_ERROR_RT_INTERNAL_ERROR); /* set on another stream already */
    add(a, 0, 1);
    uint32_t *index;
    OK(aclrtMalloc((void **)&index, 4, ACL_MEM_MALLOC_HUGE_FIRST));
    put_u32(index, 0);
    OK(aclrtSwitchLabelByIndex(index, 1, list, b));
    add(b, 1, 1);
    OK(aclmdlRIBuildEnd(ma, NULL));
    OK(aclmdlRIBuildEnd(mb, NULL));
    int32_t out[4];
    EXPECT_RC(run(mb, out), ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT(out[0] == 0 && out[1] == 1); /* the failed switch jumps nowhere: the stream goes on */
    OK(run(ma, out));
    EXPECT(out[0] == 1);
    /* Destroying a model unbinds its streams (Model::TearDown). */
    OK(aclmdlRIDestroy(ma));
    OK(aclmdlRIDestroy(mb));
    OK(aclrtDestroyStream(a));
    OK(aclrtDestroyStream(b));
    OK(aclrtDestroyLabelList(list));
    OK(aclrtDestroyLabel(l));
    OK(aclrtFree(index));
}

/* A label switch back to an earlier label loops for good, as on the device: the stream that
 * runs the model can still be aborted. */
static void test_endless_loop_is_stoppable(void)
{
    aclrtStream s = persistent(), exec;
    OK(aclrtCreateStream(&exec));
    aclmdlRI m;
    OK(aclmdlRIBuildBegin(&m, 0));
    OK(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD));
    aclrtLabel l;
    OK(aclrtCreateLabel(&l));
    aclrtLabelList list;
    OK(aclrtCreateLabelList(&l, 1, &list));
    uint32_t *index;
    OK(aclrtMalloc((void **)&index, 4, ACL_MEM_MALLOC_HUGE_FIRST));
    put_u32(index, 0);
    OK(aclrtSetLabel(l, s));
    add(s, 0, 1);
    OK(aclrtSwitchLabelByIndex(index, 1, list, s));
    OK(aclmdlRIBuildEnd(m, NULL));
    OK(aclrtMemset(g_out, 16, 0, 16));
    OK(aclmdlRIExecuteAsync(m, exec));
    EXPECT_RC(aclrtSynchronizeStreamWithTimeout(exec, 100), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    OK(aclrtStreamAbort(exec));
    int32_t out[4];
    OK(aclrtMemcpy(out, 16, g_out, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(out[0] > 10); /* it looped */
    (void)aclrtSynchronizeStream(exec);
    OK(aclmdlRIDestroy(m));
    OK(aclrtDestroyStream(exec));
    OK(aclrtDestroyStream(s));
    OK(aclrtDestroyLabelList(list));
    OK(aclrtDestroyLabel(l));
    OK(aclrtFree(index));
}

/* ------------------------------------------------------------------ stream switch, activation */

static void test_switch_and_activate(void)
{
    aclrtStream head = persistent(), yes = persistent(), side = persistent();
    aclmdlRI m;
    OK(aclmdlRIBuildBegin(&m, 0));
    OK(aclmdlRIBindStream(m, head, ACL_MODEL_STREAM_FLAG_HEAD));
    OK(aclmdlRIBindStream(m, yes, ACL_MODEL_STREAM_FLAG_DEFAULT));
    OK(aclmdlRIBindStream(m, side, ACL_MODEL_STREAM_FLAG_DEFAULT));
    int32_t *lr;
    OK(aclrtMalloc((void **)&lr, 8, ACL_MEM_MALLOC_HUGE_FIRST));
    add(head, 0, 1);
    OK(aclrtActiveStream(side, head));
    OK(aclrtSwitchStream(&lr[0], ACL_RT_GREATER, &lr[1], ACL_RT_SWITCH_INT32, yes, NULL, head));
    add(head, 1, 1); /* only when the switch does not jump */
    add(yes, 2, 1);
    add(side, 3, 1);
    OK(aclmdlRIEndTask(m, head));
    OK(aclmdlRIBuildEnd(m, NULL));
    char path[] = "/tmp/aiocann-switch-XXXXXX";
    int fd = mkstemp(path);
    EXPECT(fd >= 0);
    OK(aclmdlRIDebugJsonPrint(m, path, 0));
    char buf[4096] = {0}, want[64];
    FILE *f = fdopen(fd, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    remove(path);
    int32_t side_id, yes_id;
    OK(aclrtStreamGetId(side, &side_id));
    OK(aclrtStreamGetId(yes, &yes_id));
    snprintf(want, sizeof want, "\"Task Type\":\"STREAM_ACTIVE\",\"Active Stream Id\":%d", side_id);
    EXPECT(strstr(buf, want) != NULL);
    snprintf(want, sizeof want, "\"Task Type\":\"STREAM_SWITCH\",\"Active Stream Id\":%d", yes_id);
    EXPECT(strstr(buf, want) != NULL);
    int32_t out[4], v[2] = {5, 3};
    OK(aclrtMemcpy(lr, 8, v, 8, ACL_MEMCPY_HOST_TO_DEVICE)); /* 5 > 3: to `yes` */
    OK(run(m, out));
    EXPECT(out[0] == 1 && out[1] == 0 && out[2] == 1 && out[3] == 1);
    v[0] = -5; /* signed: -5 > 3 does not hold */
    OK(aclrtMemcpy(lr, 8, v, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(run(m, out));
    EXPECT(out[0] == 1 && out[1] == 1 && out[2] == 0 && out[3] == 1);

    /* The checks: a falseStream, a condition, a data type, streams that are not a model's. */
    aclrtStream plain;
    OK(aclrtCreateStream(&plain));
    EXPECT_RC(aclrtSwitchStream(&lr[0], ACL_RT_EQUAL, &lr[1], ACL_RT_SWITCH_INT32, yes, yes, head),
              ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtSwitchStream(&lr[0], (aclrtCondition)6, &lr[1], ACL_RT_SWITCH_INT32, yes, NULL, head),
              ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtSwitchStream(&lr[0], ACL_RT_EQUAL, &lr[1], (aclrtCompareDataType)2, yes, NULL, head),
              ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtSwitchStream(&lr[0], ACL_RT_EQUAL, &lr[1], ACL_RT_SWITCH_INT64, plain, NULL, head),
              ACL_ERROR_RT_STREAM_MODEL);
    EXPECT_RC(aclrtSwitchStream(&lr[0], ACL_RT_EQUAL, &lr[1], ACL_RT_SWITCH_INT64, yes, NULL, plain),
              ACL_ERROR_RT_STREAM_MODEL);
    EXPECT_RC(aclrtSwitchStream(NULL, ACL_RT_EQUAL, &lr[1], ACL_RT_SWITCH_INT64, yes, NULL, plain),
              ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtActiveStream(plain, head), ACL_ERROR_RT_STREAM_MODEL);
    EXPECT_RC(aclrtActiveStream(side, plain), ACL_ERROR_RT_STREAM_MODEL);
    EXPECT_RC(aclrtActiveStream(NULL, head), ACL_ERROR_INVALID_PARAM);
    OK(aclmdlRIDestroy(m)); /* with its streams bound: they are unbound */
    OK(aclrtDestroyStream(head));
    OK(aclrtDestroyStream(yes));
    OK(aclrtDestroyStream(side));
    OK(aclrtDestroyStream(plain));
    OK(aclrtFree(lr));
}

/* ------------------------------------------------------------------ condition tasks */

/* Begins a capture on s and returns its model. */
static aclmdlRI begin(aclrtStream s)
{
    aclmdlRI m = NULL;
    aclmdlRICaptureStatus st;
    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    OK(aclmdlRICaptureGetInfo(s, &st, &m));
    return m;
}

static void test_cond_if_and_switch(void)
{
    aclrtStream s, sub;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateStream(&sub));
    void *a0 = add_args(0, 1), *a1 = add_args(1, 1), *a2 = add_args(2, 1), *a3 = add_args(3, 1);
    /* IF with two branches, its value set by the program (flag 0). */
    aclmdlRI m = begin(s);
    aclmdlRICondHandle h;
    OK(aclmdlRICondHandleCreate(m, 0, 0, &h));
    uint64_t *cond = NULL;
    OK(aclmdlRICondHandleGetCondPtr(h, &cond));
    aclmdlRI br[2] = {NULL, NULL};
    aclmdlRICondTaskParams p = {h, ACL_MODEL_RI_COND_TYPE_IF, 2, br};
    launch(s, a3); /* before the condition: always */
    OK(aclmdlRIAddCondTask(p, s, 0));
    EXPECT(br[0] != NULL && br[1] != NULL);
    EXPECT_RC(aclmdlRIAddCondTask(p, s, 0), ACL_ERROR_RT_PARAM_INVALID); /* a handle serves one task */
    aclmdlRI ended;
    EXPECT_RC(aclmdlRIDestroy(br[0]), ACL_ERROR_RT_FEATURE_NOT_SUPPORT); /* goes with its parent */
    OK(aclmdlRICaptureToModelRIBegin(sub, br[0], ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    launch(sub, a0);
    OK(aclmdlRICaptureEnd(sub, &ended));
    EXPECT(ended == br[0]);
    EXPECT_RC(aclmdlRICaptureToModelRIBegin(sub, br[0], ACL_MODEL_RI_CAPTURE_MODE_RELAXED), ACL_ERROR_RT_MODEL_CAPTURED);
    OK(aclmdlRICaptureToModelRIBegin(sub, br[1], ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    launch(sub, a1);
    OK(aclmdlRICaptureEnd(sub, &ended));
    OK(aclmdlRICaptureEnd(s, &m));
    int32_t out[4];
    put_u64(cond, 7); /* not 0: branch 0 */
    OK(run(m, out));
    EXPECT(out[0] == 1 && out[1] == 0 && out[3] == 1);
    put_u64(cond, 0); /* 0: branch 1 */
    OK(run(m, out));
    EXPECT(out[0] == 0 && out[1] == 1 && out[3] == 1);
    OK(aclmdlRIDestroy(m));
    EXPECT_RC(aclmdlRICondHandleGetCondPtr(h, &cond), ACL_ERROR_RT_INVALID_HANDLE); /* gone with the model */

    /* SWITCH over three branches, its value starting every run at the default (2). */
    m = begin(s);
    OK(aclmdlRICondHandleCreate(m, 2, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
    OK(aclmdlRICondHandleGetCondPtr(h, &cond));
    aclmdlRI cases[3];
    aclmdlRICondTaskParams sp = {h, ACL_MODEL_RI_COND_TYPE_SWITCH, 3, cases};
    OK(aclmdlRIAddCondTask(sp, s, 0));
    void *args[3] = {a0, a1, a2};
    for (int i = 0; i < 3; i++) {
        OK(aclmdlRICaptureToModelRIBegin(sub, cases[i], ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
        launch(sub, args[i]);
        OK(aclmdlRICaptureEnd(sub, &ended));
    }
    OK(aclmdlRICaptureEnd(s, &m));
    put_u64(cond, 0); /* overwritten by the default when the run begins */
    OK(run(m, out));
    EXPECT(out[0] == 0 && out[1] == 0 && out[2] == 1);
    OK(aclmdlRIDestroy(m));

    /* SWITCH with a value past its branches runs none (flag 0: the program's value). */
    m = begin(s);
    OK(aclmdlRICondHandleCreate(m, 0, 0, &h));
    OK(aclmdlRICondHandleGetCondPtr(h, &cond));
    aclmdlRI one[1];
    aclmdlRICondTaskParams op = {h, ACL_MODEL_RI_COND_TYPE_SWITCH, 1, one};
    OK(aclmdlRIAddCondTask(op, s, 0));
    OK(aclmdlRICaptureToModelRIBegin(sub, one[0], ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    launch(sub, a0);
    OK(aclmdlRICaptureEnd(sub, &ended));
    OK(aclmdlRICaptureEnd(s, &m));
    put_u64(cond, 1);
    OK(run(m, out));
    EXPECT(out[0] == 0);
    put_u64(cond, 0);
    OK(run(m, out));
    EXPECT(out[0] == 1);
    OK(aclmdlRIDestroy(m));
    OK(aclrtDestroyStream(sub));
    OK(aclrtDestroyStream(s));
}

static void test_cond_while(void)
{
    aclrtStream s, sub, exec;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateStream(&sub));
    OK(aclrtCreateStream(&exec));
    void *a0 = add_args(0, 1), *a1 = add_args(1, 1);
    uint64_t *zero;
    OK(aclrtMalloc((void **)&zero, 8, ACL_MEM_MALLOC_HUGE_FIRST));
    put_u64(zero, 0);
    /* WHILE: the body adds and then clears the value, so it runs once per run. */
    aclmdlRI m = begin(s);
    aclmdlRICondHandle h;
    OK(aclmdlRICondHandleCreate(m, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
    uint64_t *cond;
    OK(aclmdlRICondHandleGetCondPtr(h, &cond));
    aclmdlRI body[1];
    aclmdlRICondTaskParams p = {h, ACL_MODEL_RI_COND_TYPE_WHILE, 1, body};
    OK(aclmdlRIAddCondTask(p, s, 0));
    aclmdlRI ended;
    EXPECT_RC(aclmdlRICaptureEnd(s, &ended), ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING); /* its body is empty */
    m = begin(s);
    OK(aclmdlRICondHandleCreate(m, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
    OK(aclmdlRICondHandleGetCondPtr(h, &cond));
    p.handle = h;
    OK(aclmdlRIAddCondTask(p, s, 0));
    OK(aclmdlRICaptureToModelRIBegin(sub, body[0], ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    launch(sub, a0);
    OK(aclrtMemcpyAsync(cond, 8, zero, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, sub));
    OK(aclmdlRICaptureEnd(sub, &ended));
    OK(aclmdlRICaptureEnd(s, &m));
    int32_t out[4];
    for (int i = 0; i < 2; i++) { /* the default starts each run at 1 again */
        OK(run(m, out));
        EXPECT(out[0] == 1);
    }
    OK(aclmdlRIDestroy(m));

    /* A WHILE whose body never clears the value loops for good; its stream can be aborted. */
    m = begin(s);
    OK(aclmdlRICondHandleCreate(m, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
    aclmdlRICondTaskParams q = {h, ACL_MODEL_RI_COND_TYPE_WHILE, 1, body};
    OK(aclmdlRIAddCondTask(q, s, 0));
    OK(aclmdlRICaptureToModelRIBegin(sub, body[0], ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    launch(sub, a1);
    OK(aclmdlRICaptureEnd(sub, &ended));
    OK(aclmdlRICaptureEnd(s, &m));
    OK(aclrtMemset(g_out, 16, 0, 16));
    OK(aclmdlRIExecuteAsync(m, exec));
    EXPECT_RC(aclrtSynchronizeStreamWithTimeout(exec, 100), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    OK(aclrtStreamAbort(exec));
    OK(aclrtMemcpy(out, 16, g_out, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(out[1] > 10);
    (void)aclrtSynchronizeStream(exec);
    OK(aclmdlRIDestroy(m));
    OK(aclrtFree(zero));
    OK(aclrtDestroyStream(exec));
    OK(aclrtDestroyStream(sub));
    OK(aclrtDestroyStream(s));
}

static void test_cond_misuse(void)
{
    aclrtStream s, other;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateStream(&other));
    aclmdlRICondHandle h;
    aclmdlRI built;
    OK(aclmdlRIBuildBegin(&built, 0));
    EXPECT_RC(aclmdlRICondHandleCreate(built, 0, 0, &h), ACL_ERROR_RT_PARAM_INVALID); /* not a captured model */
    OK(aclmdlRIDestroy(built));
    aclmdlRI m = begin(s);
    EXPECT_RC(aclmdlRICondHandleCreate(m, 0, (aclmdlRICondHandleFlag)2, &h), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclmdlRICondHandleCreate(m, 0, 0, &h));
    aclmdlRI br[2];
    aclmdlRICondTaskParams p = {h, ACL_MODEL_RI_COND_TYPE_WHILE, 2, br};
    EXPECT_RC(aclmdlRIAddCondTask(p, s, 0), ACL_ERROR_RT_PARAM_INVALID); /* WHILE has 1 branch */
    p.type = ACL_MODEL_RI_COND_TYPE_IF;
    p.size = 3;
    EXPECT_RC(aclmdlRIAddCondTask(p, s, 0), ACL_ERROR_RT_PARAM_INVALID); /* IF has 1 or 2 */
    p.size = 1;
    EXPECT_RC(aclmdlRIAddCondTask(p, other, 0), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    p.modelRIArray = NULL;
    EXPECT_RC(aclmdlRIAddCondTask(p, s, 0), ACL_ERROR_INVALID_PARAM);
    p.modelRIArray = br;
    OK(aclmdlRIAddCondTask(p, s, 0)); /* the refusals left the handle usable */
    OK(aclmdlRICaptureToModelRIBegin(other, br[0], ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    aclmdlRI ended;
    OK(aclmdlRICaptureEnd(other, &ended));
    OK(aclmdlRICaptureEnd(s, &m));
    EXPECT_RC(aclmdlRICondHandleCreate(m, 0, 0, &h), ACL_ERROR_RT_PARAM_INVALID); /* not capturing */
    int32_t out[4];
    OK(run(m, out)); /* an empty branch runs nothing */
    OK(aclmdlRIDestroy(m));
    EXPECT_RC(aclmdlRICaptureToModelRIBegin(other, br[0], ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
              ACL_ERROR_RT_INVALID_HANDLE); /* gone with its parent */
    /* A parent whose capture ends while a branch still captures fails (107045) and goes; so
     * does the branch's capture, which then has nothing to end. */
    m = begin(s);
    OK(aclmdlRICondHandleCreate(m, 0, 0, &h));
    p.handle = h;
    OK(aclmdlRIAddCondTask(p, s, 0));
    OK(aclmdlRICaptureToModelRIBegin(other, br[0], ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    EXPECT_RC(aclmdlRICaptureEnd(s, &ended), ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING);
    EXPECT_RC(aclmdlRICaptureEnd(other, &ended), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    OK(aclrtMemsetAsync(g_out, 16, 0, 16, other)); /* an ordinary stream again */
    OK(aclrtSynchronizeStream(other));
    OK(aclrtDestroyStream(other));
    OK(aclrtDestroyStream(s));
}

/* Events between a model's streams: a wait gives way to the stream that records. */
static void test_events_between_streams(void)
{
    aclrtStream h1 = persistent(), h2 = persistent();
    aclrtEvent e;
    OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    aclmdlRI m;
    OK(aclmdlRIBuildBegin(&m, 0));
    OK(aclmdlRIBindStream(m, h1, ACL_MODEL_STREAM_FLAG_HEAD));
    OK(aclmdlRIBindStream(m, h2, ACL_MODEL_STREAM_FLAG_HEAD));
    OK(aclrtStreamWaitEvent(h1, e)); /* h1 runs first and waits for h2's record */
    OK(aclrtResetEvent(e, h1));
    add(h1, 0, 1);
    add(h2, 1, 1);
    OK(aclrtRecordEvent(e, h2));
    OK(aclmdlRIBuildEnd(m, NULL));
    int32_t out[4];
    for (int i = 0; i < 2; i++) {
        OK(run(m, out));
        EXPECT(out[0] == 1 && out[1] == 1);
    }
    OK(aclrtSynchronizeEvent(e));
    OK(aclmdlRIDestroy(m));
    OK(aclrtDestroyEvent(e));
    OK(aclrtDestroyStream(h1));
    OK(aclrtDestroyStream(h2));
}

/* A stream unbound and bound again during the build is the model's stream anew: an activation
 * reaches it (Model::UnbindStream removes it, Model::BindStream adds it again); what it took
 * before the unbind went with the unbind. */
static void test_rebind(void)
{
    aclrtStream head = persistent(), side = persistent();
    aclmdlRI m;
    OK(aclmdlRIBuildBegin(&m, 0));
    OK(aclmdlRIBindStream(m, head, ACL_MODEL_STREAM_FLAG_HEAD));
    OK(aclmdlRIBindStream(m, side, ACL_MODEL_STREAM_FLAG_DEFAULT));
    add(side, 1, 1); /* gone with the unbind */
    OK(aclmdlRIUnbindStream(m, side));
    OK(aclmdlRIBindStream(m, side, ACL_MODEL_STREAM_FLAG_DEFAULT));
    add(side, 0, 1);
    OK(aclrtActiveStream(side, head));
    OK(aclmdlRIEndTask(m, head));
    OK(aclmdlRIBuildEnd(m, NULL));
    int32_t out[4];
    OK(run(m, out));
    EXPECT(out[0] == 1 && out[1] == 0);
    OK(aclmdlRIDestroy(m));
    OK(aclrtDestroyStream(side));
    OK(aclrtDestroyStream(head));
}

/* ------------------------------------------------------------------ bad input */

static void test_bad_input(void)
{
    aclmdlRI m;
    EXPECT_RC(aclmdlRIBuildBegin(NULL, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclmdlRIBuildBegin(&m, 1), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclmdlRIBuildBegin(&m, 0));
    aclrtStream plain, s = persistent();
    OK(aclrtCreateStream(&plain));
    EXPECT_RC(aclmdlRIBindStream(m, plain, ACL_MODEL_STREAM_FLAG_HEAD), ACL_ERROR_RT_PARAM_INVALID); /* persistent only */
    EXPECT_RC(aclmdlRIBindStream(m, s, 5), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclmdlRIBindStream(NULL, s, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclmdlRIUnbindStream(m, s), ACL_ERROR_RT_STREAM_MODEL);
    EXPECT_RC(aclmdlRIEndTask(m, s), ACL_ERROR_RT_INTERNAL_ERROR); /* not bound to it */
    EXPECT_RC(aclmdlRIBuildEnd(m, (void *)1), ACL_ERROR_INVALID_PARAM);
    OK(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD));
    aclrtEvent e;
    OK(aclrtCreateEvent(&e));
    OK(aclrtRecordEvent(e, s)); /* recorded in the model: it happens when the model runs */
    OK(aclrtSynchronizeEvent(e)); /* nothing to wait for now */
    OK(aclrtDestroyEvent(e)); /* the model holds the event until it goes */
    uint32_t *index;
    OK(aclrtMalloc((void **)&index, 4, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtLabel l;
    OK(aclrtCreateLabel(&l));
    aclrtLabelList list;
    EXPECT_RC(aclrtCreateLabelList(&l, 0, &list), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtCreateLabelList(NULL, 1, &list), ACL_ERROR_INVALID_PARAM);
    aclrtLabel twice[2] = {l, l};
    EXPECT_RC(aclrtCreateLabelList(twice, 2, &list), ACL_ERROR_RT_INTERNAL_ERROR);
    OK(aclrtCreateLabelList(&l, 1, &list));
    EXPECT_RC(aclrtSetLabel(l, plain), ACL_ERROR_RT_STREAM_MODEL);
    EXPECT_RC(aclrtSwitchLabelByIndex(index, 1, list, plain), ACL_ERROR_RT_STREAM_MODEL);
    EXPECT_RC(aclrtSwitchLabelByIndex(index, 0, list, s), ACL_ERROR_RT_PARAM_INVALID);
    uint32_t host_index = 0;
    EXPECT_RC(aclrtSwitchLabelByIndex(&host_index, 1, list, s), ACL_ERROR_RT_PARAM_INVALID); /* device memory */
    EXPECT_RC(aclrtSwitchLabelByIndex(index, 1, NULL, s), ACL_ERROR_INVALID_PARAM);
    /* The model is destroyed with its stream bound and unfinished: the stream is free again. */
    OK(aclmdlRIDestroy(m));
    EXPECT_RC(aclmdlRIBindStream(m, s, 0), ACL_ERROR_RT_INVALID_HANDLE);
    OK(aclrtMemsetAsync(g_out, 16, 0, 16, s)); /* an ordinary stream again */
    OK(aclrtSynchronizeStream(s));
    /* A captured model is not built: binding to it is refused. */
    aclrtStream cs;
    OK(aclrtCreateStream(&cs));
    OK(aclmdlRICaptureBegin(cs, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    add(cs, 0, 1);
    aclmdlRI captured;
    OK(aclmdlRICaptureEnd(cs, &captured));
    EXPECT_RC(aclmdlRIBindStream(captured, s, 0), ACL_ERROR_RT_PARAM_INVALID);
    char path[] = "/tmp/aiocann-captured-XXXXXX";
    int fd = mkstemp(path);
    EXPECT(fd >= 0);
    OK(aclmdlRIDebugJsonPrint(captured, path, 0)); /* the dump works for captured models too */
    FILE *f = fdopen(fd, "r");
    char buf[2048] = {0};
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    EXPECT(strstr(buf, "\"name\":\"add_value\"") != NULL);
    remove(path);
    OK(aclmdlRIDestroy(captured));
    OK(aclrtDestroyStream(cs));
    OK(aclrtDestroyLabelList(list));
    OK(aclrtDestroyLabel(l));
    EXPECT_RC(aclrtDestroyLabelList(list), ACL_ERROR_RT_INVALID_HANDLE);
    OK(aclrtFree(index));
    OK(aclrtDestroyStream(s));
    OK(aclrtDestroyStream(plain));
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: main KERNELS DUMP_DIR\n");
        return 2;
    }
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    aclrtBinHandle bin;
    OK(aclrtBinaryLoadFromFile(argv[1], NULL, &bin));
    OK(aclrtBinaryGetFunction(bin, "add_value", &g_add));
    OK(aclrtMalloc((void **)&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtCreateStream(&g_exec));
    test_label_switch(argv[2]);
    test_label_across_models();
    test_switch_and_activate();
    test_rebind();
    test_events_between_streams();
    test_endless_loop_is_stoppable();
    test_bad_input();
    test_cond_if_and_switch();
    test_cond_while();
    test_cond_misuse();
    OK(aclrtDestroyStream(g_exec));
    OK(aclrtFree(g_out));
    OK(aclrtBinaryUnLoad(bin));
    OK(aclrtResetDeviceForce(0));
    OK(aclFinalize());
    if (g_failures == 0)
        printf("[SUCCESS] models built by stream binding\n");
    return g_failures;
}
