/*
 * aiocann simulator: recent error messages (aclGetRecentErrMsg) and the last error code
 * (aclrtGetLastError / aclrtPeekAtLastError).
 *
 * Every failing call records one line "<api>: <reason>" for the calling thread. The ACL
 * contract is: newest first, returned and cleared by aclGetRecentErrMsg, and only the pointer
 * from the latest call stays valid. Both buffers are fixed-size thread-locals, so recording
 * an error never allocates (it runs on failure paths, including out-of-memory ones).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"

#define SIM_MSG_CAP 4096

static __thread char t_pending[SIM_MSG_CAP]; /* accumulated, newest first */
static __thread size_t t_pending_len;
static __thread char t_returned[SIM_MSG_CAP];

static void record(const char *line, size_t n)
{
    if (n >= SIM_MSG_CAP - 1)
        n = SIM_MSG_CAP - 2;
    /* Prepend: keep as much of the older text as fits after the new line. */
    size_t keep = t_pending_len;
    if (n + 1 + keep > SIM_MSG_CAP - 1)
        keep = SIM_MSG_CAP - 1 - (n + 1);
    memmove(t_pending + n + 1, t_pending, keep);
    memcpy(t_pending, line, n);
    t_pending[n] = '\n';
    t_pending_len = n + 1 + keep;
    t_pending[t_pending_len] = '\0';
}

/* The last runtime error of this thread (InnerThreadLocalContainer's global error): set by a
 * failing runtime call (GetRtExtErrCodeAndSetGlobalErr), never cleared by a success. */
static __thread aclError t_last_error;

void sim_set_last_error(aclError code)
{
    /* Only the runtime layer records: ACL-layer argument checks (1000xx) do not. */
    if ((code >= 107000 && code < 108000) || (code >= 207000 && code < 208000) || (code >= 507000 && code < 508000))
        t_last_error = code;
}

SIM_API aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    if (level != ACL_RT_THREAD_LEVEL)
        return ACL_ERROR_INVALID_PARAM;
    return t_last_error;
}

SIM_API aclError aclrtGetLastError(aclrtLastErrLevel level)
{
    if (level != ACL_RT_THREAD_LEVEL)
        return ACL_ERROR_INVALID_PARAM;
    aclError e = t_last_error;
    t_last_error = ACL_SUCCESS;
    return e;
}

aclError sim_fail_(const char *func, aclError code, const char *fmt, ...)
{
    sim_set_last_error(code);
    char line[1024];
    int n = snprintf(line, sizeof line, "%s: ", func);
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof line)
        n = (int)sizeof line - 1;
    size_t len = (size_t)n;
    len += (size_t)snprintf(line + len, sizeof line - len, " (error %d)", code);
    if (len >= sizeof line)
        len = sizeof line - 1;
    record(line, len);
    return code;
}

void sim_error_message(const char *func, const char *text)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "%s: %s", func, text);
    if (n >= (int)sizeof line)
        n = (int)sizeof line - 1;
    record(line, (size_t)n);
}

SIM_API const char *aclGetRecentErrMsg(void)
{
    if (t_pending_len == 0)
        return NULL;
    size_t n = t_pending_len;
    if (n > 0 && t_pending[n - 1] == '\n')
        n--; /* no trailing newline in the returned text */
    memcpy(t_returned, t_pending, n);
    t_returned[n] = '\0';
    t_pending_len = 0;
    t_pending[0] = '\0';
    return t_returned;
}
