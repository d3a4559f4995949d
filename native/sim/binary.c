/*
 * aiocann simulator: kernel binaries and their functions.
 *
 * A simulator kernel binary is a host shared object exporting aclsim_kernel_abi and the
 * aclsim_kernels table (see aclsim_kernel.h; aiocann.sim.build_kernel produces them).
 * aclrtBinaryLoadFromFile dlopen()s the file; aclrtBinaryLoadFromData writes the bytes to an
 * anonymous memory file and dlopen()s that, so every load from data is an independent copy.
 *
 * Lifetimes: aclrtBinaryUnLoad frees the binary at once, as the real one frees its device code
 * without waiting for queued launches (ApiImpl::BinaryUnLoad): the handles die (later use gets
 * 107017) and a queued launch of one of its kernels that has not started fails on its stream
 * with 507015, the AI-core exception that running freed code gives. (The host code stays
 * mapped until the last task referring to it is gone -- a function holds a reference on its
 * binary and every launch task one on its function -- so the simulator never jumps into
 * unmapped memory; a launch already running when the binary is unloaded finishes.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernel_table.h"
#include "sim.h"

extern char **environ;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* g_binaries */
static sim_binary **g_binaries;
static size_t g_nbin, g_capbin;

static void binary_destroy(sim_obj *o)
{
    sim_binary *b = (sim_binary *)o;
    if (b->dl)
        dlclose(b->dl);
    if (b->memfd >= 0)
        close(b->memfd); /* after dlclose: see load_from_data */
    free(b->functions);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

static void function_destroy(sim_obj *o)
{
    sim_function *f = (sim_function *)o;
    sim_obj_put(&f->bin->obj);
    free(f);
}

/* *cpu_mode: the ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE given, or -1. */
static aclError check_options(const aclrtBinaryLoadOptions *options, bool from_file, const char *func, int *cpu_mode)
{
    *cpu_mode = -1;
    if (!options || options->numOpt == 0)
        return ACL_SUCCESS;
    if (!options->options)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "options->options is NULL but numOpt is %zu", options->numOpt);
    for (size_t i = 0; i < options->numOpt; i++) {
        const aclrtBinaryLoadOption *o = &options->options[i];
        switch (o->type) {
        case ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD:
            if (o->value.isLazyLoad > 1)
                return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "option %zu: isLazyLoad must be 0 or 1, not %u", i,
                                 o->value.isLazyLoad);
            break;
        case ACL_RT_BINARY_LOAD_OPT_MAGIC:
            if (from_file)
                return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                                 "option %zu: ACL_RT_BINARY_LOAD_OPT_MAGIC is only accepted by aclrtBinaryLoadFromData", i);
            if (o->value.magic != ACL_RT_BINARY_MAGIC_ELF_AICORE && o->value.magic != ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE &&
                o->value.magic != ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE)
                return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "option %zu: 0x%x is not an ACL_RT_BINARY_MAGIC_* value",
                                 i, o->value.magic);
            break;
        case ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE:
            /* BinaryLoader::SetCpuBinInfo: from a file 0 (the op-info JSON) or 1 (.so and
             * JSON); from data only 2. The program is then an AI CPU one (issue 11). */
            if (from_file ? (o->value.cpuKernelMode != 0 && o->value.cpuKernelMode != 1)
                          : o->value.cpuKernelMode != 2)
                return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                                 "option %zu: cpuKernelMode %d is invalid when loading from %s (valid: %s)", i,
                                 o->value.cpuKernelMode, from_file ? "a file" : "data", from_file ? "0 or 1" : "2");
            *cpu_mode = o->value.cpuKernelMode;
            break;
        default:
            return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "option %zu: unknown load option type %d", i, (int)o->type);
        }
    }
    return ACL_SUCCESS;
}

/* Relocations, which the loader applies at the object's base + r_offset unchecked: a corrupted
 * offset writes anywhere in the process. In the load probe's process the same write may fault
 * where in the caller's it lands on live memory, so the probe cannot be trusted with it: every
 * target must lie inside a segment the object loads. ph: its n program headers. */
static bool in_load(const Elf64_Phdr *ph, uint16_t n, uint64_t addr, uint64_t len, bool in_file, uint64_t *off)
{
    for (uint16_t i = 0; i < n; i++) {
        uint64_t span = in_file ? ph[i].p_filesz : ph[i].p_memsz;
        if (ph[i].p_type == PT_LOAD && addr >= ph[i].p_vaddr && len <= span && addr - ph[i].p_vaddr <= span - len) {
            if (off)
                *off = ph[i].p_offset + (addr - ph[i].p_vaddr);
            return true;
        }
    }
    return false;
}

/* The table of `bytes` at address `addr` (DT_RELA, DT_REL, DT_JMPREL or DT_RELR), entries of
 * `entsize` bytes; relr: the packed relative format. NULL when every target is in place. */
static const char *check_reloc_table(int fd, const Elf64_Phdr *ph, uint16_t n, uint64_t addr, uint64_t bytes,
                                     size_t entsize, bool relr)
{
    uint64_t off;
    if (!bytes)
        return NULL;
    if (!in_load(ph, n, addr, bytes, true, &off))
        return "its relocation table lies outside its segments";
    uint64_t buf[3 * 128]; /* 128 Elf64_Rela, or more of the smaller kinds */
    uint64_t where = 0;    /* DT_RELR: the next word a bitmap entry describes */
    size_t per_read = sizeof buf / entsize;
    for (uint64_t done = 0; done < bytes / entsize;) {
        size_t want = bytes / entsize - done < per_read ? (size_t)(bytes / entsize - done) : per_read;
        if (pread(fd, buf, want * entsize, (off_t)(off + done * entsize)) != (ssize_t)(want * entsize))
            return "its relocations cannot be read";
        for (size_t i = 0; i < want; i++) {
            const uint64_t *e = (const uint64_t *)((const char *)buf + i * entsize);
            if (!relr) { /* r_offset first in Elf64_Rel and Elf64_Rela alike */
                if (!in_load(ph, n, e[0], 8, false, NULL))
                    return "a relocation aims outside its segments";
            } else if ((e[0] & 1) == 0) { /* an address, relocated; the words after it follow */
                if (!in_load(ph, n, e[0], 8, false, NULL))
                    return "a relocation aims outside its segments";
                where = e[0] + 8;
            } else { /* a bitmap of the 63 words from `where` */
                for (unsigned bit = 1; bit < 64; bit++)
                    if (((e[0] >> bit) & 1) && !in_load(ph, n, where + (bit - 1) * 8u, 8, false, NULL))
                        return "a relocation aims outside its segments";
                where += 63 * 8u;
            }
        }
        done += want;
    }
    return NULL;
}

static const char *check_relocations(int fd, const Elf64_Phdr *ph, uint16_t n)
{
    const Elf64_Phdr *dyn = NULL;
    for (uint16_t i = 0; i < n && !dyn; i++)
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = &ph[i];
    if (!dyn)
        return NULL; /* dlopen refuses it itself */
    uint64_t rela = 0, relasz = 0, rel = 0, relsz = 0, jmprel = 0, pltrelsz = 0, pltrel = DT_RELA, relr = 0, relrsz = 0;
    Elf64_Dyn d[64];
    bool end = false;
    for (uint64_t at = 0; !end && at + sizeof(Elf64_Dyn) <= dyn->p_filesz;) {
        uint64_t left = (dyn->p_filesz - at) / sizeof(Elf64_Dyn);
        size_t want = left < 64 ? (size_t)left : 64;
        if (pread(fd, d, want * sizeof *d, (off_t)(dyn->p_offset + at)) != (ssize_t)(want * sizeof *d))
            return "its dynamic section cannot be read";
        for (size_t i = 0; i < want && !end; i++) {
            uint64_t v = d[i].d_un.d_val;
            switch (d[i].d_tag) {
            case DT_NULL: end = true; break;
            case DT_RELA: rela = v; break;
            case DT_RELASZ: relasz = v; break;
            case DT_REL: rel = v; break;
            case DT_RELSZ: relsz = v; break;
            case DT_JMPREL: jmprel = v; break;
            case DT_PLTRELSZ: pltrelsz = v; break;
            case DT_PLTREL: pltrel = v; break;
#ifdef DT_RELR
            case DT_RELR: relr = v; break;
            case DT_RELRSZ: relrsz = v; break;
#endif
            default: break;
            }
        }
        at += want * sizeof *d;
    }
    const char *why = check_reloc_table(fd, ph, n, rela, relasz, sizeof(Elf64_Rela), false);
    if (!why)
        why = check_reloc_table(fd, ph, n, rel, relsz, sizeof(Elf64_Rel), false);
    if (!why)
        why = check_reloc_table(fd, ph, n, jmprel, pltrelsz, pltrel == DT_REL ? sizeof(Elf64_Rel) : sizeof(Elf64_Rela),
                                false);
    if (!why)
        why = check_reloc_table(fd, ph, n, relr, relrsz, sizeof(uint64_t), true);
    return why;
}

/* dlopen trusts the ELF headers: a segment that lies past the end of the file (a truncated
 * binary, or too short a length given to aclrtBinaryLoadFromData) is mapped all the same, and
 * the loader's first access to it raises SIGBUS -- the process dies inside dlopen. So check,
 * before dlopen, that the headers and every segment the loader maps lie inside the file (the
 * section headers, which come last in the file, too: then any truncation is caught), and that
 * the relocations write inside the object (check_relocations). What else a corrupted file
 * does to the loader, the load probe finds out (probe_load). */
static aclError check_elf(const char *path, const char *label, const char *func)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for good (on
     * the regular file that the check then insists on, the flag does nothing). */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return sim_fail_(func, ACL_ERROR_RT_FILE_OPEN, "cannot open %s: %s", label, strerror(errno));
    struct stat st;
    Elf64_Ehdr eh;
    const char *why = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        why = "not a regular file";
    else if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        why = "not an ELF file";
    else if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr))
        why = "not a 64-bit ELF file";
    else {
        uint64_t size = (uint64_t)st.st_size;
        if (eh.e_phoff > size || (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > size - eh.e_phoff)
            why = "its program headers lie past the end of the file (truncated?)";
        else if (eh.e_shoff && (eh.e_shoff > size || (uint64_t)eh.e_shnum * eh.e_shentsize > size - eh.e_shoff))
            why = "its section headers lie past the end of the file (truncated?)";
        Elf64_Phdr *ph = why ? NULL : calloc(eh.e_phnum ? eh.e_phnum : 1, sizeof *ph);
        if (!why && !ph)
            why = "out of host memory";
        else if (!why && pread(fd, ph, eh.e_phnum * sizeof *ph, (off_t)eh.e_phoff) != (ssize_t)(eh.e_phnum * sizeof *ph))
            why = "its program headers cannot be read";
        for (uint16_t i = 0; !why && i < eh.e_phnum; i++)
            if (ph[i].p_type != PT_NULL && (ph[i].p_offset > size || ph[i].p_filesz > size - ph[i].p_offset))
                why = "a segment lies past the end of the file (truncated?)";
        if (!why)
            why = check_relocations(fd, ph, eh.e_phnum);
        free(ph);
    }
    close(fd);
    if (why)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s is not a loadable kernel binary: %s", label, why);
    return ACL_SUCCESS;
}

/* The load probe (load_probe/load_probe.c), installed beside this library: its path, or ""
 * where it is absent (a library built on its own, as the sanitizer builds are): binaries are
 * then loaded unprobed, as check_elf alone guards them. */
#define LOAD_PROBE_NAME "aclsim-load-probe"
#define LOAD_PROBE_TIMEOUT_MS 30000
static pthread_once_t g_probe_once = PTHREAD_ONCE_INIT;
static char g_probe_path[PATH_MAX];

static void find_load_probe(void)
{
    Dl_info info;
    if (!dladdr((void *)&find_load_probe, &info) || !info.dli_fname)
        return;
    const char *slash = strrchr(info.dli_fname, '/');
    size_t dir = slash ? (size_t)(slash - info.dli_fname) + 1 : 0;
    if (!slash || dir + sizeof LOAD_PROBE_NAME > sizeof g_probe_path)
        return;
    memcpy(g_probe_path, info.dli_fname, dir);
    memcpy(g_probe_path + dir, LOAD_PROBE_NAME, sizeof LOAD_PROBE_NAME);
    if (access(g_probe_path, X_OK) != 0)
        g_probe_path[0] = '\0';
}

/* The loader's messages quote the file's own strings (a library or version name): from a
 * corrupted binary those are any bytes, which an error message must not carry on. */
static char *printable(char *text)
{
    for (unsigned char *c = (unsigned char *)text; *c; c++)
        if (*c < 0x20 || *c >= 0x7f)
            *c = '?';
    return text;
}

/* Waits for the probe, keeping the start of what it wrote to stderr (the loader's own message
 * when it gives up on a file) in why[]. Returns its wait status; PROBE_UNKNOWN where its end
 * cannot be told -- another waiter reaped it (an application that ignores SIGCHLD, or reaps
 * every child): the load then goes on unprobed; PROBE_HUNG (why[] says so) where it did not
 * finish in time and was killed. */
#define PROBE_UNKNOWN (-1)
#define PROBE_HUNG (-2)
static int wait_load_probe(pid_t pid, int err_fd, char *why, size_t cap)
{
    size_t used = 0;
    uint64_t deadline = sim_now_ns() + (uint64_t)LOAD_PROBE_TIMEOUT_MS * 1000000u;
    bool open_fd = true;
    for (;;) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            return PROBE_UNKNOWN;
        if (sim_now_ns() >= deadline) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            snprintf(why, cap, "loading it did not finish in %d s (its initialisers hang?)",
                     LOAD_PROBE_TIMEOUT_MS / 1000);
            return PROBE_HUNG;
        }
        /* The pipe's end-of-file cannot be waited for alone: a child another thread forks at
         * this moment (without exec) holds its write end too. So poll briefly and ask again. */
        struct pollfd pfd = {.fd = err_fd, .events = POLLIN};
        if (open_fd && poll(&pfd, 1, 5) > 0) {
            char buf[256];
            ssize_t n = read(err_fd, buf, sizeof buf);
            if (n <= 0) {
                open_fd = n < 0 && (errno == EINTR || errno == EAGAIN);
            } else if (used + 1 < cap) {
                size_t take = (size_t)n < cap - 1 - used ? (size_t)n : cap - 1 - used;
                memcpy(why + used, buf, take);
                used += take;
                why[used] = '\0';
            }
        } else if (!open_fd) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
}

/* Loads path in the load probe first (see load_probe.c): a binary that would take the process
 * down in dlopen is refused, 107000, with what the probe died of. memfd: the memory file path
 * names (LoadFromData), or -1; the probe gets it as its descriptor 3. */
static aclError probe_load(const char *path, int memfd, const char *label, const char *func)
{
    pthread_once(&g_probe_once, find_load_probe);
    if (!g_probe_path[0])
        return ACL_SUCCESS;
    int err[2];
    if (pipe2(err, O_CLOEXEC) != 0)
        return ACL_SUCCESS; /* no descriptors to spare: dlopen would want some too, and says so */
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    if (memfd >= 0) /* first: made before the pipe, it is the lower descriptor */
        posix_spawn_file_actions_adddup2(&fa, memfd, 3); /* dup2 clears close-on-exec */
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    /* The calling thread's mask and the process's dispositions are the caller's: the probe
     * starts with none blocked and every one at its default, so a fault ends it visibly. */
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *argv[] = {(char *)LOAD_PROBE_NAME, (char *)(memfd >= 0 ? "/proc/self/fd/3" : path), NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, g_probe_path, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(err[1]);
    if (rc != 0) {
        close(err[0]);
        return ACL_SUCCESS; /* cannot run it (out of processes): unprobed, as without it */
    }
    char why[320] = "";
    int status = wait_load_probe(pid, err[0], why, sizeof why);
    close(err[0]);
    if (status == PROBE_UNKNOWN || (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0))
        return ACL_SUCCESS;
    why[strcspn(why, "\n")] = '\0';
    printable(why);
    if (status != PROBE_HUNG && WIFSIGNALED(status))
        snprintf(why, sizeof why, "loading it faults in the dynamic loader (signal %d, %s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (status != PROBE_HUNG && !why[0])
        snprintf(why, sizeof why, "the load probe exited with status %d", WEXITSTATUS(status));
    return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s is not a loadable kernel binary: %s", label, why);
}

/* Gives b (its reference) a handle and lists it. */
static aclError publish(sim_binary *b, const char *func, aclrtBinHandle *out)
{
    pthread_mutex_lock(&g_lock);
    bool room = g_nbin < g_capbin;
    if (!room) {
        size_t cap = g_capbin ? g_capbin * 2 : 16;
        sim_binary **nb = realloc(g_binaries, cap * sizeof *nb);
        if (nb) {
            g_binaries = nb;
            g_capbin = cap;
            room = true;
        }
    }
    if (!room || !sim_handle_open(&b->obj)) {
        pthread_mutex_unlock(&g_lock);
        b->memfd = -1; /* a failed load: its caller still owns (and closes) the memory file */
        binary_destroy(&b->obj);
        return sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    g_binaries[g_nbin++] = b;
    pthread_mutex_unlock(&g_lock);
    *out = b->obj.handle;
    return ACL_SUCCESS;
}

/* An AI CPU program (issue 11): loaded with ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE. The real
 * runtime keeps its bytes (or the JSON's kernel list) for the device's AI CPUs and registers
 * its functions with aclrtRegisterCpuFunc (cpu_kernel.c); it has no AI-core kernels. */
static aclError open_cpu_program(const char *label, int device, int mode, const char *func, aclrtBinHandle *out)
{
    size_t plen = strlen(label);
    sim_binary *b = calloc(1, sizeof *b + plen + 1);
    sim_function **fns = calloc(1, sizeof *fns);
    if (!b || !fns) {
        free(b);
        free(fns);
        return sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    sim_obj_init(&b->obj, SIM_KIND_BINARY, binary_destroy);
    b->device = device;
    b->functions = fns;
    b->cpu_mode = mode;
    b->memfd = -1;
    pthread_mutex_init(&b->lock, NULL);
    memcpy(b->path, label, plen + 1);
    return publish(b, func, out);
}

/* Opens a shared object and checks that it is a simulator kernel binary. memfd: the memory
 * file path names (LoadFromData), which the binary keeps open while loaded; -1 for a file. The
 * binary owns it from here on, also when opening fails. */
static aclError open_binary_dl(const char *path, const char *label, int device, int *memfd, const char *func,
                               aclrtBinHandle *out);

static aclError open_binary(const char *path, const char *label, int device, int memfd, const char *func,
                            aclrtBinHandle *out)
{
    aclError rc = open_binary_dl(path, label, device, &memfd, func, out);
    if (memfd >= 0)
        close(memfd); /* no binary took it (open_binary_dl clears it when one does) */
    return rc;
}

static aclError open_binary_dl(const char *path, const char *label, int device, int *memfd, const char *func,
                               aclrtBinHandle *out)
{
    aclError rc = check_elf(path, label, func);
    if (!rc)
        rc = probe_load(path, *memfd, label, func);
    if (rc)
        return rc;
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        char why[320];
        snprintf(why, sizeof why, "%s", dlerror());
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s is not a loadable kernel binary: %s", label,
                         printable(why));
    }
    sim_kernel_exports exports;
    sim_table_verdict verdict = sim_kernel_exports_read(dl, &exports);
    uint32_t n = exports.count;
    if (verdict != SIM_TABLE_OK) {
        dlclose(dl);
        if (verdict == SIM_TABLE_MISSING)
            return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                             "%s is not a simulator kernel binary (no aclsim_kernels table): build it with "
                             "aiocann.sim.build_kernel",
                             label);
        if (verdict == SIM_TABLE_ABI)
            return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s has kernel ABI %u, this simulator needs %u: rebuild it",
                             label, exports.abi, ACLSIM_KERNEL_ABI_VERSION);
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s: the descriptor of its kernel %u (from 0) is malformed",
                         label, n);
    }
    size_t plen = strlen(label);
    sim_binary *b = calloc(1, sizeof *b + plen + 1);
    sim_function **fns = calloc(n ? n : 1, sizeof *fns);
    if (!b || !fns) {
        free(b);
        free(fns);
        dlclose(dl);
        return sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    sim_obj_init(&b->obj, SIM_KIND_BINARY, binary_destroy);
    b->dl = dl;
    b->device = device;
    b->kernels = exports.kernels;
    b->num_kernels = n;
    b->functions = fns;
    b->cpu_mode = -1;
    b->memfd = *memfd; /* the binary's from here on (binary_destroy closes it) */
    *memfd = -1;
    /* The Ascend C layer's runtime (kernel_rt.c): a binary built with kernel_operator.h has a
     * slot for it (set through its exported setter); one built before that may lack it. Filled
     * before any block can run, and never changed again. */
    if (exports.rt_set)
        exports.rt_set(sim_kernel_rt());
    /* Optional: binaries built before blocks could report a status lack it (overflow.c). */
    b->take_status = exports.take_status;
    pthread_mutex_init(&b->lock, NULL);
    memcpy(b->path, label, plen + 1);
    return publish(b, func, out);
}

SIM_API aclError aclrtBinaryLoadFromFile(const char *binPath, aclrtBinaryLoadOptions *options,
                                         aclrtBinHandle *binHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(binPath);
    SIM_CHECK_NOT_NULL(binHandle);
    SIM_REQUIRE_INIT();
    int cpu_mode;
    aclError rc = check_options(options, true, __func__, &cpu_mode);
    if (rc)
        return rc;
    if (cpu_mode >= 0) { /* the .so and .json next to binPath, not binPath itself */
        if ((rc = sim_cpu_check_files(binPath, cpu_mode, __func__)))
            return rc;
        return open_cpu_program(binPath, -1, cpu_mode, __func__, binHandle);
    }
    if (access(binPath, R_OK) != 0)
        return sim_fail(ACL_ERROR_RT_FILE_OPEN, "cannot open %s: %s", binPath, strerror(errno));
    return open_binary(binPath, binPath, -1, -1, __func__, binHandle);
}

/* aclrtBinaryLoadFromData, and aclrtBinaryLoad of a descriptor (which has no options). */
static aclError load_from_data(const void *data, size_t length, const aclrtBinaryLoadOptions *options,
                               aclrtBinHandle *binHandle, const char *func)
{
    if (length == 0)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "length must be greater than 0");
    int cpu_mode;
    aclError rc = check_options(options, false, func, &cpu_mode);
    if (rc)
        return rc;
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int device = c->dev->id;
    sim_obj_put(&c->obj);
    if (cpu_mode >= 0) {
        char label[64];
        snprintf(label, sizeof label, "<AI CPU program, %zu bytes>", length);
        return open_cpu_program(label, device, cpu_mode, func, binHandle);
    }

    int fd = memfd_create("aclsim-binary", MFD_CLOEXEC);
    if (fd < 0)
        return sim_fail_(func, ACL_ERROR_RT_FILE_WRITE, "memfd_create: %s", strerror(errno));
    const char *p = data;
    size_t left = length;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int err = errno;
            close(fd);
            return sim_fail_(func, err == EFAULT ? ACL_ERROR_RT_PARAM_INVALID : ACL_ERROR_RT_FILE_WRITE,
                             "cannot read %zu bytes of binary data at %p: %s", length, data, strerror(err));
        }
        p += w;
        left -= (size_t)w;
    }
    char path[64], label[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    snprintf(label, sizeof label, "<binary data, %zu bytes>", length);
    /* The memory file stays open while the binary is loaded (binary_destroy closes it): the
     * dynamic loader knows a library by the path it was opened with, and a later load whose
     * memory file got the same descriptor number -- the same "/proc/self/fd/N" -- would be
     * handed the binary already loaded under that name instead of its own. */
    return open_binary(path, label, device, fd, func, binHandle);
}

SIM_API aclError aclrtBinaryLoadFromData(const void *data, size_t length, const aclrtBinaryLoadOptions *options,
                                         aclrtBinHandle *binHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(data);
    SIM_CHECK_NOT_NULL(binHandle);
    return load_from_data(data, length, options, binHandle, __func__);
}

static sim_binary *take_binary(aclrtBinHandle h)
{
    pthread_mutex_lock(&g_lock);
    sim_binary *b = (sim_binary *)sim_handle_close(h, SIM_KIND_BINARY);
    if (b) {
        for (size_t i = 0; i < g_nbin; i++) {
            if (g_binaries[i] == b) {
                g_binaries[i] = g_binaries[--g_nbin];
                break;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    return b;
}

/* Invalidates b's function handles and drops the table's reference on b. */
static void unload(sim_binary *b)
{
    pthread_mutex_lock(&b->lock);
    __atomic_store_n(&b->unloaded, true, __ATOMIC_RELEASE); /* read lock-free by launches */
    for (uint32_t i = 0; i < b->num_kernels; i++) {
        if (b->functions[i]) {
            sim_obj *o = sim_handle_close(b->functions[i]->obj.handle, SIM_KIND_FUNCTION);
            b->functions[i] = NULL;
            sim_obj_put(o);
        }
    }
    sim_cpu_unload_locked(b); /* issue 11: its registered AI CPU functions */
    pthread_mutex_unlock(&b->lock);
    sim_obj_put(&b->obj);
}

SIM_API aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(binHandle);
    sim_binary *b = take_binary(binHandle);
    if (!b)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "binary %p is not a loaded binary", binHandle);
    unload(b);
    return ACL_SUCCESS;
}

void sim_binary_unload_all(void)
{
    for (;;) {
        pthread_mutex_lock(&g_lock);
        void *h = g_nbin ? g_binaries[g_nbin - 1]->obj.handle : NULL;
        pthread_mutex_unlock(&g_lock);
        if (!h)
            return;
        sim_binary *b = take_binary(h);
        if (b)
            unload(b);
    }
}

SIM_API aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char *kernelName,
                                        aclrtFuncHandle *funcHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(binHandle);
    SIM_CHECK_NOT_NULL(kernelName);
    SIM_CHECK_NOT_NULL(funcHandle);
    sim_binary *b = (sim_binary *)sim_handle_get(binHandle, SIM_KIND_BINARY);
    if (!b)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "binary %p is not a loaded binary", binHandle);
    uint32_t i = 0;
    while (i < b->num_kernels && strcmp(b->kernels[i].name, kernelName) != 0)
        i++;
    if (i == b->num_kernels) {
        char names[256] = "";
        size_t used = 0;
        for (uint32_t k = 0; k < b->num_kernels && used < sizeof names - 1; k++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", b->kernels[k].name);
        aclError rc = sim_fail(ACL_ERROR_RT_KERNEL_LOOKUP, "binary %s has no kernel named '%s' (it has: %s)", b->path,
                               kernelName, b->num_kernels ? names : "none");
        sim_obj_put(&b->obj);
        return rc;
    }
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&b->lock);
    sim_function *f = b->functions[i];
    if (b->unloaded) {
        rc = sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "binary %p was unloaded", binHandle);
    } else if (!f) {
        f = calloc(1, sizeof *f);
        if (f) {
            sim_obj_init(&f->obj, SIM_KIND_FUNCTION, function_destroy);
            sim_obj_get(&b->obj);
            f->bin = b;
            f->desc = &b->kernels[i];
            if (sim_handle_open(&f->obj))
                b->functions[i] = f;
            else {
                sim_obj_put(&f->obj);
                f = NULL;
            }
        }
        if (!f)
            rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    if (f)
        *funcHandle = f->obj.handle;
    pthread_mutex_unlock(&b->lock);
    sim_obj_put(&b->obj);
    return rc;
}

sim_function *sim_function_get(aclrtFuncHandle h)
{
    return (sim_function *)sim_handle_get(h, SIM_KIND_FUNCTION);
}

/* ------------------------------------------------------------------ issue 11 ------------- */

/* aclrtCreateBinary's descriptor: the caller's data pointer and length, not copied (as
 * rtDevBinary_t in src/acl/aclrt_impl/kernel.cpp) -- the data must stay valid until
 * aclrtBinaryLoad. It is a handle, so a stale or foreign one is refused instead of freed. */
typedef struct sim_binary_desc {
    sim_obj obj;
    const void *data;
    size_t length;
} sim_binary_desc;

static void binary_desc_destroy(sim_obj *o) { free(o); }

/* Returns NULL (with the message recorded) when data is NULL or memory runs out, as ACL does. */
SIM_API aclrtBinary aclrtCreateBinary(const void *data, size_t dataLen)
{
    if (atomic_load_explicit(&g_sim_forked, memory_order_relaxed)) {
        sim_forked_error(__func__);
        return NULL;
    }
    if (!data) {
        sim_fail(ACL_ERROR_INVALID_PARAM, "data must not be NULL");
        return NULL;
    }
    sim_binary_desc *d = calloc(1, sizeof *d);
    if (!d) {
        sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
        return NULL;
    }
    sim_obj_init(&d->obj, SIM_KIND_BINARY_DESC, binary_desc_destroy);
    d->data = data;
    d->length = dataLen;
    if (!sim_handle_open(&d->obj)) {
        free(d);
        sim_fail(ACL_ERROR_BAD_ALLOC, "handle table is full");
        return NULL;
    }
    return d->obj.handle;
}

SIM_API aclError aclrtDestroyBinary(aclrtBinary binary)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(binary);
    sim_obj *o = sim_handle_close(binary, SIM_KIND_BINARY_DESC);
    if (!o)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "%p is not a binary from aclrtCreateBinary", binary);
    sim_obj_put(o);
    return ACL_SUCCESS;
}

/* Loads the binary the descriptor points at, as aclrtBinaryLoadFromData with no options
 * (rtBinaryLoadWithoutTilingKey); the descriptor stays valid and may be loaded again. */
SIM_API aclError aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle *binHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(binary);
    SIM_CHECK_NOT_NULL(binHandle);
    sim_binary_desc *d = (sim_binary_desc *)sim_handle_get(binary, SIM_KIND_BINARY_DESC);
    if (!d)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "%p is not a binary from aclrtCreateBinary", binary);
    aclError rc = load_from_data(d->data, d->length, NULL, binHandle, __func__);
    sim_obj_put(&d->obj);
    return rc;
}

static sim_function *function_arg(aclrtFuncHandle h, const char *func, aclError *rc)
{
    sim_function *f = sim_function_get(h);
    if (!f)
        *rc = sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "function %p is not a live function handle", h);
    return f;
}

/* Where the kernel's code starts. A simulator kernel is one entry point that runs on any core,
 * like a mixed (AI Core) kernel: its address is the AIC one and the AIV address is NULL, as the
 * runtime reports a kernel with a single address that is not vector-only (ApiImpl::FuncGetAddr).
 * The address is the host code the AI-core threads call. */
SIM_API aclError aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(funcHandle);
    SIM_CHECK_NOT_NULL(aicAddr);
    SIM_CHECK_NOT_NULL(aivAddr);
    aclError rc;
    sim_function *f = function_arg(funcHandle, __func__, &rc);
    if (!f)
        return rc;
    union {
        aclsim_entry_fn fn;
        void *p;
    } entry = {.fn = f->desc->entry}; /* a function address as a data pointer, as the API has it */
    *aicAddr = entry.p;
    *aivAddr = NULL;
    sim_obj_put(&f->obj);
    return ACL_SUCCESS;
}

/* The kernel's name into name[maxLen]; maxLen must hold it and its NUL, else 107000
 * (ApiErrorDecorator::FuncGetName). */
SIM_API aclError aclrtGetFunctionName(aclrtFuncHandle funcHandle, uint32_t maxLen, char *name)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(name);
    SIM_CHECK_NOT_NULL(funcHandle);
    aclError rc = ACL_SUCCESS;
    sim_function *f = function_arg(funcHandle, __func__, &rc);
    if (!f)
        return rc;
    size_t n = strlen(f->desc->name);
    if (maxLen < n + 1)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "maxLen %u is too small for the name of %s (%zu bytes with its NUL)",
                      maxLen, f->desc->name, n + 1);
    else
        memcpy(name, f->desc->name, n + 1);
    sim_obj_put(&f->obj);
    return rc;
}
