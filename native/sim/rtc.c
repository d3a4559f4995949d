/*
 * aiocann simulator: runtime compilation of kernels (aclrtc*, acl/acl_rt_compile.h).
 *
 * Like the real libacl_rtc, which hands the program to bisheng's compiler library, this file
 * compiles nothing itself: aclrtcCompileProg writes the source to a private temporary
 * directory and runs the one kernel compiler aiocann has, `PYTHON -m aiocann cc`, as a child
 * process -- the same front-end as aiocann.compiler.build_kernel and the toolkit's cmake --
 * then keeps the kernel binary it wrote (aclrtcGetBinData; it loads with
 * aclrtBinaryLoadFromData), the lowered names of the name expressions, and its diagnostics as
 * the compile log.
 *
 * The interpreter: $AIOCANN_PYTHON (set it to the Python aiocann is installed in); else, when this
 * library sits in an installed package (.../lib/pythonX.Y/site-packages/aiocann/lib/), that
 * prefix's bin/pythonX.Y; else the interpreter that built the library (AIOCANN_BUILD_PYTHON,
 * from setup.py); else python3 on PATH.
 *
 * Argument checks and codes follow hicann/asc-devkit's acl_rt_compile implementation and its
 * tests: a NULL program is ACL_ERROR_RTC_INVALID_PROG (for aclrtcCreateProg and a NULL pointer
 * to the program, ACL_ERROR_RTC_INVALID_INPUT), other NULL arguments INVALID_INPUT, an empty
 * option INVALID_OPTION, an AI CPU program COMPILATION with its log line. A program handle is
 * checked against the live programs, so a destroyed or foreign one gets INVALID_PROG instead
 * of a crash (the real library trusts it).
 *
 * Threads: programs are independent; each has a lock held by its calls, so two threads may
 * compile two programs at once, and a program is freed when the last call using it returns.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim.h"

#include "acl/acl_rt_compile.h"
#include "aclsim_chip.h"

/* The codes aclrtc returns: CANN's documentation names them ("RTC错误码"), its acl_rt_compile.h
 * does not define them, so neither does ours (tests/sim/test_abi.py holds it to the real one). */
#define ACL_ERROR_RTC_INVALID_PROG 176000
#define ACL_ERROR_RTC_INVALID_INPUT 176001
#define ACL_ERROR_RTC_INVALID_OPTION 176002
#define ACL_ERROR_RTC_COMPILATION 176003
#define ACL_ERROR_RTC_LINKING 176004
#define ACL_ERROR_RTC_NO_NAME_EXPR_AFTER_COMPILATION 176005
#define ACL_ERROR_RTC_NO_LOWERED_NAMES_BEFORE_COMPILATION 176006
#define ACL_ERROR_RTC_NAME_EXPR_NOT_VALID 176007
#define ACL_ERROR_RTC_PROG_CREATION_FAILURE 276000
#define ACL_ERROR_RTC_OUT_OF_MEMORY 276001
#define ACL_ERROR_RTC_FAILURE 576000

extern char **environ;

#ifndef AIOCANN_BUILD_PYTHON
#define AIOCANN_BUILD_PYTHON "python3"
#endif

#define AICPU_LOG "[ERROR] aicpu compile is not supported yet\n"

typedef struct rtc_prog {
    struct rtc_prog *next; /* g_progs */
    int refs;              /* g_lock */
    bool destroyed;        /* g_lock */
    pthread_mutex_t lock;  /* the rest */
    char *src;
    char *name;
    char **exprs;
    char **lowered; /* after a successful compile, one per expression */
    size_t nexpr;
    bool compiled;
    char *log;
    char *bin;
    size_t bin_size;
} rtc_prog;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static rtc_prog *g_progs;

/* The live program h with a reference, or NULL. */
static rtc_prog *prog_get(aclrtcProg h)
{
    pthread_mutex_lock(&g_lock);
    rtc_prog *p = g_progs;
    while (p && (p != h || p->destroyed))
        p = p->next;
    if (p)
        p->refs++;
    pthread_mutex_unlock(&g_lock);
    if (p)
        pthread_mutex_lock(&p->lock);
    return p;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static void prog_put(rtc_prog *p)
{
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_lock(&g_lock);
    bool last = --p->refs == 0 && p->destroyed;
    if (last) {
        for (rtc_prog **pp = &g_progs; *pp; pp = &(*pp)->next)
            if (*pp == p) {
                *pp = p->next;
                break;
            }
    }
    pthread_mutex_unlock(&g_lock);
    if (!last)
        return;
    free(p->src);
    free(p->name);
    free_strings(p->exprs, p->nexpr);
    free_strings(p->lowered, p->nexpr);
    free(p->log);
    free(p->bin);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

/* Every failing call leaves a recent error message (aclGetRecentErrMsg), as the runtime's do. */
static aclError result(const char *func, aclError rc)
{
    const char *why;
    switch (rc) {
    case ACL_SUCCESS:
        return rc;
    case ACL_ERROR_RTC_INVALID_PROG:
        why = "the program is not a live aclrtcProg (destroyed, never created), or it has no binary";
        break;
    case ACL_ERROR_RTC_INVALID_INPUT:
        why = "an argument is NULL or out of range";
        break;
    case ACL_ERROR_RTC_INVALID_OPTION:
        why = "a compiler option is empty or unknown (see the compile log)";
        break;
    case ACL_ERROR_RTC_COMPILATION:
        why = "the program did not compile (see the compile log)";
        break;
    case ACL_ERROR_RTC_NO_NAME_EXPR_AFTER_COMPILATION:
        why = "name expressions are added before aclrtcCompileProg";
        break;
    case ACL_ERROR_RTC_NO_LOWERED_NAMES_BEFORE_COMPILATION:
        why = "lowered names exist only after aclrtcCompileProg";
        break;
    case ACL_ERROR_RTC_NAME_EXPR_NOT_VALID:
        why = "that name expression was not added to the program";
        break;
    case ACL_ERROR_RTC_OUT_OF_MEMORY:
        why = "out of host memory";
        break;
    default:
        why = "the kernel compiler failed (see the compile log)";
        break;
    }
    return sim_fail_(func, rc, "%s", why);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Appends text to the program's log; false when out of memory. */
static bool log_append(rtc_prog *p, const char *text, size_t len)
{
    size_t have = p->log ? strlen(p->log) : 0;
    char *log = realloc(p->log, have + len + 1);
    if (!log)
        return false;
    memcpy(log + have, text, len);
    log[have + len] = '\0';
    p->log = log;
    return true;
}

SIM_API aclError aclrtcCreateProg(aclrtcProg *prog, const char *src, const char *name, int numHeaders,
                                  const char **headers, const char **includeNames)
{
    (void)headers, (void)includeNames;
    if (!prog || !src || !name || numHeaders != 0)
        return result(__func__, ACL_ERROR_RTC_INVALID_INPUT);
    rtc_prog *p = calloc(1, sizeof *p);
    if (p) {
        p->src = strdup(src);
        p->name = strdup(*name ? name : "default_program");
    }
    if (!p || !p->src || !p->name) {
        if (p) {
            free(p->src);
            free(p->name);
        }
        free(p);
        return result(__func__, ACL_ERROR_RTC_OUT_OF_MEMORY);
    }
    pthread_mutex_init(&p->lock, NULL);
    p->refs = 0;
    pthread_mutex_lock(&g_lock);
    p->next = g_progs;
    g_progs = p;
    pthread_mutex_unlock(&g_lock);
    *prog = p;
    return result(__func__, ACL_SUCCESS);
}

SIM_API aclError aclrtcDestroyProg(aclrtcProg *prog)
{
    if (!prog)
        return result(__func__, ACL_ERROR_RTC_INVALID_INPUT);
    rtc_prog *p = prog_get(*prog);
    if (!p)
        return result(__func__, ACL_ERROR_RTC_INVALID_PROG);
    pthread_mutex_lock(&g_lock);
    p->destroyed = true; /* freed by the last prog_put */
    pthread_mutex_unlock(&g_lock);
    prog_put(p);
    *prog = NULL;
    return result(__func__, ACL_SUCCESS);
}

SIM_API aclError aclrtcAddNameExpr(aclrtcProg prog, const char *const nameExpression)
{
    rtc_prog *p = prog_get(prog);
    if (!p)
        return result(__func__, ACL_ERROR_RTC_INVALID_PROG);
    aclError rc = ACL_SUCCESS;
    char **exprs = NULL;
    if (!nameExpression || !*nameExpression)
        rc = ACL_ERROR_RTC_INVALID_INPUT;
    else if (p->compiled)
        rc = ACL_ERROR_RTC_NO_NAME_EXPR_AFTER_COMPILATION;
    else if (!(exprs = realloc(p->exprs, (p->nexpr + 1) * sizeof *exprs)))
        rc = ACL_ERROR_RTC_OUT_OF_MEMORY;
    else if (!(exprs[p->nexpr] = strdup(nameExpression))) {
        p->exprs = exprs;
        rc = ACL_ERROR_RTC_OUT_OF_MEMORY;
    } else {
        p->exprs = exprs;
        p->nexpr++;
    }
    prog_put(p);
    return result(__func__, rc);
}

SIM_API aclError aclrtcGetLoweredName(aclrtcProg prog, const char *nameExpression, const char **loweredName)
{
    rtc_prog *p = prog_get(prog);
    if (!p)
        return result(__func__, ACL_ERROR_RTC_INVALID_PROG);
    aclError rc = ACL_ERROR_RTC_NAME_EXPR_NOT_VALID;
    if (!nameExpression || !loweredName)
        rc = ACL_ERROR_RTC_INVALID_INPUT;
    else if (!p->compiled)
        rc = ACL_ERROR_RTC_NO_LOWERED_NAMES_BEFORE_COMPILATION;
    else
        for (size_t i = 0; i < p->nexpr; i++)
            if (strcmp(p->exprs[i], nameExpression) == 0) {
                *loweredName = p->lowered[i];
                rc = ACL_SUCCESS;
                break;
            }
    prog_put(p);
    return result(__func__, rc);
}

SIM_API aclError aclrtcGetBinDataSize(aclrtcProg prog, size_t *binDataSizeRet)
{
    rtc_prog *p = prog_get(prog);
    if (!p)
        return result(__func__, ACL_ERROR_RTC_INVALID_PROG);
    /* No binary (never compiled, or the compile failed): a simulator choice of code. */
    aclError rc = !binDataSizeRet ? ACL_ERROR_RTC_INVALID_INPUT
                  : !p->compiled  ? ACL_ERROR_RTC_INVALID_PROG
                                  : ACL_SUCCESS;
    if (rc == ACL_SUCCESS)
        *binDataSizeRet = p->bin_size;
    prog_put(p);
    return result(__func__, rc);
}

SIM_API aclError aclrtcGetBinData(aclrtcProg prog, char *binData)
{
    rtc_prog *p = prog_get(prog);
    if (!p)
        return result(__func__, ACL_ERROR_RTC_INVALID_PROG);
    aclError rc = !binData ? ACL_ERROR_RTC_INVALID_INPUT : !p->compiled ? ACL_ERROR_RTC_INVALID_PROG : ACL_SUCCESS;
    if (rc == ACL_SUCCESS)
        memcpy(binData, p->bin, p->bin_size);
    prog_put(p);
    return result(__func__, rc);
}

SIM_API aclError aclrtcGetCompileLogSize(aclrtcProg prog, size_t *logSizeRet)
{
    rtc_prog *p = prog_get(prog);
    if (!p)
        return result(__func__, ACL_ERROR_RTC_INVALID_PROG);
    aclError rc = logSizeRet ? ACL_SUCCESS : ACL_ERROR_RTC_INVALID_INPUT;
    if (rc == ACL_SUCCESS)
        *logSizeRet = (p->log ? strlen(p->log) : 0) + 1;
    prog_put(p);
    return result(__func__, rc);
}

SIM_API aclError aclrtcGetCompileLog(aclrtcProg prog, char *log)
{
    rtc_prog *p = prog_get(prog);
    if (!p)
        return result(__func__, ACL_ERROR_RTC_INVALID_PROG);
    aclError rc = log ? ACL_SUCCESS : ACL_ERROR_RTC_INVALID_INPUT;
    if (rc == ACL_SUCCESS) {
        size_t n = p->log ? strlen(p->log) : 0;
        if (n)
            memcpy(log, p->log, n);
        log[n] = '\0';
    }
    prog_put(p);
    return result(__func__, rc);
}

/* ------------------------------------------------------------------ compiling */

/* out = a + b; false (and out empty) when it does not fit. */
static bool join(char *out, size_t cap, const char *a, const char *b)
{
    int n = snprintf(out, cap, "%s%s", a, b);
    if (n < 0 || (size_t)n >= cap) {
        out[0] = '\0';
        return false;
    }
    return true;
}

/* The interpreter that runs `-m aiocann cc` (see the file comment); static storage. */
static const char *interpreter(char *buf, size_t cap)
{
    const char *env = getenv("AIOCANN_PYTHON");
    if (env && *env)
        return env;
    Dl_info info;
    char lib[PATH_MAX];
    if (dladdr((void *)aclrtcCompileProg, &info) && info.dli_fname && realpath(info.dli_fname, lib)) {
        /* <prefix>/lib/pythonX.Y/site-packages/aiocann/lib/libascendcl.so -> <prefix>/bin/pythonX.Y */
        char *site = strstr(lib, "/site-packages/aiocann/lib/");
        char *py = site ? (*site = '\0', strrchr(lib, '/')) : NULL;
        if (py && strncmp(py, "/python", 7) == 0) {
            char version[64];
            snprintf(version, sizeof version, "%s", py + 1);
            *py = '\0';
            char *libdir = strrchr(lib, '/');
            if (libdir && (strcmp(libdir, "/lib") == 0 || strcmp(libdir, "/lib64") == 0)) {
                *libdir = '\0';
                char bin[PATH_MAX];
                if (join(bin, sizeof bin, lib, "/bin/") && join(buf, cap, bin, version) && access(buf, X_OK) == 0)
                    return buf;
            }
        }
    }
    if (access(AIOCANN_BUILD_PYTHON, X_OK) == 0)
        return AIOCANN_BUILD_PYTHON;
    return "python3";
}

static bool write_file(const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    bool ok = true;
    while (ok && len) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        ok = w > 0;
        if (ok) {
            data += w;
            len -= (size_t)w;
        }
    }
    return close(fd) == 0 && ok;
}

/* The whole file, NUL-terminated (*len without the NUL); NULL if it cannot be read. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rbe");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = (n + 4096 + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

typedef struct strv {
    char **v;
    size_t n, cap;
    bool oom;
} strv;

static void strv_push(strv *a, const char *fmt, const char *arg)
{
    if (a->oom)
        return;
    if (a->n + 2 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        char **nv = realloc(a->v, cap * sizeof *nv);
        if (!nv) {
            a->oom = true;
            return;
        }
        a->v = nv;
        a->cap = cap;
    }
    char *s = NULL;
    if (asprintf(&s, fmt, arg) < 0) {
        a->oom = true;
        return;
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

/* Runs the compiler in dir; returns its exit status (0, 1 compile error, 2 usage error), or
 * -1 (and a log line) when it could not run. */
static int run_compiler(rtc_prog *p, const char *dir, int numOptions, const char **options, bool has_arch)
{
    char pybuf[PATH_MAX];
    const char *python = interpreter(pybuf, sizeof pybuf);
    const char *base = strrchr(p->name, '/');
    base = base ? base + 1 : p->name;
    char src[PATH_MAX], out[PATH_MAX], names[PATH_MAX], logpath[PATH_MAX];
    /* The source's suffix picks the language: a program is Ascend C (C++) unless named .c. */
    const char *suffix = ends_with(base, ".c") ? ".c" : ".asc";
    bool paths = join(src, sizeof src, dir, ends_with(suffix, ".c") ? "/program.c" : "/program.asc") &&
                 join(out, sizeof out, dir, "/program.bin") && join(names, sizeof names, dir, "/lowered") &&
                 join(logpath, sizeof logpath, dir, "/log");
    if (!paths || !write_file(src, p->src, strlen(p->src))) {
        log_append(p, "[ERROR] cannot write the program to a temporary file\n", 52);
        return -1;
    }
    strv a = {0};
    strv_push(&a, "%s", python);
    strv_push(&a, "%s", "-m");
    strv_push(&a, "%s", "aiocann");
    strv_push(&a, "%s", "cc");
    strv_push(&a, "%s", "--kernel-binary");
    strv_push(&a, "--source-name=%s", p->name);
    const aclsimChip *chip = aclsimGetChip();
    if (!has_arch && chip)
        strv_push(&a, "--npu-arch=%s", chip->arch_name);
    for (int i = 0; i < numOptions; i++)
        strv_push(&a, "%s", options[i]);
    for (size_t i = 0; i < p->nexpr; i++)
        strv_push(&a, "--name-expr=%s", p->exprs[i]);
    strv_push(&a, "--lowered-names=%s", names);
    strv_push(&a, "%s", src);
    strv_push(&a, "%s", "-o");
    strv_push(&a, "%s", out);
    int status = -1;
    if (a.oom) {
        log_append(p, "[ERROR] out of memory\n", 22);
    } else {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
        pid_t pid;
        int err = posix_spawnp(&pid, python, &fa, NULL, a.v, environ);
        posix_spawn_file_actions_destroy(&fa);
        if (err) {
            char msg[PATH_MAX + 128];
            int n = snprintf(msg, sizeof msg, "[ERROR] cannot run the kernel compiler %s -m aiocann cc: %s\n", python,
                             strerror(err));
            log_append(p, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
        } else {
            int ws;
            pid_t r;
            while ((r = waitpid(pid, &ws, 0)) < 0 && errno == EINTR)
                ;
            status = r == pid && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
            size_t n = 0;
            char *text = read_file(logpath, &n);
            if (text && n)
                log_append(p, text, n);
            free(text);
            if (status < 0) {
                char msg[128];
                int m = snprintf(msg, sizeof msg, "[ERROR] the kernel compiler ended abnormally (%s %d)\n",
                                 r == pid && WIFSIGNALED(ws) ? "signal" : "wait status", r == pid ? ws : errno);
                log_append(p, msg, (size_t)m);
            } else if (status == 127) {
                log_append(p, "[ERROR] the kernel compiler could not start: is aiocann installed for ", 70);
                log_append(p, python, strlen(python));
                log_append(p, "? (set AIOCANN_PYTHON)\n", 23);
            }
        }
    }
    free_strings(a.v, a.n);
    return status;
}

/* Reads what a successful compile left in dir into p. */
static aclError take_results(rtc_prog *p, const char *dir)
{
    char path[PATH_MAX];
    size_t size = 0;
    char *bin = join(path, sizeof path, dir, "/program.bin") ? read_file(path, &size) : NULL;
    char *names = join(path, sizeof path, dir, "/lowered") ? read_file(path, NULL) : NULL;
    char **lowered = p->nexpr ? calloc(p->nexpr, sizeof *lowered) : NULL;
    bool ok = bin && names && (lowered || !p->nexpr);
    char *line = names;
    for (size_t i = 0; ok && i < p->nexpr; i++) {
        char *nl = line ? strchr(line, '\n') : NULL;
        if (!nl) {
            ok = false;
            break;
        }
        *nl = '\0';
        ok = (lowered[i] = strdup(line)) != NULL;
        line = nl + 1;
    }
    free(names);
    if (!ok) {
        free(bin);
        free_strings(lowered, p->nexpr);
        log_append(p, "[ERROR] the kernel compiler left no binary\n", 43);
        return ACL_ERROR_RTC_FAILURE;
    }
    free(p->bin);
    free_strings(p->lowered, p->nexpr);
    p->bin = bin;
    p->bin_size = size;
    p->lowered = lowered;
    p->compiled = true;
    return ACL_SUCCESS;
}

static void remove_dir(const char *dir)
{
    static const char *const files[] = {"program.asc", "program.c", "program.bin", "lowered", "log"};
    char path[PATH_MAX];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "/%s", files[i]);
        if (join(path, sizeof path, dir, name))
            unlink(path);
    }
    rmdir(dir);
}

SIM_API aclError aclrtcCompileProg(aclrtcProg prog, int numOptions, const char **options)
{
    rtc_prog *p = prog_get(prog);
    if (!p)
        return result(__func__, ACL_ERROR_RTC_INVALID_PROG);
    aclError rc = ACL_SUCCESS;
    bool aicpu = ends_with(p->name, ".aicpu"), has_arch = false;
    if (numOptions < 0 || (numOptions > 0 && !options))
        rc = ACL_ERROR_RTC_INVALID_INPUT;
    for (int i = 0; rc == ACL_SUCCESS && i < numOptions; i++) {
        if (!options[i])
            rc = ACL_ERROR_RTC_INVALID_INPUT;
        else if (!*options[i])
            rc = ACL_ERROR_RTC_INVALID_OPTION;
        else if (strcmp(options[i], "-xaicpu") == 0)
            aicpu = true;
        else if (strncmp(options[i], "--npu-arch", 10) == 0)
            has_arch = true;
    }
    if (rc == ACL_SUCCESS && aicpu) {
        log_append(p, AICPU_LOG, strlen(AICPU_LOG));
        rc = ACL_ERROR_RTC_COMPILATION;
    }
    if (rc != ACL_SUCCESS) {
        prog_put(p);
        return result(__func__, rc);
    }
    free(p->log); /* a new compile: a new log, and no binary unless it succeeds */
    p->log = NULL;
    p->compiled = false;
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/aclrtc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        log_append(p, "[ERROR] cannot create a temporary directory\n", 44);
        prog_put(p);
        return result(__func__, ACL_ERROR_RTC_FAILURE);
    }
    int status = run_compiler(p, dir, numOptions, options, has_arch);
    if (status == 0)
        rc = take_results(p, dir);
    else
        rc = status == 1   ? ACL_ERROR_RTC_COMPILATION
             : status == 2 ? ACL_ERROR_RTC_INVALID_OPTION
                           : ACL_ERROR_RTC_FAILURE;
    remove_dir(dir);
    prog_put(p);
    return result(__func__, rc);
}
