/*
 * aiocann simulator: process-wide runtime state, aclInit/aclFinalize, configuration.
 *
 * The runtime boots on first use, as the real one does (RuntimeKeeper::BootRuntime: the first
 * runtime call of the process, whichever it is): aclrtGetDeviceCount, aclrtSetDevice,
 * aclrtGetDeviceInfo and the rest work before aclInit. aclInit is the ACL layer's: it counts
 * its calls (aclInitRefCount) and boots the runtime if nothing has yet (aclInitImpl asks for
 * the SoC name, which needs it). aclFinalize ends the ACL session; the real runtime lives on
 * until the process exits, the simulator's is torn down then (simulator choice, see
 * finalize_locked) and boots again on the next use -- as it does at an aclInit while no device
 * is open, so that each ACL session reads the configuration of its moment.
 *
 * Configuration is read from the environment when the runtime boots, so a process can change
 * it between aclFinalize and the next aclInit (or first use):
 *   AIOCANN_SIM_SOC_NAME     the simulated part (chip.c; default Ascend910B1); an unknown one
 *                            makes the boot fail, naming the known ones
 *   AIOCANN_SIM_DEVICES      number of (physical) devices           (default 8, a 910B server; 1..64)
 *   AIOCANN_SIM_CORES        AI-core threads per device              (default 8, 1..256)
 *   AIOCANN_SIM_MEMORY       device memory per device, e.g. 512m, 4g (default 4g)
 *   AIOCANN_SIM_MAX_STREAMS  streams per device incl. default ones   (default 1984)
 *   AIOCANN_SIM_MAX_EVENTS   events per device                       (default 65536)
 *   AIOCANN_SIM_SPIN_US      how long a stream worker whose queue ran dry polls it before
 *                            sleeping, in microseconds; 0 never polls (default 30)
 *   AIOCANN_SIM_MODEL_DESTROY_WAIT_MS  how long aclmdlRIDestroy waits for a model's running
 *                            replays before it gives up with 107037 (default 10000, as
 *                            Context::ModelDestroy polls 10000 x 1 ms)
 *   AIOCANN_SIM_OP_TIMEOUT_INTERVAL_US  the operator-timeout interval the "driver" reports, in
 *                            microseconds (default: the A2's 2^32 ns; below 100000 a driver
 *                            with millisecond timeouts, op_timeout.c)
 *   ASCEND_RT_VISIBLE_DEVICES the real runtime's variable: which of those devices this process
 *                            sees, renumbered from 0 (read_visible_devices)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"
#include "aclsim_chip.h"

sim_runtime g_rt = {.lock = PTHREAD_MUTEX_INITIALIZER};
atomic_bool g_sim_forked;
static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

static void in_child(void) { atomic_store(&g_sim_forked, true); }
static void register_atfork(void) { pthread_atfork(NULL, NULL, in_child); }

aclError sim_forked_error(const char *func)
{
    return sim_fail_(func, ACL_ERROR_UNINITIALIZE,
                     "this process was forked from one that had initialised ACL; the runtime's threads do not "
                     "exist here, so it cannot be used: initialise ACL in the child only (e.g. the 'spawn' "
                     "start method of multiprocessing)");
}

void sim_mutex_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

void sim_cond_init_monotonic(pthread_cond_t *cv)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &a);
    pthread_condattr_destroy(&a);
}

uint64_t sim_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool sim_deadline(int32_t timeout_ms, struct timespec *ts)
{
    if (timeout_ms < 0)
        return false;
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += timeout_ms / 1000;
    ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
    return true;
}

bool sim_is_initialized(void)
{
    pthread_mutex_lock(&g_rt.lock);
    bool ok = g_rt.booted;
    pthread_mutex_unlock(&g_rt.lock);
    return ok;
}

static aclError read_config(sim_config *c);

/* Boots the runtime if it has not booted: reads the configuration and the chip. g_rt.lock
 * held. */
static aclError boot_locked(const char *func)
{
    if (g_rt.booted)
        return ACL_SUCCESS;
    /* The SoC first (Runtime::Init: InitChipTypeAndSocVersion); aclInitImpl's check of
     * aclrtGetSocName answers a part it cannot name with 500000. */
    const aclsimChip *chip = aclsimGetChip();
    if (!chip)
        return sim_fail_(func, ACL_ERROR_INTERNAL_ERROR,
                         "cannot start the runtime: AIOCANN_SIM_SOC_NAME=%s is not a simulated part",
                         getenv("AIOCANN_SIM_SOC_NAME"));
    sim_config cfg;
    aclError rc = read_config(&cfg);
    if (rc)
        return rc;
    sim_fault_install();
    pthread_once(&g_atfork_once, register_atfork);
    g_rt.cfg = cfg;
    g_rt.secret = sim_now_ns() * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
    g_rt.booted = true;
    return ACL_SUCCESS;
}

aclError sim_runtime_boot(const char *func)
{
    pthread_mutex_lock(&g_rt.lock);
    aclError rc = boot_locked(func);
    pthread_mutex_unlock(&g_rt.lock);
    return rc;
}

static aclError env_long(const char *name, long lo, long hi, long dflt, long *out)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        *out = dflt;
        return ACL_SUCCESS;
    }
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < lo || x > hi)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "%s=%s is not an integer in [%ld, %ld]", name, v, lo, hi);
    *out = x;
    return ACL_SUCCESS;
}

static aclError env_size(const char *name, size_t dflt, size_t *out)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        *out = dflt;
        return ACL_SUCCESS;
    }
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    unsigned long long mult = 1;
    if (*end == 'k' || *end == 'K')
        mult = 1ull << 10, end++;
    else if (*end == 'm' || *end == 'M')
        mult = 1ull << 20, end++;
    else if (*end == 'g' || *end == 'G')
        mult = 1ull << 30, end++;
    if (errno || *end || x == 0 || x > (1ull << 40) / mult)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "%s=%s is not a size such as 512m or 4g (at most 1t)", name, v);
    *out = (size_t)(x * mult);
    return ACL_SUCCESS;
}

/*
 * ASCEND_RT_VISIBLE_DEVICES, parsed as the real runtime parses it: Runtime::GetVisibleDevices
 * and SplitString in src/runtime/core/src/runtime.cc (hicann/runtime 681ef7610).
 *
 * - Unset: every device, user id = logical id. Set, even to "": only what it lists.
 * - The first 128 characters are read (RT_SET_DEVICE_STR_MAX_LEN).
 * - Splitting: a value not starting with a digit gives no id at all (so "", " 1", "-1", ",1").
 *   Digits make an id; a comma ends it; any other character, or a second comma in a row, stops
 *   the reading there ("1, 2,3" is 1; "1,,2" is 1; "1a" is 1).
 * - Ids in order: the first that is not a device (>= the device count, or too large to be a
 *   number) stops the reading; the ids before it count ("1,3,8" with 4 devices is 1,3). An id
 *   smaller than the one before it, or one seen before, makes the whole setting invalid.
 *   Reading also stops once there are as many ids as devices, so what follows is never checked.
 * - No id read, or an invalid setting: the process sees no device. aclInit still succeeds (the
 *   runtime ignores GetVisibleDevices' result); aclrtGetDeviceCount fails with 207004 and
 *   aclrtSetDevice with 107001 (ApiImpl::GetDeviceCount, ApiErrorDecorator::SetDevice).
 * The devices it lists become user devices 0, 1, ... in that order.
 */
static void read_visible_devices(sim_config *c)
{
    int physical = c->physical_devices;
    const char *v = getenv("ASCEND_RT_VISIBLE_DEVICES");
    c->visible_str[0] = '\0';
    if (!v) {
        c->visible = SIM_VISIBLE_UNSET;
        c->num_devices = physical;
        for (int i = 0; i < physical; i++)
            c->logic_id[i] = i;
        return;
    }
    size_t len = strnlen(v, SIM_VISIBLE_STR_MAX);
    memcpy(c->visible_str, v, len);
    c->visible_str[len] = '\0';
    c->num_devices = 0;

    /* SplitString, then the loop over its tokens, in one pass: a token is complete when its
     * digits end (or the string does). */
    const char *p = c->visible_str;
    int n = 0;
    if (isdigit((unsigned char)p[0])) {
        int commas = 0;
        while (*p) {
            if (!isdigit((unsigned char)*p)) {
                if (*p != ',' || ++commas > 1)
                    break;
                p++;
                continue;
            }
            commas = 0;
            /* std::stoi of the digits; a value past any device (however long) stops the reading */
            long id = 0;
            for (; isdigit((unsigned char)*p); p++)
                if (id <= SIM_MAX_DEVICES)
                    id = id * 10 + (*p - '0');
            if (id > physical - 1)
                break;
            if (n > 0 && id < c->logic_id[n - 1]) {
                c->visible = SIM_VISIBLE_ORDER;
                return;
            }
            for (int j = 0; j < n; j++)
                if (c->logic_id[j] == id) {
                    c->visible = SIM_VISIBLE_DUPLICATED;
                    return;
                }
            c->logic_id[n++] = (int32_t)id;
            if (n >= physical)
                break;
        }
    }
    if (n == 0) {
        c->visible = SIM_VISIBLE_NONE;
        return;
    }
    c->visible = SIM_VISIBLE_OK;
    c->num_devices = n;
}

const char *sim_visible_problem(void)
{
    switch (g_rt.cfg.visible) {
    case SIM_VISIBLE_DUPLICATED:
        return "an id cannot be repeated";
    case SIM_VISIBLE_ORDER:
        return "the ids must be in ascending order";
    case SIM_VISIBLE_NONE:
        return "it names no device: comma-separated ids in [0, physical device count), nothing else";
    default:
        return NULL;
    }
}

static aclError read_config(sim_config *c)
{
    long v;
    aclError rc;
    if ((rc = env_long("AIOCANN_SIM_DEVICES", 1, SIM_MAX_DEVICES, 8, &v)))
        return rc;
    c->physical_devices = (int)v;
    read_visible_devices(c);
    if ((rc = env_long("AIOCANN_SIM_CORES", 1, 256, 8, &v)))
        return rc;
    c->cores_per_device = (int)v;
    if ((rc = env_long("AIOCANN_SIM_MAX_STREAMS", 2, 65536, 1984, &v)))
        return rc;
    c->max_streams = (int)v;
    if ((rc = env_long("AIOCANN_SIM_MAX_EVENTS", 1, 1 << 20, 65536, &v)))
        return rc;
    c->max_events = (int)v;
    if ((rc = env_long("AIOCANN_SIM_SPIN_US", 0, 1000000, 30, &v)))
        return rc;
    c->spin_ns = (uint64_t)v * 1000u;
    if ((rc = env_long("AIOCANN_SIM_MODEL_DESTROY_WAIT_MS", 0, 3600000, 10000, &v)))
        return rc;
    c->model_destroy_wait_ms = (int)v;
    /* 0: unset, the A2's interval of exactly 2^32 ns, which whole microseconds cannot give */
    if ((rc = env_long("AIOCANN_SIM_OP_TIMEOUT_INTERVAL_US", 0, 4294967, 0, &v)))
        return rc;
    c->op_timeout_interval_ns = (uint64_t)v * 1000u;
    if ((rc = env_size("AIOCANN_SIM_MEMORY", 4ull << 30, &c->device_memory)))
        return rc;
    return ACL_SUCCESS;
}

/* Whether a device of the booted runtime is open. g_rt.lock held. A device whose lock is busy
 * counts as open: something is using it (and a teardown holding it may wait for threads that
 * want g_rt.lock, so this must not block on it). */
static bool any_device_active(void)
{
    for (int i = 0; i < g_rt.cfg.num_devices; i++) {
        sim_device *d = sim_device_at(i);
        if (pthread_mutex_trylock(&d->lock) != 0)
            return true;
        bool active = d->active;
        pthread_mutex_unlock(&d->lock);
        if (active)
            return true;
    }
    return false;
}

SIM_API aclError aclInit(const char *configPath)
{
    SIM_CHECK_PROCESS();
    pthread_mutex_lock(&g_rt.lock);
    if (g_rt.init_refs > 0) {
        /* Still counted, as the real aclInitImpl counts (aclInitRefCount): aclFinalizeReference
         * then needs as many calls as there were aclInits before it tears down. */
        g_rt.init_refs++;
        pthread_mutex_unlock(&g_rt.lock);
        return sim_fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit was already called");
    }
    if (configPath && *configPath && access(configPath, R_OK) != 0) {
        pthread_mutex_unlock(&g_rt.lock);
        return sim_fail(ACL_ERROR_INVALID_FILE, "cannot read config file %s: %s", configPath, strerror(errno));
    }
    /* Simulator choice: a runtime that an earlier call booted but that has no device open yet
     * boots again, so that aclInit reads the configuration of its moment as it always has
     * (tests configure the simulator per session); with a device open, it stays. */
    if (g_rt.booted && !any_device_active())
        g_rt.booted = false;
    aclError rc = boot_locked(__func__); /* a no-op when an earlier call booted it */
    if (!rc) {
        g_rt.init_refs = 1;
        g_rt.finalized = false;
    }
    pthread_mutex_unlock(&g_rt.lock);
    return rc;
}

/* Ends the ACL session; called with g_rt.lock held, returns with it released.
 *
 * The real aclFinalize leaves the runtime running (it only finalizes the ACL layer's modules);
 * the simulator's runtime is torn down here -- every device reset, every resource of the
 * process released -- so that a test can start the next session from a clean machine and with
 * a new configuration (simulator choice). The next use boots it again. */
static aclError finalize_locked(void)
{
    bool booted = g_rt.booted;
    g_rt.booted = false;
    g_rt.init_refs = 0;
    g_rt.finalized = true;
    int n = booted ? g_rt.cfg.num_devices : 0;
    pthread_mutex_unlock(&g_rt.lock);
    if (!booted)
        return ACL_SUCCESS;

    /* Tear down outside g_rt.lock: stream workers finishing their last tasks may take it.
     * Device structs are static and never freed, so objects that still point at one (a
     * stale handle's stream, say) never dangle. */
    for (int i = 0; i < n; i++) {
        sim_device *d = sim_device_at(i);
        pthread_mutex_lock(&d->lock);
        if (d->active)
            sim_device_teardown(d);
        pthread_mutex_unlock(&d->lock);
    }
    sim_host_func_stop(); /* issue 23: the host function threads, once the streams have drained */
    sim_callback_reset();
    sim_op_timeout_reset(); /* issue 11: the operator timeouts set in this session */
    sim_sat_mode_reset();   /* issue 21: the process's overflow mode */
    sim_binary_unload_all();
    sim_pinned_free_all();
    /* issue 11, memory family: IPC keys and imports, virtual memory, host registrations */
    sim_ipc_reset();
    sim_vmm_reset();
    sim_host_register_reset();
    return ACL_SUCCESS;
}

/* aclFinalizeImpl refuses only a finalize after a finalize (aclFinalizeFlag, false when the
 * process starts and after each aclInit): one before any aclInit succeeds. */
SIM_API aclError aclFinalize(void)
{
    SIM_CHECK_PROCESS();
    pthread_mutex_lock(&g_rt.lock);
    if (g_rt.finalized) {
        pthread_mutex_unlock(&g_rt.lock);
        return sim_fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize without a matching aclInit");
    }
    return finalize_locked();
}

/* The counted finalize (aclFinalizeReferenceImpl): with more than one aclInit outstanding it
 * only drops one; the last one tears down like aclFinalize; none outstanding is 100037.
 * *refCount (optional) gets the count left. */
SIM_API aclError aclFinalizeReference(uint64_t *refCount)
{
    SIM_CHECK_PROCESS();
    pthread_mutex_lock(&g_rt.lock);
    if (refCount)
        *refCount = g_rt.init_refs;
    if (g_rt.init_refs > 1) {
        uint64_t left = --g_rt.init_refs;
        pthread_mutex_unlock(&g_rt.lock);
        if (refCount)
            *refCount = left;
        return ACL_SUCCESS;
    }
    if (g_rt.init_refs < 1) {
        pthread_mutex_unlock(&g_rt.lock);
        return sim_fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalizeReference without a matching aclInit");
    }
    aclError rc = finalize_locked();
    if (refCount)
        *refCount = 0;
    return rc;
}

/* Package versions. The real calls read <ASCEND_HOME_PATH>/share/info/<package>/version.info
 * of an installed CANN; here the one package present is the runtime, version 9.1.0 (the
 * runtime whose API this simulator implements: ACL 1.17). Other packages are not installed:
 * ACL_ERROR_INVALID_FILE, what the real calls return for a missing version file. */
#define SIM_RUNTIME_VERSION "9.1.0"

static bool is_runtime_package(const char *name)
{
    return strcmp(name, "runtime") == 0;
}

SIM_API aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(versionStr);
    SIM_CHECK_NOT_NULL(pkgName);
    if (!is_runtime_package(pkgName))
        return sim_fail(ACL_ERROR_INVALID_FILE, "package %s is not installed (the simulator provides \"runtime\")",
                        pkgName);
    snprintf(versionStr, ACL_PKG_VERSION_MAX_SIZE, "%s", SIM_RUNTIME_VERSION);
    return ACL_SUCCESS;
}

SIM_API aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(version);
    if ((int)name < ACL_PKG_NAME_CANN || (int)name > ACL_PKG_NAME_DRIVER)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "package name %d is not an aclCANNPackageName", (int)name);
    if (name != ACL_PKG_NAME_RUNTIME)
        return sim_fail(ACL_ERROR_INVALID_FILE, "package %d is not installed (the simulator provides the runtime)",
                        (int)name);
    memset(version, 0, sizeof *version);
    snprintf(version->version, sizeof version->version, "%s", SIM_RUNTIME_VERSION);
    snprintf(version->majorVersion, sizeof version->majorVersion, "9");
    snprintf(version->minorVersion, sizeof version->minorVersion, "1");
    snprintf(version->releaseVersion, sizeof version->releaseVersion, "0");
    return ACL_SUCCESS;
}

SIM_API aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(majorVersion);
    SIM_CHECK_NOT_NULL(minorVersion);
    SIM_CHECK_NOT_NULL(patchVersion);
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}
