/*
 * aiocann simulator: device memory, pinned host memory, the copy engine, memcpy and memset.
 *
 * Device memory. Each active device reserves one range of address space (PROT_NONE,
 * MAP_NORESERVE) at activation; aclrtMalloc carves allocations out of it, page-granular, and
 * places the user's block at the *end* of its pages. Each allocation's pages have an unmapped
 * gap on either side as long as the pages themselves (at least one page, at most GAP_MAX), so
 * an access that runs off either end of the block by up to its own size (or GAP_MAX) faults
 * (contained by fault.c) instead of corrupting a neighbour -- a single guard page would stop
 * only overruns shorter than a page, and let a far one land in the next allocation. The gaps
 * cost address space only: no pages, no system calls. Sizes follow ACL: the start is 64-byte
 * aligned and the size is rounded up to a multiple of 32 plus 32 bytes; that rounded size is
 * what aclrtGetMemInfo accounts, gaps and page rounding aside. Freed pages return to
 * PROT_NONE, so a kernel still using freed memory faults as well (until the range is reused).
 * Because the ranges are known, "is this device memory, of which device, is [p, p+n) inside
 * one allocation" is a range check plus a binary search; copies use it to validate pointers
 * and directions.
 *
 * Pinned host memory (aclrtMallocHost) is page-aligned anonymous memory kept in a registry, so
 * aclrtMemcpyAsync can tell pinned (truly asynchronous) from pageable host memory (the call
 * waits until the copy is done, as ACL does).
 *
 * The copy engine: one thread per device executes copies and memsets in FIFO order, under a
 * fault guard, so a copy from a bad host pointer fails with 507013 instead of crashing, and
 * copies overlap with kernels running on the AI cores.
 *
 * issue 11: the reserved range is a mapping of a memfd as large as the range (sparse: only
 * pages in use take memory), the device's "HBM", so that the pages of an allocation can be
 * shared with another process (aclrtIpcMemGetExportKey, ipc.c); freeing punches the pages out
 * of the file. Where memory lives (sim_where_is) also knows the other memory the runtime
 * hands out: virtual memory mapped by aclrtMapMem and IPC imports (vmm.c), and registered host
 * memory (host_register.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host_probe.h"
#include "sim.h"

static size_t page_size(void)
{
    static size_t ps;
    if (!ps)
        ps = (size_t)sysconf(_SC_PAGESIZE);
    return ps;
}

static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* The unmapped gap on each side of an allocation of map_len mapped bytes (a page multiple):
 * as long as the allocation, so an overrun of up to its own size faults, but capped, so that
 * a huge allocation does not need three times its size in address space. */
#define GAP_MAX ((size_t)64 << 20)
static size_t gap_len(size_t map_len) { return map_len < GAP_MAX ? map_len : GAP_MAX; }

/* ------------------------------------------------------------------ device address space - */

int sim_memory_init(sim_memory *m, size_t capacity)
{
    /* An allocation takes up to three times its pages (gaps on both sides), and a small one
     * three pages: four times the capacity plus 1 GiB leaves room for that and for
     * fragmentation. It is address space only (PROT_NONE, MAP_NORESERVE). */
    size_t reserve = round_up(capacity * 4 + (1ull << 30), page_size());
    /* The device's memory is a file so that its pages can be shared (see the top). A system
     * without memfd gets private memory, which cannot be exported. */
    int fd = memfd_create("aclsim-hbm", MFD_CLOEXEC);
    if (fd >= 0 && ftruncate(fd, (off_t)reserve) != 0) {
        close(fd);
        fd = -1;
    }
    void *base = fd >= 0 ? mmap(NULL, reserve, PROT_NONE, MAP_SHARED | MAP_NORESERVE, fd, 0)
                         : mmap(NULL, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        return err;
    }
    pthread_mutex_lock(&m->lock);
    m->base = (uintptr_t)base;
    m->reserved = reserve;
    m->fd = fd;
    atomic_store(&m->space_lo, m->base);
    atomic_store(&m->space_hi, m->base + reserve);
    m->capacity = capacity;
    m->used = 0;
    m->nallocs = 0;
    bool ok = sim_extents_give(&m->free, m->base, reserve);
    pthread_mutex_unlock(&m->lock);
    return ok ? 0 : ENOMEM;
}

void sim_memory_fini(sim_memory *m)
{
    pthread_mutex_lock(&m->lock);
    if (m->base)
        munmap((void *)m->base, m->reserved);
    if (m->base && m->fd >= 0)
        close(m->fd); /* pages still shared through an IPC key live on in the share's own fd */
    m->fd = -1;
    atomic_store(&m->space_hi, 0);
    atomic_store(&m->space_lo, 0);
    m->base = 0;
    m->reserved = 0;
    m->used = 0;
    free(m->allocs);
    m->allocs = NULL;
    m->nallocs = m->cap_allocs = 0;
    sim_extents_clear(&m->free);
    pthread_mutex_unlock(&m->lock);
}

/* Index of the first allocation whose user start is > p (binary search). */
static size_t upper_bound(const sim_memory *m, uintptr_t p)
{
    size_t lo = 0, hi = m->nallocs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->allocs[mid].user <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The allocation containing address p, or NULL. m->lock held. */
static sim_alloc *find_alloc(sim_memory *m, uintptr_t p)
{
    size_t i = upper_bound(m, p);
    if (i == 0)
        return NULL;
    sim_alloc *a = &m->allocs[i - 1];
    return p < a->user + a->rounded ? a : NULL;
}

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t ncap = *cap ? *cap * 2 : 64;
    while (ncap < need)
        ncap *= 2;
    void *n = realloc(*arr, ncap * elem);
    if (!n)
        return false;
    *arr = n;
    *cap = ncap;
    return true;
}

/* ------------------------------------------------------------------ free address ranges -- */

bool sim_extents_give(sim_extents *x, uintptr_t start, size_t len)
{
    /* Insert sorted, then merge with the neighbours. */
    size_t i = 0;
    while (i < x->n && x->v[i].start < start)
        i++;
    bool merge_prev = i > 0 && x->v[i - 1].start + x->v[i - 1].len == start;
    bool merge_next = i < x->n && start + len == x->v[i].start;
    if (merge_prev && merge_next) {
        x->v[i - 1].len += len + x->v[i].len;
        memmove(&x->v[i], &x->v[i + 1], (x->n - i - 1) * sizeof *x->v);
        x->n--;
    } else if (merge_prev) {
        x->v[i - 1].len += len;
    } else if (merge_next) {
        x->v[i].start = start;
        x->v[i].len += len;
    } else if (grow((void **)&x->v, &x->cap, x->n + 1, sizeof *x->v)) {
        memmove(&x->v[i + 1], &x->v[i], (x->n - i) * sizeof *x->v);
        x->v[i] = (sim_extent){start, len};
        x->n++;
    } else {
        return false;
    }
    return true;
}

/* Removes [start, start+len) from extent i, which holds it. False when the list cannot grow
 * to hold the two pieces left on either side. */
static bool carve(sim_extents *x, size_t i, uintptr_t start, size_t len)
{
    sim_extent e = x->v[i];
    size_t before = start - e.start, after = e.start + e.len - (start + len);
    if (before && after) {
        if (!grow((void **)&x->v, &x->cap, x->n + 1, sizeof *x->v))
            return false;
        memmove(&x->v[i + 1], &x->v[i], (x->n - i) * sizeof *x->v);
        x->n++;
        x->v[i] = (sim_extent){e.start, before};
        x->v[i + 1] = (sim_extent){start + len, after};
    } else if (before) {
        x->v[i].len = before;
    } else if (after) {
        x->v[i] = (sim_extent){start + len, after};
    } else {
        memmove(&x->v[i], &x->v[i + 1], (x->n - i - 1) * sizeof *x->v);
        x->n--;
    }
    return true;
}

uintptr_t sim_extents_take(sim_extents *x, size_t len, size_t align, uintptr_t want)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < x->n; i++) {
        sim_extent e = x->v[i];
        uintptr_t start;
        if (want) {
            if (want < e.start || want - e.start > e.len || len > e.start + e.len - want)
                continue;
            start = want;
        } else {
            start = align > 1 ? (e.start + align - 1) & ~(uintptr_t)(align - 1) : e.start;
            if (start - e.start > e.len || len > e.len - (start - e.start))
                continue;
        }
        return carve(x, i, start, len) ? start : 0;
    }
    return 0;
}

void sim_extents_clear(sim_extents *x)
{
    free(x->v);
    x->v = NULL;
    x->n = x->cap = 0;
}

static aclError dev_alloc(sim_memory *m, size_t size, bool padded, void **out, int dev_id)
{
    size_t ps = page_size();
    size_t rounded = round_up(size, 32) + (padded ? 32 : 0);
    size_t span = round_up(rounded, 64);
    size_t map_len = round_up(span, ps);
    size_t gap = gap_len(map_len);
    size_t need = gap + map_len + gap;

    pthread_mutex_lock(&m->lock);
    if (!m->base) {
        pthread_mutex_unlock(&m->lock);
        return sim_fail(ACL_ERROR_RT_CONTEXT_NULL, "device %d is not active", dev_id);
    }
    size_t held = m->used + m->phys_used;
    size_t avail = held < m->capacity ? m->capacity - held : 0;
    /* The size itself is compared first: near SIZE_MAX, rounding it wraps to a tiny block. */
    if (size > avail) {
        pthread_mutex_unlock(&m->lock);
        return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "device %d is out of memory: %zu bytes requested, %zu of %zu free",
                        dev_id, size, avail, m->capacity);
    }
    if (rounded > avail) {
        pthread_mutex_unlock(&m->lock);
        return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                        "device %d is out of memory: %zu bytes requested (%zu with rounding), %zu of %zu free", dev_id,
                        size, rounded, avail, m->capacity);
    }
    uintptr_t range = 0;
    if (!grow((void **)&m->allocs, &m->cap_allocs, m->nallocs + 1, sizeof *m->allocs) ||
        !(range = sim_extents_take(&m->free, need, 1, 0))) {
        pthread_mutex_unlock(&m->lock);
        return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "device %d address space is exhausted (%zu allocations live)",
                        dev_id, m->nallocs);
    }
    uintptr_t map = range + gap;
    if (mprotect((void *)map, map_len, PROT_READ | PROT_WRITE) != 0) {
        int err = errno;
        sim_extents_give(&m->free, range, need);
        pthread_mutex_unlock(&m->lock);
        return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                        "device %d cannot map %zu bytes: %s (too many live allocations for vm.max_map_count?)", dev_id,
                        map_len, strerror(err));
    }
    sim_alloc a = {.user = map + map_len - span, .size = size, .rounded = rounded, .map = map, .map_len = map_len};
    size_t pos = upper_bound(m, a.user);
    memmove(&m->allocs[pos + 1], &m->allocs[pos], (m->nallocs - pos) * sizeof *m->allocs);
    m->allocs[pos] = a;
    m->nallocs++;
    m->used += rounded;
    pthread_mutex_unlock(&m->lock);
    *out = (void *)a.user;
    return ACL_SUCCESS;
}

aclError sim_dev_alloc(sim_device *d, size_t size, bool padded, void **out)
{
    return dev_alloc(&d->mem, size, padded, out, d->id);
}

bool sim_dev_share_range(const void *p, size_t len, int *fd, uint64_t *off, size_t *maplen, size_t *in_page,
                         int *dev, aclError *rc)
{
    uintptr_t a = (uintptr_t)p;
    size_t ps = page_size();
    for (int i = 0; i < g_rt.cfg.num_devices; i++) {
        sim_memory *m = &sim_device_at(i)->mem;
        pthread_mutex_lock(&m->lock);
        if (m->base && a >= m->base && a < m->base + m->reserved) {
            sim_alloc *al = find_alloc(m, a);
            bool inside = al && len <= al->user + al->rounded - a;
            if (inside && m->fd < 0) {
                pthread_mutex_unlock(&m->lock);
                *rc = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
                return false;
            }
            if (inside) {
                /* The pages [p, p+len) lie on: an allocation's block sits inside its own pages. */
                uintptr_t first = a & ~(uintptr_t)(ps - 1);
                *fd = m->fd;
                *off = first - m->base;
                *maplen = round_up(a + len, ps) - first;
                *in_page = a - first;
                *dev = i;
            }
            pthread_mutex_unlock(&m->lock);
            *rc = inside ? ACL_SUCCESS : ACL_ERROR_RT_PARAM_INVALID;
            return inside;
        }
        pthread_mutex_unlock(&m->lock);
    }
    *rc = ACL_ERROR_RT_PARAM_INVALID;
    return false;
}

bool sim_dev_phys_account(sim_device *d, size_t bytes, bool take)
{
    sim_memory *m = &d->mem;
    pthread_mutex_lock(&m->lock);
    bool ok = true;
    if (take) {
        /* An inactive device has no capacity set yet: it is the configured size either way. */
        size_t capacity = g_rt.cfg.device_memory, held = m->used + m->phys_used;
        ok = held <= capacity && bytes <= capacity - held;
        if (ok)
            m->phys_used += bytes;
    } else {
        m->phys_used -= bytes < m->phys_used ? bytes : m->phys_used;
    }
    pthread_mutex_unlock(&m->lock);
    return ok;
}

/* Frees the allocation starting at p if it is one of m's. Returns 1 freed, 0 not m's, -1 if p
 * is inside an allocation of m but not its start. */
static int dev_free(sim_memory *m, uintptr_t p)
{
    pthread_mutex_lock(&m->lock);
    if (!m->base || p < m->base || p >= m->base + m->reserved) {
        pthread_mutex_unlock(&m->lock);
        return 0;
    }
    size_t i = upper_bound(m, p);
    if (i == 0 || m->allocs[i - 1].user != p) {
        int inside = find_alloc(m, p) != NULL;
        pthread_mutex_unlock(&m->lock);
        return inside ? -1 : 0;
    }
    sim_alloc a = m->allocs[i - 1];
    memmove(&m->allocs[i - 1], &m->allocs[i], (m->nallocs - i) * sizeof *m->allocs);
    m->nallocs--;
    m->used -= a.rounded;
    /* Drop the pages and make them inaccessible again; work still using them faults. */
    if (m->fd >= 0)
        fallocate(m->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(a.map - m->base), (off_t)a.map_len);
    else
        madvise((void *)a.map, a.map_len, MADV_DONTNEED);
    mprotect((void *)a.map, a.map_len, PROT_NONE);
    size_t gap = gap_len(a.map_len);
    sim_extents_give(&m->free, a.map - gap, gap + a.map_len + gap);
    pthread_mutex_unlock(&m->lock);
    return 1;
}

/* Classifies [p, p+len): returns 1 if it lies in one device allocation (*dev set), 0 if it is
 * outside every device's address space (host memory), -1 if it is in a device's space but not
 * inside one allocation (freed, out of bounds, or spanning two). */
static int classify(const void *p, size_t len, int *dev)
{
    uintptr_t a = (uintptr_t)p;
    int n = g_rt.cfg.num_devices;
    for (int i = 0; i < n; i++) {
        sim_memory *m = &sim_device_at(i)->mem;
        pthread_mutex_lock(&m->lock);
        if (m->base && a >= m->base && a < m->base + m->reserved) {
            sim_alloc *al = find_alloc(m, a);
            int r = (al && len <= al->user + al->rounded - a) ? 1 : -1;
            pthread_mutex_unlock(&m->lock);
            *dev = i;
            return r;
        }
        pthread_mutex_unlock(&m->lock);
    }
    /* Virtual memory and IPC imports (vmm.c): host physical memory mapped into a reservation
     * is host memory (the caller finds it registered, sim_pinned_range). */
    int v = sim_vmm_classify(p, len, dev);
    return v == 2 ? 0 : v;
}

sim_where sim_where_is(const void *p, size_t len, int *dev)
{
    int d = -1;
    switch (classify(p, len, &d)) {
    case 1:
        if (dev)
            *dev = d;
        return SIM_WHERE_DEVICE;
    case -1:
        return SIM_WHERE_INVALID;
    default:
        return sim_pinned_range(p, len) ? SIM_WHERE_HOST : SIM_WHERE_NONE;
    }
}

bool sim_device_range(const void *p, size_t len, int *dev_id)
{
    int d = -1;
    bool ok = classify(p, len, &d) == 1;
    if (ok && dev_id)
        *dev_id = d;
    return ok;
}

/* Lock-free: it runs for every host address the runtime is handed, on every launch with a
 * user-memory args handle. */
bool sim_in_device_space(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    int n = g_rt.cfg.num_devices;
    for (int i = 0; i < n; i++) {
        sim_memory *m = &sim_device_at(i)->mem;
        if (a >= atomic_load_explicit(&m->space_lo, memory_order_acquire) &&
            a < atomic_load_explicit(&m->space_hi, memory_order_acquire))
            return true;
    }
    return sim_vmm_in_space(p);
}

/* Host addresses the runtime was handed as integers: accessible, and not device memory. */
static bool host_access(const void *p, size_t len, bool write)
{
    return !sim_in_device_space(p) && aiocann_host_accessible(p, len, write);
}

bool sim_host_mapped(const void *p, size_t len) { return host_access(p, len, false); }

bool sim_host_writable(void *p, size_t len) { return host_access(p, len, true); }

/* ------------------------------------------------------------------ pinned host memory --- */

typedef struct pinned {
    uintptr_t start;
    size_t len;
} pinned;

static pthread_mutex_t g_pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static pinned *g_pinned;
static size_t g_npinned, g_cap_pinned;

static size_t pinned_upper(uintptr_t p)
{
    size_t lo = 0, hi = g_npinned;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g_pinned[mid].start <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool sim_pinned_range(const void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p;
    pthread_mutex_lock(&g_pinned_lock);
    size_t i = pinned_upper(a);
    bool ok = i > 0 && a - g_pinned[i - 1].start < g_pinned[i - 1].len &&
              len <= g_pinned[i - 1].start + g_pinned[i - 1].len - a;
    pthread_mutex_unlock(&g_pinned_lock);
    /* Registered host memory and host physical memory mapped into a reservation are page
     * locked too: the runtime treats them as aclrtMallocHost memory (rtMemLocationType HOST). */
    if (!ok) {
        int dev;
        ok = sim_host_registered(p, len) || sim_vmm_classify(p, len, &dev) == 2;
    }
    return ok;
}

void sim_pinned_free_all(void)
{
    pthread_mutex_lock(&g_pinned_lock);
    for (size_t i = 0; i < g_npinned; i++)
        munmap((void *)g_pinned[i].start, g_pinned[i].len);
    free(g_pinned);
    g_pinned = NULL;
    g_npinned = g_cap_pinned = 0;
    pthread_mutex_unlock(&g_pinned_lock);
}

SIM_API aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(hostPtr);
    if (size == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    SIM_REQUIRE_INIT();
    /* Pinned memory is pinned against the current context's device: none, 107002. */
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_obj_put(&c->obj);
    size_t len = round_up(size, page_size());
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return sim_fail(ACL_ERROR_BAD_ALLOC, "cannot allocate %zu bytes of pinned host memory: %s", size, strerror(errno));
    pthread_mutex_lock(&g_pinned_lock);
    if (!grow((void **)&g_pinned, &g_cap_pinned, g_npinned + 1, sizeof *g_pinned)) {
        pthread_mutex_unlock(&g_pinned_lock);
        munmap(p, len);
        return sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    size_t i = pinned_upper((uintptr_t)p);
    memmove(&g_pinned[i + 1], &g_pinned[i], (g_npinned - i) * sizeof *g_pinned);
    g_pinned[i] = (pinned){(uintptr_t)p, len};
    g_npinned++;
    pthread_mutex_unlock(&g_pinned_lock);
    *hostPtr = p;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtFreeHost(void *hostPtr)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(hostPtr);
    pthread_mutex_lock(&g_pinned_lock);
    size_t i = pinned_upper((uintptr_t)hostPtr);
    if (i == 0 || g_pinned[i - 1].start != (uintptr_t)hostPtr) {
        pthread_mutex_unlock(&g_pinned_lock);
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not the start of memory from aclrtMallocHost", hostPtr);
    }
    pinned pn = g_pinned[i - 1];
    memmove(&g_pinned[i - 1], &g_pinned[i], (g_npinned - i) * sizeof *g_pinned);
    g_npinned--;
    pthread_mutex_unlock(&g_pinned_lock);
    munmap((void *)pn.start, pn.len);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ malloc / free -------- */

SIM_API aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    SIM_CHECK_PROCESS();
    (void)policy; /* every policy gets normal pages; unknown ones are accepted, as in ACL */
    SIM_CHECK_NOT_NULL(devPtr);
    if (size == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    aclError rc = dev_alloc(&c->dev->mem, size, true, devPtr, c->dev->id);
    sim_obj_put(&c->obj);
    return rc;
}

SIM_API aclError aclrtFree(void *devPtr)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(devPtr);
    SIM_REQUIRE_INIT();
    for (int i = 0; i < g_rt.cfg.num_devices; i++) {
        int r = dev_free(&sim_device_at(i)->mem, (uintptr_t)devPtr);
        if (r == 1)
            return ACL_SUCCESS;
        if (r == -1)
            return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is inside a device allocation but not its start", devPtr);
    }
    return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not device memory from aclrtMalloc (already freed?)", devPtr);
}

SIM_API aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(free);
    SIM_CHECK_NOT_NULL(total);
    if ((int)attr < ACL_DDR_MEM || (int)attr > ACL_MEM_P2P_HUGE1G)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "attr %d is not an aclrtMemAttr", (int)attr);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    bool ddr = attr == ACL_DDR_MEM || attr == ACL_DDR_MEM_HUGE || attr == ACL_DDR_MEM_NORMAL ||
               attr == ACL_DDR_MEM_P2P_HUGE || attr == ACL_DDR_MEM_P2P_NORMAL;
    sim_memory *m = &c->dev->mem;
    pthread_mutex_lock(&m->lock);
    size_t held = m->used + m->phys_used;
    *total = ddr ? 0 : m->capacity;
    *free = ddr ? 0 : held < m->capacity ? m->capacity - held : 0;
    pthread_mutex_unlock(&m->lock);
    sim_obj_put(&c->obj);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ copy engine ---------- */

struct sim_copy_req {
    sim_copy_req *next;
    void *dst;
    const void *src;
    size_t count;         /* 1-D: bytes; 2-D: bytes per row (width) */
    size_t rows;          /* 2-D copies: rows, pitches apart (1 for 1-D) */
    size_t dpitch, spitch;
    int32_t value;
    bool is_memset;
    void (*fn)(void *);   /* issue 11: any other engine work (reduce.c), run instead of a copy */
    void *fn_arg;
    bool done;
    sim_fault fault;
};

typedef struct copy_arg {
    sim_copy_engine *e;
    int device;
} copy_arg;

static void do_copy(void *arg)
{
    sim_copy_req *r = arg;
    if (r->fn) {
        r->fn(r->fn_arg);
        return;
    }
    if (r->is_memset) {
        memset(r->dst, r->value & 0xFF, r->count);
        return;
    }
    char *d = r->dst;
    const char *sp = r->src;
    for (size_t i = 0; i < r->rows; i++, d += r->dpitch, sp += r->spitch)
        memmove(d, sp, r->count);
}

static void *copy_main(void *arg)
{
    copy_arg a = *(copy_arg *)arg;
    free(arg);
    sim_copy_engine *e = a.e;
    char name[16];
    snprintf(name, sizeof name, "aclsim%d-copy", a.device);
    pthread_setname_np(pthread_self(), name);
    sim_guard *guard = sim_fault_thread_init();
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!e->head && !e->stop)
            pthread_cond_wait(&e->cv, &e->lock);
        if (!e->head)
            break;
        sim_copy_req *r = e->head;
        e->head = r->next;
        if (!e->head)
            e->tail = NULL;
        pthread_mutex_unlock(&e->lock);
        sim_fault f = guard ? sim_guarded_call(guard, do_copy, r) : (do_copy(r), (sim_fault){.sig = 0});
        pthread_mutex_lock(&e->lock);
        r->fault = f;
        r->done = true;
        pthread_cond_broadcast(&e->done_cv);
    }
    pthread_mutex_unlock(&e->lock);
    sim_fault_thread_fini(guard);
    return NULL;
}

int sim_copy_start(sim_copy_engine *e, int device_id)
{
    e->head = e->tail = NULL;
    e->stop = false;
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cv, NULL);
    pthread_cond_init(&e->done_cv, NULL);
    copy_arg *a = malloc(sizeof *a);
    if (!a)
        return ENOMEM;
    *a = (copy_arg){e, device_id};
    int rc = pthread_create(&e->thread, NULL, copy_main, a);
    if (rc)
        free(a);
    return rc;
}

void sim_copy_stop(sim_copy_engine *e)
{
    pthread_mutex_lock(&e->lock);
    e->stop = true;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->lock);
    pthread_join(e->thread, NULL);
    pthread_cond_destroy(&e->cv);
    pthread_cond_destroy(&e->done_cv);
    pthread_mutex_destroy(&e->lock);
}

/* Queues r on device's copy engine and waits until it has run. */
static void run_on_engine(int device, sim_copy_req *r)
{
    sim_copy_engine *e = &sim_device_at(device)->copy;
    pthread_mutex_lock(&e->lock);
    if (e->tail)
        e->tail->next = r;
    else
        e->head = r;
    e->tail = r;
    pthread_cond_signal(&e->cv);
    while (!r->done)
        pthread_cond_wait(&e->done_cv, &e->lock);
    pthread_mutex_unlock(&e->lock);
}

sim_fault sim_copy_run(int device, void (*fn)(void *), void *arg)
{
    sim_copy_req r = {.fn = fn, .fn_arg = arg};
    run_on_engine(device, &r);
    return r.fault;
}

aclError sim_copy_execute_2d(int device, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                             size_t height, char *msg, size_t msglen)
{
    sim_copy_req r = {.dst = dst, .src = src, .count = width, .rows = height, .dpitch = dpitch, .spitch = spitch};
    run_on_engine(device, &r);
    if (!r.fault.sig)
        return ACL_SUCCESS;
    snprintf(msg, msglen, "2-D copy of %zu rows of %zu bytes from %p (pitch %zu) to %p (pitch %zu): %s at address %p",
             height, width, src, spitch, dst, dpitch, sim_fault_describe(r.fault.sig), r.fault.addr);
    return ACL_ERROR_RT_SYS_DMA;
}

aclError sim_copy_execute(int device, void *dst, const void *src, size_t count, bool is_memset, int32_t value,
                          char *msg, size_t msglen)
{
    sim_copy_req r = {.dst = dst, .src = src, .count = count, .rows = 1, .value = value, .is_memset = is_memset};
    run_on_engine(device, &r);
    if (!r.fault.sig)
        return ACL_SUCCESS;
    char what[160];
    sim_fault_text(r.fault, what, sizeof what);
    if (is_memset)
        snprintf(msg, msglen, "memset of %zu bytes at %p: %s", count, dst, what);
    else
        snprintf(msg, msglen, "copy of %zu bytes from %p to %p: %s", count, src, dst, what);
    return ACL_ERROR_RT_SYS_DMA;
}

/* ------------------------------------------------------------------ the copy tasks ------- */

/* An async copy (aclrtMemcpyAsync, aclrtMemcpy2dAsync: height rows, issue 11) or memset, run
 * on the copy engine of the device the plan chose, in its stream's order. A replay runs the
 * captured one as it is (run does not change it); a discarded one simply does not happen. */
static aclError run_copy(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    (void)s;
    if (t->u.copy.height)
        return sim_copy_execute_2d(t->u.copy.device, t->u.copy.dst, t->u.copy.dpitch, t->u.copy.src, t->u.copy.spitch,
                                   t->u.copy.width, t->u.copy.height, msg, msglen);
    return sim_copy_execute(t->u.copy.device, t->u.copy.dst, t->u.copy.src, t->u.copy.count,
                            t->ops == &sim_task_memset, t->u.copy.value, msg, msglen);
}

static void trace_copy(const sim_task *t, aclsimTraceRecord *r) { r->bytes = t->u.copy.count; }

const sim_task_ops sim_task_memcpy = {.run = run_copy, .trace = trace_copy, .trace_type = ACLSIM_TRACE_MEMCPY};
const sim_task_ops sim_task_memset = {.run = run_copy, .trace = trace_copy, .trace_type = ACLSIM_TRACE_MEMSET};

/* ------------------------------------------------------------------ memcpy / memset ------ */

static const char *kind_name(aclrtMemcpyKind k)
{
    static const char *names[] = {"ACL_MEMCPY_HOST_TO_HOST",          "ACL_MEMCPY_HOST_TO_DEVICE",
                                  "ACL_MEMCPY_DEVICE_TO_HOST",        "ACL_MEMCPY_DEVICE_TO_DEVICE",
                                  "ACL_MEMCPY_DEFAULT",               "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE",
                                  "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE", "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE"};
    return (unsigned)k < 8 ? names[k] : "?";
}

/* A validated copy: which engine runs it and whether its host side is pageable. */
typedef struct copy_plan {
    int device;
    bool pageable; /* some host side is not pinned: async copies complete before returning */
    aclrtMemcpyKind kind; /* the kind after the correction */
} copy_plan;

static aclError describe_side(const char *func, const char *what, const void *p, size_t count, int cls)
{
    if (cls == -1)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                         "%s range [%p, +%zu) is in device memory but not inside one live allocation", what, p, count);
    return ACL_SUCCESS;
}

/* Where a copy's side lives, in the real runtime's terms (rtMemLocationType): device memory,
 * registered host memory (aclrtMallocHost) or plain, unregistered host memory. */
typedef enum { LOC_DEVICE, LOC_HOST, LOC_UNREGISTERED } mem_loc;

/* ApiErrorDecorator::MemcpyKindAutoCorrect (api_error.cc): the kind is corrected from where the
 * two sides live. Device and registered host memory force the direction; a side in
 * unregistered memory allows the kinds listed for the pair, turns DEFAULT into the pair's
 * default, and refuses the others with 107000. Kind 5 (HOST_TO_BUF_TO_DEVICE) is not
 * corrected. Returns 0 with *kind corrected, or 107000. */
static aclError correct_kind(const char *func, mem_loc src, mem_loc dst, aclrtMemcpyKind *kind)
{
    enum { H2H = 1 << ACL_MEMCPY_HOST_TO_HOST, H2D = 1 << ACL_MEMCPY_HOST_TO_DEVICE,
           D2H = 1 << ACL_MEMCPY_DEVICE_TO_HOST, D2D = 1 << ACL_MEMCPY_DEVICE_TO_DEVICE };
    static const struct { aclrtMemcpyKind forced; unsigned allowed; aclrtMemcpyKind dflt; } rules[3][3] = {
        /* src device */
        [LOC_DEVICE][LOC_DEVICE] = {ACL_MEMCPY_DEVICE_TO_DEVICE, 0, 0},
        [LOC_DEVICE][LOC_HOST] = {ACL_MEMCPY_DEVICE_TO_HOST, 0, 0},
        [LOC_DEVICE][LOC_UNREGISTERED] = {ACL_MEMCPY_DEFAULT, D2H | D2D, ACL_MEMCPY_DEVICE_TO_HOST},
        /* src registered host */
        [LOC_HOST][LOC_DEVICE] = {ACL_MEMCPY_HOST_TO_DEVICE, 0, 0},
        [LOC_HOST][LOC_HOST] = {ACL_MEMCPY_HOST_TO_HOST, 0, 0},
        [LOC_HOST][LOC_UNREGISTERED] = {ACL_MEMCPY_DEFAULT, H2H | H2D, ACL_MEMCPY_HOST_TO_HOST},
        /* src unregistered host */
        [LOC_UNREGISTERED][LOC_DEVICE] = {ACL_MEMCPY_DEFAULT, H2D | D2D, ACL_MEMCPY_HOST_TO_DEVICE},
        [LOC_UNREGISTERED][LOC_HOST] = {ACL_MEMCPY_DEFAULT, H2H | D2H, ACL_MEMCPY_HOST_TO_HOST},
        [LOC_UNREGISTERED][LOC_UNREGISTERED] = {ACL_MEMCPY_DEFAULT, H2H | H2D | D2H | D2D, ACL_MEMCPY_HOST_TO_HOST},
    };
    if (*kind > ACL_MEMCPY_DEFAULT)
        return ACL_SUCCESS;
    const __typeof__(rules[0][0]) *r = &rules[src][dst];
    if (r->forced != ACL_MEMCPY_DEFAULT)
        *kind = r->forced;
    else if (*kind == ACL_MEMCPY_DEFAULT)
        *kind = r->dflt;
    else if (!(r->allowed & (1u << *kind)))
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s does not fit a copy from %s to %s memory", kind_name(*kind),
                         src == LOC_DEVICE ? "device" : "host", dst == LOC_DEVICE ? "device" : "host");
    return ACL_SUCCESS;
}

static mem_loc location(int cls, const void *p, size_t count)
{
    return cls == 1 ? LOC_DEVICE : sim_pinned_range(p, count) ? LOC_HOST : LOC_UNREGISTERED;
}

/* The ACL layer's kinds (MemcpyKindTranslate, src/acl/aclrt_impl/memory.cpp): 0-5; the inner
 * and inter device-to-device kinds and anything else are 100000. */
static aclError acl_kind_check(const char *func, aclrtMemcpyKind kind)
{
    if ((unsigned)kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "kind %d is not a memcpy kind ACL accepts (0-5)", (int)kind);
    return ACL_SUCCESS;
}

static aclError plan_copy(const char *func, void *dst, size_t destMax, const void *src, size_t count,
                          aclrtMemcpyKind kind, int current_dev, copy_plan *plan)
{
    if (count > destMax)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "count %zu exceeds destMax %zu", count, destMax);
    int ddev = -1, sdev = -1;
    int dcls = classify(dst, count, &ddev), scls = classify(src, count, &sdev);
    aclError rc;
    if ((rc = describe_side(func, "dst", dst, count, dcls)) || (rc = describe_side(func, "src", src, count, scls)))
        return rc;
    mem_loc sloc = location(scls, src, count), dloc = location(dcls, dst, count);
    if ((rc = correct_kind(func, sloc, dloc, &kind)))
        return rc;
    /* HOST_TO_BUF_TO_DEVICE is not corrected: it must really go from host to device. */
    if (kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE && (sloc == LOC_DEVICE || dloc != LOC_DEVICE))
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "%s needs a host source and a device destination",
                         kind_name(kind));
    bool dst_dev = dloc == LOC_DEVICE, src_dev = sloc == LOC_DEVICE;
    plan->device = dst_dev ? ddev : src_dev ? sdev : current_dev;
    plan->pageable = dloc == LOC_UNREGISTERED || sloc == LOC_UNREGISTERED;
    plan->kind = kind;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    SIM_CHECK_PROCESS();
    if (count == 0) /* aclrtMemcpyImpl: before any other check */
        return ACL_SUCCESS;
    SIM_CHECK_NOT_NULL(dst);
    SIM_CHECK_NOT_NULL(src);
    aclError rc = acl_kind_check(__func__, kind);
    if (rc)
        return rc;
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int cur = c->dev->id;
    sim_obj_put(&c->obj);
    copy_plan plan;
    if ((rc = plan_copy(__func__, dst, destMax, src, count, kind, cur, &plan)))
        return rc;
    if ((rc = sim_capture_check_sync_call(__func__))) /* ApiImpl::MemCopySync: capture modes */
        return rc;
    char msg[512];
    rc = sim_copy_execute(plan.device, dst, src, count, false, 0, msg, sizeof msg);
    if (rc)
        sim_error_message(__func__, msg);
    return rc;
}

/* Enqueues a copy or memset task and, when the host side is pageable, waits for it. */
static aclError submit_copy(const char *func, sim_stream *s, void *dst, const void *src, size_t count, bool is_memset,
                            int32_t value, const copy_plan *plan)
{
    aclError rc;
    /* A capture cannot hold a pageable copy, and the capture modes may forbid the synchronous
     * copy it turns into (ApiErrorDecorator::MemcpyAsync; capture.c). */
    if (plan->pageable && (rc = sim_capture_pageable_copy(s, func)))
        return rc;
    sim_task *t = sim_task_new(is_memset ? &sim_task_memset : &sim_task_memcpy);
    if (!t)
        return sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
    t->u.copy.dst = dst;
    t->u.copy.src = src;
    t->u.copy.count = count;
    t->u.copy.value = value;
    t->u.copy.device = plan->device;
    uint64_t seq;
    rc = sim_stream_submit(s, t, func, &seq);
    if (rc)
        return rc;
    /* Pageable host memory: the real runtime turns the copy into a stream synchronize plus a
     * synchronous copy (MemcpyAsyncCheckLocation), so the call returns what that synchronize
     * reports. */
    if (plan->pageable) {
        sim_stream_wait_seq(s, seq, -1);
        return sim_stream_take_error(s, func);
    }
    return ACL_SUCCESS;
}

aclError sim_memcpy_async(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream, const char *func)
{
    if (count == 0) /* aclrtMemcpyAsyncImpl: before any other check */
        return ACL_SUCCESS;
    if (!dst)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "dst must not be NULL");
    if (!src)
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "src must not be NULL");
    aclError rc = acl_kind_check(func, kind);
    if (rc)
        return rc;
    sim_stream *s = sim_stream_for_work(stream, func, &rc);
    if (!s)
        return rc;
    copy_plan plan;
    if (!(rc = plan_copy(func, dst, destMax, src, count, kind, s->dev->id, &plan))) {
        /* ApiErrorDecorator::MemcpyAsync: a copy whose corrected kind is host-to-host is not
         * supported in online mode (a program on the host: ours), 207000 -- checked after the
         * kind correction, before anything is queued. */
        if (plan.kind == ACL_MEMCPY_HOST_TO_HOST)
            rc = sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                           "an asynchronous host-to-host copy is not supported (both sides are host memory)");
        else
            rc = submit_copy(func, s, dst, src, count, false, 0, &plan);
    }
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                                  aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    return sim_memcpy_async(dst, destMax, src, count, kind, stream, __func__);
}

static aclError plan_memset(const char *func, void *devPtr, size_t maxCount, size_t count, int current_dev,
                            copy_plan *plan)
{
    if (count > maxCount)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "count %zu exceeds maxCount %zu", count, maxCount);
    int dev = -1;
    int cls = classify(devPtr, count, &dev);
    if (cls == 1) {
        plan->device = dev;
        plan->pageable = false;
        return ACL_SUCCESS;
    }
    if (cls == 0 && sim_pinned_range(devPtr, count)) {
        plan->device = current_dev;
        plan->pageable = false;
        return ACL_SUCCESS;
    }
    return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                     "[%p, +%zu) is neither inside a device allocation nor inside memory from aclrtMallocHost", devPtr,
                     count);
}

SIM_API aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(devPtr);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int cur = c->dev->id;
    sim_obj_put(&c->obj);
    copy_plan plan;
    aclError rc = plan_memset(__func__, devPtr, maxCount, count, cur, &plan);
    if (rc || count == 0)
        return rc;
    if ((rc = sim_capture_check_sync_call(__func__))) /* ApiImpl::MemSetSync: capture modes */
        return rc;
    char msg[512];
    rc = sim_copy_execute(plan.device, devPtr, NULL, count, true, value, msg, sizeof msg);
    if (rc)
        sim_error_message(__func__, msg);
    return rc;
}

SIM_API aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(devPtr);
    aclError rc;
    sim_stream *s = sim_stream_for_work(stream, __func__, &rc);
    if (!s)
        return rc;
    copy_plan plan;
    if (!(rc = plan_memset(__func__, devPtr, maxCount, count, s->dev->id, &plan)) && count > 0)
        rc = submit_copy(__func__, s, devPtr, NULL, count, true, value, &plan);
    sim_obj_put(&s->obj);
    return rc;
}
