/*
 * aiocann simulator: IPC events (issue 23) -- aclrtIpcGetEventHandle, aclrtIpcOpenEventHandle,
 * and the state behind an event of aclrtCreateEventExWithFlag(ACL_EVENT_IPC) that records and
 * waits in several processes share.
 *
 * The real runtime (src/runtime/core/src/event/ipc_event.cc, IpcEvent; api_impl_event.cc;
 * api_c_standard_soc.cc rtIpcGetEventHandle / rtIpcOpenEventHandle; api_error.cc; api_impl.cc
 * EventRecord / StreamWaitEvent / EventSynchronize / EventQueryStatus / EventDestroy):
 *   - Only chips with RT_FEATURE_IPC_EVENT (config/910_B_93, 950, 350 dev_info_reg.cc) have
 *     them: elsewhere the create and both calls are 207000.
 *   - IpcEvent::Setup (at creation) makes a page of host memory holding the event's state --
 *     8192 one-byte record slots with reference counts and the slot of the latest record -- and
 *     exports it as a shareable handle with pid verification disabled
 *     (SetMemShareHandleDisablePidVerify): any process may open it. The event handle is that
 *     64-bit shareable handle (the first 8 bytes of aclrtIpcEventHandle).
 *   - aclrtIpcGetEventHandle: NULL handle or event 107000 (ACL layer: 100000), an event whose
 *     flag is not ACL_EVENT_IPC 107000. aclrtIpcOpenEventHandle: NULL event 100000, no context
 *     107002; it imports the page and returns a new event (flag IPC) of the current context.
 *   - In every process that holds it: aclrtRecordEvent takes a slot, makes it the latest and
 *     writes it when the stream reaches the record (a write-value task, IpcEventRecord);
 *     aclrtStreamWaitEvent waits for the latest slot to be written (a wait-value task,
 *     IpcEventWait), or passes when there is no record pending; aclrtSynchronizeEvent and
 *     aclrtQueryEventStatus look at the latest slot from the host (IpcEventSync, IpcEventQuery:
 *     COMPLETE when nothing is pending). Refused: reset, aclrtQueryEvent,
 *     aclrtQueryEventWaitStatus, timestamps, elapsed time, event ids (207000, api_error.cc), the
 *     EXTERNAL record/wait flags (need ACL_EVENT_SYNC), and any record or wait on a capturing
 *     stream (207000: "IPC events are not supported when the capture stream flag is set").
 *   - aclrtDestroyEvent in any process destroys that process's event (IpcEventDestroy); the
 *     opener's stays usable after the creator's is gone.
 *
 * The simulator: the page is a memfd exported through share.c as the IPC notify's is (a share
 * record with pid validation disabled; the handle is sim_share_id, which names the record's fd
 * in the creating process). Instead of the slots it keeps two counters, with the same
 * outcomes: `taken`, the generation of the latest record submitted in any process, and `done`,
 * the newest generation executed. A wait captures `taken` when it is submitted and waits until
 * `done` reaches it -- a record made after the wait was issued never satisfies it early, and a
 * wait with no record pending passes. `done` is a futex word: a stream waiting in process B
 * parks on the futex watch (futex_watch.c), whose thread sleeps in the kernel until a record
 * executed in process A wakes it (no core spins, no worker held); an abort or forced destroy
 * wakes the parked stream as any other. Where no watch can take it, the worker sleeps on the
 * futex itself, and an abort or forced destroy wakes it through sim_stream_block_on.
 * Generations are 32-bit and compared modulo 2^32.
 * Simulator choices: a record refused at submission or discarded unexecuted (its stream
 * destroyed or aborted) counts as executed, as the real runtime then drops its slot's reference
 * (a later wait passes); a handle that names no live IPC event -- garbage, another export's
 * handle, an event whose creator destroyed it (from its aclrtDestroyEvent on, pending records
 * or not) or exited -- is 107000, as for IPC memory and notifies (share.c). A wait honours
 * aclrtSetOpWaitTimeout as the other event waits do.
 *
 * Locking: none of its own. The page is written with atomics only (records may execute in
 * several processes at once); share.c's record belongs to the creator.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim.h"
#include "aclsim_chip.h"

#define PAGE_MAGIC 0x54564549534C4341ull /* "ACLSIEVT" */
#define IPC_HANDLE_BYTES 8u               /* the shareable handle (IpcEvent::IpcGetEventHandle) */

/* The page every process holding the event maps. */
typedef struct ipc_page {
    uint64_t magic;
    _Atomic uint32_t taken; /* generation of the latest record submitted, in any process */
    _Atomic uint32_t done;  /* newest generation executed: the futex word waiters sleep on */
    int32_t device;         /* the creator's device */
    int32_t creator;        /* the creating process */
} ipc_page;

struct sim_ipc_event {
    ipc_page *page;
    sim_share *share; /* the creator's export (NULL in an opener) */
    uint64_t handle;  /* the shareable handle, in the creator and in openers alike */
};

static bool reached(uint32_t done, uint32_t gen) { return (int32_t)(done - gen) >= 0; }

static bool chip_has_ipc_events(void)
{
    const aclsimChip *chip = aclsimGetChip();
    return chip && (chip->features & ACLSIM_CHIP_IPC_EVENT);
}

aclError sim_ipc_event_supported(const char *func)
{
    if (chip_has_ipc_events())
        return ACL_SUCCESS;
    const aclsimChip *chip = aclsimGetChip();
    return sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s has no IPC events (RT_FEATURE_IPC_EVENT)",
                     chip ? chip->soc_name : "the simulated chip");
}

static ipc_page *map_page(int fd)
{
    void *p = mmap(NULL, sizeof(ipc_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

aclError sim_ipc_event_setup(sim_event *e, const char *func)
{
    sim_ipc_event *ie = calloc(1, sizeof *ie);
    if (!ie)
        return sim_fail_(func, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "out of host memory");
    aclError rc = ACL_SUCCESS;
    int fd = memfd_create("aclsim-ipc-event", MFD_CLOEXEC);
    if (fd >= 0 && ftruncate(fd, sizeof(ipc_page)) == 0)
        ie->page = map_page(fd);
    if (ie->page) {
        ie->page->device = e->dev->id;
        ie->page->creator = getpid();
        ie->page->magic = PAGE_MAGIC;
        /* IpcHandleAllocAndExport: exported with the pid check off, any process may open it. */
        ie->share = sim_share_export(fd, 0, sizeof(ipc_page), 0, sizeof(ipc_page), e->dev->id, true, func, &rc);
    } else {
        rc = sim_fail_(func, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "cannot create the IPC event's shared page: %s",
                       strerror(errno));
    }
    if (fd >= 0)
        close(fd); /* the share holds its own descriptor; the mapping stays */
    if (!ie->share) {
        if (ie->page)
            munmap(ie->page, sizeof(ipc_page));
        free(ie);
        return rc;
    }
    ie->handle = sim_share_id(ie->share);
    e->ipc = ie; /* before anyone is given the event's handle */
    return ACL_SUCCESS;
}

void sim_ipc_event_unshare(sim_ipc_event *ie)
{
    sim_share_close(ie->share); /* NULL in an opener */
    ie->share = NULL;
}

void sim_ipc_event_release(sim_ipc_event *ie)
{
    if (!ie)
        return;
    sim_share_close(ie->share); /* the creator's: no new open succeeds; openers keep their page */
    munmap(ie->page, sizeof(ipc_page));
    free(ie);
}

uint32_t sim_ipc_event_take(sim_ipc_event *ie)
{
    uint32_t gen = atomic_fetch_add(&ie->page->taken, 1) + 1;
    if (gen == 0) /* 0 means "no record" to the wait: skip it when the counter wraps */
        gen = atomic_fetch_add(&ie->page->taken, 1) + 1;
    return gen;
}

void sim_ipc_event_complete(sim_ipc_event *ie, uint32_t gen)
{
    /* Records of several streams (and processes) can execute out of order: done only moves
     * forward. */
    uint32_t cur = atomic_load(&ie->page->done);
    while (!reached(cur, gen) && !atomic_compare_exchange_weak(&ie->page->done, &cur, gen))
        ;
    sim_futex_wake(&ie->page->done);
}

uint32_t sim_ipc_event_pending(sim_ipc_event *ie)
{
    uint32_t gen = atomic_load(&ie->page->taken);
    return reached(atomic_load(&ie->page->done), gen) ? 0 : gen;
}

bool sim_ipc_event_complete_now(sim_ipc_event *ie) { return sim_ipc_event_pending(ie) == 0; }

static const char k_timed_out[] = "the stream waited %u s for an IPC event record (aclrtSetOpWaitTimeout) and gave up";

/* The blocking form: the worker sleeps on the page's futex (a hand-off, executor.c). */
static aclError block_wait(sim_stream *s, sim_ipc_event *ie, const sim_task *t, uint32_t gen, uint32_t timeout_s,
                           char *msg, size_t msglen)
{
    struct timespec deadline;
    bool timed = timeout_s && sim_deadline((int32_t)(timeout_s > 2000000u ? 2000000000u : timeout_s * 1000u), &deadline);
    if (timed && t->wait_deadline_ns) { /* it parked first: the same deadline */
        deadline.tv_sec = (time_t)(t->wait_deadline_ns / 1000000000ull);
        deadline.tv_nsec = (long)(t->wait_deadline_ns % 1000000000ull);
    }
    _Atomic uint32_t *w = &ie->page->done;
    aclError rc = ACL_SUCCESS;
    sim_stream_block_on(s, NULL, NULL, w); /* an abort or forced destroy wakes the futex */
    for (;;) {
        uint32_t cur = atomic_load(w);
        if (reached(cur, gen) || sim_stream_abort_requested(s))
            break;
        if (atomic_load(&s->closing)) {
            /* Its stream is going away (destroyed, its device reset, ACL finalized) with the
             * record unexecuted -- perhaps in a process that died: the wait gives up and what is
             * queued after it is discarded, as value.c's waits do (simulator choice). */
            atomic_store(&s->discard, true);
            break;
        }
        if (sim_futex_wait(w, cur, timed ? &deadline : NULL) == ETIMEDOUT && !reached(atomic_load(w), gen)) {
            snprintf(msg, msglen, k_timed_out, timeout_s);
            rc = ACL_ERROR_RT_TASK_TIMEOUT; /* the wait task's timeout, as for the other event waits */
            break;
        }
    }
    sim_stream_unblock(s);
    return rc;
}

aclError sim_ipc_event_wait(sim_stream *s, sim_task *t, sim_ipc_event *ie, uint32_t gen, uint32_t timeout_s,
                            bool park, char *msg, size_t msglen)
{
    _Atomic uint32_t *w = &ie->page->done;
    if (!park)
        return block_wait(s, ie, t, gen, timeout_s, msg, msglen);
    if (!t->parked) {
        if (reached(atomic_load(w), gen))
            return ACL_SUCCESS; /* recorded already, the common case: no parking machinery */
        if (timeout_s)
            t->wait_deadline_ns = sim_now_ns() + (uint64_t)timeout_s * 1000000000ull;
    }
    sim_park_arm(s); /* before the read that decides to park: a wake-up after it is not lost */
    sim_watch_remove(s);
    uint32_t cur = atomic_load(w);
    if (reached(cur, gen) || sim_stream_abort_requested(s))
        return ACL_SUCCESS;
    if (atomic_load(&s->closing)) { /* as the blocking form */
        atomic_store(&s->discard, true);
        return ACL_SUCCESS;
    }
    if (t->wait_deadline_ns && sim_now_ns() >= t->wait_deadline_ns) {
        snprintf(msg, msglen, k_timed_out, timeout_s);
        return ACL_ERROR_RT_TASK_TIMEOUT;
    }
    /* A record in any process moves `done` and wakes its futex: the watch hears it. */
    if (!sim_watch_add(s, w, cur))
        return block_wait(s, ie, t, gen, timeout_s, msg, msglen);
    return sim_park(s, t, t->wait_deadline_ns);
}

aclError sim_ipc_event_sync(sim_ipc_event *ie, sim_context *ctx, int32_t timeout_ms, const char *func)
{
    uint32_t gen = sim_ipc_event_pending(ie);
    if (!gen)
        return ACL_SUCCESS; /* nothing pending (IpcEventSync: the latest slot is unreferenced) */
    struct timespec deadline;
    bool timed = sim_deadline(timeout_ms, &deadline);
    _Atomic uint32_t *w = &ie->page->done;
    for (;;) {
        uint32_t cur = atomic_load(w);
        if (reached(cur, gen))
            return ACL_SUCCESS;
        /* IpcEventSync checks the context's state while it waits: a stop-on-failure failure
         * ends the wait. The futex sleep is cut into 100 ms turns to look at it. */
        aclError rc = sim_context_failure(ctx, func);
        if (rc)
            return rc;
        struct timespec turn;
        sim_deadline(100, &turn);
        bool last = timed && (turn.tv_sec > deadline.tv_sec ||
                              (turn.tv_sec == deadline.tv_sec && turn.tv_nsec >= deadline.tv_nsec));
        if (sim_futex_wait(w, cur, last ? &deadline : &turn) == ETIMEDOUT && last && !reached(atomic_load(w), gen))
            return sim_fail_(func, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, "IPC event not complete after %d ms", timeout_ms);
    }
}

/* ------------------------------------------------------------------ the two calls -------- */

SIM_API aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(handle);
    SIM_CHECK_NOT_NULL(event);
    aclError rc = sim_ipc_event_supported(__func__);
    if (rc)
        return rc;
    sim_event *e = (sim_event *)sim_handle_get(event, SIM_KIND_EVENT);
    if (!e)
        return sim_fail(ACL_ERROR_RT_INVALID_HANDLE, "event %p is not a live event (destroyed, or not an event)", event);
    if (e->flags != ACL_EVENT_IPC || !e->ipc) { /* ApiImplEvent::IpcGetEventHandle */
        rc = sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                      "the event's flag is 0x%x: only events of aclrtCreateEventExWithFlag(ACL_EVENT_IPC) have an "
                      "IPC handle", e->flags);
    } else {
        memset(handle, 0, sizeof *handle);
        memcpy(handle->reserved, &e->ipc->handle, IPC_HANDLE_BYTES);
    }
    sim_obj_put(&e->obj);
    return rc;
}

SIM_API aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(event);
    aclError rc = sim_ipc_event_supported(__func__);
    if (rc)
        return rc;
    uint64_t id;
    memcpy(&id, handle.reserved, IPC_HANDLE_BYTES);
    sim_context *c = sim_current_context(__func__);
    if (!c)
        return ACL_ERROR_RT_CONTEXT_NULL;
    sim_obj_put(&c->obj);
    sim_share_import imp;
    if ((rc = sim_share_import_id(id, __func__, &imp)))
        return sim_fail(rc, "the handle (0x%016" PRIx64 ") names no live IPC event (its creator destroyed it or "
                        "exited, or it is not from aclrtIpcGetEventHandle)", id);
    ipc_page *page = imp.len == sizeof(ipc_page) ? map_page(imp.data_fd) : NULL;
    sim_share_import_done(&imp); /* the mapping is all this process keeps */
    if (!page || page->magic != PAGE_MAGIC) {
        if (page)
            munmap(page, sizeof(ipc_page));
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "the handle (0x%016" PRIx64 ") is not an IPC event's (another shareable handle?)", id);
    }
    sim_ipc_event *ie = calloc(1, sizeof *ie);
    if (!ie) {
        munmap(page, sizeof(ipc_page));
        return sim_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "out of host memory");
    }
    ie->page = page;
    ie->handle = id;
    /* ApiImplEvent::IpcOpenEventHandle: a new event of the current context, flag IPC. */
    if ((rc = sim_event_create_ipc(event, ie, __func__)))
        sim_ipc_event_release(ie);
    return rc;
}
