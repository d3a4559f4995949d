/*
 * aiocann simulator: the external-allocator registry -- aclrtAllocatorCreateDesc ...
 * aclrtAllocatorUnregister, aclrtAllocatorGetByStream.
 *
 * A program hands ACL an allocator (an object and four functions) for the memory the model
 * executor needs while it runs a model on a stream. The runtime itself never allocates with
 * it: it keeps, per stream, a copy of the descriptor registered for it, and the model executor
 * (GE) asks for it with aclrtAllocatorGetByStream. That registry is what this file is, exactly
 * as src/acl/aclrt_impl/allocator.cpp keeps it: the descriptor's fields are copied at
 * registration (later changes to the descriptor do not affect the stream, destroying it does
 * not unregister it), the stream is only a key (not checked, not dropped when the stream is
 * destroyed), registering again replaces, unregistering an unknown stream succeeds.
 *
 * A descriptor is a handle here (the real one is a heap pointer), so a destroyed or foreign
 * descriptor is 100000 instead of undefined behaviour.
 *
 * Locking: g_lock, a leaf (besides the handle table's).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "acl/acl_rt_allocator.h"

typedef struct fields {
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc alloc;
    aclrtAllocatorFreeFunc free;
    aclrtAllocatorAllocAdviseFunc advise;
    aclrtAllocatorGetAddrFromBlockFunc addr;
} fields;

typedef struct desc {
    sim_obj obj;
    fields f; /* guarded by g_lock */
} desc;

typedef struct entry {
    aclrtStream stream;
    aclrtAllocatorDesc desc; /* the handle the program registered */
    fields f;                /* its fields then */
} entry;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static entry *g_entries;
static size_t g_n, g_cap;

static void desc_destroy(sim_obj *o) { free(o); }

SIM_API aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)
{
    if (atomic_load_explicit(&g_sim_forked, memory_order_relaxed)) {
        sim_forked_error(__func__);
        return NULL;
    }
    desc *d = calloc(1, sizeof *d);
    if (!d) {
        sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
        return NULL;
    }
    sim_obj_init(&d->obj, SIM_KIND_ALLOCATOR, desc_destroy);
    void *h = sim_handle_open(&d->obj);
    if (!h) {
        free(d);
        sim_fail(ACL_ERROR_BAD_ALLOC, "handle table is full");
    }
    return h;
}

SIM_API aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(allocatorDesc);
    sim_obj *o = sim_handle_close(allocatorDesc, SIM_KIND_ALLOCATOR);
    if (!o)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "%p is not a live allocator descriptor", allocatorDesc);
    sim_obj_put(o);
    return ACL_SUCCESS;
}

/* The descriptor behind handle h, +1 ref; or NULL with 100000 recorded for func. Both the
 * descriptor and the value set must be non-NULL (ACL_REQUIRES_NOT_NULL_WITH_INPUT_REPORT). */
static desc *lookup(aclrtAllocatorDesc h, bool value_null, const char *func, aclError *rc)
{
    desc *d = NULL;
    if (!h)
        *rc = sim_fail_(func, ACL_ERROR_INVALID_PARAM, "allocatorDesc must not be NULL");
    else if (value_null)
        *rc = sim_fail_(func, ACL_ERROR_INVALID_PARAM, "the value set must not be NULL");
    else if (!(d = (desc *)sim_handle_get(h, SIM_KIND_ALLOCATOR)))
        *rc = sim_fail_(func, ACL_ERROR_INVALID_PARAM, "%p is not a live allocator descriptor", h);
    else
        *rc = ACL_SUCCESS;
    return d;
}

#define SET_FIELD(h, member, value)                                                                         \
    do {                                                                                                    \
        aclError rc_;                                                                                       \
        desc *d_ = lookup((h), !(value), __func__, &rc_);                                                   \
        if (d_) {                                                                                           \
            pthread_mutex_lock(&g_lock);                                                                    \
            d_->f.member = (value);                                                                         \
            pthread_mutex_unlock(&g_lock);                                                                  \
            sim_obj_put(&d_->obj);                                                                          \
        }                                                                                                   \
        return rc_;                                                                                         \
    } while (0)

SIM_API aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator)
{
    SIM_CHECK_PROCESS();
    SET_FIELD(allocatorDesc, obj, allocator);
}

SIM_API aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocFunc func)
{
    SIM_CHECK_PROCESS();
    SET_FIELD(allocatorDesc, alloc, func);
}

SIM_API aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorFreeFunc func)
{
    SIM_CHECK_PROCESS();
    SET_FIELD(allocatorDesc, free, func);
}

SIM_API aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                        aclrtAllocatorAllocAdviseFunc func)
{
    SIM_CHECK_PROCESS();
    SET_FIELD(allocatorDesc, advise, func);
}

SIM_API aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                             aclrtAllocatorGetAddrFromBlockFunc func)
{
    SIM_CHECK_PROCESS();
    SET_FIELD(allocatorDesc, addr, func);
}

static entry *find(aclrtStream stream)
{
    for (size_t i = 0; i < g_n; i++)
        if (g_entries[i].stream == stream)
            return &g_entries[i];
    return NULL;
}

SIM_API aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream); /* an external allocator needs a stream: not the default one */
    SIM_CHECK_NOT_NULL(allocatorDesc);
    desc *d = (desc *)sim_handle_get(allocatorDesc, SIM_KIND_ALLOCATOR);
    if (!d)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "%p is not a live allocator descriptor", allocatorDesc);
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_lock);
    fields f = d->f;
    const char *missing = !f.obj ? "obj" : !f.alloc ? "allocFunc" : !f.free ? "freeFunc" : !f.addr ? "getAddrFromBlockFunc"
                                                                                                   : NULL;
    entry *e = missing ? NULL : find(stream);
    if (missing) {
        rc = sim_fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc->%s must be set before registering", missing);
    } else if (!e) {
        if (g_n == g_cap) {
            size_t cap = g_cap ? 2 * g_cap : 8;
            entry *v = realloc(g_entries, cap * sizeof *v);
            if (v) {
                g_entries = v;
                g_cap = cap;
            }
        }
        if (g_n < g_cap)
            e = &g_entries[g_n++];
        else
            rc = sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    if (e)
        *e = (entry){.stream = stream, .desc = allocatorDesc, .f = f};
    pthread_mutex_unlock(&g_lock);
    sim_obj_put(&d->obj);
    return rc;
}

SIM_API aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
                                           aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
                                           aclrtAllocatorFreeFunc *freeFunc,
                                           aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                           aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(allocatorDesc);
    SIM_CHECK_NOT_NULL(stream);
    pthread_mutex_lock(&g_lock);
    entry *e = find(stream);
    entry copy = e ? *e : (entry){0};
    pthread_mutex_unlock(&g_lock);
    if (!e)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "the stream is not registered with any allocator");
    *allocatorDesc = copy.desc;
    if (allocator)
        *allocator = copy.f.obj;
    if (allocFunc)
        *allocFunc = copy.f.alloc;
    if (freeFunc)
        *freeFunc = copy.f.free;
    if (allocAdviseFunc)
        *allocAdviseFunc = copy.f.advise;
    if (getAddrFromBlockFunc)
        *getAddrFromBlockFunc = copy.f.addr;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtAllocatorUnregister(aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(stream);
    pthread_mutex_lock(&g_lock);
    entry *e = find(stream);
    if (e)
        *e = g_entries[--g_n];
    pthread_mutex_unlock(&g_lock);
    return ACL_SUCCESS;
}
