/*
 * aiocann simulator: the roof of the runtime -- aclInit, aclFinalize (which tears down every
 * subsystem: the one place that calls up into all of them) and the package versions. The
 * process-wide state, the boot and the configuration are the floor (rt_floor.c).
 *
 * The runtime boots on first use, as the real one does (RuntimeKeeper::BootRuntime: the first
 * runtime call of the process, whichever it is): aclrtGetDeviceCount, aclrtSetDevice,
 * aclrtGetDeviceInfo and the rest work before aclInit. aclInit is the ACL layer's: it counts
 * its calls (aclInitRefCount) and boots the runtime if nothing has yet (aclInitImpl asks for
 * the SoC name, which needs it). aclFinalize ends the ACL session; the real runtime lives on
 * until the process exits, the simulator's is torn down then (simulator choice, see
 * finalize_locked) and boots again on the next use -- as it does at an aclInit while no device
 * is open, so that each ACL session reads the configuration of its moment.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

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
    aclError rc = sim_runtime_boot_locked(__func__); /* a no-op when an earlier call booted it */
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
     * stale handle's stream, say) never dangle. Host callbacks that no thread has taken are
     * dropped first (docs/pyacl.md): a blocking one nobody processes would hold its stream's
     * drain, and this finalize, for good. */
    sim_callback_close(NULL);
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
