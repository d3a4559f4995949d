/*
 * aiocann simulator: its extensions to the ACL API. A real CANN runtime exports none of these;
 * the loader then reports them missing (aiocann_has_function) and callers fall back.
 *
 * The only one is the timeline trace; nothing on the completion path depends on it.
 *
 * While tracing is on, the simulator records every task a stream executes and every block an
 * AI core runs, with CLOCK_MONOTONIC timestamps (nanoseconds; the same clock as Python's
 * time.monotonic_ns()). aiocann.trace() drains the records into a Chrome trace. A real CANN
 * runtime does not export these functions; the loader then reports them as missing and the
 * trace falls back to host-side timing.
 *
 * The region between the cffi markers is part of the cffi cdef (native/build_ffi.py).
 */
#ifndef AIOCANN_ACLSIM_EXT_H_
#define AIOCANN_ACLSIM_EXT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cffi-begin */
#define ACLSIM_TRACE_KERNEL 1
#define ACLSIM_TRACE_MEMCPY 2
#define ACLSIM_TRACE_MEMSET 3
#define ACLSIM_TRACE_EVENT_RECORD 4
#define ACLSIM_TRACE_EVENT_RESET 5
#define ACLSIM_TRACE_EVENT_WAIT 6
#define ACLSIM_TRACE_CALLBACK 7
#define ACLSIM_TRACE_BLOCK 8

typedef struct aclsimTraceRecord {
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t stream;   /* stream handle (tasks and blocks) */
    uint64_t seq;      /* the task's sequence number on its stream */
    uint64_t bytes;    /* copies and memsets: byte count; events: the event handle */
    int32_t device;
    int32_t core;      /* blocks: the AI core that ran it; tasks: -1 */
    int32_t block;     /* blocks: block index; tasks: number of blocks for kernels, else -1 */
    int32_t type;      /* ACLSIM_TRACE_* */
    int32_t status;    /* 0, or the task's error code */
    char name[36];     /* kernel name for kernels and blocks */
} aclsimTraceRecord;

/* BEGIN GENERATED "trace": written by native/gen_acl.py from native/acl_functions.py */
/* Starts recording into a buffer of `capacity` records (records beyond it are dropped and
 * counted). Returns 0, or -1 if out of memory. Restarting clears the buffer. */
int aclsimTraceStart(size_t capacity);
/* Stops recording; returns the number of records dropped for lack of room. */
uint64_t aclsimTraceStop(void);
/* Moves up to max records out, oldest first; returns how many. */
size_t aclsimTraceDrain(aclsimTraceRecord *out, size_t max);
/* END GENERATED "trace" */
/* cffi-end */

#ifdef __cplusplus
}
#endif

#endif /* AIOCANN_ACLSIM_EXT_H_ */
