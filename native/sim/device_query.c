/*
 * aiocann simulator: what a program can ask about devices and contexts -- run mode, SoC name,
 * device attributes and capabilities, utilization, status, id mappings, UUIDs, peer access,
 * system parameter options.
 *
 * Every answer is the simulator's real state or a fixed property of the chip it simulates
 * (aclsim_chip.h, AIOCANN_SIM_SOC_NAME), never a placeholder: the core counts and the NPU
 * architecture are the part's, as the real runtime reads them from the driver and the
 * platform configuration (the simulator's own AI-core threads, AIOCANN_SIM_CORES, only decide
 * how many blocks run at once), the memory size is AIOCANN_SIM_MEMORY, utilization is the
 * share of AI-core threads running a block right now, and so on. Where the simulated device
 * lacks a unit the real chip has (AI CPUs, an L2 cache), the answer is what the real runtime
 * reports for an absent unit (0, or -1 for utilization).
 *
 * Error codes follow the real runtime's layers: the ACL layer rejects NULL outputs and
 * reserved arguments with 100000 (src/acl/aclrt_impl/device.cpp, context.cpp, memory.cpp,
 * acl.cpp), the runtime layer bad values with 107000 and unknown device ids with 107001
 * (src/runtime/api/impl/api_error.cc ApiErrorDecorator::*, Runtime::ChgUserDevIdToDeviceId).
 *
 * Locking: per-device and per-context state is read and written under device->lock only.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"
#include "aclsim_chip.h"

/* ------------------------------------------------------------------ helpers -------------- */

/* The device a (user) device id names, booting the runtime on first use (no aclInit is
 * needed); 107001 for an id that is not a configured device (the simulator has no
 * ASCEND_RT_VISIBLE_DEVICES remapping, so user, logical and physical ids coincide). */
sim_device *sim_device_arg(int32_t id, const char *func, aclError *rc)
{
    if ((*rc = sim_runtime_boot(func)))
        return NULL;
    sim_device *d = sim_device_of(id);
    if (!d)
        *rc = sim_fail_(func, ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist (%d devices)", id,
                        g_rt.cfg.num_devices);
    return d;
}

/* ------------------------------------------------------------------ run mode, SoC -------- */

/* The simulator is a runtime on the host, driving its devices from the host process: ACL_HOST
 * (ACL_DEVICE is for programs running on the device's own CPUs; ApiImpl::GetRunMode). The
 * real call needs no context and no aclInit. */
SIM_API aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(runMode);
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

/* The SoC the simulated devices stand for: the chip description's name (aclsim_chip.h,
 * AIOCANN_SIM_SOC_NAME, Ascend910B1 by default). Like the real call (which asks the driver), it
 * works before aclInit; an unknown part gives NULL with the recent error naming the known ones. */
SIM_API const char *aclrtGetSocName(void)
{
    if (atomic_load_explicit(&g_sim_forked, memory_order_relaxed)) {
        sim_forked_error(__func__);
        return NULL;
    }
    const aclsimChip *chip = aclsimGetChip();
    return chip ? chip->soc_name : NULL;
}

/* The simulated device has one task scheduler serving both core types, so, as the real
 * runtime does for single-TS chips (rtSetTSDevice: tsCount == 1), a valid id is accepted and
 * changes nothing. */
SIM_API aclError aclrtSetTsDevice(aclrtTsId tsId)
{
    SIM_CHECK_PROCESS();
    if (tsId != ACL_TS_ID_AICORE && tsId != ACL_TS_ID_AIVECTOR)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "tsId %d is not ACL_TS_ID_AICORE or ACL_TS_ID_AIVECTOR", (int)tsId);
    return ACL_SUCCESS;
}

/* Float overflow mode: one per process (Runtime::satMode_), INF_NAN from boot on chips with
 * RT_FEATURE_OVERFLOW_MODE (the A2/A3 set), SATURATION on the others (Runtime::Init). A mode the
 * chip's DevProperties.supportOverflowMode lacks is refused with 207000; on a chip that has only
 * the saturation mode, setting it succeeds and changes nothing (rtSetDeviceSatMode, api_c.cc);
 * otherwise the mode is the process's from then on (ApiImpl::SetDeviceSatMode). -1: not set
 * since the runtime booted (the chip's default). The mode travels to the device in each
 * stream's queue configuration (Stream::SetSatMode at creation, stream_sqcq_manage.cc satMode),
 * where the hardware applies it: a stream keeps the mode it was created with (the docs: streams
 * created before the call are not affected); its kernels read it (kernel_rt.c, the Ascend C
 * layer's results). Simulator choice: the real runtime sets the current device's mode and the
 * process's (for devices opened later); the simulator keeps the process's only, so a device
 * already open but not current also gives its new streams the new mode. */
static _Atomic int g_sat_mode = -1;

void sim_sat_mode_reset(void) { atomic_store(&g_sat_mode, -1); }

static int sat_mode_now(const aclsimChip *chip)
{
    int m = atomic_load(&g_sat_mode);
    if (m >= 0)
        return m;
    return chip && (chip->features & ACLSIM_CHIP_INF_NAN_MODE) ? ACL_RT_OVERFLOW_MODE_INFNAN
                                                               : ACL_RT_OVERFLOW_MODE_SATURATION;
}

int sim_sat_mode_current(void) { return sat_mode_now(aclsimGetChip()); }

SIM_API aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
    SIM_CHECK_PROCESS();
    if ((int)mode < ACL_RT_OVERFLOW_MODE_SATURATION || (int)mode >= ACL_RT_OVERFLOW_MODE_UNDEF)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "mode %d is not an aclrtFloatOverflowMode ([0, 2))", (int)mode);
    const aclsimChip *chip = aclsimGetChip();
    if (!chip)
        return ACL_ERROR_RT_PARAM_INVALID; /* AIOCANN_SIM_SOC_NAME is wrong; the message says so */
    uint32_t need = mode == ACL_RT_OVERFLOW_MODE_SATURATION ? ACLSIM_CHIP_SATURATION_MODE : ACLSIM_CHIP_INF_NAN_MODE;
    if (!(chip->features & need))
        return sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s has no %s mode: only the %s mode can be set",
                        chip->soc_name, mode == ACL_RT_OVERFLOW_MODE_SATURATION ? "saturation" : "Inf/NaN",
                        mode == ACL_RT_OVERFLOW_MODE_SATURATION ? "Inf/NaN" : "saturation");
    if (mode == ACL_RT_OVERFLOW_MODE_SATURATION && !(chip->features & ACLSIM_CHIP_INF_NAN_MODE))
        return ACL_SUCCESS; /* the chip's only mode: rtSetDeviceSatMode returns before the runtime */
    atomic_store(&g_sat_mode, (int)mode);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(mode);
    *mode = (aclrtFloatOverflowMode)sat_mode_now(aclsimGetChip());
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ device attributes ---- */

/* ApiImpl::GetDeviceInfoByAttr: the core counts and the physical chip id come from the driver
 * (the part's counts), the cube core count from the platform configuration (cube_core_cnt: the
 * AI cores), the memory size from the driver's memory info, the NPU architecture from the
 * platform configuration's [version] NpuArch (GetDeviceNpuArch: 2201 on A2/A3). */
SIM_API aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(value);
    aclError rc;
    if (!sim_device_arg(deviceId > INT32_MAX ? -1 : (int32_t)deviceId, __func__, &rc))
        return rc;
    const aclsimChip *chip = aclsimGetChip(); /* valid: the runtime booted with it */
    switch (attr) {
    case ACL_DEV_ATTR_AICPU_CORE_NUM: *value = 0; break; /* no AI CPUs are simulated */
    case ACL_DEV_ATTR_AICORE_CORE_NUM:
    case ACL_DEV_ATTR_CUBE_CORE_NUM: *value = chip->aicore_num; break;
    case ACL_DEV_ATTR_VECTOR_CORE_NUM: *value = chip->vector_core_num; break;
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: *value = (int64_t)g_rt.cfg.device_memory; break;
    case ACL_DEV_ATTR_L2_CACHE_SIZE: *value = 0; break; /* no cache between the cores and memory */
    case ACL_DEV_ATTR_SMP_ID: *value = 0; break;        /* every device lives in this one process */
    case ACL_DEV_ATTR_PHY_CHIP_ID: *value = (int64_t)deviceId; break;
    case ACL_DEV_ATTR_IS_VIRTUAL: *value = 0; break;
    case ACL_DEV_ATTR_NPU_ARCH: *value = chip->npu_arch; break;
    /* The SIMT figures of DevProperties (GetDeviceSimtInfo): 0 on these parts, which have no
     * SIMT cores (simtWarpSize = 0, ... in config/910_B_93, cloud, dc dev_info_reg.cc). */
    case ACL_DEV_ATTR_WARP_SIZE:
    case ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE:
    case ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE:
    case ACL_DEV_ATTR_MAX_GRID_DIM_X:
    case ACL_DEV_ATTR_MAX_GRID_DIM_Y:
    case ACL_DEV_ATTR_MAX_GRID_DIM_Z:
    case ACL_DEV_ATTR_MAX_BLOCK_PER_GRID:
    case ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK:
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_X:
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_Y:
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_Z: *value = 0; break;
    /* The driver's system attributes of hardware the simulator does not have (super pods,
     * mainboards, connection and form factor; simulator choice: 207000, as a driver without
     * them answers). */
    case ACL_DEV_ATTR_SUPER_POD_DEVICE_ID:
    case ACL_DEV_ATTR_SUPER_POD_SERVER_ID:
    case ACL_DEV_ATTR_SUPER_POD_ID:
    case ACL_DEV_ATTR_CUST_OP_PRIVILEGE:
    case ACL_DEV_ATTR_MAINBOARD_ID:
    case ACL_DEV_ATTR_HD_CONNECT_TYPE:
    case ACL_DEV_ATTR_DEVICE_FORM_FACTOR:
        return sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "attribute %d is not available on the simulated %s",
                        (int)attr, chip->soc_name);
    default: /* GetDeviceInfoByAttrMisc: RT_ERROR_INVALID_VALUE, listing the attributes it knows */
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "attr %d is not an aclrtDevAttr", (int)attr);
    }
    return ACL_SUCCESS;
}

/* aclGetDeviceCapability reads the SoC's platform description (ai_core_cnt, vector_core_cnt,
 * l2_size; src/acl/aclrt_impl/acl.cpp): the simulated part's figures. */
SIM_API aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(value);
    SIM_REQUIRE_INIT();
    if (deviceId >= (uint32_t)g_rt.cfg.num_devices)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "deviceId %u greater than deviceNum %d", deviceId,
                        g_rt.cfg.num_devices);
    const aclsimChip *chip = aclsimGetChip();
    switch (deviceInfo) {
    case ACL_DEVICE_INFO_AI_CORE_NUM: *value = chip->aicore_num; return ACL_SUCCESS;
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM: *value = chip->vector_core_num; return ACL_SUCCESS;
    case ACL_DEVICE_INFO_L2_SIZE: *value = 0; return ACL_SUCCESS;
    default: return sim_fail(ACL_ERROR_INVALID_PARAM, "deviceInfo %d is not an aclDeviceInfo", (int)deviceInfo);
    }
}

/* Stream priorities: 0 is the greatest, 7 the least (RT_STREAM_GREATEST/LEAST_PRIORITY in
 * src/runtime/core/inc/spec/base_info.hpp). Either pointer may be NULL. */
SIM_API aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)
{
    SIM_CHECK_PROCESS();
    if (leastPriority)
        *leastPriority = 7;
    if (greatestPriority)
        *greatestPriority = 0;
    return ACL_SUCCESS;
}

/* Both features the call knows describe hardware the simulator does not have (a TS CPU that
 * updates tasks in place, memory-queue events across devices): FEATURE_NOT_SUPPORT, i.e. 0. */
SIM_API aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType, int32_t *value)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(value);
    aclError rc;
    if (!sim_device_arg(deviceId, __func__, &rc))
        return rc;
    if (devFeatureType != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV &&
        devFeatureType != ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "devFeatureType %d is not an aclrtDevFeatureType",
                        (int)devFeatureType);
    *value = 0;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ utilization, status -- */

/* Cube and vector utilization: the percentage of the device's AI cores running a block at this
 * moment (each simulated core is both). AI CPU and memory utilization do not apply: -1, the
 * value the real call gives for what it cannot measure. As in the real call, a device the
 * calling thread has no context on is not an error: every field is -1
 * (GetAllUtilizations in src/acl/aclrt_impl/device.cpp, ApiImpl::GetAllUtilizations). */
SIM_API aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(utilizationInfo);
    if (utilizationInfo->utilizationExtend)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "utilizationExtend is a reserved parameter and must be NULL");
    utilizationInfo->cubeUtilization = -1;
    utilizationInfo->vectorUtilization = -1;
    utilizationInfo->aicpuUtilization = -1;
    utilizationInfo->memoryUtilization = -1;
    sim_context *c = sim_current_context_quiet(); /* none is not an error: the fields say "unknown" */
    if (!c)
        return ACL_SUCCESS;
    sim_device *d = c->dev;
    sim_obj_put(&c->obj);
    if (d->id != deviceId)
        return ACL_SUCCESS;
    pthread_mutex_lock(&d->lock);
    if (d->active) {
        sim_core_pool *p = &d->pool;
        pthread_mutex_lock(&p->lock);
        int busy = p->num_cores - p->idle, pct = p->num_cores ? busy * 100 / p->num_cores : 0;
        pthread_mutex_unlock(&p->lock);
        utilizationInfo->cubeUtilization = pct;
        utilizationInfo->vectorUtilization = pct;
    }
    pthread_mutex_unlock(&d->lock);
    return ACL_SUCCESS;
}

/* ABNORMAL is what the real runtime reports after its watchdog lost a device
 * (Runtime::GetWatchDogDevStatus). A simulated device cannot be lost -- a kernel fault fails
 * its stream, not the device -- so every configured device is NORMAL. */
SIM_API aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(deviceStatus);
    aclError rc;
    if (!sim_device_arg(deviceId, __func__, &rc))
        return rc;
    *deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ device ids ----------- */

/* Negative ids are 107000 (rtsGet*DevId*), unknown ones 107001; the mapping is the identity. */
static aclError map_id(int32_t in, int32_t *out, const char *func)
{
    SIM_CHECK_NOT_NULL(out);
    if (in < 0)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "device id %d must be greater than or equal to 0", in);
    aclError rc;
    if (!sim_device_arg(in, func, &rc))
        return rc;
    *out = in;
    return ACL_SUCCESS;
}

/* aclrtGetLogicDevIdByUserDevId / aclrtGetUserDevIdByLogicDevId live in device.c: they follow
 * ASCEND_RT_VISIBLE_DEVICES. */

SIM_API aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId)
{
    SIM_CHECK_PROCESS();
    return map_id(phyDevId, logicDevId, __func__);
}

SIM_API aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId)
{
    SIM_CHECK_PROCESS();
    return map_id(logicDevId, phyDevId, __func__);
}

/* A device's UUID identifies the hardware, so it is the same in every process: here a hash of
 * a fixed namespace and the device id, laid out as an RFC 4122 version-8 (custom) UUID. */
SIM_API aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(uuid);
    aclError rc;
    if (!sim_device_arg(deviceId, __func__, &rc))
        return rc;
    uint64_t x = 0x61696f63616e6e2dull ^ (uint64_t)(uint32_t)deviceId; /* "aiocann-" */
    for (int half = 0; half < 2; half++) {
        x += 0x9E3779B97F4A7C15ull; /* splitmix64 */
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        memcpy(uuid->bytes + 8 * half, &z, 8);
    }
    uuid->bytes[6] = (char)((uuid->bytes[6] & 0x0F) | 0x80); /* version 8 */
    uuid->bytes[8] = (char)((uuid->bytes[8] & 0x3F) | 0x80); /* RFC 4122 variant */
    return ACL_SUCCESS;
}

/* The process id the device sees: there is no container between the simulator and the
 * process, so it is getpid(). */
SIM_API aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(pid);
    *pid = (int32_t)getpid();
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ peer access ---------- */

/* Every pair of simulated devices can reach each other's memory (they share the host), so
 * any two distinct devices can access each other. Enabling records the mapping on the current
 * device until it is disabled or the device is reset; the status query reports it. As in
 * ACL, a device and itself are not peers (100000), flags are reserved (0, else 200006), and
 * the queries need a context on the queried device (ApiImpl::DeviceCanAccessPeer). */
static aclError peer_pair(int32_t dev, int32_t peer, bool need_ctx_on_dev, const char *func, sim_device **out)
{
    if (dev == peer)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "deviceId %d cannot be equal to peerDeviceId %d", dev, peer);
    aclError rc;
    sim_device *d = sim_device_arg(dev, func, &rc);
    if (!d || !sim_device_arg(peer, func, &rc))
        return rc;
    if (need_ctx_on_dev) {
        sim_context *c = sim_current_context(func);
        if (!c)
            return ACL_ERROR_RT_CONTEXT_NULL;
        bool same = c->dev == d;
        sim_obj_put(&c->obj);
        if (!same)
            return sim_fail_(func, ACL_ERROR_RT_CONTEXT_NULL, "the calling thread has no context on device %d", dev);
    }
    *out = d;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(canAccessPeer);
    sim_device *d;
    aclError rc = peer_pair(deviceId, peerDeviceId, true, __func__, &d);
    if (!rc)
        *canAccessPeer = 1;
    return rc;
}

static aclError current_device(const char *func, sim_device **out)
{
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *out = c->dev;
    sim_obj_put(&c->obj);
    return ACL_SUCCESS;
}

static aclError set_peer(int32_t peerDeviceId, bool enable, const char *func)
{
    sim_device *cur, *d;
    aclError rc = current_device(func, &cur);
    if (rc || (rc = peer_pair(cur->id, peerDeviceId, false, func, &d)))
        return rc;
    pthread_mutex_lock(&d->lock);
    if (enable)
        d->peer_access |= 1ull << peerDeviceId;
    else
        d->peer_access &= ~(1ull << peerDeviceId);
    pthread_mutex_unlock(&d->lock);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    SIM_CHECK_PROCESS();
    if (flags != 0)
        return sim_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "flags is reserved and must be 0, not %u", flags);
    return set_peer(peerDeviceId, true, __func__);
}

SIM_API aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    SIM_CHECK_PROCESS();
    return set_peer(peerDeviceId, false, __func__);
}

/* 1 if deviceId has enabled access to peerDeviceId, else 0. */
SIM_API aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(status);
    sim_device *d;
    aclError rc = peer_pair(deviceId, peerDeviceId, true, __func__, &d);
    if (rc)
        return rc;
    pthread_mutex_lock(&d->lock);
    *status = (d->peer_access >> peerDeviceId) & 1 ? 1 : 0;
    pthread_mutex_unlock(&d->lock);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ contexts ------------- */

SIM_API aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *stream = c->default_stream->obj.handle;
    sim_obj_put(&c->obj);
    return ACL_SUCCESS;
}

/* The device's default ("primary") context is active while some aclrtSetDevice (or a context
 * created on the device) holds it (Runtime::GetPrimaryCtxState). flags is reserved: ACL wants
 * NULL (aclrtGetPrimaryCtxStateImpl). */
SIM_API aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(active);
    if (flags)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "flags is a reserved parameter and must be NULL");
    aclError rc;
    sim_device *d = sim_device_arg(deviceId, __func__, &rc);
    if (!d)
        return rc;
    pthread_mutex_lock(&d->lock);
    *active = d->active && d->refcount > 0 ? 1 : 0;
    pthread_mutex_unlock(&d->lock);
    return ACL_SUCCESS;
}

/* System parameter options. Values are checked as the runtime checks them (deterministic:
 * [0, 4), the others [0, 2); ApiErrorDecorator::CtxSetSysParamOpt, rtSetSysParamOpt) and kept:
 * per context for the Ctx variants (options 0..2, unset ones 107021), per process for the
 * others (options 0..3, 0 until set). The simulator is deterministic whatever they say -- its
 * kernels are the user's own C and its copies are exact -- so they change nothing else. */
static _Atomic int64_t g_sys_opt[4];

static aclError check_opt(aclSysParamOpt opt, int64_t value, bool ctx, bool check_value, const char *func)
{
    int n = ctx ? SIM_CTX_SYS_OPTS : 4;
    if ((int)opt < 0 || (int)opt >= n)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "opt %d is not a valid aclSysParamOpt here ([0, %d))", (int)opt,
                         n);
    int64_t max = opt == ACL_OPT_DETERMINISTIC ? 4 : 2;
    if (check_value && (value < 0 || value >= max))
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "value %lld for option %d is out of [0, %lld)",
                         (long long)value, (int)opt, (long long)max);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    SIM_CHECK_PROCESS();
    aclError rc = check_opt(opt, value, true, true, __func__);
    if (rc)
        return rc;
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    pthread_mutex_lock(&c->dev->lock);
    c->sys_opt[opt] = value;
    c->sys_opt_set[opt] = true;
    pthread_mutex_unlock(&c->dev->lock);
    sim_obj_put(&c->obj);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(value);
    aclError rc = check_opt(opt, 0, true, false, __func__);
    if (rc)
        return rc;
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    pthread_mutex_lock(&c->dev->lock);
    bool set = c->sys_opt_set[opt];
    if (set)
        *value = c->sys_opt[opt];
    pthread_mutex_unlock(&c->dev->lock);
    sim_obj_put(&c->obj);
    return set ? ACL_SUCCESS
               : sim_fail(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "option %d was not set in the current context", (int)opt);
}

SIM_API aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    SIM_CHECK_PROCESS();
    aclError rc = check_opt(opt, value, false, true, __func__);
    if (!rc)
        atomic_store(&g_sys_opt[opt], value);
    return rc;
}

SIM_API aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(value);
    aclError rc = check_opt(opt, 0, false, false, __func__);
    if (!rc)
        *value = atomic_load(&g_sys_opt[opt]);
    return rc;
}

/* ------------------------------------------------------------------ resource counts ------ */

/* Streams the current device can still create (AIOCANN_SIM_MAX_STREAMS less those that exist,
 * default streams included). */
SIM_API aclError aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(streamCount);
    sim_device *d;
    aclError rc = current_device(__func__, &d);
    if (rc)
        return rc;
    pthread_mutex_lock(&d->lock);
    int left = g_rt.cfg.max_streams - d->num_streams;
    pthread_mutex_unlock(&d->lock);
    *streamCount = left > 0 ? (uint32_t)left : 0;
    return ACL_SUCCESS;
}

/* Events the current device can still create (AIOCANN_SIM_MAX_EVENTS less those alive). */
SIM_API aclError aclrtGetEventAvailNum(uint32_t *eventCount)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(eventCount);
    sim_device *d;
    aclError rc = current_device(__func__, &d);
    if (rc)
        return rc;
    int left = g_rt.cfg.max_events - atomic_load(&d->num_events);
    *eventCount = left > 0 ? (uint32_t)left : 0;
    return ACL_SUCCESS;
}
