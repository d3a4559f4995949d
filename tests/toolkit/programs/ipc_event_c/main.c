/*
 * IPC events across two processes, written as CANN's samples are (hicann/runtime
 * example/2_advanced_features/ipcevent): process A creates an ACL_EVENT_IPC event and hands its
 * handle to process B, which opens it. Records in one process release stream waits and host
 * synchronizes in the other; a stream waiting in B sleeps (no core spins) until A's record
 * executes; an abort of the waiting stream ends a wait whose record is held back; the handle stops opening
 * once A destroyed its event. Codes are the real runtime's (ipc_event.cc, api_error.cc).
 *
 * ./main          runs A (this process) and B (a fork made before either calls ACL); prints
 *                 "[SUCCESS]" and exits 0 when every check in both holds.
 * ./main nochip   on a part without IPC events (AIOCANN_SIM_SOC_NAME=Ascend910A): 207000.
 *
 * The two talk over pipes, one byte per step; A holds its stream back with a notify wait so
 * that its record is pending while B issues its wait.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"

static int g_failures;
static const char *g_who = "A";

#define EXPECT_RC(call, want)                                                                            \
    do {                                                                                                 \
        aclError rc_ = (call);                                                                           \
        if (rc_ != (aclError)(want)) {                                                                   \
            fprintf(stderr, "[FAILURE] %s %s:%d: %s returned %d, expected %d (%s)\n", g_who, __FILE__,   \
                    __LINE__, #call, rc_, (int)(want), aclGetRecentErrMsg());                            \
            g_failures++;                                                                                \
        }                                                                                                \
    } while (0)
#define OK(call) EXPECT_RC(call, ACL_SUCCESS)
#define EXPECT(cond)                                                                                     \
    do {                                                                                                 \
        if (!(cond)) {                                                                                   \
            fprintf(stderr, "[FAILURE] %s %s:%d: %s\n", g_who, __FILE__, __LINE__, #cond);               \
            g_failures++;                                                                                \
        }                                                                                                \
    } while (0)

static int g_to_peer, g_from_peer;

static void send_step(char c)
{
    if (write(g_to_peer, &c, 1) != 1)
        g_failures++;
}

static void expect_step(char want)
{
    char c = 0;
    if (read(g_from_peer, &c, 1) != 1 || c != want) {
        fprintf(stderr, "[FAILURE] %s: expected step '%c' from the peer, got '%c'\n", g_who, want, c);
        g_failures++;
    }
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static aclrtEventRecordedStatus status_of(aclrtEvent e)
{
    aclrtEventRecordedStatus st = (aclrtEventRecordedStatus)-1;
    OK(aclrtQueryEventStatus(e, &st));
    return st;
}

/* What the creating process alone can check: flags, refusals, bad handles. */
static void checks_in_a(aclrtStream s, aclrtEvent ipc)
{
    aclrtEvent e = NULL;
    aclrtIpcEventHandle h;
    EXPECT_RC(aclrtCreateEventWithFlag(&e, ACL_EVENT_IPC), ACL_ERROR_RT_PARAM_INVALID); /* Ex only */
    EXPECT_RC(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC | ACL_EVENT_SYNC), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_RC(aclrtIpcGetEventHandle(NULL, &h), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtIpcGetEventHandle(ipc, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_RC(aclrtIpcOpenEventHandle(h, NULL), ACL_ERROR_INVALID_PARAM);
    OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    EXPECT_RC(aclrtIpcGetEventHandle(e, &h), ACL_ERROR_RT_PARAM_INVALID); /* not an IPC event */
    OK(aclrtDestroyEvent(e));
    memset(&h, 0x5a, sizeof h);
    EXPECT_RC(aclrtIpcOpenEventHandle(h, &e), ACL_ERROR_RT_PARAM_INVALID); /* names no IPC event */
    /* What IPC events refuse (api_error.cc) */
    EXPECT_RC(aclrtResetEvent(ipc, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    aclrtEventStatus old;
    EXPECT_RC(aclrtQueryEvent(ipc, &old), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    aclrtEventWaitStatus ws;
    EXPECT_RC(aclrtQueryEventWaitStatus(ipc, &ws), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    uint32_t id;
    EXPECT_RC(aclrtGetEventId(ipc, &id), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    uint64_t ts;
    EXPECT_RC(aclrtEventGetTimestamp(ipc, &ts), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_RC(aclrtRecordEventWithFlag(ipc, s, ACL_EVENT_RECORD_EXTERNAL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    /* never recorded: complete, and a synchronize or a stream wait passes at once */
    EXPECT(status_of(ipc) == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    OK(aclrtSynchronizeEvent(ipc));
    OK(aclrtStreamWaitEvent(s, ipc));
    OK(aclrtSynchronizeStream(s));
    /* not on a capturing stream */
    aclrtStream cs;
    OK(aclrtCreateStream(&cs));
    OK(aclmdlRICaptureBegin(cs, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    EXPECT_RC(aclrtRecordEvent(ipc, cs), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_RC(aclrtStreamWaitEvent(cs, ipc), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    aclmdlRI model = NULL;
    OK(aclmdlRICaptureEnd(cs, &model));
    if (model)
        OK(aclmdlRIDestroy(model));
    OK(aclrtDestroyStream(cs));
}

static int process_a(void)
{
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    aclrtStream s, s2;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateStream(&s2));
    aclrtEvent ipc = NULL;
    OK(aclrtCreateEventExWithFlag(&ipc, ACL_EVENT_IPC));
    aclrtIpcEventHandle h;
    memset(&h, 0, sizeof h);
    OK(aclrtIpcGetEventHandle(ipc, &h));
    checks_in_a(s, ipc);
    if (write(g_to_peer, &h, sizeof h) != (ssize_t)sizeof h)
        g_failures++;
    expect_step('o'); /* B opened it */

    /* 1. A's record, held back on s by a notify, releases B's stream wait. */
    aclrtNotify gate;
    OK(aclrtCreateNotify(&gate, ACL_NOTIFY_DEFAULT));
    OK(aclrtWaitAndResetNotify(gate, s, 0));
    OK(aclrtRecordEvent(ipc, s));
    EXPECT(status_of(ipc) == ACL_EVENT_RECORDED_STATUS_NOT_READY);
    send_step('r');
    expect_step('w'); /* B's stream is waiting */
    OK(aclrtRecordNotify(gate, s2));
    OK(aclrtSynchronizeStream(s));
    EXPECT(status_of(ipc) == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    send_step('d');

    /* 2. B's record, held back in B, holds A's host synchronize. */
    expect_step('R');
    EXPECT(status_of(ipc) == ACL_EVENT_RECORDED_STATUS_NOT_READY);
    EXPECT_RC(aclrtSynchronizeEventWithTimeout(ipc, 50), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    send_step('g');
    OK(aclrtSynchronizeEvent(ipc));
    EXPECT(status_of(ipc) == ACL_EVENT_RECORDED_STATUS_COMPLETE);

    /* 3. A record held back while B aborts the stream waiting for it. */
    OK(aclrtWaitAndResetNotify(gate, s, 0));
    OK(aclrtRecordEvent(ipc, s));
    send_step('h');
    expect_step('f'); /* B's abort returned */
    OK(aclrtRecordNotify(gate, s2));
    OK(aclrtSynchronizeStream(s));

    /* 4. Once A destroyed its event, the handle opens no more (B's own event lives on). */
    OK(aclrtDestroyEvent(ipc));
    send_step('x');
    expect_step('e');
    OK(aclrtDestroyNotify(gate));
    OK(aclrtDestroyStream(s));
    OK(aclrtDestroyStream(s2));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    return g_failures;
}

static int process_b(void)
{
    g_who = "B";
    aclrtIpcEventHandle h;
    if (read(g_from_peer, &h, sizeof h) != (ssize_t)sizeof h)
        return 1;
    OK(aclInit(NULL));
    EXPECT_RC(aclrtIpcOpenEventHandle(h, &(aclrtEvent){NULL}), ACL_ERROR_RT_CONTEXT_NULL); /* no device yet */
    OK(aclrtSetDevice(0));
    aclrtStream s, s2;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateStream(&s2));
    aclrtEvent ipc = NULL;
    OK(aclrtIpcOpenEventHandle(h, &ipc));
    aclrtIpcEventHandle again;
    OK(aclrtIpcGetEventHandle(ipc, &again)); /* the opened event has the same handle */
    EXPECT(memcmp(&again, &h, sizeof h) == 0);
    send_step('o');

    /* 1. */
    expect_step('r');
    EXPECT(status_of(ipc) == ACL_EVENT_RECORDED_STATUS_NOT_READY); /* A's record is pending */
    OK(aclrtStreamWaitEvent(s, ipc));
    double cpu0 = cpu_seconds(), t0 = now_seconds();
    EXPECT_RC(aclrtSynchronizeStreamWithTimeout(s, 200), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    double cpu = cpu_seconds() - cpu0, wall = now_seconds() - t0;
    if (cpu > 0.5 * wall) { /* a spinning worker would burn the whole wait */
        fprintf(stderr, "[FAILURE] B: %.3f s of CPU in a %.3f s stream wait\n", cpu, wall);
        g_failures++;
    }
    send_step('w');
    OK(aclrtSynchronizeStream(s)); /* released by A's record */
    expect_step('d');
    EXPECT(status_of(ipc) == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    OK(aclrtStreamWaitEvent(s, ipc)); /* nothing pending: passes */
    OK(aclrtSynchronizeStream(s));

    /* 2. */
    aclrtNotify gate;
    OK(aclrtCreateNotify(&gate, ACL_NOTIFY_DEFAULT));
    OK(aclrtWaitAndResetNotify(gate, s, 0));
    OK(aclrtRecordEvent(ipc, s));
    send_step('R');
    expect_step('g');
    OK(aclrtRecordNotify(gate, s2));
    OK(aclrtSynchronizeStream(s));

    /* 3. */
    expect_step('h');
    aclrtStream w;
    OK(aclrtCreateStream(&w));
    OK(aclrtStreamWaitEvent(w, ipc));
    EXPECT_RC(aclrtSynchronizeStreamWithTimeout(w, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT); /* it waits */
    t0 = now_seconds();
    OK(aclrtStreamAbort(w)); /* ends the running wait */
    double took = now_seconds() - t0;
    if (took >= 1.0) {
        fprintf(stderr, "[FAILURE] B: the abort took %.3f s\n", took);
        g_failures++;
    }
    OK(aclrtDestroyStream(w));
    send_step('f');

    /* 4. */
    expect_step('x');
    aclrtEvent late = NULL;
    EXPECT_RC(aclrtIpcOpenEventHandle(h, &late), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtRecordEvent(ipc, s)); /* B's event still works */
    OK(aclrtSynchronizeEvent(ipc));
    send_step('e');
    /* 5. The device is reset with one stream parked on a notify and another on the IPC event
     * (the record held behind the notify): the reset returns, the waits give up. */
    aclrtStream parked;
    OK(aclrtCreateStream(&parked));
    OK(aclrtWaitAndResetNotify(gate, s, 0));
    OK(aclrtRecordEvent(ipc, s));
    OK(aclrtStreamWaitEvent(parked, ipc));
    EXPECT_RC(aclrtSynchronizeStreamWithTimeout(parked, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    OK(aclrtDestroyEvent(ipc));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    return g_failures;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "nochip") == 0) {
        OK(aclInit(NULL));
        OK(aclrtSetDevice(0));
        aclrtEvent e = NULL;
        aclrtIpcEventHandle h;
        memset(&h, 0, sizeof h);
        EXPECT_RC(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        EXPECT_RC(aclrtIpcOpenEventHandle(h, &e), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        OK(aclrtResetDevice(0));
        OK(aclFinalize());
        if (!g_failures)
            printf("[SUCCESS] no IPC events on this part\n");
        return g_failures ? 1 : 0;
    }
    int a_to_b[2], b_to_a[2];
    if (pipe(a_to_b) || pipe(b_to_a))
        return 2;
    fflush(NULL);
    pid_t pid = fork(); /* before either process calls ACL */
    if (pid < 0)
        return 2;
    if (pid == 0) {
        g_to_peer = b_to_a[1];
        g_from_peer = a_to_b[0];
        _exit(process_b() ? 1 : 0);
    }
    g_to_peer = a_to_b[1];
    g_from_peer = b_to_a[0];
    int failures = process_a();
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "[FAILURE] process B failed (status 0x%x)\n", status);
        failures++;
    }
    if (!failures)
        printf("[SUCCESS] IPC events synchronize two processes\n");
    return failures ? 1 : 0;
}
