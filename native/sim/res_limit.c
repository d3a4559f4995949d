/*
 * aiocann simulator: core resource limits -- how many cube (AI) cores and vector cores a
 * device, a stream, or the operators of a thread may use.
 *
 * The real runtime (hicann/runtime src/acl/aclrt_impl/device.cpp; src/runtime/api/api_c_device.cc,
 * api_c_stream.cc rts*ResLimit*; src/runtime/api/impl/api_error.cc and api_impl.cc
 * Set/Get/ResetDeviceResLimit, Set/Get/ResetStreamResLimit, UseStreamResInCurrentThread,
 * NotUseStreamResInCurrentThread, GetResInCurrentThread; src/runtime/core/src/device/
 * raw_device_res.cc; src/runtime/core/src/stream/stream.cc; docs/zh/api_ref/03 and
 * docs/zh/dev_guide/08_runtime_core_resource_control.md):
 *   - A device starts with its hardware core counts as limits (RawDevice::InitResource). The
 *     process's limit (aclrtSetDeviceResLimit) may not exceed them (107000); reset restores
 *     them. The device must be open in this process (ACL_ERROR_RT_DEV_SETUP_ERROR otherwise);
 *     a negative or unknown device id is 107001; a type other than cube/vector 107000; a NULL
 *     output 100000.
 *   - A stream's limit (aclrtSetStreamResLimit; NULL is the default stream) is its own, again
 *     at most the hardware count but not bounded by the device limit; until set, the stream
 *     reports the device's. Reset clears it.
 *   - aclrtUseStreamResInCurrentThread binds a stream's limits to the calling thread (the last
 *     call wins); aclrtUnuseStreamResInCurrentThread unbinds it if it is the bound one;
 *     aclrtGetResInCurrentThread answers with the bound stream's limit when it has one set,
 *     else the current device's. Operators that choose their own block count (aclnn) read it.
 *
 * The real runtime stores the limits and hands them to operator tiling; a kernel launched
 * with an explicit block count still runs on the hardware's cores. Simulator choice: the
 * limits also bind the launch -- at most that many blocks of a launch run at once on the
 * simulated AI cores (device.c), so a program sees the concurrency it asked for. The limit a
 * launch gets, when it is submitted: its stream's own limit, else that of the stream bound to
 * the submitting thread, else the device's; a launch with ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE
 * AIV counts vector cores, every other launch cube cores. A limit of 0 still lets one block run
 * at a time (the work must progress).
 *
 * Locking: device limits under device->lock, stream limits under stream->lock.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "sim.h"
#include "aclsim_chip.h"

#define RES_TYPES 2 /* ACL_RT_DEV_RES_CUBE_CORE, ACL_RT_DEV_RES_VECTOR_CORE */

static __thread void *t_bound_stream; /* handle of the stream aclrtUseStreamResInCurrentThread bound */

/* The part's hardware counts (the chip description, aclsim_chip.h): its cube (AI) cores and its
 * vector cores, what RawDevice::InitResource reads from the driver. (The simulator's own
 * AI-core threads, AIOCANN_SIM_CORES, run any kernel; a limit at or above the count binds
 * nothing.) The runtime booted with a valid chip, so the description is there. */
static uint32_t hardware_cores(aclrtDevResLimitType type)
{
    const aclsimChip *chip = aclsimGetChip();
    if (!chip)
        return (uint32_t)g_rt.cfg.cores_per_device;
    return type == ACL_RT_DEV_RES_VECTOR_CORE ? chip->vector_core_num : chip->aicore_num;
}

void sim_res_limit_device_init(sim_device *d)
{
    for (int i = 0; i < RES_TYPES; i++)
        d->res_limit[i] = hardware_cores((aclrtDevResLimitType)i);
}

static aclError check_type(aclrtDevResLimitType type, const char *func)
{
    if ((unsigned)type >= RES_TYPES)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "type %d is not an aclrtDevResLimitType ([0, 2))", (int)type);
    return ACL_SUCCESS;
}

/* The open device a (user) device id names, locked; or NULL with the code in *rc. */
static sim_device *open_device(int32_t deviceId, const char *func, aclError *rc)
{
    if (deviceId < 0) { /* rts*DeviceResLimit: before anything else */
        *rc = sim_fail_(func, ACL_ERROR_RT_INVALID_DEVICEID, "deviceId %d must be >= 0", deviceId);
        return NULL;
    }
    sim_device *d = sim_device_arg(deviceId, func, rc);
    if (!d)
        return NULL;
    pthread_mutex_lock(&d->lock);
    if (!d->active) { /* Runtime::GetDevice finds no device object: RT_ERROR_DEVICE_NULL */
        pthread_mutex_unlock(&d->lock);
        *rc = sim_fail_(func, ACL_ERROR_RT_DEV_SETUP_ERROR, "device %d is not open in this process: call aclrtSetDevice",
                        deviceId);
        return NULL;
    }
    return d;
}

SIM_API aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(value);
    aclError rc = ACL_SUCCESS;
    if (deviceId >= 0 && (rc = check_type(type, __func__)))
        return rc;
    sim_device *d = open_device(deviceId, __func__, &rc);
    if (!d)
        return rc;
    *value = d->res_limit[type];
    pthread_mutex_unlock(&d->lock);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value)
{
    SIM_CHECK_PROCESS();
    aclError rc = ACL_SUCCESS;
    if (deviceId >= 0 && (rc = check_type(type, __func__)))
        return rc;
    sim_device *d = open_device(deviceId, __func__, &rc);
    if (!d)
        return rc;
    if (value > hardware_cores(type)) {
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "value %u exceeds the device's %u cores", value,
                      hardware_cores(type));
    } else {
        d->res_limit[type] = value;
        rc = ACL_SUCCESS;
    }
    pthread_mutex_unlock(&d->lock);
    return rc;
}

SIM_API aclError aclrtResetDeviceResLimit(int32_t deviceId)
{
    SIM_CHECK_PROCESS();
    aclError rc = ACL_SUCCESS;
    sim_device *d = open_device(deviceId, __func__, &rc);
    if (!d)
        return rc;
    sim_res_limit_device_init(d);
    pthread_mutex_unlock(&d->lock);
    return ACL_SUCCESS;
}

/* The stream calls validate a handle first (rts*StreamResLimit: RT_VALIDATE_AND_UNWRAP_OBJECT,
 * 107017: sim_op_stream_valid), then the type (107000), and only then turn NULL into the
 * current context's default stream (107002 without one). */

SIM_API aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(value);
    aclError rc = ACL_SUCCESS;
    if ((rc = sim_op_stream_valid(stream, __func__)) || (rc = check_type(type, __func__)))
        return rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    pthread_mutex_lock(&s->lock);
    bool own = s->res_set[type];
    uint32_t v = s->res_value[type];
    pthread_mutex_unlock(&s->lock);
    if (!own) {
        pthread_mutex_lock(&s->dev->lock);
        v = s->dev->res_limit[type];
        pthread_mutex_unlock(&s->dev->lock);
    }
    *value = v;
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value)
{
    SIM_CHECK_PROCESS();
    aclError rc = ACL_SUCCESS;
    if ((rc = sim_op_stream_valid(stream, __func__)) || (rc = check_type(type, __func__)))
        return rc;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    if (value > hardware_cores(type)) { /* SetStreamResLimitByType: not bounded by the device limit */
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "value %u exceeds the device's %u cores", value,
                      hardware_cores(type));
    } else {
        pthread_mutex_lock(&s->lock);
        s->res_value[type] = value; /* before the flag: a launch that sees it set reads this */
        s->res_set[type] = true;
        pthread_mutex_unlock(&s->lock);
    }
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtResetStreamResLimit(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    aclError rc = ACL_SUCCESS;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < RES_TYPES; i++) {
        s->res_set[i] = false;
        s->res_value[i] = 0;
    }
    pthread_mutex_unlock(&s->lock);
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtUseStreamResInCurrentThread(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    aclError rc = ACL_SUCCESS;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    t_bound_stream = s->obj.handle; /* a handle: a destroyed stream simply stops counting */
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    aclError rc = ACL_SUCCESS;
    sim_stream *s = sim_stream_resolve(stream, __func__, &rc);
    if (!s)
        return rc;
    if (t_bound_stream == s->obj.handle) /* unbinding another stream changes nothing */
        t_bound_stream = NULL;
    sim_obj_put(&s->obj);
    return ACL_SUCCESS;
}

/* The bound stream's own limit of type, if the thread has a live bound stream with one set. */
static bool bound_limit(int type, uint32_t *value)
{
    if (!t_bound_stream)
        return false;
    sim_stream *b = (sim_stream *)sim_handle_get(t_bound_stream, SIM_KIND_STREAM);
    if (!b) {
        t_bound_stream = NULL;
        return false;
    }
    pthread_mutex_lock(&b->lock);
    bool set = b->res_set[type];
    *value = b->res_value[type];
    pthread_mutex_unlock(&b->lock);
    sim_obj_put(&b->obj);
    return set;
}

SIM_API aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(value);
    aclError rc = check_type(type, __func__);
    if (rc)
        return rc;
    if (bound_limit(type, value))
        return ACL_SUCCESS;
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    pthread_mutex_lock(&c->dev->lock);
    *value = c->dev->res_limit[type];
    pthread_mutex_unlock(&c->dev->lock);
    sim_obj_put(&c->obj);
    return ACL_SUCCESS;
}

uint32_t sim_res_limit_for_launch(sim_stream *s, bool aiv)
{
    /* Every launch comes here: the limits are atomics read without the stream's or the
     * device's lock (a limit set while launches are being submitted applies to the launches
     * submitted after it, as in the runtime, which copies it into each task). */
    int type = aiv ? ACL_RT_DEV_RES_VECTOR_CORE : ACL_RT_DEV_RES_CUBE_CORE;
    bool own = atomic_load_explicit(&s->res_set[type], memory_order_acquire);
    uint32_t v = atomic_load_explicit(&s->res_value[type], memory_order_relaxed);
    if (!own && !bound_limit(type, &v))
        v = atomic_load_explicit(&s->dev->res_limit[type], memory_order_relaxed);
    if (v >= hardware_cores((aclrtDevResLimitType)type) || v >= (uint32_t)g_rt.cfg.cores_per_device)
        return 0; /* every core (of the part, or every simulated one): no limit to enforce */
    return v ? v : 1;
}
