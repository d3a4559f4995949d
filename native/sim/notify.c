/*
 * aiocann simulator: notifies -- a one-bit flag that a stream sets (record) and another stream
 * waits for and clears (wait-and-reset), within a process or, once exported, across processes.
 *
 * The real runtime (hicann/runtime src/acl/aclrt_impl/notify.cpp; src/runtime/api/api_c.cc,
 * api_c_event.cc, api_c_standard_soc.cc rtsNotify*, rtNotify*, rtIpcOpenNotifyWithFlag;
 * src/runtime/api/impl/api_error.cc and api_impl.cc Notify*, IpcSetNotifyName, IpcOpenNotify,
 * SetIpcNotifyPid; src/runtime/core/src/notify/notify.cc; notify_task*.cc;
 * src/runtime/driver/npu_driver.cc; docs/zh/api_ref/08_notify_management.md):
 *   - aclrtCreateNotify(&n, flag): flag ACL_NOTIFY_DEFAULT or ACL_NOTIFY_DEVICE_USE_ONLY (else
 *     107000); needs a current device (107002); takes a notify id of the device (8192 on
 *     A2/A3; none left: 207009).
 *   - aclrtRecordNotify(n, stream) enqueues a record task: when the stream reaches it the flag
 *     is set. aclrtWaitAndResetNotify(n, stream, timeout) enqueues a wait task: the stream --
 *     not the host -- stops there until the flag is set, then clears it and goes on. One
 *     record releases one wait; a record with no wait pending stays set until a wait consumes
 *     it. timeout: 0 waits forever, else seconds (the docs; UINT32_MAX also forever:
 *     rtsNotifyWaitAndReset); a wait still unreleased then fails its task with 107020
 *     (TS_ERROR_TASK_TIMEOUT) and is reported to the exception callbacks like any failed task
 *     (ReportNotifyErrorForNotifyWaitTask). NULL is the default stream; the stream must be in
 *     the current context (107002, 107003).
 *   - aclrtGetNotifyId: the id; aclrtNotifyBatchReset(list, num): clears each flag at once (a
 *     control message, not a stream task); num 0 is 107000; the first bad entry ends it.
 *   - aclrtNotifyGetExportKey(n, key, len, flags) makes n an IPC notify and writes its key (len
 *     at least 65 -- the driver's name size; 0 is 107000; flags DEFAULT or
 *     DISABLE_PID_VALIDATION, else 107000; a notify already exported or imported: 507000,
 *     RT_ERROR_NOTIFY_TYPE). With DEFAULT only the processes whose pids
 *     aclrtNotifySetImportPid listed (num 0: 107000; only the creator, after the export, else
 *     107000) may import it. aclrtNotifyImportByKey(&n, key, flags) opens it in another
 *     process (flags <= 3, else 107000): records there set the creator's flag, waits there wait
 *     for it. A wait on an IPC notify must run on the device that created it (107000,
 *     Notify::CheckIpcNotifyDevId). The notify is gone when every process destroyed its
 *     handle; the key stops working once the creator destroyed its own.
 *
 * How the simulator shares it: an exported notify's flag moves into a page of anonymous
 * shared memory (a memfd), exported through share.c as the memory family's IPC memory is --
 * the same keys, the same import-pid whitelist checked by the importer, the same end of the
 * export -- and importers map the same page. The flag is a futex word, so a record in one
 * process wakes a stream waiting in another. Nothing is named in the file system, so nothing
 * outlives the processes.
 * Simulator choices where the driver (closed source) decides, as for IPC memory (share.c): an
 * unknown key, or one whose creator destroyed the notify, is 107000 (at once, tasks still
 * pending or not); a process not on the whitelist 207006 (ACL_ERROR_RT_NO_PERMISSION, the
 * driver's "operation not permitted"), the creator's own included; ENABLE_PEER_ACCESS changes
 * nothing (simulated devices reach each other anyway).
 *
 * Locking: notify->lock guards which word is current (local or shared) and the export;
 * device->lock the id bitmap. A wait on the notify's own flag parks its stream on n->parked
 * (under n->lock, which a record holds while it sets the flag and wakes them); a wait on a
 * shared flag blocks its worker on the futex word without any lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sim.h"

#define NOTIFY_IDS 8192u            /* per device on A2/A3 (08_notify_management.md) */
#define KEY_MIN_LEN 65u             /* the driver's shared-id name size (the docs: 最小长度为65) */
#define SHARED_MAGIC 0x41434E54u    /* "ACNT" */
#define FLAG_FOREVER UINT32_MAX     /* rtsNotifyWaitAndReset: UINT32_MAX waits forever */
#define IMPORT_FLAGS_MAX 3u         /* RT_NOTIFY_FLAG_DOWNLOAD_TO_DEV | RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS */

/* The shared page of an exported notify (who may open it is share.c's record). */
typedef struct shared_notify {
    uint32_t magic;
    _Atomic uint32_t word;          /* the flag: 0 clear, 1 recorded */
    int32_t phy_device;             /* the creator's device (physical id) */
    uint32_t notify_id;
} shared_notify;

typedef struct sim_notify {
    sim_obj obj;
    sim_device *dev;                /* the device its id belongs to (creator) or was opened on */
    uint32_t id;
    bool creator;                   /* created here (not imported) */
    pthread_mutex_t lock;
    _Atomic uint32_t local;         /* the flag until exported */
    _Atomic(_Atomic uint32_t *) word; /* &local, or &shared->word */
    shared_notify *shared;          /* mapped page once exported or imported */
    sim_share *share;               /* the creator's export, until it destroys the notify */
    sim_waitq parked;               /* streams whose wait parked on the local flag (lock) */
} sim_notify;

/* ------------------------------------------------------------------ futex ---------------- */

int sim_futex_wait(_Atomic uint32_t *word, uint32_t expected, const struct timespec *deadline)
{
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline; not FUTEX_PRIVATE: the
     * word may be in memory another process maps. */
    long r = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_BITSET, expected, deadline, NULL, FUTEX_BITSET_MATCH_ANY);
    return r == 0 ? 0 : errno;
}

void sim_futex_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* ------------------------------------------------------------------ objects -------------- */

static void release_id(sim_device *d, uint32_t id)
{
    pthread_mutex_lock(&d->lock);
    if (d->notify_ids)
        d->notify_ids[id / 64] &= ~(1ull << (id % 64));
    pthread_mutex_unlock(&d->lock);
}

static void notify_destroy(sim_obj *o)
{
    sim_notify *n = (sim_notify *)o;
    if (n->creator)
        release_id(n->dev, n->id);
    sim_share_close(n->share); /* NULL unless destroyed with its handle still open (finalize) */
    if (n->shared)
        munmap(n->shared, sizeof *n->shared);
    pthread_mutex_destroy(&n->lock);
    free(n);
}

static sim_notify *notify_new(sim_device *d, uint32_t id, bool creator)
{
    sim_notify *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    sim_obj_init(&n->obj, SIM_KIND_NOTIFY, notify_destroy);
    n->dev = d;
    n->id = id;
    n->creator = creator;
    pthread_mutex_init(&n->lock, NULL);
    atomic_init(&n->word, &n->local);
    return n;
}

static sim_notify *lookup(aclrtNotify notify, const char *func, aclError *rc)
{
    sim_notify *n = (sim_notify *)sim_handle_get(notify, SIM_KIND_NOTIFY);
    if (!n)
        *rc = sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "notify %p is not a live notify (destroyed, or not a notify)",
                        notify);
    return n;
}

/* The lowest free notify id of d, or NOTIFY_IDS when none is left. */
static uint32_t take_id(sim_device *d)
{
    uint32_t id = NOTIFY_IDS;
    pthread_mutex_lock(&d->lock);
    if (!d->notify_ids)
        d->notify_ids = calloc(NOTIFY_IDS / 64, sizeof *d->notify_ids);
    for (uint32_t w = 0; d->notify_ids && w < NOTIFY_IDS / 64 && id == NOTIFY_IDS; w++) {
        uint64_t free_bits = ~d->notify_ids[w];
        if (free_bits) {
            uint32_t b = (uint32_t)__builtin_ctzll(free_bits);
            d->notify_ids[w] |= 1ull << b;
            id = w * 64 + b;
        }
    }
    pthread_mutex_unlock(&d->lock);
    return id;
}

SIM_API aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(notify);
    if (flag != ACL_NOTIFY_DEFAULT && flag != ACL_NOTIFY_DEVICE_USE_ONLY)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "flag %#llx is neither ACL_NOTIFY_DEFAULT nor ACL_NOTIFY_DEVICE_USE_ONLY",
                        (unsigned long long)flag);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_device *d = c->dev;
    sim_obj_put(&c->obj);
    uint32_t id = take_id(d);
    if (id == NOTIFY_IDS)
        return sim_fail(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "device %d has no notify left (%u in use)", d->id, NOTIFY_IDS);
    sim_notify *n = notify_new(d, id, true);
    if (!n || !sim_handle_open(&n->obj)) {
        if (n)
            notify_destroy(&n->obj);
        else
            release_id(d, id);
        return sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    *notify = n->obj.handle;
    return ACL_SUCCESS;
}

SIM_API aclError aclrtDestroyNotify(aclrtNotify notify)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(notify);
    aclError rc = ACL_SUCCESS;
    sim_notify *n = lookup(notify, __func__, &rc);
    if (!n)
        return rc;
    sim_obj_put(&n->obj);
    sim_context *c = sim_current_context(__func__); /* ApiImpl::NotifyDestroy */
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_obj_put(&c->obj);
    /* Pending record and wait tasks hold their own references: the notify lives until they
     * have run. */
    sim_obj *o = sim_handle_close(notify, SIM_KIND_NOTIFY);
    if (!o)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "notify %p was destroyed concurrently", notify);
    /* The key stops working now, not when the last pending task lets the notify go. */
    n = (sim_notify *)o;
    pthread_mutex_lock(&n->lock);
    sim_share *share = n->share;
    n->share = NULL;
    pthread_mutex_unlock(&n->lock);
    sim_share_close(share);
    sim_obj_put(o);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(notify);
    SIM_CHECK_NOT_NULL(notifyId);
    aclError rc = ACL_SUCCESS;
    sim_notify *n = lookup(notify, __func__, &rc);
    if (!n)
        return rc;
    sim_context *c = sim_current_context(__func__);
    if (c) {
        *notifyId = n->id;
        sim_obj_put(&c->obj);
        rc = ACL_SUCCESS;
    } else {
        rc = ACL_ERROR_RT_CONTEXT_NULL;
    }
    sim_obj_put(&n->obj);
    return rc;
}

/* ------------------------------------------------------------------ record and wait ------ */

static void set_flag(sim_notify *n)
{
    pthread_mutex_lock(&n->lock); /* not while an export moves the flag */
    _Atomic uint32_t *w = atomic_load(&n->word);
    atomic_store(w, 1);
    sim_waitq_wake_all(&n->parked);
    pthread_mutex_unlock(&n->lock);
    sim_futex_wake(w);
}

static aclError run_record(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    (void)s;
    (void)msg;
    (void)msglen;
    set_flag(t->u.op.obj);
    return ACL_SUCCESS;
}

static aclError block_wait(sim_stream *s, sim_notify *n, uint32_t timeout_s, const sim_task *waiter, char *msg,
                           size_t msglen);

/* Waits until the flag is set, then clears it; timeout_s 0 = never. Ends early, as passed,
 * when s is aborted or force-destroyed. The wait parks its stream (executor.c) when `park` says
 * it may: on the notify's queue while the flag is the notify's own, woken by a record, an
 * export (which moves the flag), its deadline, an abort or the shutdown; on the futex watch
 * once the flag is shared (exported or imported), as another process may set it -- or, where
 * no watch can take it, it blocks on the futex.
 * `w` is the task whose parking it is -- the wait task itself, or the replay it is part of
 * (sim_replay_can_park) -- and keeps the wait's deadline between its runs. */
static aclError wait_flag(sim_stream *s, sim_notify *n, uint32_t timeout_s, sim_task *w, bool park, char *msg,
                          size_t msglen)
{
    if (!park)
        return block_wait(s, n, timeout_s, w, msg, msglen);
    if (!w->parked) {
        uint32_t set = 1; /* recorded already, the common case: no parking machinery */
        pthread_mutex_lock(&n->lock); /* not while an export moves the flag */
        bool taken = atomic_load(&n->word) == &n->local && atomic_compare_exchange_strong(&n->local, &set, 0);
        pthread_mutex_unlock(&n->lock);
        if (taken)
            return ACL_SUCCESS;
        if (timeout_s)
            w->wait_deadline_ns = sim_now_ns() + (uint64_t)timeout_s * 1000000000ull;
    }
    sim_park_arm(s); /* before the check that decides to park: a wake-up after it is not lost */
    pthread_mutex_lock(&n->lock);
    sim_waitq_remove(&n->parked, s);
    /* A shared flag (exported or imported) may be set by another process, which only its futex
     * hears: the stream parks on the futex watch (futex_watch.c) instead of the notify's queue.
     * Only the local flag moves (an export), so a shared one needs the lock no longer. */
    _Atomic uint32_t *word = atomic_load(&n->word);
    bool shared = word != &n->local;
    if (shared) {
        pthread_mutex_unlock(&n->lock);
        sim_watch_remove(s);
    }
    uint32_t seen = 1; /* what the flag was, when it was not set */
    aclError rc = ACL_SUCCESS;
    bool over = true;
    if (atomic_compare_exchange_strong(word, &seen, 0) || sim_stream_abort_requested(s)) {
        /* recorded, or the stream is aborted */
    } else if (atomic_load(&s->closing)) { /* its stream goes (a reset, aclFinalize, a destroy): the
                                            * wait gives up and what is queued behind it is
                                            * discarded, as block_wait does */
        atomic_store(&s->discard, true);
    } else if (w->wait_deadline_ns && sim_now_ns() >= w->wait_deadline_ns) {
        snprintf(msg, msglen, "notify %u: the stream waited %u s for a record and gave up", n->id, timeout_s);
        rc = ACL_ERROR_RT_TASK_TIMEOUT; /* TS_ERROR_TASK_TIMEOUT */
    } else {
        over = false;
    }
    if (over) {
        if (!shared)
            pthread_mutex_unlock(&n->lock);
        return rc;
    }
    if (shared) /* woken once the flag is no longer `seen`; or, where no watch can, it blocks */
        return sim_watch_add(s, word, seen) ? sim_park(s, w, w->wait_deadline_ns)
                                            : block_wait(s, n, timeout_s, w, msg, msglen);
    sim_waitq_add(&n->parked, s);
    pthread_mutex_unlock(&n->lock);
    return sim_park(s, w, w->wait_deadline_ns);
}

static aclError run_wait(sim_stream *s, sim_task *t, char *msg, size_t msglen)
{
    return wait_flag(s, t->u.op.obj, (uint32_t)t->u.op.a, t, sim_task_can_park(s, t), msg, msglen);
}

/* A captured wait, replayed: the replay task parks (capture.c goes on from this wait). */
static aclError replay_wait(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen)
{
    return wait_flag(s, t->u.op.obj, (uint32_t)t->u.op.a, (sim_task *)rt, sim_replay_can_park(s, rt), msg, msglen);
}

/* The blocking form: s's worker sleeps on the flag's futex (a hand-off, executor.c). */
static aclError block_wait(sim_stream *s, sim_notify *n, uint32_t timeout_s, const sim_task *waiter, char *msg,
                           size_t msglen)
{
    struct timespec deadline;
    bool timed = timeout_s && sim_deadline((int32_t)(timeout_s > 2000000u ? 2000000000u : timeout_s * 1000u), &deadline);
    if (timed && waiter->wait_deadline_ns) { /* parked before an export moved the flag: the same deadline */
        deadline.tv_sec = (time_t)(waiter->wait_deadline_ns / 1000000000ull);
        deadline.tv_nsec = (long)(waiter->wait_deadline_ns % 1000000000ull);
    }
    _Atomic uint32_t *registered = NULL;
    aclError rc = ACL_SUCCESS;
    for (;;) {
        _Atomic uint32_t *w = atomic_load(&n->word);
        if (w != registered) { /* an export moved the flag: an abort must wake the new word */
            sim_stream_block_on(s, NULL, NULL, w);
            registered = w;
        }
        uint32_t one = 1;
        if (atomic_compare_exchange_strong(w, &one, 0) || sim_stream_abort_requested(s))
            break;
        if (atomic_load(&s->closing)) { /* its stream is going away: as ipc_event.c's wait */
            atomic_store(&s->discard, true);
            break;
        }
        if (sim_futex_wait(w, 0, timed ? &deadline : NULL) == ETIMEDOUT) {
            one = 1;
            if (atomic_compare_exchange_strong(w, &one, 0))
                break;
            snprintf(msg, msglen, "notify %u: the stream waited %u s for a record and gave up", n->id, timeout_s);
            rc = ACL_ERROR_RT_TASK_TIMEOUT; /* TS_ERROR_TASK_TIMEOUT */
            break;
        }
    }
    sim_stream_unblock(s);
    return rc;
}

static void release(sim_task *t) { sim_obj_put(&((sim_notify *)t->u.op.obj)->obj); }

static const sim_task_ops k_record = {.run = run_record, .release = release};
static const sim_task_ops k_wait = {.run = run_wait, .replay = replay_wait, .release = release};

/* The stream a record or wait goes on: in the current context (NotifyRecord / NotifyWait).
 * +1 ref, or NULL with the code in *rc. */
static sim_stream *task_stream(aclrtStream stream, const char *func, aclError *rc)
{
    sim_stream *s = sim_stream_resolve(stream, func, rc); /* a bad handle first: 107017 */
    if (!s)
        return NULL;
    sim_context *c = sim_current_context(func);
    if (!c) {
        *rc = ACL_ERROR_RT_CONTEXT_NULL;
    } else {
        bool mine = s->ctx == c;
        sim_obj_put(&c->obj);
        if (mine)
            return s;
        *rc = sim_fail_(func, ACL_ERROR_RT_STREAM_CONTEXT, "the stream does not belong to the current context");
    }
    sim_obj_put(&s->obj);
    return NULL;
}

static aclError submit(aclrtNotify notify, aclrtStream stream, const sim_task_ops *ops, uint64_t timeout_s,
                       const char *func)
{
    aclError rc = ACL_SUCCESS;
    sim_notify *n = lookup(notify, func, &rc);
    if (!n)
        return rc;
    sim_stream *s = task_stream(stream, func, &rc);
    if (!s) {
        sim_obj_put(&n->obj);
        return rc;
    }
    /* Notify::CheckIpcNotifyDevId: an IPC notify is waited for on the device that created it. */
    if (ops == &k_wait && n->shared && n->shared->phy_device != g_rt.cfg.logic_id[s->dev->id]) {
        rc = sim_fail_(func, ACL_ERROR_RT_PARAM_INVALID,
                       "an IPC notify is waited for on the device that created it (physical device %d), not %d",
                       n->shared->phy_device, g_rt.cfg.logic_id[s->dev->id]);
    } else {
        sim_task *t = sim_task_new(ops);
        if (!t) {
            rc = sim_fail_(func, ACL_ERROR_BAD_ALLOC, "out of host memory");
        } else {
            t->u.op.obj = n; /* the task takes our reference */
            t->u.op.a = timeout_s;
            n = NULL;
            rc = sim_stream_submit(s, t, func, NULL);
        }
    }
    if (n)
        sim_obj_put(&n->obj);
    sim_obj_put(&s->obj);
    return rc;
}

SIM_API aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(notify);
    return submit(notify, stream, &k_record, 0, __func__);
}

SIM_API aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(notify);
    return submit(notify, stream, &k_wait, timeout == FLAG_FOREVER ? 0 : timeout, __func__);
}

SIM_API aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(notifies);
    uint32_t count = (uint32_t)num; /* rtsNotifyBatchReset takes a uint32_t */
    if (count == 0)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "num must be in (0, 4294967295], not %zu", num);
    for (uint32_t i = 0; i < count; i++) {
        if (!notifies[i])
            return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "notifies[%u] is NULL", i);
        aclError rc;
        sim_notify *n = lookup(notifies[i], __func__, &rc);
        if (!n)
            return rc;
        sim_context *c = sim_current_context(__func__); /* ApiImpl::NotifyReset */
        if (!c) {
            sim_obj_put(&n->obj);
            return ACL_ERROR_RT_CONTEXT_NULL;
        }
        sim_obj_put(&c->obj);
        pthread_mutex_lock(&n->lock);
        atomic_store(atomic_load(&n->word), 0); /* a control message: at once, not on a stream */
        pthread_mutex_unlock(&n->lock);
        sim_obj_put(&n->obj);
    }
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------ IPC ------------------ */

static shared_notify *map_shared(int fd)
{
    void *p = mmap(NULL, sizeof(shared_notify), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

SIM_API aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(notify);
    SIM_CHECK_NOT_NULL(key);
    aclError rc = ACL_SUCCESS;
    sim_notify *n = lookup(notify, __func__, &rc);
    if (!n)
        return rc;
    uint32_t ulen = (uint32_t)len; /* rtsNotifyGetExportKey takes a uint32_t */
    if (ulen == 0)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "len must not be 0");
    else if (flags != ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT && flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                      "flags %#llx is neither ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT nor ..._DISABLE_PID_VALIDATION",
                      (unsigned long long)flags);
    else if (ulen < KEY_MIN_LEN)
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "len %u is too short for a key: at least %u", ulen, KEY_MIN_LEN);
    if (rc) {
        sim_obj_put(&n->obj);
        return rc;
    }
    pthread_mutex_lock(&n->lock);
    if (n->shared) { /* Notify::CreateIpcNotify: RT_ERROR_NOTIFY_TYPE */
        pthread_mutex_unlock(&n->lock);
        sim_obj_put(&n->obj);
        return sim_fail(ACL_ERROR_RT_INTERNAL_ERROR, "the notify is already an IPC notify (exported or imported)");
    }
    int fd = memfd_create("aclsim-notify", MFD_CLOEXEC);
    shared_notify *sh = NULL;
    if (fd >= 0 && ftruncate(fd, sizeof *sh) == 0)
        sh = map_shared(fd);
    sim_share *share = NULL;
    if (sh) {
        sh->magic = SHARED_MAGIC;
        sh->phy_device = g_rt.cfg.logic_id[n->dev->id];
        sh->notify_id = n->id;
        share = sim_share_export(fd, 0, sizeof *sh, 0, sizeof *sh, n->dev->id,
                                 flags == ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION, __func__, &rc);
    } else {
        rc = sim_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "cannot create the shared notify: %s", strerror(errno));
    }
    if (fd >= 0)
        close(fd); /* the export holds its own descriptor; the mapping stays */
    if (!share) {
        if (sh)
            munmap(sh, sizeof *sh);
        pthread_mutex_unlock(&n->lock);
        sim_obj_put(&n->obj);
        return rc;
    }
    /* The flag moves to the shared page with its value; a worker waiting on the old word is
     * woken to look again (set_flag and the move are both under n->lock). */
    atomic_store(&sh->word, atomic_load(&n->local));
    n->shared = sh;
    n->share = share;
    atomic_store(&n->word, &sh->word);
    sim_waitq_wake_all(&n->parked); /* parked waits, too: they go on to block on the new word */
    pthread_mutex_unlock(&n->lock);
    sim_futex_wake(&n->local);
    sim_share_key(share, key, ulen);
    sim_obj_put(&n->obj);
    return ACL_SUCCESS;
}

SIM_API aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(notify);
    SIM_CHECK_NOT_NULL(pid);
    aclError rc = ACL_SUCCESS;
    sim_notify *n = lookup(notify, __func__, &rc);
    if (!n)
        return rc;
    int32_t count = (int32_t)num; /* rtsNotifySetImportPid takes an int */
    sim_context *c = NULL;
    if (count <= 0) {
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "num must be in (0, %d], not %zu", INT32_MAX, num);
    } else if (!(c = sim_current_context(__func__))) {
        rc = ACL_ERROR_RT_CONTEXT_NULL;
    } else {
        pthread_mutex_lock(&n->lock);
        if (!n->share) /* not exported here, or imported */
            rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID, "the notify was not exported by this process "
                                                      "(call aclrtNotifyGetExportKey first)");
        else
            rc = sim_share_allow(n->share, pid, (size_t)count, __func__);
        pthread_mutex_unlock(&n->lock);
        sim_obj_put(&c->obj);
    }
    sim_obj_put(&n->obj);
    return rc;
}

SIM_API aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(notify);
    SIM_CHECK_NOT_NULL(key);
    uint32_t f = (uint32_t)(flags & 0xFFFFFFFFu); /* rtsNotifyImportByKey keeps the low 32 bits */
    if (f > IMPORT_FLAGS_MAX)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "flags %#x is invalid: [0, %u]", f, IMPORT_FLAGS_MAX);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_device *d = c->dev;
    sim_obj_put(&c->obj);

    sim_share_import imp;
    aclError rc = sim_share_import_key(key, __func__, &imp); /* 107000, or 207006 off the whitelist */
    if (rc)
        return rc;
    shared_notify *sh = imp.len == sizeof *sh ? map_shared(imp.data_fd) : NULL;
    sim_share_import_done(&imp); /* the mapping is all this process keeps */
    if (!sh || sh->magic != SHARED_MAGIC) {
        if (sh)
            munmap(sh, sizeof *sh);
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "key \"%.64s\" is not the key of a notify", key);
    }
    sim_notify *n = notify_new(d, sh->notify_id, false);
    if (!n) {
        munmap(sh, sizeof *sh);
        return sim_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
    }
    n->shared = sh;
    atomic_store(&n->word, &sh->word);
    if (!sim_handle_open(&n->obj)) {
        notify_destroy(&n->obj);
        return sim_fail(ACL_ERROR_BAD_ALLOC, "handle table is full");
    }
    *notify = n->obj.handle;
    return ACL_SUCCESS;
}
