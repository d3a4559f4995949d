/*
 * aiocann simulator: operator timeouts -- how long an AI-core launch may run, and how long a
 * stream waits for an event.
 *
 * The real runtime (hicann/runtime src/runtime/core/src/runtime.cc Runtime::SetTimeoutConfig,
 * src/runtime/core/src/kernel/kernel_utils.cc GetOpExecuteMsTimeout,
 * src/runtime/core/src/task/task_execute_time.cc GetAicoreKernelCredit and
 * TransExeTimeoutCfgToKernelCredit, src/runtime/api/impl/api_impl.cc ApiImpl::SetOpExecuteTimeOut*,
 * GetOpTimeOutInterval, SetOpWaitTimeOut) keeps one process-wide configuration:
 *   - The execute timeout of a launch is counted by the hardware in "kernel credits" of a
 *     fixed interval: credit N (1..254) means N x interval. On A2/A3 the interval is
 *     2^32 ns = 4294967.296 us (RT_STARS_TASK_KERNEL_CREDIT_SCALE_US) and the default credit
 *     254 (about 1091 s, the documented default). A configured timeout is rounded up to a
 *     whole number of credits and capped at 254 of them; 0 means the maximum -- except when
 *     the device supports millisecond timeouts, whose driver reports a finer interval
 *     (Runtime::InitOpExecTimeout): there 0 means never.
 *   - A launch reads the configuration when it is submitted (its SQE's kernel credit); a
 *     launch timeout attribute overrides it (launch.c).
 *   - aclrtSetOpWaitTimeout sets, in seconds (0 = never, the default), how long a stream
 *     waits for an event: rtStreamWaitEvent hands it to the wait task it creates (event.c).
 *
 * The simulator keeps the same configuration and drives its one timeout mechanism with it:
 * the AI-core watchdog of device.c ends a launch whose timeout has expired (507014), and an
 * event wait that outlives the wait timeout fails its task (107020).
 *
 * Simulator choices: AIOCANN_SIM_OP_TIMEOUT_INTERVAL_US (read when the runtime boots, rt_floor.c) stands
 * for a driver that reports another interval, millisecond-capable below 100000 us (default:
 * the A2 interval, no millisecond support); the configuration lasts until aclFinalize (the
 * real one lives as long as the process).
 *
 * Locking: g_lock guards the configuration; nothing else is taken under it.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "sim.h"

#define CREDIT_MAX 254u                 /* RT_STARS_MAX_KERNEL_CREDIT */
#define CREDIT_DEFAULT 254u             /* RT_STARS_DEFAULT_KERNEL_CREDIT */
#define A2_INTERVAL_NS 4294967296ull    /* 2^32 ns: RT_STARS_TASK_KERNEL_CREDIT_SCALE_US */
#define MS_MODE_MAX_INTERVAL_US 100000u /* docs/zh/api_ref/12: "interval < 100000 us": 0 = never */
#define MAX_OP_TIMEOUT_FOR_MS 1000000u  /* RT_MAX_OP_TIMEOUT_FOR_MS: what ...WithMs clamps to */

/* Written under g_lock; the execute timeout is read by every launch without it (atomics:
 * a launch racing a setter gets the old or the new value, as it would in the runtime). */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool g_exec_set;     /* isCfgOpExcTaskTimeout */
static _Atomic uint64_t g_exec_us; /* opExcTaskTimeout, 0 = "maximum" (or never in ms mode) */
static uint32_t g_wait_s;          /* Runtime::waitTimeout_ */

/* The driver's credit interval: the configured one, else (unset, or before aclInit) the A2's. */
static uint64_t interval_ns(void)
{
    uint64_t ns = g_rt.cfg.op_timeout_interval_ns;
    return ns ? ns : A2_INTERVAL_NS;
}

/* A driver with a finer interval supports millisecond timeouts, where 0 means never. */
static bool ms_mode(void) { return interval_ns() < MS_MODE_MAX_INTERVAL_US * 1000ull; }

bool sim_op_timeout_ms_mode(void) { return ms_mode(); }

/* The execute timeout a launch gets now, in microseconds; 0 = never. */
uint64_t sim_op_execute_timeout_us(void)
{
    uint64_t interval = interval_ns();
    if (!atomic_load_explicit(&g_exec_set, memory_order_acquire))
        return interval * CREDIT_DEFAULT / 1000u; /* GetStarsFftsDefaultKernelCredit */
    uint64_t us = atomic_load_explicit(&g_exec_us, memory_order_relaxed);
    if (us == 0)
        return ms_mode() ? 0 : interval * CREDIT_MAX / 1000u;
    /* Rounded up to whole credits, at most CREDIT_MAX of them (TransExeTimeoutCfgToKernelCredit). */
    uint64_t ns = us > UINT64_MAX / 1000u ? UINT64_MAX : us * 1000u;
    uint64_t credits = ns / interval + (ns % interval != 0);
    if (credits > CREDIT_MAX)
        credits = CREDIT_MAX;
    return credits * interval / 1000u;
}

uint32_t sim_op_wait_timeout_s(void)
{
    pthread_mutex_lock(&g_lock);
    uint32_t s = g_wait_s;
    pthread_mutex_unlock(&g_lock);
    return s;
}

void sim_op_timeout_reset(void)
{
    pthread_mutex_lock(&g_lock);
    g_exec_set = false; /* the flag first: a launch that sees it clear reads nothing else */
    g_exec_us = 0;
    g_wait_s = 0;
    pthread_mutex_unlock(&g_lock);
}

static void set_execute(uint64_t us)
{
    pthread_mutex_lock(&g_lock);
    g_exec_us = us; /* before the flag: a launch that sees it set reads this */
    g_exec_set = true;
    pthread_mutex_unlock(&g_lock);
}

/* Seconds; 0 = the maximum (ApiImpl::SetOpExecuteTimeOut, RT_TIME_UNIT_TYPE_S). */
SIM_API aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
    SIM_CHECK_PROCESS();
    set_execute((uint64_t)timeout * 1000000u);
    return ACL_SUCCESS;
}

/* Milliseconds, clamped to RT_MAX_OP_TIMEOUT_FOR_MS (1000 s). */
SIM_API aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout)
{
    SIM_CHECK_PROCESS();
    set_execute((uint64_t)(timeout >= MAX_OP_TIMEOUT_FOR_MS ? MAX_OP_TIMEOUT_FOR_MS : timeout) * 1000u);
    return ACL_SUCCESS;
}

/* Microseconds; *actualTimeout is what the hardware will apply: whole credits of the interval,
 * or UINT64_MAX for never (ApiImpl::SetOpExecuteTimeOutV2). Needs a context (the device's
 * timeout configuration is initialised with it). */
SIM_API aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(actualTimeout);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_obj_put(&c->obj);
    pthread_mutex_lock(&g_lock);
    g_exec_us = timeout;
    g_exec_set = true;
    uint64_t us = sim_op_execute_timeout_us();
    pthread_mutex_unlock(&g_lock);
    *actualTimeout = us ? us : UINT64_MAX; /* 0: never (ms mode) */
    return ACL_SUCCESS;
}

/* The credit interval in microseconds (truncated, as the runtime casts it); needs a context. */
SIM_API aclError aclrtGetOpTimeOutInterval(uint64_t *interval)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(interval);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_obj_put(&c->obj);
    *interval = interval_ns() / 1000u;
    return ACL_SUCCESS;
}

/* The execute timeout in milliseconds, rounded up; UINT32_MAX for never (GetOpExecuteMsTimeout). */
SIM_API aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(timeoutMs);
    uint64_t us = sim_op_execute_timeout_us();
    if (us == 0)
        *timeoutMs = UINT32_MAX;
    else
        *timeoutMs = (uint32_t)((us + 999u) / 1000u);
    return ACL_SUCCESS;
}

/* Seconds a stream waits for an event, 0 = never (ApiImpl::SetOpWaitTimeOut: the chip's
 * SET_OP_WAIT_TIMEOUT_CONFIG -> Runtime::SetWaitTimeout). */
SIM_API aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
    SIM_CHECK_PROCESS();
    pthread_mutex_lock(&g_lock);
    g_wait_s = timeout;
    pthread_mutex_unlock(&g_lock);
    return ACL_SUCCESS;
}
