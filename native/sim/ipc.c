/*
 * aiocann simulator: IPC memory sharing -- aclrtIpcMemGetExportKey, aclrtIpcMemSetImportPid,
 * aclrtIpcMemImportByKey, aclrtIpcMemClose.
 *
 * A key exports pages of aclrtMalloc memory: those the range [devPtr, devPtr+size) lies on,
 * taken from the device's memory file (memory.c, sim_dev_share_range) into a share record
 * (share.c) that another process opens by the key. The importer maps the same pages into its
 * virtual-memory arena (vmm.c) as device memory of its current device, at the exported
 * address's offset in its page: kernels, copies and memsets there see the exporter's data
 * and the exporter sees theirs, as two processes sharing device memory do.
 *
 * Sources: src/acl/aclrt_impl/memory.cpp (aclrtIpcMem*Impl: NULL checks), src/runtime/api/
 * impl/api_error.cc (IpcSetMemoryName: zero size and length, flags; SetIpcMemPid: num > 0;
 * IpcOpenMemory: flags), api_impl_standard_soc.cc (IpcSetMemoryName, IpcOpenMemory,
 * IpcCloseMemoryByName: the per-name list of imported addresses, closed one at a time, and
 * a name that was not imported here being the export, destroyed), api_impl.cc (SetIpcMemPid),
 * docs/zh/api_ref/11-07_IPC_memory_sharing.md (the flow; key length 65).
 *
 * Simulator choice: the real driver refuses an export whose address is not page aligned
 * (docs/zh/FAQ: IPC page alignment); the simulator places small allocations at the end of
 * their pages (guard gaps, memory.c), so it shares the pages the range lies on instead and
 * accepts any range inside one allocation.
 *
 * Closing an import (issue 23): the call returns at once, but the pages stay mapped until the
 * work this process had submitted when it closed -- every stream's tasks up to then -- has
 * finished; then they are unmapped (at the next aclrtIpcMem* call, or aclFinalize). Simulator
 * choice: the real close unmaps when the driver says (closed source), and the device has run a
 * kernel launched before the close long before the host gets there; a simulated kernel may
 * still be queued behind a busy host (hicann/runtime's 11_ipc_memory_withoutpid launches its
 * read in process B, writes a file and closes the key without synchronizing: it failed with an
 * AI-core exception when B's kernel ran after the close). Work submitted after the close may
 * still reach the pages until they go; using memory after closing it is the program's error.
 *
 * Locking: g_lock guards the three lists; vmm.c and share.c calls made under it take only their
 * own leaf locks. A closing import's streams are listed (device->lock) before g_lock is taken,
 * and their progress is read from atomics.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define KEY_MAX 72

typedef struct ipc_export {
    char key[KEY_MAX];
    sim_share *share;
    struct ipc_export *next;
} ipc_export;

typedef struct ipc_import {
    char key[KEY_MAX];
    uintptr_t va;            /* the mapping (its reservation's start) */
    sim_share_import imp;
    struct ipc_import *next; /* in import order: a close takes the oldest of its key */
} ipc_import;

/* A closed import waiting for the work submitted before its close: each stream of the process
 * (+1 ref) and the sequence number of its last task then. */
typedef struct ipc_closing {
    ipc_import *im;
    int n;
    sim_stream **s;
    uint64_t *seq;
    struct ipc_closing *next;
} ipc_closing;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ipc_export *g_exports;
static ipc_import *g_imports;
static ipc_closing *g_closing;

static void reap_closing(bool force);

static aclError need_context(const char *func, int *dev)
{
    sim_context *c = sim_current_context(func);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    if (dev)
        *dev = c->dev->id;
    sim_obj_put(&c->obj);
    return ACL_SUCCESS;
}

static ipc_export *find_export(const char *key)
{
    ipc_export *e = g_exports;
    while (e && strcmp(e->key, key) != 0)
        e = e->next;
    return e;
}

SIM_API aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags)
{
    SIM_CHECK_PROCESS();
    reap_closing(false);
    SIM_CHECK_NOT_NULL(devPtr);
    SIM_CHECK_NOT_NULL(key);
    if (size == 0)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "size must be greater than 0");
    if (len == 0)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "len must be greater than 0");
    if (flags > ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "flags %llu is not in [0, 1]", (unsigned long long)flags);
    aclError rc = need_context(__func__, NULL);
    if (rc)
        return rc;
    int fd, dev;
    uint64_t off;
    size_t maplen, in_page;
    if (!sim_dev_share_range(devPtr, size, &fd, &off, &maplen, &in_page, &dev, &rc)) {
        if (rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
            return sim_fail(rc, "device memory cannot be shared on this system (no memfd)");
        return sim_fail(rc, "[%p, +%zu) is not inside one device allocation from aclrtMalloc", devPtr, size);
    }
    if ((uint32_t)len <= sim_share_key_len()) /* the driver takes len as uint32_t */
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "len %zu cannot hold the key (%zu bytes and its NUL; pass 65)", len,
                        sim_share_key_len());
    ipc_export *e = calloc(1, sizeof *e);
    if (!e)
        return sim_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "out of host memory");
    e->share = sim_share_export(fd, off, maplen, in_page, size, dev, flags & ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                                __func__, &rc);
    if (!e->share) {
        free(e);
        return rc;
    }
    sim_share_key(e->share, e->key, sizeof e->key);
    pthread_mutex_lock(&g_lock);
    e->next = g_exports;
    g_exports = e;
    pthread_mutex_unlock(&g_lock);
    memcpy(key, e->key, strlen(e->key) + 1);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
    SIM_CHECK_PROCESS();
    reap_closing(false);
    SIM_CHECK_NOT_NULL(key);
    SIM_CHECK_NOT_NULL(pid);
    if ((int32_t)num <= 0) /* rtsIpcMemSetImportPid takes it as int */
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "num %d must be in (0, 2147483647]", (int32_t)num);
    aclError rc = need_context(__func__, NULL);
    if (rc)
        return rc;
    pthread_mutex_lock(&g_lock);
    ipc_export *e = find_export(key);
    rc = e ? sim_share_allow(e->share, pid, (size_t)(int32_t)num, __func__)
           : sim_fail(ACL_ERROR_RT_PARAM_INVALID, "\"%.64s\" is not a key this process exported", key);
    pthread_mutex_unlock(&g_lock);
    return rc;
}

SIM_API aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)
{
    SIM_CHECK_PROCESS();
    reap_closing(false);
    SIM_CHECK_NOT_NULL(devPtr);
    SIM_CHECK_NOT_NULL(key);
    if (flags > ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "flags %llu is not in [0, 1]", (unsigned long long)flags);
    int dev;
    aclError rc = need_context(__func__, &dev);
    if (rc)
        return rc;
    ipc_import *im = calloc(1, sizeof *im);
    if (!im)
        return sim_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "out of host memory");
    snprintf(im->key, sizeof im->key, "%s", key);
    if ((rc = sim_share_import_key(key, __func__, &im->imp))) {
        free(im);
        return rc;
    }
    /* ENABLE_PEER_ACCESS would enable access between this device and the exporter's
     * (Device::EnableP2PWithOtherDevice); simulated devices reach each other's memory anyway. */
    im->va = sim_vmm_map_import(im->imp.data_fd, im->imp.off, im->imp.len, dev, __func__, &rc);
    if (rc) {
        sim_share_import_done(&im->imp);
        free(im);
        return rc;
    }
    pthread_mutex_lock(&g_lock);
    ipc_import **tail = &g_imports;
    while (*tail)
        tail = &(*tail)->next;
    *tail = im;
    pthread_mutex_unlock(&g_lock);
    *devPtr = (void *)(im->va + im->imp.in_page);
    return ACL_SUCCESS;
}

static void drop_import(ipc_import *im)
{
    sim_vmm_unmap_import(im->va);
    sim_share_import_done(&im->imp);
    free(im);
}

/* The streams of every device of the process and how far each has been submitted: the work a
 * closing import waits for. NULL when out of host memory (the import then goes at once). */
static ipc_closing *closing_new(ipc_import *im)
{
    ipc_closing *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->im = im;
    int cap = 0;
    for (int i = 0; i < g_rt.cfg.num_devices; i++) {
        sim_device *d = sim_device_at(i);
        pthread_mutex_lock(&d->lock);
        for (sim_stream *s = d->streams; s; s = s->next) {
            if (c->n == cap) {
                int ncap = cap ? cap * 2 : 16;
                sim_stream **ns = realloc(c->s, (size_t)ncap * sizeof *ns);
                uint64_t *nq = ns ? realloc(c->seq, (size_t)ncap * sizeof *nq) : NULL;
                if (ns)
                    c->s = ns;
                if (!nq)
                    break;
                c->seq = nq;
                cap = ncap;
            }
            sim_obj_get(&s->obj);
            c->s[c->n] = s;
            c->seq[c->n++] = atomic_load(&s->submitted);
        }
        pthread_mutex_unlock(&d->lock);
    }
    return c;
}

static bool closing_done(const ipc_closing *c)
{
    for (int i = 0; i < c->n; i++)
        if (atomic_load(&c->s[i]->completed) < c->seq[i])
            return false;
    return true;
}

static void closing_free(ipc_closing *c)
{
    drop_import(c->im);
    for (int i = 0; i < c->n; i++)
        sim_obj_put(&c->s[i]->obj);
    free(c->s);
    free(c->seq);
    free(c);
}

/* Unmaps the closed imports whose work has finished (all of them with force: aclFinalize). */
static void reap_closing(bool force)
{
    ipc_closing *done = NULL;
    pthread_mutex_lock(&g_lock);
    for (ipc_closing **pc = &g_closing; *pc;) {
        ipc_closing *c = *pc;
        if (force || closing_done(c)) {
            *pc = c->next;
            c->next = done;
            done = c;
        } else {
            pc = &c->next;
        }
    }
    pthread_mutex_unlock(&g_lock);
    while (done) {
        ipc_closing *next = done->next;
        closing_free(done);
        done = next;
    }
}

SIM_API aclError aclrtIpcMemClose(const char *key)
{
    SIM_CHECK_PROCESS();
    reap_closing(false);
    SIM_CHECK_NOT_NULL(key);
    aclError rc = need_context(__func__, NULL);
    if (rc)
        return rc;
    /* ApiImpl::IpcCloseMemoryByName: a key imported here closes its oldest import; a key not
     * imported here is this process's export, which is destroyed. */
    pthread_mutex_lock(&g_lock);
    ipc_import **pi = &g_imports;
    while (*pi && strcmp((*pi)->key, key) != 0)
        pi = &(*pi)->next;
    ipc_import *im = *pi;
    ipc_export *ex = NULL;
    if (im) {
        *pi = im->next;
    } else {
        ipc_export **pe = &g_exports;
        while (*pe && strcmp((*pe)->key, key) != 0)
            pe = &(*pe)->next;
        if ((ex = *pe))
            *pe = ex->next;
    }
    pthread_mutex_unlock(&g_lock);
    if (im) {
        /* Unmapped once the work submitted so far has finished (see the top of the file). */
        ipc_closing *c = closing_new(im);
        if (!c || closing_done(c)) {
            if (c)
                closing_free(c);
            else
                drop_import(im);
        } else {
            pthread_mutex_lock(&g_lock);
            c->next = g_closing;
            g_closing = c;
            pthread_mutex_unlock(&g_lock);
        }
    } else if (ex) {
        sim_share_close(ex->share);
        free(ex);
    } else {
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "\"%.64s\" is neither imported nor exported by this process", key);
    }
    return ACL_SUCCESS;
}

void sim_ipc_reset(void)
{
    reap_closing(true);
    pthread_mutex_lock(&g_lock);
    ipc_import *im = g_imports;
    ipc_export *ex = g_exports;
    g_imports = NULL;
    g_exports = NULL;
    pthread_mutex_unlock(&g_lock);
    while (im) {
        ipc_import *next = im->next;
        drop_import(im);
        im = next;
    }
    while (ex) {
        ipc_export *next = ex->next;
        sim_share_close(ex->share);
        free(ex);
        ex = next;
    }
}
