/*
 * aiocann simulator: AI CPU functions (aclrtRegisterCpuFunc).
 *
 * An AI CPU kernel is a function in a shared object that the device's AI CPUs (ARM cores
 * running Linux) call. A program loads that object -- or, from a file, the op-info JSON that
 * names it -- with ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE (binary.c: from a file modes 0 and 1,
 * from data mode 2; anything else 107000), which makes the binary an AI CPU program
 * (BinaryLoader::SetCpuBinInfo, LoadCpu: PlainProgram with RT_KERNEL_REG_TYPE_CPU). Then
 * aclrtRegisterCpuFunc(binary, funcName, kernelName, &func) registers one kernel: funcName is
 * the symbol in the .so, kernelName the op type (src/acl/aclrt_impl/kernel.cpp
 * aclrtRegisterCpuFuncImpl; src/runtime/api/api_c_kernel.cc rtsRegisterCpuFunc;
 * src/runtime/api/impl/api_error.cc and api_impl.cc RegisterCpuFunc;
 * src/runtime/core/src/kernel/program.cc RegisterSingleCpuKernel, CopySoAndNameToCurrentDevice):
 *   - a NULL argument is 100000 (ACL layer); a stale or foreign binary handle 107017;
 *   - a binary that is not an AI CPU program is 107000 (kernelRegType != RT_KERNEL_REG_TYPE_CPU);
 *   - registering a kernelName the program already has returns that same function;
 *   - the names go to the current device: no current context is 107002;
 *   - the function's name (aclrtGetFunctionName) is the op type; it dies with its binary.
 *
 * Loading from a file reads the files next to binPath (BinaryLoader::SetCpuBinInfo,
 * LoadCpuMode0Program, LoadCpuMode1Program; GetFilePathByExtension: the last extension
 * replaced, or appended when there is none): mode 1 the .so (ReadBinaryFile), both modes the
 * op-info .json (GetJsonObj), which must parse as JSON; a missing or unreadable file, or bad
 * JSON, is 107000 (RT_ERROR_INVALID_VALUE).
 *
 * The simulated device has no AI CPU (ACL_DEV_ATTR_AICPU_CORE_NUM is 0, device_query.c), so
 * a launch of such a function is refused with 207000 (launch.c) -- the registration itself is
 * complete. (From a file the real runtime also registers the kernels the JSON lists; the
 * simulator checks that the JSON parses but registers only what aclrtRegisterCpuFunc names.)
 *
 * Locking: binary->lock guards the program's registrations.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

#define JSON_MAX_BYTES (64u << 20) /* an op-info file is small: refuse to slurp anything huge */
#define JSON_MAX_DEPTH 256

/* ------------------------------------------------------------------ the files ------------ */

/* binPath with its last extension replaced by ext (GetFilePathByExtension: no dot at all
 * leaves only ext). malloc'd, NULL when out of memory. */
static char *with_extension(const char *path, const char *ext)
{
    const char *dot = strrchr(path, '.');
    size_t keep = dot ? (size_t)(dot - path) : 0;
    char *out = malloc(keep + strlen(ext) + 1);
    if (out) {
        memcpy(out, path, keep);
        strcpy(out + keep, ext);
    }
    return out;
}

/* The whole file, NUL-terminated (*len without it); NULL with *why saying why. Only a regular
 * file: opening a FIFO would wait for a writer for good (hence O_NONBLOCK, which does nothing
 * to the regular file read after the check). */
static char *slurp(const char *path, size_t *len, const char **why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *why = strerror(errno);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        *why = "not a regular file";
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        *why = strerror(errno);
        close(fd);
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0 || n < cap) {
            if (ferror(f)) {
                free(buf);
                buf = NULL;
                errno = EIO;
            }
            break;
        }
        if (cap >= JSON_MAX_BYTES) {
            free(buf);
            buf = NULL;
            errno = EFBIG;
            break;
        }
        char *nb = realloc(buf, cap * 2 + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            errno = ENOMEM;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int err = errno; /* before fclose, which may set it */
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    } else {
        *why = strerror(err);
    }
    return buf;
}

/* A JSON syntax check (RFC 8259), what nlohmann::json::parse accepts or throws on. */
typedef struct json_cursor {
    const char *p, *end;
    int depth;
} json_cursor;

static void json_space(json_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool json_literal(json_cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return false;
    c->p += n;
    return true;
}

static bool json_string(json_cursor *c)
{
    if (c->p >= c->end || *c->p != '"')
        return false;
    for (c->p++; c->p < c->end; c->p++) {
        unsigned char ch = (unsigned char)*c->p;
        if (ch == '"') {
            c->p++;
            return true;
        }
        if (ch < 0x20)
            return false;
        if (ch == '\\') {
            if (++c->p >= c->end)
                return false;
            if (*c->p == 'u') {
                for (int i = 0; i < 4; i++)
                    if (++c->p >= c->end || !isxdigit((unsigned char)*c->p))
                        return false;
            } else if (!strchr("\"\\/bfnrt", *c->p)) {
                return false;
            }
        }
    }
    return false;
}

static bool json_digits(json_cursor *c)
{
    const char *start = c->p;
    while (c->p < c->end && isdigit((unsigned char)*c->p))
        c->p++;
    return c->p > start;
}

static bool json_number(json_cursor *c)
{
    if (c->p < c->end && *c->p == '-')
        c->p++;
    if (c->p < c->end && *c->p == '0')
        c->p++;
    else if (!json_digits(c))
        return false;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!json_digits(c))
            return false;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!json_digits(c))
            return false;
    }
    return true;
}

static bool json_value(json_cursor *c);

/* An object ('{', members of string: value) or an array ('[', values), after its opener. */
static bool json_container(json_cursor *c, char close, bool members)
{
    if (++c->depth > JSON_MAX_DEPTH)
        return false;
    c->p++;
    json_space(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        c->depth--;
        return true;
    }
    for (;;) {
        json_space(c);
        if (members) {
            if (!json_string(c))
                return false;
            json_space(c);
            if (c->p >= c->end || *c->p++ != ':')
                return false;
        }
        if (!json_value(c))
            return false;
        json_space(c);
        if (c->p >= c->end)
            return false;
        char ch = *c->p++;
        if (ch == close)
            break;
        if (ch != ',')
            return false;
    }
    c->depth--;
    return true;
}

static bool json_value(json_cursor *c)
{
    json_space(c);
    if (c->p >= c->end)
        return false;
    switch (*c->p) {
    case '{': return json_container(c, '}', true);
    case '[': return json_container(c, ']', false);
    case '"': return json_string(c);
    case 't': return json_literal(c, "true");
    case 'f': return json_literal(c, "false");
    case 'n': return json_literal(c, "null");
    default: return json_number(c);
    }
}

static bool json_valid(const char *text, size_t len)
{
    json_cursor c = {text, text + len, 0};
    if (!json_value(&c))
        return false;
    json_space(&c);
    return c.p == c.end;
}

aclError sim_cpu_check_files(const char *binPath, int mode, const char *func)
{
    char *so = with_extension(binPath, ".so"), *json = with_extension(binPath, ".json");
    aclError rc = ACL_SUCCESS;
    size_t len = 0;
    char *text = NULL;
    const char *why = NULL;
    if (!so || !json) {
        rc = sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
    } else if (mode == 1 && !(text = slurp(so, &len, &why))) { /* ReadBinaryFile */
        rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "cannot read the AI CPU kernel library %s: %s", so, why);
    } else {
        free(text);
        if (!(text = slurp(json, &len, &why)))
            rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "cannot read the op-info file %s: %s", json, why);
        else if (!json_valid(text, len))
            rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "the op-info file %s is not valid JSON", json);
    }
    free(text);
    free(so);
    free(json);
    return rc;
}

/* ------------------------------------------------------------------ registration --------- */

struct sim_cpu_reg {
    struct sim_cpu_reg *next;
    sim_function *fn; /* the handle table's reference is the registration's */
};

static void cpu_function_destroy(sim_obj *o)
{
    sim_function *f = (sim_function *)o;
    sim_obj_put(&f->bin->obj);
    if (f->desc) {
        free((char *)f->desc->name);
        free((aclsim_kernel_desc *)f->desc);
    }
    free(f->cpu_func);
    free(f);
}

bool sim_function_is_cpu(const sim_function *f) { return f->cpu_func != NULL; }

/* A new AI CPU function of b, with a handle; NULL when memory or the handle table runs out. */
static sim_function *cpu_function_new(sim_binary *b, const char *funcName, const char *kernelName)
{
    sim_function *f = calloc(1, sizeof *f);
    aclsim_kernel_desc *d = calloc(1, sizeof *d);
    char *op = strdup(kernelName), *sym = strdup(funcName);
    if (!f || !d || !op || !sym) {
        free(f);
        free(d);
        free(op);
        free(sym);
        return NULL;
    }
    d->name = op; /* no entry, no parameters: an AI CPU kernel takes packed args (§10.3) */
    sim_obj_init(&f->obj, SIM_KIND_FUNCTION, cpu_function_destroy);
    sim_obj_get(&b->obj);
    f->bin = b;
    f->desc = d;
    f->cpu_func = sym;
    if (!sim_handle_open(&f->obj)) {
        sim_obj_put(&f->obj);
        return NULL;
    }
    return f;
}

SIM_API aclError aclrtRegisterCpuFunc(const aclrtBinHandle handle, const char *funcName, const char *kernelName,
                                      aclrtFuncHandle *funcHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(handle);
    SIM_CHECK_NOT_NULL(funcName);
    SIM_CHECK_NOT_NULL(kernelName);
    SIM_CHECK_NOT_NULL(funcHandle);
    sim_binary *b = (sim_binary *)sim_handle_get(handle, SIM_KIND_BINARY);
    if (!b)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "binary %p is not a loaded binary", handle);
    aclError rc = ACL_SUCCESS;
    *funcHandle = NULL; /* ApiImpl::RegisterCpuFunc clears it first */
    sim_context *c = NULL;
    if (b->cpu_mode < 0) {
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                      "binary %s is not an AI CPU program (load it with ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE)", b->path);
    } else if (!(c = sim_current_context(__func__))) {
        rc = ACL_ERROR_RT_CONTEXT_NULL;
    } else {
        pthread_mutex_lock(&b->lock);
        struct sim_cpu_reg *r = b->cpu_functions;
        while (r && strcmp(r->fn->desc->name, kernelName) != 0)
            r = r->next;
        if (b->unloaded) {
            rc = sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "binary %p was unloaded", handle);
        } else if (r) {
            *funcHandle = r->fn->obj.handle; /* already registered: the same kernel */
        } else {
            r = calloc(1, sizeof *r);
            if (r && (r->fn = cpu_function_new(b, funcName, kernelName))) {
                r->next = b->cpu_functions;
                b->cpu_functions = r;
                *funcHandle = r->fn->obj.handle;
            } else {
                free(r);
                rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
            }
        }
        pthread_mutex_unlock(&b->lock);
        sim_obj_put(&c->obj);
    }
    sim_obj_put(&b->obj);
    return rc;
}

void sim_cpu_unload_locked(sim_binary *b)
{
    struct sim_cpu_reg *r = b->cpu_functions;
    b->cpu_functions = NULL;
    while (r) {
        struct sim_cpu_reg *next = r->next;
        sim_obj_put(sim_handle_close(r->fn->obj.handle, SIM_KIND_FUNCTION));
        free(r);
        r = next;
    }
}
