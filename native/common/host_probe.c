/*
 * aiocann: host memory probe (host_probe.h).
 *
 * One byte of every page of the range is read through process_vm_readv -- and, to test
 * writability, written back with process_vm_writev -- aimed at this very process: the kernel
 * answers EFAULT for an unmapped or inaccessible page where a plain access would fault.
 * mincore cannot tell the second kind: a PROT_NONE guard page (a thread stack's, an
 * allocator's, the simulator's own device memory) is mapped. The probed bytes all lie inside
 * the range the caller handed over, so writing one back touches nothing else. One system call
 * per 64 pages. Where a seccomp filter forbids these calls, mincore (mapped or not) is the
 * fallback.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "host_probe.h"

/* getpid() is a system call in glibc; the probe runs on every launch with a user-memory args
 * handle, so the pid is cached, and forgotten in a forked child. */
static atomic_int g_pid;
static pthread_once_t g_pid_once = PTHREAD_ONCE_INIT;

static void forget_pid(void) { atomic_store_explicit(&g_pid, 0, memory_order_relaxed); }
static void watch_fork(void) { pthread_atfork(NULL, NULL, forget_pid); }

static pid_t self_pid(void)
{
    pid_t pid = atomic_load_explicit(&g_pid, memory_order_relaxed);
    if (!pid) {
        pthread_once(&g_pid_once, watch_fork);
        pid = getpid();
        atomic_store_explicit(&g_pid, pid, memory_order_relaxed);
    }
    return pid;
}

/* 1 accessible, 0 not, -1 the calls are not permitted here. */
static int probe_pages(uintptr_t a, uintptr_t end, size_t ps, bool write)
{
    static atomic_int unavailable;
    if (atomic_load_explicit(&unavailable, memory_order_relaxed))
        return -1;
    pid_t pid = self_pid();
    unsigned char bytes[64];
    struct iovec remote[64];
    uintptr_t at = a;
    while (at < end) {
        size_t n = 0;
        for (; n < 64 && at < end; n++, at = (at / ps + 1) * ps)
            remote[n] = (struct iovec){(void *)at, 1};
        struct iovec local = {bytes, n};
        ssize_t got = process_vm_readv(pid, &local, 1, remote, n, 0);
        if (got < 0 && (errno == ENOSYS || errno == EPERM)) {
            atomic_store(&unavailable, 1);
            return -1;
        }
        if (got != (ssize_t)n || (write && process_vm_writev(pid, &local, 1, remote, n, 0) != (ssize_t)n))
            return 0;
    }
    return 1;
}

int aiocann_host_accessible(const void *p, size_t len, int write)
{
    uintptr_t a = (uintptr_t)p;
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    if (a < ps || len == 0 || a + len < a)
        return 0;
    int probed = probe_pages(a, a + len, ps, write);
    if (probed >= 0)
        return probed;
    uintptr_t first = a / ps * ps, last = (a + len - 1) / ps * ps;
    unsigned char vec[64];
    /* mincore fails with ENOMEM for any unmapped page in the range; check in chunks. */
    for (uintptr_t pg = first; pg <= last; pg += sizeof vec * ps) {
        size_t n = (last - pg) / ps + 1;
        if (n > sizeof vec)
            n = sizeof vec;
        if (mincore((void *)pg, n * ps, vec) != 0)
            return 0;
    }
    return 1;
}
