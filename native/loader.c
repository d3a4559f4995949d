/*
 * aiocann native helpers: the loader. Opens one ACL runtime library per process and fills
 * the function table (acl_table.h) with its symbols -- and, for the runtime compiler's
 * functions when the runtime library lacks them, with those of libacl_rtc.so beside it. An
 * optional function neither has is the stand-in of acl_standins.h. Both headers are written
 * by native/gen_acl.py from native/acl_functions.py.
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
#include "acl_standins.h"

aiocann_acl_table aiocann_acl;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static void *g_dl;
static void *g_dl_rtc; /* libacl_rtc.so, when the runtime library lacked an aclrtc* function */
static char *g_path;

/* The runtime compiler's library beside the runtime library at `path` (CANN installs both in
 * one lib64), or NULL. Only there: a libacl_rtc.so found on the search path could belong to
 * another install than the runtime, which it must match. */
static void *open_rtc_beside(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    char rtc[4096];
    int n = snprintf(rtc, sizeof rtc, "%.*s/libacl_rtc.so", (int)(slash - path), path);
    if (n < 0 || (size_t)n >= sizeof rtc)
        return NULL;
    return dlopen(rtc, RTLD_NOW | RTLD_LOCAL);
}

#define AIOCANN_NAME(name) #name,
static const char *const k_optional[] = {AIOCANN_ACL_OPTIONAL(AIOCANN_NAME) AIOCANN_ACL_OPTIONAL_RTC(AIOCANN_NAME)};
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
    /* The runtime compiler's functions: from the runtime library if it has them (the
     * simulator), else from libacl_rtc.so beside it (CANN), else stand-ins. */
    void *rtc = NULL;
    int rtc_tried = 0;
#define AIOCANN_LOAD_RTC(name)                                                                       \
    *(void **)&t.name = dlsym(dl, #name);                                                            \
    if (!t.name && (rtc || (!rtc_tried++ && (rtc = open_rtc_beside(path)))))                          \
        *(void **)&t.name = dlsym(rtc, #name);                                                       \
    g_present_optional[i++] = t.name != NULL;                                                         \
    if (!t.name)                                                                                      \
        t.name = missing_##name;
    AIOCANN_ACL_OPTIONAL_RTC(AIOCANN_LOAD_RTC)
#undef AIOCANN_LOAD_RTC
#undef AIOCANN_LOAD_OPTIONAL
    aiocann_acl = t;
    g_dl = dl;
    g_dl_rtc = rtc;
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
