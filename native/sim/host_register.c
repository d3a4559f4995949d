/*
 * aiocann simulator: host memory registration -- aclrtHostRegister, aclrtHostRegisterV2,
 * aclrtHostGetDevicePointer, aclrtHostUnregister.
 *
 * Registering host memory makes it memory the runtime knows: copies treat it as page-locked
 * (an async copy from it is truly asynchronous, and its direction is forced, as for
 * aclrtMallocHost memory: memory.c, sim_pinned_range), pointer attributes report it as HOST,
 * and memsets accept it. Its device address is the host address itself: the simulated device
 * shares the host's address space (a real device behind PCIe gets its own mapping of the
 * pages, which the simulator has no second address space for), so kernels, copies and
 * aclrtHostGetDevicePointer all use the one address.
 *
 * The bookkeeping is the runtime's own (src/runtime/core/src/common/register_memory.cc: the
 * pinned and mapped ranges, overlap checks, base-address lookups), which ApiImpl::
 * HostRegisterV2 / HostUnregister / HostGetDevicePointer use when the driver does not pin
 * (IsSupportPinRegister false, the path the simulator models). Checks: src/acl/aclrt_impl/
 * memory.cpp (NULL, zero size, the reserved flag of GetDevicePointer), src/runtime/api/impl/
 * api_error.cc (HostRegister's type, HostRegisterV2's flags, the already-registered and
 * not-registered codes 507910 / 507911), api_impl.cc (a current context).
 *
 * Simulator choices: the range must be mapped host memory (the driver pins its pages and would
 * fail on an unmapped range; 107000); READONLY and IOMEMORY are recorded, not enforced (the
 * simulator cannot stop the device writing to a page the host may write).
 *
 * Locking: g_lock, a leaf; g_count lets sim_host_registered skip it while nothing is
 * registered (it runs for every copy).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "sim.h"

typedef struct reg {
    uintptr_t start;
    size_t len;
    bool mapped;   /* device-accessible (HostRegister, V2 with MAPPED/IOMEMORY/READONLY) */
    bool pinned;   /* page-locked (V2 with PINNED) */
    uint32_t flags;
} reg;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static reg *g_regs; /* sorted by start, non-overlapping */
static size_t g_nregs, g_cap;
static atomic_size_t g_count;

#define V1_TYPES (ACL_HOST_REGISTER_IOMEMORY | ACL_HOST_REGISTER_READONLY)
#define V2_FLAGS (ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY | ACL_HOST_REG_PINNED)
#define V2_MAPPED (ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY)

/* Index of the first range starting after a (g_lock held). */
static size_t upper(uintptr_t a)
{
    size_t lo = 0, hi = g_nregs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g_regs[mid].start <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool sim_host_registered(const void *p, size_t len)
{
    if (!atomic_load_explicit(&g_count, memory_order_acquire))
        return false;
    uintptr_t a = (uintptr_t)p;
    pthread_mutex_lock(&g_lock);
    size_t i = upper(a);
    bool ok = i > 0 && a - g_regs[i - 1].start < g_regs[i - 1].len && len <= g_regs[i - 1].start + g_regs[i - 1].len - a;
    pthread_mutex_unlock(&g_lock);
    return ok;
}

static bool make_room(void)
{
    if (g_nregs < g_cap)
        return true;
    size_t cap = g_cap ? 2 * g_cap : 16;
    reg *r = realloc(g_regs, cap * sizeof *r);
    if (!r)
        return false;
    g_regs = r;
    g_cap = cap;
    return true;
}

static aclError need_context(const char *func)
{
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_obj_put(&c->obj);
    return ACL_SUCCESS;
}

/* Registers [ptr, ptr+size): CheckMemoryRangeRegistered (no overlap with any registered
 * range: 507910), then the driver's registration (mapped host memory), then the record. */
static aclError add(void *ptr, uint64_t size, bool mapped, bool pinned, uint32_t flags, const char *func)
{
    uintptr_t a = (uintptr_t)ptr;
    if (size > UINTPTR_MAX - a)
        return sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "[%p, +%llu) wraps around the address space", ptr,
                         (unsigned long long)size);
    pthread_mutex_lock(&g_lock);
    size_t i = upper(a);
    aclError rc = ACL_SUCCESS;
    if ((i > 0 && g_regs[i - 1].start + g_regs[i - 1].len > a) || (i < g_nregs && g_regs[i].start < a + size))
        rc = sim_fail_(func, ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                       "[%p, +%llu) overlaps host memory that is already registered", ptr, (unsigned long long)size);
    else if (!sim_host_mapped(ptr, (size_t)size))
        rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID, "[%p, +%llu) is not mapped host memory", ptr,
                       (unsigned long long)size);
    else if (!make_room())
        rc = sim_fail_(func, ACL_ERROR_RT_MEMORY_ALLOCATION, "out of host memory");
    if (!rc) {
        memmove(&g_regs[i + 1], &g_regs[i], (g_nregs - i) * sizeof *g_regs);
        g_regs[i] = (reg){.start = a, .len = (size_t)size, .mapped = mapped, .pinned = pinned, .flags = flags};
        g_nregs++;
        atomic_store_explicit(&g_count, g_nregs, memory_order_release);
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

SIM_API aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(ptr);
    SIM_CHECK_NOT_NULL(devPtr);
    if (size == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    if ((uint32_t)type & ~(uint32_t)V1_TYPES)
        return sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        "type %u is not supported: combine ACL_HOST_REGISTER_IOMEMORY and _READONLY, or 0", (unsigned)type);
    aclError rc = need_context(__func__);
    if (!rc)
        rc = add(ptr, size, true, false, (uint32_t)type, __func__);
    if (!rc)
        *devPtr = ptr;
    return rc;
}

SIM_API aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(ptr);
    if (size == 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    if (!(flag & V2_FLAGS) || (flag & ~(uint32_t)V2_FLAGS))
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "flag 0x%x: the valid flag is an OR of ACL_HOST_REG_MAPPED (0x2), _IOMEMORY (0x4), _READONLY "
                        "(0x8) and _PINNED (0x10000000)",
                        flag);
    aclError rc = need_context(__func__);
    return rc ? rc : add(ptr, size, (flag & V2_MAPPED) != 0, (flag & ACL_HOST_REG_PINNED) != 0, flag, __func__);
}

SIM_API aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(pHost);
    SIM_CHECK_NOT_NULL(pDevice);
    if (flag != 0)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "flag is reserved and must be 0");
    aclError rc = need_context(__func__);
    if (rc)
        return rc;
    /* GetMappedDevicePointer: the base of a mapped registration. */
    uintptr_t a = (uintptr_t)pHost;
    pthread_mutex_lock(&g_lock);
    size_t i = upper(a);
    bool found = i > 0 && g_regs[i - 1].start == a && g_regs[i - 1].mapped;
    pthread_mutex_unlock(&g_lock);
    if (!found)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "%p: the host pointer has not been registered for device address mapping",
                        pHost);
    *pDevice = pHost;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtHostUnregister(void *ptr)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(ptr);
    aclError rc = need_context(__func__);
    if (rc)
        return rc;
    uintptr_t a = (uintptr_t)ptr;
    pthread_mutex_lock(&g_lock);
    size_t i = upper(a);
    bool found = i > 0 && g_regs[i - 1].start == a;
    if (found) {
        memmove(&g_regs[i - 1], &g_regs[i], (g_nregs - i) * sizeof *g_regs);
        g_nregs--;
        atomic_store_explicit(&g_count, g_nregs, memory_order_release);
    }
    pthread_mutex_unlock(&g_lock);
    if (!found)
        return sim_fail(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, "%p is not the base of registered host memory", ptr);
    return ACL_SUCCESS;
}

void sim_host_register_reset(void)
{
    pthread_mutex_lock(&g_lock);
    free(g_regs);
    g_regs = NULL;
    g_nregs = g_cap = 0;
    atomic_store(&g_count, 0);
    pthread_mutex_unlock(&g_lock);
}
