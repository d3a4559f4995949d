/*
 * aiocann native helpers: the loader. Opens one ACL runtime library per process and fills
 * the function table (acl_table.h) with its symbols.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aiocann_native.h"

#define AIOCANN_ACL_NO_MACROS
#include "acl_table.h"

aiocann_acl_table aiocann_acl;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static void *g_dl;
static char *g_path;

/* Stand-ins for optional functions an older runtime lacks. */
static aclError missing_aclrtBinaryLoadFromData(const void *data, size_t length,
                                                const aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle)
{
    (void)data, (void)length, (void)options, (void)binHandle;
    return ACL_ERROR_API_NOT_SUPPORT;
}
static aclError missing_aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    (void)event, (void)timestamp;
    return ACL_ERROR_API_NOT_SUPPORT;
}
static aclError missing_aclrtResetDeviceForce(int32_t deviceId)
{
    (void)deviceId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    (void)majorVersion, (void)minorVersion, (void)patchVersion;
    return ACL_ERROR_API_NOT_SUPPORT;
}
static aclError missing_level(aclrtLastErrLevel level)
{
    (void)level;
    return ACL_ERROR_API_NOT_SUPPORT;
}
#define missing_aclrtPeekAtLastError missing_level
#define missing_aclrtGetLastError missing_level
static aclError missing_callback(aclrtExceptionInfoCallback callback)
{
    (void)callback;
    return ACL_ERROR_API_NOT_SUPPORT;
}
#define missing_aclrtSetExceptionInfoCallback missing_callback
#define missing_aclrtExceptionInfoCallbackRegister missing_callback
#define missing_aclrtExceptionInfoCallbackUnregister missing_callback
static uint32_t missing_getter(const aclrtExceptionInfo *info)
{
    (void)info;
    return UINT32_MAX;
}
#define missing_aclrtGetTaskIdFromExceptionInfo missing_getter
#define missing_aclrtGetStreamIdFromExceptionInfo missing_getter
#define missing_aclrtGetThreadIdFromExceptionInfo missing_getter
#define missing_aclrtGetDeviceIdFromExceptionInfo missing_getter
#define missing_aclrtGetErrorCodeFromExceptionInfo missing_getter
static aclError missing_aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    (void)stream, (void)mode;
    return ACL_ERROR_API_NOT_SUPPORT;
}
static aclError missing_aclrtGetThreadLastTaskId(uint32_t *taskId)
{
    (void)taskId;
    return ACL_ERROR_API_NOT_SUPPORT;
}
static aclError missing_aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    (void)stream, (void)streamId;
    return ACL_ERROR_API_NOT_SUPPORT;
}
static aclError missing_device_id(const int32_t id, int32_t *const out)
{
    (void)id, (void)out;
    return ACL_ERROR_API_NOT_SUPPORT;
}
#define missing_aclrtGetLogicDevIdByUserDevId missing_device_id
#define missing_aclrtGetUserDevIdByLogicDevId missing_device_id
static int missing_aclsimTraceStart(size_t capacity)
{
    (void)capacity;
    return -1;
}
static uint64_t missing_aclsimTraceStop(void) { return 0; }
static size_t missing_aclsimTraceDrain(aclsimTraceRecord *out, size_t max)
{
    (void)out, (void)max;
    return 0;
}

#define AIOCANN_NAME(name) #name,
static const char *const k_optional[] = {AIOCANN_ACL_OPTIONAL(AIOCANN_NAME)};
#undef AIOCANN_NAME
static int g_present_optional[sizeof k_optional / sizeof k_optional[0]];

int aiocann_load(const char *path, char *err, size_t errlen)
{
    pthread_mutex_lock(&g_lock);
    if (g_dl) {
        int same = strcmp(path, g_path) == 0;
        pthread_mutex_unlock(&g_lock);
        if (!same)
            snprintf(err, errlen, "the ACL runtime %s is already loaded; cannot also load %s", g_path, path);
        return same ? 0 : -1;
    }
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        pthread_mutex_unlock(&g_lock);
        snprintf(err, errlen, "cannot load %s: %s", path, dlerror());
        return -1;
    }
    aiocann_acl_table t;
    size_t used = 0;
    err[0] = '\0';
#define AIOCANN_LOAD_REQUIRED(name)                                                                  \
    *(void **)&t.name = dlsym(dl, #name);                                                            \
    if (!t.name && used < errlen)                                                                     \
        used += (size_t)snprintf(err + used, errlen - used, "%s%s", used ? ", " : "", #name);
    AIOCANN_ACL_REQUIRED(AIOCANN_LOAD_REQUIRED)
#undef AIOCANN_LOAD_REQUIRED
    if (err[0]) {
        char missing[1024];
        snprintf(missing, sizeof missing, "%s", err);
        snprintf(err, errlen, "%s is not a usable ACL runtime: it lacks %s", path, missing);
        dlclose(dl);
        pthread_mutex_unlock(&g_lock);
        return -1;
    }
    int i = 0;
#define AIOCANN_LOAD_OPTIONAL(name)                                                                  \
    *(void **)&t.name = dlsym(dl, #name);                                                            \
    g_present_optional[i++] = t.name != NULL;                                                         \
    if (!t.name)                                                                                      \
        t.name = missing_##name;
    AIOCANN_ACL_OPTIONAL(AIOCANN_LOAD_OPTIONAL)
#undef AIOCANN_LOAD_OPTIONAL
    aiocann_acl = t;
    g_dl = dl;
    g_path = strdup(path);
    pthread_mutex_unlock(&g_lock);
    return 0;
}

const char *aiocann_loaded_path(void)
{
    pthread_mutex_lock(&g_lock);
    const char *p = g_path;
    pthread_mutex_unlock(&g_lock);
    return p;
}

int aiocann_has_function(const char *name)
{
    if (!aiocann_loaded_path())
        return 0;
    for (size_t i = 0; i < sizeof k_optional / sizeof k_optional[0]; i++)
        if (strcmp(name, k_optional[i]) == 0)
            return g_present_optional[i];
#define AIOCANN_IS(n) if (strcmp(name, #n) == 0) return 1;
    AIOCANN_ACL_REQUIRED(AIOCANN_IS)
#undef AIOCANN_IS
    return 0;
}
