/*
 * aiocann simulator: the base helpers of acl_base_rt.h and the version, chip and error-detail
 * queries CANN's programs call (issue 23): fp16 conversion, data buffers, data-type sizes,
 * aclAppLog, the CANN attribute list, aclsysGetVersionNum, aclrtCheckArchCompatibility,
 * aclrtGetErrorVerbose, and the dump switches of the model API (not simulated).
 *
 * Sources (hicann/runtime): src/acl/aclrt_impl/types/fp16.cpp (aclFloatToFloat16 /
 * aclFloat16ToFloat), data_buffer.cpp (aclDataTypeSize's table; data buffers: a NULL buffer
 * is 100000 to destroy/update and reads as NULL / 0), acl.cpp (aclsysGetVersionNum: NULL
 * checks, then the package's version string, then CalculateVersionNum: major * 10^7 +
 * minor * 10^5 + patch * 10^3, a prerelease suffix alpha/beta/rc N subtracting 300/200/100 and
 * adding N; aclGetCannAttributeList / aclGetCannAttribute), utils/cann_info_utils.cpp (the
 * attributes: INF_NAN and BF16 from the SoC's platform info, JIT_COMPILE; an attribute not in
 * the table is 100000), aclrt_impl/device.cpp (aclrtCheckArchCompatibility ->
 * rtCheckArchCompatibility), event.cpp (aclrtGetErrorVerbose -> rtsGetErrorVerbose).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclsim_chip.h"
#include "sim.h"

/* ------------------------------------------------------------------ fp16 ----------------- */

/* IEEE binary32 -> binary16, round to nearest even; too large -> infinity; NaN stays NaN
 * (quiet, sign kept). The conversion fp16.cpp does in software, by the same rules. */
SIM_API aclFloat16 aclFloatToFloat16(float value)
{
    uint32_t f;
    memcpy(&f, &value, sizeof f);
    uint16_t sign = (uint16_t)((f >> 16) & 0x8000u);
    uint32_t exp = (f >> 23) & 0xFFu, man = f & 0x7FFFFFu;
    if (exp == 0xFFu) /* inf or NaN */
        return (aclFloat16)(sign | 0x7C00u | (man ? 0x200u | (man >> 13) : 0u));
    int32_t e = (int32_t)exp - 127 + 15;
    if (e >= 0x1F)
        return (aclFloat16)(sign | 0x7C00u);
    if (e <= 0) { /* subnormal half (or zero) */
        if (e < -10)
            return (aclFloat16)sign;
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half = man >> shift, rem = man & ((1u << shift) - 1u), mid = 1u << (shift - 1u);
        if (rem > mid || (rem == mid && (half & 1u)))
            half++;
        return (aclFloat16)(sign | half);
    }
    uint32_t half = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u)))
        half++; /* may carry into the exponent, up to infinity: still right */
    return (aclFloat16)(sign | half);
}

SIM_API float aclFloat16ToFloat(aclFloat16 value)
{
    uint32_t sign = (uint32_t)(value & 0x8000u) << 16, exp = (value >> 10) & 0x1Fu, man = value & 0x3FFu, f;
    if (exp == 0x1Fu) {
        f = sign | 0x7F800000u | (man << 13);
    } else if (exp == 0) {
        if (!man) {
            f = sign;
        } else { /* subnormal: normalise */
            int32_t e = -1;
            do {
                man <<= 1;
                e++;
            } while (!(man & 0x400u));
            f = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3FFu) << 13);
        }
    } else {
        f = sign | ((exp - 15 + 127) << 23) | (man << 13);
    }
    float out;
    memcpy(&out, &f, sizeof out);
    return out;
}

/* ------------------------------------------------------------------ data buffers --------- */

struct aclDataBuffer {
    void *data;
    size_t length;
};

SIM_API aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
    aclDataBuffer *b = malloc(sizeof *b);
    if (!b) {
        sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
        return NULL;
    }
    b->data = data;
    b->length = size;
    return b;
}

SIM_API aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    SIM_CHECK_NOT_NULL(dataBuffer);
    free((void *)dataBuffer);
    return ACL_SUCCESS;
}

SIM_API aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
    SIM_CHECK_NOT_NULL(dataBuffer);
    dataBuffer->data = data;
    dataBuffer->length = size;
    return ACL_SUCCESS;
}

SIM_API void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    return dataBuffer ? dataBuffer->data : NULL;
}

SIM_API uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
    return dataBuffer ? (uint32_t)dataBuffer->length : 0u;
}

SIM_API size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    return dataBuffer ? dataBuffer->length : 0u;
}

/* data_buffer.cpp's table, including its default: a type it does not name is 8 bytes. */
SIM_API size_t aclDataTypeSize(aclDataType dataType)
{
    switch ((int)dataType) {
    case ACL_STRING:
    case ACL_DT_UNDEFINED:
        return 0;
    case ACL_UINT1:
    case ACL_INT4:
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
        return 1;
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_BF16:
        return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
        return 4;
    case ACL_COMPLEX128:
        return 16;
    default:
        return 8;
    }
}

/* ------------------------------------------------------------------ application log ------ */

/* aclAppLog writes to CANN's log (slog). The simulator has none: a message at or above
 * ASCEND_GLOBAL_LOG_LEVEL (CANN's variable; 0 debug .. 3 error, default 3) goes to stderr in
 * one write, "[LEVEL] func file:line message". Simulator choice. */
SIM_API void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line, const char *fmt, ...)
{
    static const char *names[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
    const char *env = getenv("ASCEND_GLOBAL_LOG_LEVEL");
    int threshold = env && *env >= '0' && *env <= '4' && !env[1] ? *env - '0' : ACL_ERROR;
    if ((int)logLevel < threshold || (int)logLevel < 0 || (int)logLevel > ACL_ERROR || !fmt)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *base = file ? strrchr(file, '/') : NULL;
    fprintf(stderr, "[%s] %s %s:%u %s\n", names[logLevel], func ? func : "?", base ? base + 1 : (file ? file : "?"),
            line, msg);
}

/* ------------------------------------------------------------------ CANN attributes ------ */

/* The attributes the simulated CANN has (CannInfoUtils: the table's entries that are
 * available): INF_NAN where the chip has the INF/NAN mode (aclsim_chip.h), BF16 on the 910B
 * family and later (the chips whose platform info says support_bf16), never JIT_COMPILE (it
 * needs the operator compiler, which is not simulated). */
static const aclCannAttr g_all_attrs[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_JIT_COMPILE};

static bool attr_available(aclCannAttr a, const aclsimChip *chip)
{
    switch (a) {
    case ACL_CANN_ATTR_INF_NAN:
        return (chip->features & ACLSIM_CHIP_INF_NAN_MODE) != 0;
    case ACL_CANN_ATTR_BF16:
        return chip->npu_arch >= 2201;
    default:
        return false;
    }
}

SIM_API aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(cannAttrList);
    SIM_CHECK_NOT_NULL(num);
    const aclsimChip *chip = aclsimGetChip();
    if (!chip)
        return ACL_ERROR_INVALID_PARAM;
    static aclCannAttr list[3];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    size_t n = 0;
    for (size_t i = 0; i < sizeof g_all_attrs / sizeof g_all_attrs[0]; i++)
        if (attr_available(g_all_attrs[i], chip))
            list[n++] = g_all_attrs[i];
    pthread_mutex_unlock(&lock);
    *cannAttrList = list;
    *num = n;
    return ACL_SUCCESS;
}

SIM_API aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(value);
    const aclsimChip *chip = aclsimGetChip();
    if (!chip)
        return ACL_ERROR_INVALID_PARAM;
    if (cannAttr != ACL_CANN_ATTR_INF_NAN && cannAttr != ACL_CANN_ATTR_BF16 && cannAttr != ACL_CANN_ATTR_JIT_COMPILE)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "cannAttr %d is not a CANN attribute", (int)cannAttr);
    *value = attr_available(cannAttr, chip) ? 1 : 0;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ versions ------------- */

/* CalculateVersionNum of acl.cpp. */
static aclError version_num(const char *v, int32_t *out)
{
    char *end;
    long major = strtol(v, &end, 10);
    if (end == v || *end != '.')
        return ACL_ERROR_INTERNAL_ERROR;
    const char *p = end + 1;
    long minor = strtol(p, &end, 10);
    if (end == p || *end != '.')
        return ACL_ERROR_INTERNAL_ERROR;
    p = end + 1;
    long patch = strtol(p, &end, 10);
    if (end == p)
        return ACL_ERROR_INTERNAL_ERROR;
    int32_t base = (int32_t)(major * 10000000 + minor * 100000 + patch * 1000);
    if (!*end) {
        *out = base;
        return ACL_SUCCESS;
    }
    static const struct { const char *word; int32_t weight; } pre[] = {{"alpha", 300}, {"beta", 200}, {"rc", 100}};
    for (size_t i = 0; i < 3; i++) {
        const char *k = strcasestr(end, pre[i].word);
        if (!k)
            continue;
        if (k - end > 1)
            return ACL_ERROR_INTERNAL_ERROR;
        const char *num = k + strlen(pre[i].word);
        long n = 0;
        if (*num) {
            char *e2;
            n = strtol(num, &e2, 10);
            if (*e2 || n < 0 || n > 99)
                return ACL_ERROR_INTERNAL_ERROR;
        }
        *out = base - pre[i].weight + (int32_t)n;
        return ACL_SUCCESS;
    }
    return ACL_ERROR_INTERNAL_ERROR;
}

SIM_API aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(versionNum);
    SIM_CHECK_NOT_NULL(pkgName);
    char v[ACL_PKG_VERSION_MAX_SIZE];
    aclError rc = aclsysGetVersionStr(pkgName, v);
    if (rc)
        return rc;
    if ((rc = version_num(v, versionNum)))
        return sim_fail(rc, "the version %s of package %s cannot be parsed", v, pkgName);
    return ACL_SUCCESS;
}

/* rtCheckArchCompatibility: may a kernel built for socVersion run on this chip? The simulated
 * kernels are host code compiled for the chip's __NPU_ARCH__: a SoC of the same architecture
 * (its family or any part of it: Ascend910B, Ascend910B1..B4, Ascend910_93..) can, another
 * cannot. NULLs are 100000; a name that is no known SoC is 107000. */
SIM_API aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(socVersion);
    SIM_CHECK_NOT_NULL(canCompatible);
    const aclsimChip *chip = aclsimGetChip();
    if (!chip)
        return ACL_ERROR_INVALID_PARAM;
    const aclsimChip *other = NULL;
    for (uint32_t i = 0; (other = aclsimChipAt(i)); i++)
        if (!strcasecmp(other->soc_name, socVersion) || !strcasecmp(other->soc_version, socVersion))
            break;
    if (!other)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "socVersion %s names no known SoC", socVersion);
    *canCompatible = other->npu_arch == chip->npu_arch ? 1 : 0;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ error detail --------- */

/* rtsGetErrorVerbose: what the device's latest error was. The simulated device has one kind
 * of hardware error, the AI-core exception of a kernel (a fault, a trap, a timeout), which the
 * stream worker records on the device (sim_device.last_error, stream.c); the memory has no
 * uncorrectable errors (uce.c), so errorType is ACL_RT_NO_ERROR or ACL_RT_ERROR_AICORE with
 * aicoreErrType SW (the kernel's own doing) and no detail. The record lasts until the device
 * is reset. The device must exist (107001). */
SIM_API aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(errorInfo);
    SIM_REQUIRE_INIT();
    sim_device *d = sim_device_of(deviceId);
    if (!d)
        return sim_fail(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
    memset(errorInfo, 0, sizeof *errorInfo);
    uint32_t last = atomic_load(&d->last_error);
    errorInfo->errorType = last ? ACL_RT_ERROR_AICORE : ACL_RT_NO_ERROR;
    errorInfo->detail.aicoreErrType = last ? ACL_RT_AICORE_ERROR_SW : ACL_RT_AICORE_ERROR_UNKNOWN;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ not simulated -------- */

/* The model API's dump switches drive the data dump of the graph executor (adump), which the
 * simulator does not have: a program links and learns at run time. */
#define NOT_SIMULATED(what) \
    sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide %s", what)

SIM_API aclError aclmdlInitDump(void) { return NOT_SIMULATED("the data dump (adump)"); }
SIM_API aclError aclmdlSetDump(const char *dumpCfgPath)
{
    (void)dumpCfgPath;
    return NOT_SIMULATED("the data dump (adump)");
}
SIM_API aclError aclmdlFinalizeDump(void) { return NOT_SIMULATED("the data dump (adump)"); }
