/*
 * aiocann native helpers: what the extension adds to the ACL API.
 *
 *   loader.c            opens a runtime library and fills the ACL function table
 *   completion_queue.c  the completion queue (C callback -> token queue -> eventfd) and the
 *                       per-device report thread that runs aclrtProcessReport
 *   fastpath.c          the hot sequences as single C calls (launch + its completion callback)
 *   loop_timer.c        a timerfd that wakes the event loop on time for its next timer
 *   (hotpath.c is another extension, aiocann._hotpath, that calls these through their addresses)
 *
 * The region between the cffi markers is part of the cffi cdef (native/build_ffi.py).
 */
#ifndef AIOCANN_NATIVE_H_
#define AIOCANN_NATIVE_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"

/* cffi-begin */
/* ---- loader ---- */
/* Opens the runtime library at path and fills the function table. Returns 0, or -1 with a
 * description in err. Loading a second, different library into one process is refused. */
int aiocann_load(const char *path, char *err, size_t errlen);
const char *aiocann_loaded_path(void);
/* 1 if the loaded library provides the named ACL function (optional ones may be missing, and
 * are then the stand-ins of acl_standins.h); for the runtime compiler's aclrtc* functions, the
 * runtime library or libacl_rtc.so beside it. */
int aiocann_has_function(const char *name);

/* ---- host memory ---- */
/* 1 if [p, p + len) is readable (and writable, with `write`) by this process; never faults
 * (native/common/host_probe.h). */
int aiocann_host_accessible(const void *p, size_t len, int write);

/* ---- contexts ---- */
/* Makes ctx the calling thread's current context, unless aiocann already made it so on this
 * thread (a thread-local cache: the launch path then costs one comparison, not a call). */
aclError aiocann_bind_context(aclrtContext ctx);
/* The calling thread's current context was changed other than by aiocann_bind_context. */
void aiocann_forget_context(void);

/* ---- completion queue ---- */
/* A queue serves the streams of one context: the calls below that enqueue work bind it. */
typedef struct aiocann_cq aiocann_cq;
/* A stream registered with a queue, so that the runtime's exception reports (which name a
 * stream id and a task id) reach the completion of the work they are about. */
typedef struct aiocann_cq_stream aiocann_cq_stream;
/* Returns NULL with the reason in *rc (e.g. the runtime has no exception-info callbacks). */
aiocann_cq *aiocann_cq_new(aclrtContext ctx, aclError *rc);
void aiocann_cq_free(aiocann_cq *cq);
/* An eventfd that is readable exactly while completions are queued. */
int aiocann_cq_fd(aiocann_cq *cq);
/* Registers stream with cq under key (what stream-level reports carry, see below). NULL with
 * the reason in *rc. */
aiocann_cq_stream *aiocann_cq_stream_new(aiocann_cq *cq, aclrtStream stream, uint64_t key, aclError *rc);
/* Unregisters; the stream's work must have completed (or be abandoned). */
void aiocann_cq_stream_free(aiocann_cq_stream *qs);
/* Moves up to max completions out: their tokens, their status (0, or the ACL error of the
 * work's failed task) and a malloc'ed description of the failure or NULL, which the caller
 * frees with aiocann_free. A token with AIOCANN_STREAM_REPORT set is a failure of a task that
 * was not aiocann's, on the stream registered with the key in its low bits. */
size_t aiocann_cq_drain(aiocann_cq *cq, uint64_t *tokens, int32_t *status, char **messages, size_t max);
void aiocann_free(void *p);
/* How many completions are queued now. */
size_t aiocann_cq_pending(aiocann_cq *cq);
#define AIOCANN_STREAM_REPORT 0x8000000000000000
/* Queues a completion for token once all work submitted to the stream so far is done. `work`
 * says that the calling thread has just submitted the work this completion is for (its task
 * id is then the thread's last one), so that a failure of that task fails this completion;
 * without it the completion is a marker, which holds the stream until it has run and
 * delivers every failure of the stream's earlier tasks that no completion was for. */
aclError aiocann_cq_enqueue(aiocann_cq_stream *qs, uint64_t token, int work);
/* A drained entry with AIOCANN_TASK_REPORT set is the runtime's report that the work of the
 * completion whose token is in the other bits failed (status, message): it comes as soon as
 * the report does, before that completion -- which, on a stream that stops on failure, never
 * comes. The completion itself still carries the status when it comes. */
#define AIOCANN_TASK_REPORT 0x4000000000000000

/* A captured model registered with a queue: its own streams (aclmdlRIGetStreams), which the
 * runtime's reports of a failed replay name (model_execute_task.cc), so that such a report
 * reaches the replay's completion. NULL with the reason in *rc. */
typedef struct aiocann_cq_model aiocann_cq_model;
aiocann_cq_model *aiocann_cq_model_new(aiocann_cq *cq, aclmdlRI model, aclError *rc);
void aiocann_cq_model_free(aiocann_cq_model *m);
/* Queues the completion of the replay of m the calling thread has just submitted to the
 * stream (aclmdlRIExecuteAsync). It holds the stream until it has run, and fails with the
 * first report on m's streams since the previous replay of m completed: the caller must not
 * let two replays of m run at once (graph.py orders them). */
aclError aiocann_cq_enqueue_replay(aiocann_cq_stream *qs, uint64_t token, aiocann_cq_model *m);

/* ---- report thread ---- */
typedef struct aiocann_reporter aiocann_reporter;
/* Starts a thread that makes ctx current and loops aclrtProcessReport. *rc gets the failure. */
aiocann_reporter *aiocann_reporter_start(aclrtContext ctx, aclError *rc);
/* The thread's id, for aclrtSubscribeReport. */
uint64_t aiocann_reporter_thread_id(aiocann_reporter *r);
/* Stops and joins the thread (after running every callback already delivered), then frees r.
 * Callable from any thread; the calling thread's current context is preserved. */
aclError aiocann_reporter_stop(aiocann_reporter *r);

/* ---- fast paths ---- */
/* aclrtLaunchKernelWithConfig followed by aiocann_cq_enqueue(qs, token, 1), as one call (with
 * the queue's context bound first).
 * *launched is set to 1 once the kernel is enqueued: a failure with *launched == 1 means the
 * kernel will run but no completion will come for it. */
aclError aiocann_launch(aiocann_cq_stream *qs, aclrtFuncHandle func, uint32_t num_blocks, aclrtLaunchKernelCfg *cfg,
                        aclrtArgsHandle args, uint64_t token, int *launched);
/* The same for aclrtMemcpyAsync. */
aclError aiocann_memcpy(aiocann_cq_stream *qs, void *dst, size_t dest_max, const void *src, size_t count,
                        aclrtMemcpyKind kind, uint64_t token, int *launched);
/* aclmdlRIExecuteAsync of model on the stream followed by aiocann_cq_enqueue_replay(qs, token, m),
 * as one call (Graph.launch; the same *launched contract). */
aclError aiocann_replay(aiocann_cq_stream *qs, aclmdlRI model, aiocann_cq_model *m, uint64_t token, int *launched);

/* ---- loop timer (loop_timer.c: why) ---- */
/* A non-blocking timerfd on CLOCK_MONOTONIC (the clock of asyncio's loop.time()); -1 with errno. */
int aiocann_timer_open(void);
/* Makes fd readable at `when`, in seconds of CLOCK_MONOTONIC (replacing any earlier expiry; a
 * time that has passed fires at once). 0, or -1 with errno. */
int aiocann_timer_arm(int fd, double when);
/* Makes a fired fd unreadable again. */
void aiocann_timer_clear(int fd);
/* cffi-end */

/* Internal to the extension. */
aclrtContext aiocann_cq_stream_context(aiocann_cq_stream *qs);
aclrtStream aiocann_cq_stream_handle(aiocann_cq_stream *qs);

#endif /* AIOCANN_NATIVE_H_ */
