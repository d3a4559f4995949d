/*
 * aiocann simulator: the event calls that only read an event's public state (sim.h):
 * aclrtCreateEventExWithFlag, aclrtQueryEvent, aclrtQueryEventWaitStatus, aclrtGetEventId.
 *
 * Semantics from src/acl/aclrt_impl/event.cpp, src/runtime/api/impl/api_error.cc
 * (ApiErrorDecorator::EventQuery, EventQueryWaitStatus, GetEventID) and
 * src/runtime/core/src/event/event.cc (Event::Query, QueryEventWaitStatus, GetEventID).
 * Locking: each reads its event under event->lock only.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "sim.h"

static sim_event *lookup(aclrtEvent event, const char *func, aclError *rc)
{
    sim_event *e = (sim_event *)sim_handle_get(event, SIM_KIND_EVENT);
    if (!e)
        *rc = sim_fail_(func, ACL_ERROR_RT_INVALID_HANDLE, "event %p is not a live event (destroyed, or not an event)",
                        event);
    return e;
}

/* "New mode" events: the same flags as aclrtCreateEventWithFlag, but no reset and no
 * QueryEvent/QueryEventWaitStatus, and an event never recorded counts as complete. (The real
 * runtime takes no hardware event until the first record; the simulator's events cost nothing,
 * so they count against AIOCANN_SIM_MAX_EVENTS like the others.) */
SIM_API aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(event);
    if ((flag & ACL_EVENT_IPC) && flag != ACL_EVENT_IPC)
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID, "ACL_EVENT_IPC cannot be combined with other flags (0x%x)", flag);
    /* ApiErrorDecorator::EventCreateEx: otherwise a non-empty combination of SYNC,
     * CAPTURE_STREAM_PROGRESS, 0x4 and TIME_LINE only -- EXTERNAL and 0 are 107000. */
    const uint32_t combinable = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | 0x4u | ACL_EVENT_TIME_LINE;
    if (flag != ACL_EVENT_IPC && (!(flag & combinable) || (flag & ~combinable)))
        return sim_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "flag 0x%x is not a combination of ACL_EVENT_SYNC, ACL_EVENT_CAPTURE_STREAM_PROGRESS and "
                        "ACL_EVENT_TIME_LINE (nor ACL_EVENT_IPC alone)", flag);
    if (flag == ACL_EVENT_IPC) /* issue 23: the shared page is made with it (ipc_event.c, IpcEvent::Setup) */
        return sim_event_create_ipc(event, NULL, __func__);
    aclrtEvent h = NULL;
    aclError rc = aclrtCreateEventWithFlag(&h, flag);
    if (rc)
        return rc;
    sim_event *e = lookup(h, __func__, &rc);
    if (!e)
        return rc; /* destroyed by another thread already: it guessed the handle */
    pthread_mutex_lock(&e->lock);
    e->ex_mode = true; /* before anyone is given the handle */
    pthread_mutex_unlock(&e->lock);
    sim_obj_put(&e->obj);
    *event = h;
    return ACL_SUCCESS;
}

/* Refusals shared by the two deprecated-style queries: new-mode, external and IPC events. */
static aclError check_queryable(const sim_event *e, const char *func)
{
    if (e->ex_mode)
        return sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "events from aclrtCreateEventExWithFlag do not support this query");
    if (e->flags & (ACL_EVENT_EXTERNAL | ACL_EVENT_IPC))
        return sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "external and IPC events do not support this query");
    return ACL_SUCCESS;
}

/* The event, +1 ref, unless a capture still holds its record (ApiErrorDecorator: 107028
 * comes first); NULL with the error in *rc. */
static sim_event *lookup_queryable(aclrtEvent event, const char *func, aclError *rc)
{
    sim_event *e = lookup(event, func, rc);
    if (e && (*rc = sim_capture_event_busy(e, func))) {
        sim_obj_put(&e->obj);
        return NULL;
    }
    return e;
}

/* Whether the event is still busy, for the two queries below: its latest record submitted but
 * not executed (waits = false), or an aclrtStreamWaitEvent on it not yet passed by its stream
 * (waits = true). */
static aclError query_busy(aclrtEvent event, bool waits, bool *busy, const char *func)
{
    aclError rc;
    sim_event *e = lookup_queryable(event, func, &rc);
    if (!e)
        return rc;
    pthread_mutex_lock(&e->lock);
    rc = check_queryable(e, func);
    *busy = waits ? e->waits_done < e->waits_submitted : e->done_gen < e->record_gen;
    /* issue 21: a latest record lost behind a STARS stop-on-failure abort (event.c): Event::Query
     * reclaims first, and the recording stream's context failure comes back (ReclaimTask ->
     * CheckContextStatus). */
    if (!rc && !waits && e->done_gen < e->record_gen && e->lost_gen >= e->record_gen)
        rc = sim_fail_(func, e->lost_code, "the event's record follows a failed task of a stream that stopped on failure");
    pthread_mutex_unlock(&e->lock);
    sim_obj_put(&e->obj);
    return rc;
}

/* Deprecated. NOT_READY while its latest record is submitted but not executed; otherwise
 * (executed, or never recorded) COMPLETE -- Event::Query. */
SIM_API aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(event);
    SIM_CHECK_NOT_NULL(status);
    bool busy;
    aclError rc = query_busy(event, false, &busy, __func__);
    if (!rc)
        *status = busy ? ACL_EVENT_STATUS_NOT_READY : ACL_EVENT_STATUS_COMPLETE;
    return rc;
}

/* Whether every aclrtStreamWaitEvent on this event has been passed by its stream. An event
 * that cannot be waited on (no ACL_EVENT_SYNC) has none, so it is COMPLETE. */
SIM_API aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(event);
    SIM_CHECK_NOT_NULL(status);
    bool busy;
    aclError rc = query_busy(event, true, &busy, __func__);
    if (!rc)
        *status = busy ? ACL_EVENT_WAIT_STATUS_NOT_READY : ACL_EVENT_WAIT_STATUS_COMPLETE;
    return rc;
}

/* An event's id: a small integer unique among live events, reused once the event is
 * destroyed, as the device's event ids are. Events made only for timestamps (no
 * ACL_EVENT_SYNC) have no id on the device (Event::GetEventID: 507000), IPC events refuse. */
SIM_API aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(event);
    SIM_CHECK_NOT_NULL(eventId);
    aclError rc = ACL_SUCCESS;
    sim_event *e = lookup(event, __func__, &rc);
    if (!e)
        return rc;
    if (e->flags == ACL_EVENT_IPC)
        rc = sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "IPC events have no event id");
    else if (!(e->flags & ACL_EVENT_SYNC))
        rc = sim_fail(ACL_ERROR_RT_INTERNAL_ERROR, "the event was created without ACL_EVENT_SYNC: it has no event id");
    else
        *eventId = sim_handle_slot(e->obj.handle);
    sim_obj_put(&e->obj);
    return rc;
}
