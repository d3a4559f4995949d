/*
 * aiocann simulator: memory shared between processes -- what the real driver keeps in its
 * shared-handle tables (halShmemCreateHandle for IPC keys, halMemExportToShareableHandle for
 * physical memory handles), made of what Linux offers a process:
 *
 *  - The shared memory is a memfd: a device's "HBM" file (memory.c) for aclrtMalloc memory,
 *    a physical handle's own file (vmm.c) for virtual memory. Another process reaches a file
 *    a process holds open through /proc/PID/fd/N (same user; no ptrace attach needed), and
 *    maps the same pages.
 *  - Each export gets a share record: a small memfd of its own, mapped by the exporter and by
 *    every importer, holding what the driver would know about the export -- the exporting
 *    process, the fd of the memory (a dup, so the export outlives the device's own mapping),
 *    the file range, the import-pid whitelist set with aclrtIpcMemSetImportPid /
 *    aclrtMemSetPidToShareableHandle, whether that whitelist is checked, and whether the
 *    export is still open.
 *  - An IPC key ("aclsim:PID:FD:NONCE") and a shareable handle (64 bits: PID, FD, low nonce
 *    bits) name the record's fd in the exporting process. The nonce is also in the record,
 *    so a key whose process or fd number was reused since does not reach another export.
 *
 * An importer checks the whitelist itself, as the real driver checks it on import: the pid the
 * exporter allowed is the one aclrtDeviceGetBareTgid returns, the importing process's id.
 * Once the exporter closes (or frees, or exits), no new import succeeds; mappings made before
 * stay valid, as the memory belongs to the file, not to the exporter's address space.
 *
 * Locking: none; a record is written by its exporter only (the whitelist: pids stored first,
 * then the count with release order) and read by importers with acquire loads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

#define REC_MAGIC 0x4853454D49534C41ull /* "ALSIMEMH" */
#define REC_SIZE ((size_t)64 << 10)
/* The shareable handle of physical memory: pid in the top 22 bits, record fd in the next 20,
 * nonce in the low 22 (Linux pids are below 2^22). */
#define ID_PID_BITS 22
#define ID_FD_BITS 20
#define ID_NONCE_BITS 22

typedef struct share_rec {
    _Atomic uint64_t magic;
    uint64_t nonce;
    int32_t owner;          /* exporting process */
    int32_t data_fd;        /* the memory's fd in the exporting process */
    uint64_t data_dev, data_ino; /* the file, so a reused fd number is noticed */
    uint64_t off, len;      /* the file range shared */
    uint64_t in_page;       /* IPC: the exported address's offset in the first page */
    uint64_t size;          /* the size exported */
    int32_t device;         /* the exporter's device (user id) */
    uint32_t no_pid_check;  /* exported with ..._DISABLE_PID_VALIDATION */
    _Atomic uint32_t closed;
    _Atomic uint32_t npids;
    _Atomic uint32_t importers;
    int32_t pids[];         /* the whitelist */
} share_rec;

#define MAX_PIDS ((REC_SIZE - sizeof(share_rec)) / sizeof(int32_t))

struct sim_share {
    int rec_fd;
    int data_fd; /* a dup of the memory's fd, owned by the share */
    share_rec *rec;
};

static uint64_t random_nonce(void)
{
    uint64_t n = 0;
    if (getrandom(&n, sizeof n, GRND_NONBLOCK) != (ssize_t)sizeof n)
        n = sim_now_ns() ^ ((uint64_t)getpid() << 32);
    return n ? n : 1;
}

sim_share *sim_share_export(int data_fd, uint64_t off, uint64_t len, uint64_t in_page, uint64_t size, int device,
                            bool no_pid_check, const char *func, aclError *rc)
{
    sim_share *sh = calloc(1, sizeof *sh);
    struct stat st;
    if (!sh) {
        *rc = sim_fail_(func, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "out of host memory");
        return NULL;
    }
    sh->rec_fd = sh->data_fd = -1;
    sh->rec_fd = memfd_create("aclsim-share", MFD_CLOEXEC);
    if (sh->rec_fd < 0 || ftruncate(sh->rec_fd, (off_t)REC_SIZE) != 0 ||
        (sh->data_fd = fcntl(data_fd, F_DUPFD_CLOEXEC, 0)) < 0 || fstat(sh->data_fd, &st) != 0 ||
        (size_t)sh->rec_fd >= (1u << ID_FD_BITS) || (uint64_t)getpid() >= (1ull << ID_PID_BITS)) {
        *rc = sim_fail_(func, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "cannot create the share: %s",
                        errno ? strerror(errno) : "fd or pid out of range");
        sim_share_close(sh);
        return NULL;
    }
    void *p = mmap(NULL, REC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, sh->rec_fd, 0);
    if (p == MAP_FAILED) {
        *rc = sim_fail_(func, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "cannot map the share record: %s", strerror(errno));
        sim_share_close(sh);
        return NULL;
    }
    share_rec *r = sh->rec = p;
    r->nonce = random_nonce();
    r->owner = getpid();
    r->data_fd = sh->data_fd;
    r->data_dev = (uint64_t)st.st_dev;
    r->data_ino = (uint64_t)st.st_ino;
    r->off = off;
    r->len = len;
    r->in_page = in_page;
    r->size = size;
    r->device = device;
    r->no_pid_check = no_pid_check;
    atomic_store_explicit(&r->magic, REC_MAGIC, memory_order_release);
    *rc = ACL_SUCCESS;
    return sh;
}

uint64_t sim_share_id(const sim_share *sh)
{
    const share_rec *r = sh->rec;
    return ((uint64_t)r->owner << (ID_FD_BITS + ID_NONCE_BITS)) | ((uint64_t)sh->rec_fd << ID_NONCE_BITS) |
           (r->nonce & ((1ull << ID_NONCE_BITS) - 1));
}

void sim_share_key(const sim_share *sh, char *out, size_t len)
{
    snprintf(out, len, "aclsim:%d:%d:%016" PRIx64, sh->rec->owner, sh->rec_fd, sh->rec->nonce);
}

size_t sim_share_key_len(void) { return sizeof "aclsim:4194303:1048575:0123456789abcdef" - 1; }

aclError sim_share_allow(sim_share *sh, const int32_t *pid, size_t n, const char *func)
{
    share_rec *r = sh->rec;
    uint32_t have = atomic_load_explicit(&r->npids, memory_order_relaxed);
    if (n > MAX_PIDS - have)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "the whitelist holds at most %zu processes (%u set, %zu more)",
                         (size_t)MAX_PIDS, have, n);
    if (!sim_host_mapped(pid, n * sizeof *pid)) /* a bad array is an error, not a crash */
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "pid [%p, %zu entries) is not readable host memory",
                         (const void *)pid, n);
    memcpy(&r->pids[have], pid, n * sizeof *pid);
    atomic_store_explicit(&r->npids, have + (uint32_t)n, memory_order_release);
    return ACL_SUCCESS;
}

uint32_t sim_share_importers(const sim_share *sh)
{
    return atomic_load_explicit(&sh->rec->importers, memory_order_acquire);
}

void sim_share_close(sim_share *sh)
{
    if (!sh)
        return;
    if (sh->rec) {
        atomic_store_explicit(&sh->rec->closed, 1, memory_order_release);
        munmap(sh->rec, REC_SIZE);
    }
    if (sh->rec_fd >= 0)
        close(sh->rec_fd);
    if (sh->data_fd >= 0)
        close(sh->data_fd);
    free(sh);
}

/* ------------------------------------------------------------------ importing ------------ */

static int open_peer_fd(int pid, int fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    return open(path, O_RDWR | O_CLOEXEC);
}

static aclError open_record(int pid, int fd, uint64_t nonce, uint64_t nonce_mask, const char *what, const char *func,
                            sim_share_import *out)
{
    memset(out, 0, sizeof *out);
    out->data_fd = -1;
    int rfd = pid > 0 && fd >= 0 ? open_peer_fd(pid, fd) : -1;
    struct stat st;
    if (rfd < 0 || fstat(rfd, &st) != 0 || (size_t)st.st_size < REC_SIZE) {
        if (rfd >= 0)
            close(rfd);
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                         "%s names no export of process %d (the process or the export is gone)", what, pid);
    }
    share_rec *r = mmap(NULL, REC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, rfd, 0);
    close(rfd);
    if (r == MAP_FAILED)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s: cannot map the export's record: %s", what,
                         strerror(errno));
    aclError rc = ACL_SUCCESS;
    if (atomic_load_explicit(&r->magic, memory_order_acquire) != REC_MAGIC ||
        (r->nonce & nonce_mask) != nonce || r->owner != pid) {
        rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s names no export of process %d", what, pid);
    } else if (atomic_load_explicit(&r->closed, memory_order_acquire)) {
        rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s: the export was closed by process %d", what, pid);
    } else if (!r->no_pid_check) {
        /* The whitelist (halShmemSetPidHandle / halMemSetPidToShareableHandle): this process
         * must be on it, unless the export disabled the check. */
        int32_t self = getpid();
        uint32_t n = atomic_load_explicit(&r->npids, memory_order_acquire);
        bool allowed = false;
        for (uint32_t i = 0; i < n && !allowed; i++)
            allowed = r->pids[i] == self;
        if (!allowed)
            rc = sim_fail_(func, ACL_ERROR_RT_NO_PERMISSION,
                           "%s: process %d is not on the export's whitelist (set it with the import-pid call in "
                           "process %d, or export with pid validation disabled)",
                           what, self, pid);
    }
    if (!rc) {
        int dfd = open_peer_fd(pid, r->data_fd);
        if (dfd < 0 || fstat(dfd, &st) != 0 || (uint64_t)st.st_dev != r->data_dev ||
            (uint64_t)st.st_ino != r->data_ino) {
            if (dfd >= 0)
                close(dfd);
            rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s: the exported memory is gone", what);
        } else {
            out->data_fd = dfd;
        }
    }
    if (rc) {
        munmap(r, REC_SIZE);
        return rc;
    }
    out->rec = r;
    out->off = r->off;
    out->len = r->len;
    out->in_page = r->in_page;
    out->size = r->size;
    out->device = r->device;
    out->owner = r->owner;
    atomic_fetch_add_explicit(&r->importers, 1, memory_order_acq_rel);
    return ACL_SUCCESS;
}

aclError sim_share_import_id(uint64_t id, const char *func, sim_share_import *out)
{
    int pid = (int)(id >> (ID_FD_BITS + ID_NONCE_BITS));
    int fd = (int)((id >> ID_NONCE_BITS) & ((1u << ID_FD_BITS) - 1));
    char what[64];
    snprintf(what, sizeof what, "shareable handle %" PRIu64, id);
    return open_record(pid, fd, id & ((1ull << ID_NONCE_BITS) - 1), (1ull << ID_NONCE_BITS) - 1, what, func, out);
}

bool sim_share_parse_key(const char *key, int *pid, int *fd, uint64_t *nonce)
{
    int used = 0;
    return sscanf(key, "aclsim:%d:%d:%16" SCNx64 "%n", pid, fd, nonce, &used) == 3 && key[used] == '\0';
}

aclError sim_share_import_key(const char *key, const char *func, sim_share_import *out)
{
    int pid = -1, fd = -1;
    uint64_t nonce = 0;
    char what[96];
    snprintf(what, sizeof what, "key \"%.64s\"", key);
    if (!sim_share_parse_key(key, &pid, &fd, &nonce))
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s is not a key from aclrtIpcMemGetExportKey", what);
    return open_record(pid, fd, nonce, UINT64_MAX, what, func, out);
}

void sim_share_import_done(sim_share_import *imp)
{
    if (imp->rec) {
        atomic_fetch_sub_explicit(&((share_rec *)imp->rec)->importers, 1, memory_order_acq_rel);
        munmap(imp->rec, REC_SIZE);
        imp->rec = NULL;
    }
    if (imp->data_fd >= 0)
        close(imp->data_fd);
    imp->data_fd = -1;
}
