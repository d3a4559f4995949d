/*
 * aiocann simulator: virtual memory management -- address reservations, physical memory
 * handles, mapping one onto the other, allocation granularity, and shareable handles of
 * physical memory (aclrtReserveMemAddress ... aclrtMemImportFromShareableHandle).
 *
 * Sources: src/acl/aclrt_impl/memory.cpp (the ACL-layer checks: memAttrHandlers, the NULL,
 * zero and reserved-parameter checks), src/runtime/api/impl/api_error.cc (MallocPhysical's
 * device-id conversion, ExportToShareableHandle's flags), api_impl.cc (ExportToShareableHandle,
 * ImportFromShareableHandle), src/runtime/driver/npu_driver_mem.cc (the driver calls and how
 * their errors map), docs/zh/api_ref/11-04_virtual_memory_management.md (what the driver
 * requires: map size equal to the physical size and aligned to the granularity, offset 0,
 * one device and one origin per reservation, unmap before release, no import in the
 * exporting process) and 25-02_Enumerations.md (2 MiB / 1 GiB granularities).
 *
 * Built on what the CPU offers, so that the memory behaves as device memory does:
 *  - Every reservation is carved out of one arena of address space (PROT_NONE, no pages),
 *    placed where the real driver places them, [16 TiB, 24 TiB), when that range is free,
 *    elsewhere otherwise. The arena makes "is this device address space" a lock-free range
 *    check, like a device's own range (memory.c).
 *  - A physical memory handle is a memfd of the handle's size (rounded up to the granularity;
 *    sparse, so only pages touched take memory). Device physical memory counts against the
 *    device's memory, as aclrtMalloc's does.
 *  - aclrtMapMem maps the memfd over the reserved range (MAP_FIXED, shared); aclrtUnmapMem puts
 *    the inaccessible range back. A kernel or copy that touches an unmapped part of a
 *    reservation faults, and the fault is contained as every device fault is (fault.c).
 *  - A shareable handle (share.c) lets another process open the same memfd; its import is a
 *    handle on the same pages, which it maps into its own reservations.
 * IPC imports (ipc.c) are mappings in the same arena, with a reservation of their own.
 *
 * Locking: g_lock guards the arena's free ranges, the reservations and their mappings, the
 * list of open handles and their exports. Under it only leaf locks are taken: the handle
 * table's, and a device's memory lock when a put destroys a handle (memory.c never calls in
 * here holding that lock).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)
#define TIB ((uintptr_t)1 << 40)
#define ARENA_FIXED (16 * TIB) /* the real driver's range for reservations: [16 TiB, 24 TiB) */
#define ARENA_LEN ((size_t)(8 * TIB))
#define DEVICE_PAGE (2 * MIB)  /* reservations are made of device pages */

/* A physical memory handle (aclrtDrvMemHandle). */
typedef struct phys {
    sim_obj obj;
    int fd;
    size_t size;                  /* asked for */
    size_t len;                   /* of the file: size rounded up to the granularity */
    size_t granularity;
    aclrtMemLocationType loc;     /* DEVICE, HOST or HOST_NUMA */
    int device;                   /* DEVICE: the device (user id); else -1 */
    size_t accounted;             /* bytes taken from the device's memory */
    sim_share *share;             /* exported (guarded by g_lock) */
    bool imported;                /* from aclrtMemImportFromShareableHandle */
    sim_share_import imp;         /* imported: the export it came from */
    struct phys *next;            /* g_handles */
} phys;

typedef struct vmap {
    uintptr_t va;
    size_t len;
    phys *phys;                   /* holds a reference; NULL for an IPC import */
    int device;                   /* -1: host memory */
} vmap;

typedef struct resv {
    uintptr_t start;
    size_t len;                   /* reserved (device pages) */
    bool ipc;                     /* an IPC import's own reservation (ipc.c), not the user's */
    int bound_device;             /* the device its mappings are on, -2 while unmapped */
    int bound_imported;           /* whether they are imported handles, -1 while unmapped */
    vmap *maps;
    size_t nmaps, cap;
} resv;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uintptr_t g_lo, g_hi; /* the arena, [g_lo, g_hi); 0 until made */
static sim_extents g_free;
static resv *g_resv;                 /* sorted by start */
static size_t g_nresv, g_cap_resv;
static phys *g_handles;              /* every live handle, for aclFinalize */

static size_t host_page(void) { return (size_t)sysconf(_SC_PAGESIZE); }
static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*arr, n * elem);
    if (!p)
        return false;
    *arr = p;
    *cap = n;
    return true;
}

/* ------------------------------------------------------------------ the arena ------------ */

/* Makes the arena on first use (g_lock held): at the driver's range if it is free, else where
 * the kernel finds room for the largest size that fits. */
static bool arena_ready(void)
{
    if (atomic_load(&g_hi))
        return true;
    void *p = mmap((void *)ARENA_FIXED, ARENA_LEN, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    size_t len = ARENA_LEN;
    if (p != MAP_FAILED && p != (void *)ARENA_FIXED) { /* a kernel without NOREPLACE took it as a hint */
        munmap(p, len);
        p = MAP_FAILED;
    }
    for (size_t try = ARENA_LEN; p == MAP_FAILED && try >= 16 * GIB; try /= 8) {
        len = try;
        p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    }
    if (p == MAP_FAILED)
        return false;
    /* Reservations start on a 1 GiB boundary, so that 1 GiB pages can be mapped. */
    uintptr_t lo = ((uintptr_t)p + GIB - 1) & ~(uintptr_t)(GIB - 1), hi = (uintptr_t)p + len;
    if (!sim_extents_give(&g_free, lo, hi - lo)) {
        munmap(p, len);
        return false;
    }
    atomic_store(&g_lo, lo);
    atomic_store(&g_hi, hi);
    return true;
}

bool sim_vmm_in_space(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    return a >= atomic_load_explicit(&g_lo, memory_order_acquire) &&
           a < atomic_load_explicit(&g_hi, memory_order_acquire);
}

/* Puts [va, va+len) back to reserved, inaccessible address space. */
static void make_hole(uintptr_t va, size_t len)
{
    mmap((void *)va, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

/* The reservation containing address a, or NULL (g_lock held). */
static resv *find_resv(uintptr_t a, size_t *index)
{
    size_t lo = 0, hi = g_nresv;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g_resv[mid].start <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || a - g_resv[lo - 1].start >= g_resv[lo - 1].len)
        return NULL;
    if (index)
        *index = lo - 1;
    return &g_resv[lo - 1];
}

static vmap *find_map(resv *r, uintptr_t a)
{
    for (size_t i = 0; i < r->nmaps; i++)
        if (a - r->maps[i].va < r->maps[i].len)
            return &r->maps[i];
    return NULL;
}

/* Records a reservation of [start, start+len) (g_lock held). */
static resv *add_resv(uintptr_t start, size_t len, bool ipc)
{
    if (!grow((void **)&g_resv, &g_cap_resv, g_nresv + 1, sizeof *g_resv))
        return NULL;
    size_t i = 0;
    while (i < g_nresv && g_resv[i].start < start)
        i++;
    memmove(&g_resv[i + 1], &g_resv[i], (g_nresv - i) * sizeof *g_resv);
    g_resv[i] = (resv){.start = start, .len = len, .ipc = ipc, .bound_device = -2, .bound_imported = -1};
    g_nresv++;
    return &g_resv[i];
}

static void drop_resv(size_t i)
{
    free(g_resv[i].maps);
    sim_extents_give(&g_free, g_resv[i].start, g_resv[i].len);
    memmove(&g_resv[i], &g_resv[i + 1], (g_nresv - i - 1) * sizeof *g_resv);
    g_nresv--;
}

int sim_vmm_classify(const void *p, size_t len, int *dev)
{
    if (!sim_vmm_in_space(p))
        return 0;
    uintptr_t a = (uintptr_t)p, end = a + len;
    if (end < a)
        return -1;
    int out = -1, device = -2;
    pthread_mutex_lock(&g_lock);
    resv *r = find_resv(a, NULL);
    /* The range may run across several mappings, as long as they are contiguous -- that is
     * what a reservation is for -- and hold memory of one place. */
    while (r && a < end) {
        vmap *m = find_map(r, a);
        if (!m || (device != -2 && m->device != device))
            break;
        device = m->device;
        a = m->va + m->len;
    }
    if (r && a >= end) {
        out = device >= 0 ? 1 : 2;
        if (device >= 0)
            *dev = device;
    }
    pthread_mutex_unlock(&g_lock);
    return out;
}

/* ------------------------------------------------------------------ reservations --------- */

SIM_API aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr, uint64_t flags)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(virPtr);
    if (size == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    if (flags != 0 && flags != 1) /* 1 is kept for compatibility with earlier releases */
        return sim_fail(ACL_ERROR_INVALID_PARAM, "flags must be 0, not %llu", (unsigned long long)flags);
    SIM_REQUIRE_INIT();
    if (alignment != 0)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "alignment is reserved and must be 0, not %zu", alignment);
    if (size > ARENA_LEN)
        return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot reserve %zu bytes of address space", size);
    /* Device pages; a reservation of 1 GiB or more is 1 GiB aligned, so 1 GiB pages fit. */
    size_t len = round_up(size, DEVICE_PAGE), align = size >= GIB ? GIB : DEVICE_PAGE;
    uintptr_t want = (uintptr_t)expectPtr;
    pthread_mutex_lock(&g_lock);
    aclError rc = ACL_SUCCESS;
    uintptr_t start = 0;
    if (!arena_ready()) {
        rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot reserve the virtual memory arena: %s", strerror(errno));
    } else if (want && (want < atomic_load(&g_lo) || want >= atomic_load(&g_hi) || want % align)) {
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                      "expectPtr %p must lie in [%p, %p) and be aligned to %zu bytes (%s than 1 GiB)", expectPtr,
                      (void *)atomic_load(&g_lo), (void *)atomic_load(&g_hi), align, size >= GIB ? "not less" : "less");
    } else if (!(start = sim_extents_take(&g_free, len, align, want))) {
        rc = want ? sim_fail(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) is not free address space", expectPtr, len)
                  : sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no %zu bytes of address space left", len);
    } else if (!add_resv(start, len, false)) {
        sim_extents_give(&g_free, start, len);
        rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    }
    pthread_mutex_unlock(&g_lock);
    if (!rc)
        *virPtr = (void *)start;
    return rc;
}

SIM_API aclError aclrtReleaseMemAddress(void *virPtr)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(virPtr);
    SIM_REQUIRE_INIT();
    pthread_mutex_lock(&g_lock);
    size_t i;
    resv *r = sim_vmm_in_space(virPtr) ? find_resv((uintptr_t)virPtr, &i) : NULL;
    aclError rc = ACL_SUCCESS;
    if (!r || r->start != (uintptr_t)virPtr || r->ipc)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not the start of a reservation from aclrtReserveMemAddress",
                      virPtr);
    else if (r->nmaps)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "the reservation at %p still has %zu mapping(s): aclrtUnmapMem first",
                      virPtr, r->nmaps);
    else
        drop_resv(i);
    pthread_mutex_unlock(&g_lock);
    return rc;
}

/* ------------------------------------------------------------------ physical memory ------ */

static bool attr_is(aclrtMemAttr a, int n, const aclrtMemAttr *set)
{
    for (int i = 0; i < n; i++)
        if (a == set[i])
            return true;
    return false;
}

/* The checks of the ACL layer (memAttrHandlers and the device-location DDR check, memory.cpp)
 * and of the runtime (ApiErrorDecorator: the device id), shared by aclrtMallocPhysical and
 * aclrtMemGetAllocationGranularity; then the granularity. */
static aclError check_prop(const aclrtPhysicalMemProp *prop, const char *func, size_t *granularity, int *device)
{
    static const aclrtMemAttr ddr[] = {ACL_DDR_MEM_HUGE, ACL_DDR_MEM_NORMAL, ACL_DDR_MEM_P2P_HUGE,
                                       ACL_DDR_MEM_P2P_NORMAL};
    static const aclrtMemAttr handled[] = {
        ACL_HBM_MEM_HUGE,   ACL_HBM_MEM_NORMAL,  ACL_HBM_MEM_HUGE1G,     ACL_DDR_MEM_HUGE,   ACL_DDR_MEM_NORMAL,
        ACL_DDR_MEM_P2P_HUGE, ACL_DDR_MEM_P2P_NORMAL, ACL_MEM_NORMAL,    ACL_MEM_HUGE,       ACL_MEM_HUGE1G,
        ACL_MEM_P2P_NORMAL, ACL_MEM_P2P_HUGE,    ACL_MEM_P2P_HUGE1G};
    static const aclrtMemAttr huge[] = {ACL_HBM_MEM_HUGE, ACL_DDR_MEM_HUGE, ACL_DDR_MEM_P2P_HUGE, ACL_MEM_HUGE,
                                        ACL_MEM_P2P_HUGE};
    static const aclrtMemAttr huge1g[] = {ACL_HBM_MEM_HUGE1G, ACL_MEM_HUGE1G, ACL_MEM_P2P_HUGE1G};
    bool on_device = prop->location.type == ACL_MEM_LOCATION_TYPE_DEVICE;
    if (on_device && attr_is(prop->memAttr, 4, ddr))
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM,
                         "memAttr %d is host memory only (MEM_LOCATION_TYPE_HOST(0) or MEM_LOCATION_TYPE_HOST_NUMA(4))",
                         (int)prop->memAttr);
    if (!attr_is(prop->memAttr, sizeof handled / sizeof handled[0], handled))
        return sim_fail_(func, ACL_ERROR_INVALID_PARAM, "memAttr %d is not supported for physical memory",
                         (int)prop->memAttr);
    bool is_1g = attr_is(prop->memAttr, 3, huge1g);
    *device = -1;
    if (on_device) {
        if (!sim_device_of((int32_t)prop->location.id))
            return sim_fail_(func, ACL_ERROR_RT_INVALID_DEVICEID, "device %u does not exist", prop->location.id);
        *device = (int)prop->location.id;
        /* Device memory comes in device pages: normal memory is served as huge pages
         * (aclrtMallocPhysical, ACL_HBM_MEM_NORMAL), 1 GiB pages where asked for. */
        *granularity = is_1g ? GIB : DEVICE_PAGE;
    } else if (prop->location.type == ACL_MEM_LOCATION_TYPE_HOST ||
               prop->location.type == ACL_MEM_LOCATION_TYPE_HOST_NUMA) {
        if (is_1g) /* "1G ... 仅支持Device" (docs): the driver has no 1 GiB host pages */
            return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "memAttr %d (1 GiB pages) is for device memory only",
                             (int)prop->memAttr);
        *granularity = attr_is(prop->memAttr, 5, huge) ? DEVICE_PAGE : host_page();
    } else {
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "location type %d is not one physical memory can have",
                         (int)prop->location.type);
    }
    return ACL_SUCCESS;
}

static void phys_destroy(sim_obj *o)
{
    phys *p = (phys *)o;
    if (p->share)
        sim_share_close(p->share);
    if (p->imported)
        sim_share_import_done(&p->imp); /* closes the fd, which is the import's */
    else if (p->fd >= 0)
        close(p->fd);
    if (p->accounted)
        sim_dev_phys_account(sim_device_at(p->device), p->accounted, false);
    free(p);
}

/* Opens a handle for p and lists it (g_lock not held). NULL when the table is full. */
static void *open_handle(phys *p)
{
    void *h = sim_handle_open(&p->obj);
    if (h) {
        pthread_mutex_lock(&g_lock);
        p->next = g_handles;
        g_handles = p;
        pthread_mutex_unlock(&g_lock);
    }
    return h;
}

SIM_API aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                                     uint64_t flags)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(handle);
    SIM_CHECK_NOT_NULL(prop);
    if (size == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    if (flags != 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "flags is reserved and must be 0");
    if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "prop->handleType must be ACL_MEM_HANDLE_TYPE_NONE, not %d",
                        (int)prop->handleType);
    if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "prop->allocationType must be ACL_MEM_ALLOCATION_TYPE_PINNED, not %d",
                        (int)prop->allocationType);
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED || prop->location.type == ACL_MEM_LOCATION_TYPE_MANAGED)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "location type %d is not supported for physical memory",
                        (int)prop->location.type);
    SIM_REQUIRE_INIT();
    size_t gran;
    int device;
    aclError rc = check_prop(prop, __func__, &gran, &device);
    if (rc)
        return rc;
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_HOST_NUMA) { /* ApiErrorDecorator: needs a context */
        sim_context *c = sim_current_context(__func__);
        if (!c)
            return ACL_ERROR_RT_CONTEXT_NULL;
        sim_obj_put(&c->obj);
    }
    if (size > SIZE_MAX - gran)
        return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "size %zu is too large", size);
    size_t len = round_up(size, gran);
    phys *p = calloc(1, sizeof *p);
    if (!p)
        return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    sim_obj_init(&p->obj, SIM_KIND_PHYS, phys_destroy);
    p->fd = -1;
    p->size = size;
    p->len = len;
    p->granularity = gran;
    p->loc = prop->location.type;
    p->device = device;
    if (device >= 0) {
        if (!sim_dev_phys_account(sim_device_at(device), len, true)) {
            free(p);
            return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "device %d is out of memory: %zu bytes of physical memory",
                            device, len);
        }
        p->accounted = len;
    }
    p->fd = memfd_create("aclsim-physical", MFD_CLOEXEC);
    if (p->fd < 0 || ftruncate(p->fd, (off_t)len) != 0) {
        rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %zu bytes of physical memory: %s", len,
                      strerror(errno));
        phys_destroy(&p->obj);
        return rc;
    }
    void *h = open_handle(p);
    if (!h) {
        phys_destroy(&p->obj);
        return sim_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "handle table is full");
    }
    *handle = h;
    return ACL_SUCCESS;
}

/* Unlists p (g_lock held). */
static void unlist(phys *p)
{
    for (phys **pp = &g_handles; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            return;
        }
}

/* Closes a handle: the memory goes when its last mapping does (the mappings hold it). */
static aclError close_handle(aclrtDrvMemHandle handle, const char *func)
{
    sim_obj *o = sim_handle_close(handle, SIM_KIND_PHYS);
    if (!o)
        return sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "%p is not a live physical memory handle", handle);
    phys *p = (phys *)o;
    pthread_mutex_lock(&g_lock);
    unlist(p);
    /* Freeing the memory destroys its shareable handle: no import after this; processes that
     * imported it keep their memory (aclrtMemExportToShareableHandle, step 3). */
    sim_share *sh = p->share;
    p->share = NULL;
    pthread_mutex_unlock(&g_lock);
    sim_share_close(sh);
    sim_obj_put(o);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(handle);
    SIM_REQUIRE_INIT();
    return close_handle(handle, __func__);
}

SIM_API aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option,
                                                  size_t *granularity)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(prop);
    SIM_CHECK_NOT_NULL(granularity);
    SIM_REQUIRE_INIT();
    size_t gran;
    int device;
    aclError rc = check_prop(prop, __func__, &gran, &device);
    if (rc)
        return rc;
    if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM && option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "option %d is neither MINIMUM (0) nor RECOMMENDED (1)", (int)option);
    *granularity = gran; /* the recommended granularity is the minimum: one page */
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ mapping -------------- */

SIM_API aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(virPtr);
    SIM_CHECK_NOT_NULL(handle);
    if (size == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    if (flags != 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "flags is reserved and must be 0");
    SIM_REQUIRE_INIT();
    phys *p = (phys *)sim_handle_get(handle, SIM_KIND_PHYS);
    if (!p)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "%p is not a live physical memory handle", handle);
    uintptr_t va = (uintptr_t)virPtr;
    aclError rc = ACL_SUCCESS;
    int device = p->loc == ACL_MEM_LOCATION_TYPE_DEVICE ? p->device : -1;
    pthread_mutex_lock(&g_lock);
    resv *r = sim_vmm_in_space(virPtr) ? find_resv(va, NULL) : NULL;
    if (offset != 0)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "offset must be 0, not %zu", offset);
    else if (size != p->size || size % p->granularity)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                      "size %zu must be the physical memory's size (%zu), a multiple of its granularity (%zu)", size,
                      p->size, p->granularity);
    else if (va % p->granularity)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "virPtr %p is not aligned to the granularity %zu", virPtr,
                      p->granularity);
    else if (!r || r->ipc || size > r->start + r->len - va)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) is not inside one reservation from aclrtReserveMemAddress",
                      virPtr, size);
    else if (r->bound_device != -2 && (r->bound_device != device || r->bound_imported != (int)p->imported))
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                      "a reservation cannot map memory of two devices, nor both allocated and imported memory");
    else {
        for (size_t i = 0; i < r->nmaps && !rc; i++)
            if (va < r->maps[i].va + r->maps[i].len && r->maps[i].va < va + size)
                rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) overlaps a mapping at %p", virPtr, size,
                              (void *)r->maps[i].va);
    }
    if (!rc && !grow((void **)&r->maps, &r->cap, r->nmaps + 1, sizeof *r->maps))
        rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    if (!rc && mmap(virPtr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p->imported ? p->imp.data_fd : p->fd,
                    p->imported ? (off_t)p->imp.off : 0) == MAP_FAILED)
        rc = sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot map %zu bytes at %p: %s", size, virPtr, strerror(errno));
    if (!rc) {
        r->maps[r->nmaps++] = (vmap){.va = va, .len = size, .phys = p, .device = device}; /* keeps the ref */
        r->bound_device = device;
        r->bound_imported = p->imported;
    }
    pthread_mutex_unlock(&g_lock);
    if (rc)
        sim_obj_put(&p->obj);
    return rc;
}

/* Removes mapping m of reservation r (g_lock held); returns what it held. */
static phys *remove_map(resv *r, vmap *m)
{
    phys *p = m->phys;
    make_hole(m->va, m->len);
    *m = r->maps[--r->nmaps];
    if (!r->nmaps) {
        r->bound_device = -2;
        r->bound_imported = -1;
    }
    return p;
}

SIM_API aclError aclrtUnmapMem(void *virPtr)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(virPtr);
    SIM_REQUIRE_INIT();
    uintptr_t va = (uintptr_t)virPtr;
    pthread_mutex_lock(&g_lock);
    resv *r = sim_vmm_in_space(virPtr) ? find_resv(va, NULL) : NULL;
    vmap *m = r && !r->ipc ? find_map(r, va) : NULL;
    phys *p = NULL;
    aclError rc = ACL_SUCCESS;
    if (!m || m->va != va)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not the start of a mapping made by aclrtMapMem", virPtr);
    else
        p = remove_map(r, m);
    pthread_mutex_unlock(&g_lock);
    if (p)
        sim_obj_put(&p->obj); /* the memory goes with its last mapping once the handle is freed */
    return rc;
}

/* ------------------------------------------------------------------ IPC imports (ipc.c) -- */

uintptr_t sim_vmm_map_import(int fd, uint64_t off, size_t len, int dev, const char *func, aclError *rc)
{
    size_t span = round_up(len, DEVICE_PAGE);
    pthread_mutex_lock(&g_lock);
    uintptr_t start = 0;
    resv *r = NULL;
    if (!arena_ready() || !(start = sim_extents_take(&g_free, span, DEVICE_PAGE, 0))) {
        *rc = sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "no %zu bytes of address space left for the import", span);
    } else if (!(r = add_resv(start, span, true)) || !grow((void **)&r->maps, &r->cap, 1, sizeof *r->maps)) {
        *rc = sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    } else if (mmap((void *)start, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)off) == MAP_FAILED) {
        *rc = sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot map the imported memory: %s", strerror(errno));
    } else {
        r->maps[r->nmaps++] = (vmap){.va = start, .len = len, .phys = NULL, .device = dev};
        r->bound_device = dev;
        *rc = ACL_SUCCESS;
    }
    if (*rc && r) {
        size_t i;
        find_resv(start, &i);
        drop_resv(i);
    } else if (*rc && start) {
        sim_extents_give(&g_free, start, span);
    }
    pthread_mutex_unlock(&g_lock);
    return *rc ? 0 : start;
}

bool sim_vmm_unmap_import(uintptr_t va)
{
    pthread_mutex_lock(&g_lock);
    size_t i;
    resv *r = find_resv(va, &i);
    bool ok = r && r->ipc && r->start == va;
    if (ok) {
        make_hole(r->maps[0].va, r->maps[0].len);
        drop_resv(i);
    }
    pthread_mutex_unlock(&g_lock);
    return ok;
}

/* ------------------------------------------------------------------ shareable handles ---- */

SIM_API aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                                 uint64_t flags, uint64_t *shareableHandle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(handle);
    if (handleType != ACL_MEM_HANDLE_TYPE_NONE)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "handleType must be ACL_MEM_HANDLE_TYPE_NONE, not %d", (int)handleType);
    SIM_CHECK_NOT_NULL(shareableHandle);
    if (flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION) /* ApiErrorDecorator */
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "flags %llu is not in [0, 1]", (unsigned long long)flags);
    SIM_REQUIRE_INIT();
    phys *p = (phys *)sim_handle_get(handle, SIM_KIND_PHYS);
    if (!p)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "%p is not a live physical memory handle", handle);
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_lock);
    if (p->imported)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "the handle was imported: only the process that allocated it exports it");
    else if (p->loc != ACL_MEM_LOCATION_TYPE_DEVICE)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "only device physical memory can be exported");
    else if (p->share) /* one shareable handle per handle: exporting again is an error */
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "the handle was already exported");
    else if ((p->share = sim_share_export(p->fd, 0, p->len, 0, p->size, p->device,
                                          flags & ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, __func__, &rc)))
        *shareableHandle = sim_share_id(p->share);
    pthread_mutex_unlock(&g_lock);
    sim_obj_put(&p->obj);
    return rc;
}

SIM_API aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(pid);
    if (pidNum == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "pidNum must be greater than 0");
    SIM_REQUIRE_INIT();
    aclError rc = ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_lock(&g_lock);
    phys *p = g_handles;
    while (p && !(p->share && sim_share_id(p->share) == shareableHandle))
        p = p->next;
    if (p)
        rc = sim_share_allow(p->share, pid, (uint32_t)pidNum, __func__);
    pthread_mutex_unlock(&g_lock);
    if (!p)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "%llu is not a shareable handle this process exported",
                        (unsigned long long)shareableHandle);
    return rc;
}

SIM_API aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                   aclrtDrvMemHandle *handle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(handle);
    SIM_REQUIRE_INIT();
    if (!sim_device_of(deviceId))
        return sim_fail(ACL_ERROR_RT_INVALID_DEVICEID, "device %d does not exist", deviceId);
    /* ApiImpl::ImportFromShareableHandle: a current context, on that device (CheckCurCtxValid). */
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    int cur = c->dev->id;
    sim_obj_put(&c->obj);
    if (cur != deviceId)
        return sim_fail(ACL_ERROR_RT_CONTEXT_NULL, "the current context is on device %d, not on device %d", cur,
                        deviceId);
    /* Export and import are for two processes (docs: not both in one process). */
    pthread_mutex_lock(&g_lock);
    bool own = false;
    for (phys *p = g_handles; p && !own; p = p->next)
        own = p->share && sim_share_id(p->share) == shareableHandle;
    pthread_mutex_unlock(&g_lock);
    if (own)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "the shareable handle was exported by this process: import it in another process");
    phys *p = calloc(1, sizeof *p);
    if (!p)
        return sim_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    aclError rc = sim_share_import_id(shareableHandle, __func__, &p->imp);
    if (rc) {
        free(p);
        return rc;
    }
    sim_obj_init(&p->obj, SIM_KIND_PHYS, phys_destroy);
    p->imported = true;
    p->fd = -1;
    p->size = p->imp.size;
    p->len = p->imp.len;
    p->granularity = DEVICE_PAGE;
    p->loc = ACL_MEM_LOCATION_TYPE_DEVICE;
    p->device = deviceId; /* a handle on this device; the memory counts in the exporter's */
    void *h = open_handle(p);
    if (!h) {
        phys_destroy(&p->obj);
        return sim_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "handle table is full");
    }
    *handle = h;
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ aclFinalize ---------- */

void sim_vmm_reset(void)
{
    pthread_mutex_lock(&g_lock);
    /* Mappings first (each holds its handle's memory), then the reservations. Putting a
     * handle takes no lock of ours, so it may happen here. */
    for (size_t i = 0; i < g_nresv; i++)
        while (g_resv[i].nmaps) {
            phys *p = remove_map(&g_resv[i], &g_resv[i].maps[g_resv[i].nmaps - 1]);
            if (p)
                sim_obj_put(&p->obj);
        }
    while (g_nresv)
        drop_resv(g_nresv - 1);
    /* Then the handles still open: each listed one is alive (its handle holds it) until it
     * is unlisted, which takes g_lock; take a reference before letting go of the lock. */
    while (g_handles) {
        phys *p = g_handles;
        g_handles = p->next;
        sim_obj_get(&p->obj);
        void *h = p->obj.handle;
        pthread_mutex_unlock(&g_lock);
        sim_obj *o = sim_handle_close(h, SIM_KIND_PHYS);
        if (o)
            sim_obj_put(o);
        sim_obj_put(&p->obj);
        pthread_mutex_lock(&g_lock);
    }
    pthread_mutex_unlock(&g_lock);
}
