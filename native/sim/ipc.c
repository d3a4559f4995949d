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
 * Locking: g_lock guards both lists; vmm.c and share.c calls made under it take only their
 * own leaf locks.
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

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static ipc_export *g_exports;
static ipc_import *g_imports;

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

SIM_API aclError aclrtIpcMemClose(const char *key)
{
    SIM_CHECK_PROCESS();
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
        drop_import(im);
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
