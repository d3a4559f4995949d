/*
 * aiocann simulator: internal declarations shared by the runtime's files.
 *
 * The simulator is the ACL runtime implemented on the CPU: one file per concept, grouped below
 * by concept from the floor (what everything stands on) to the roof (aclInit/aclFinalize, the
 * one file that calls into every subsystem). This map names every file, one line each at the
 * start of its entry, and tests/sim/test_sim_layout.py keeps it so.
 *
 * The floor -- process state, errors, handles, faults, the chip:
 *   rt_floor.c     the process-wide state (g_rt, the fork flag), lock and clock helpers,
 *                  booting the runtime: configuration from the environment, visible devices
 *   error.c        thread-local recent error messages and last error code, the failure helper
 *   handle.c       the handle table: every stream/event/context/binary/function handle is an
 *                  encoded (kind, generation, slot) value, so stale and foreign handles are
 *                  detected without ever dereferencing them
 *   fault.c        contained faults: guarded execution of kernel blocks and copies
 *   chip.c         the simulated chip (aclsim_chip.h): the one description every part reads
 *   trace.c        the timeline trace (aclsim_ext.h): the records tasks and blocks add
 *
 * Devices -- what a device is and what programs ask about it:
 *   device.c       devices, contexts, the AI-core thread pool of each device
 *   device_query.c what programs ask about devices and contexts: run mode, SoC, attributes,
 *                  utilization, status, id mappings, peer access, system parameters
 *   res_limit.c    cube/vector core limits of a device, a stream, a thread
 *   topology.c     the topology between two devices
 *   group.c        device groups (the simulated chip has none)
 *   op_timeout.c   operator execute and wait timeouts (process configuration)
 *
 * Streams and their tasks -- the executor and the kinds of task it runs (sim_task_ops: each
 * kind's operations live in the file that owns the kind):
 *   stream.c       streams: ordered task queues; a stream's turn on a pool worker runs,
 *                  discards and traces its tasks through their kinds' operations
 *   executor.c     the pool of worker threads that runs whichever streams have work
 *   futex_watch.c  parking for waits on words other processes write (futex_waitv watchers)
 *   stream_attr.c  stream attributes, forced stream destruction
 *   stream_config.c  stream config handles, aclrtCreateStreamV2, stream flags and priority,
 *                  stream state callbacks, aclrtStreamStop
 *   abort.c        aclrtStreamAbort, aclrtDeviceTaskAbort
 *   event.c        events: records, waits, timestamps; the event tasks
 *   event_query.c  event queries that need only public event state (ids, wait status, ...)
 *   ipc_event.c    IPC events: the shared page records and waits of several processes use,
 *                  aclrtIpcGetEventHandle / aclrtIpcOpenEventHandle
 *   callback.c     report subscription, host callbacks (the callback task), aclrtProcessReport
 *   host_func.c    aclrtLaunchHostFunc (run on the runtime's own callback threads) and the
 *                  host-function subscription calls, over callback.c's machinery
 *   exception.c    exception-info callbacks: how the runtime says which task failed
 *   capture.c      stream capture (ACL Graph): aclmdlRICapture*, models and their replay (the
 *                  model task), task groups and task update (the update task)
 *   model_build.c  models built by stream binding (aclmdlRIBuildBegin ... BuildEnd): bound
 *                  streams record their tasks, the replay's schedule; aclmdlRIDebugJsonPrint
 *   label.c        labels and label lists: aclrtSetLabel, aclrtSwitchLabelByIndex (their tasks)
 *   stream_switch.c  aclrtSwitchStream, aclrtActiveStream: a model's stream control tasks
 *   cond.c         condition handles and condition tasks of captured models (IF/WHILE/SWITCH
 *                  on a device value; the sub-models aclmdlRICaptureToModelRIBegin fills)
 *   notify.c       notifies: stream-ordered record and wait-and-reset, IPC export/import
 *   overflow.c     overflow detection: the stream switch, the device's overflow status
 *
 * Kernels -- binaries, their functions and launches:
 *   binary.c       kernel binaries (host shared objects) and their functions
 *   cpu_kernel.c   AI CPU function registration (aclrtRegisterCpuFunc)
 *   kernel_args.c  aclrtKernelArgs*: layout and state machine of reference section 10
 *   launch.c       aclrtLaunchKernelWithConfig / aclrtLaunchKernel; the kernel task
 *   kernel_rt.c    the table kernel binaries call (aclsim_kernel.h): a broken hardware rule or
 *                  trap() ends the block as an AI-core exception, printf lines, the chip, the UB
 *   rtc.c          runtime compilation (aclrtc*): the source compiled by aiocann's kernel
 *                  compiler in a child process; the RTC error codes
 *
 * Memory -- device and host memory, copies, and the stream-ordered memory operations:
 *   memory.c       device memory (reserved address range, guard pages), pinned host memory,
 *                  the copy engine, memcpy/memset (the copy and memset tasks)
 *   memory_ext.c   the other allocation calls, cache maintenance, pointer attributes, 2-D copies
 *   vmm.c          virtual address reservations, physical memory handles (memfd), mapping,
 *                  allocation granularity, shareable handles of physical memory
 *   share.c        what crosses processes: share records (a memfd per export: the exporter,
 *                  its memory's fd, the import-pid whitelist), found by other processes
 *                  through /proc/PID/fd
 *   ipc.c          aclrtIpcMem*: keys for aclrtMalloc memory
 *   host_register.c  aclrtHostRegister*: host memory the device may access
 *   allocator.c    the external-allocator registry (aclrtAllocator*)
 *   uce.c          aclrtGetMemUceInfo / aclrtMemUceRepair
 *   memcpy_desc.c  copies described in device memory; aclrtMemcpyAsyncWithCondition
 *   value.c        aclrtValueWrite / aclrtValueWait stream tasks; the stream-operation helpers
 *   reduce.c       aclrtReduceAsync: a reduction of device memory as a stream task
 *   cmo.c          aclrtCmoAsync: cache maintenance as a stream task
 *   random.c       aclrtRandomNumAsync: random numbers into device memory as a stream task
 *   memory_managed.c  managed memory (aclrtMemAllocManaged), aclrtMemSetAccess, the V2
 *                  shareable handles of physical memory
 *
 * The rest of CANN's surface -- what programs written for CANN call around the runtime:
 *   base.c         acl_base_rt.h's helpers (fp16, data buffers, type sizes, aclAppLog), version,
 *                  arch and error-detail queries
 *   not_provided.c the dump, profiler and tensor-data-transfer libraries: 200001 with a
 *                  message
 *
 * The roof:
 *   runtime.c      aclInit/aclFinalize (which tears every subsystem down), package versions
 *
 * Locking order (outer to inner): g_rt.lock > device->lock > capture lock (capture.c) >
 * stream->lock > event->lock / subscriber->lock / pool->lock / model run lock > handle table
 * lock. No lock is held while a kernel block, a copy or a user callback runs. Issue 23: the
 * capture lock and label.c's label lock are each outer to model_build.c's build lock, which is
 * never held with a stream lock; cond.c's cond lock is a leaf.
 */
#ifndef AIOCANN_SIM_H_
#define AIOCANN_SIM_H_

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#define ACLSIM_BUILDING_SIMULATOR 1 /* no kernel runtime slot here (aclsim_kernel.h) */
#include "aclsim_kernel.h"
#include "aclsim_ext.h"

#define SIM_API __attribute__((visibility("default")))

typedef struct sim_device sim_device;
typedef struct sim_context sim_context;
typedef struct sim_stream sim_stream;
/* A wake-up owed to an idle stream worker (executor.c): what sim_exec_wake signals. */
typedef pthread_cond_t *sim_wake;
typedef struct sim_event sim_event;
/* Streams parked on one thing (an event, a report, a notify, the value bell: executor.c),
 * linked through sim_stream.wq_*; guarded by the owner's lock. */
typedef struct sim_waitq {
    sim_stream *head;
} sim_waitq;
typedef struct sim_subscriber sim_subscriber;
typedef struct sim_binary sim_binary;
typedef struct sim_function sim_function;

/* ------------------------------------------------------------------ configuration -------- */

#define SIM_MAX_DEVICES 64 /* AIOCANN_SIM_DEVICES at most */

/* What ASCEND_RT_VISIBLE_DEVICES made of the physical devices (Runtime::GetVisibleDevices). */
typedef enum sim_visible_state {
    SIM_VISIBLE_UNSET,      /* not in the environment: user id = logical id, every device */
    SIM_VISIBLE_OK,         /* the listed devices, renumbered from 0 */
    SIM_VISIBLE_DUPLICATED, /* an id repeats: no device usable */
    SIM_VISIBLE_ORDER,      /* ids not ascending: no device usable */
    SIM_VISIBLE_NONE,       /* no valid id before the first invalid one (or empty): none usable */
} sim_visible_state;

#define SIM_VISIBLE_STR_MAX 128 /* RT_SET_DEVICE_STR_MAX_LEN: the runtime reads this much of it */

typedef struct sim_config {
    int physical_devices;    /* AIOCANN_SIM_DEVICES, default 8 (a 910B server): the machine's devices */
    int num_devices;         /* the devices this process sees (user ids 0..num_devices-1) */
    sim_visible_state visible;
    int32_t logic_id[SIM_MAX_DEVICES];       /* user id -> logical (physical) id */
    char visible_str[SIM_VISIBLE_STR_MAX + 1]; /* ASCEND_RT_VISIBLE_DEVICES as read */
    int cores_per_device;    /* AIOCANN_SIM_CORES, default 8 */
    size_t device_memory;    /* AIOCANN_SIM_MEMORY (bytes, k/m/g suffix), default 4 GiB */
    int max_streams;         /* AIOCANN_SIM_MAX_STREAMS, default 1984 (incl. default streams) */
    int max_events;          /* AIOCANN_SIM_MAX_EVENTS, default 65536 */
    int model_destroy_wait_ms; /* AIOCANN_SIM_MODEL_DESTROY_WAIT_MS: how long aclmdlRIDestroy waits
                                * for running replays, default 10000 (Context::ModelDestroy) */
    uint64_t spin_ns;        /* AIOCANN_SIM_SPIN_US: how long an idle stream worker polls */
    int stream_workers;      /* AIOCANN_SIM_STREAM_WORKERS: the executor's pool, 0 = CPUs + cores */
    uint64_t op_timeout_interval_ns; /* AIOCANN_SIM_OP_TIMEOUT_INTERVAL_US x 1000; 0: the A2's */
} sim_config;

/* ------------------------------------------------------------------ locks ----------------- */

/* The locks on the launch path (handle table, stream queues, subscribers, core pool) are held
 * for a few dozen instructions at a time, by threads that run on other cores. A plain mutex
 * puts a contending thread to sleep at once, and on a 2-core machine the futex round trip and
 * context switch cost more than the critical section; an adaptive mutex spins briefly first. */
#define SIM_MUTEX_INITIALIZER PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
void sim_mutex_init(pthread_mutex_t *m);
/* A condition variable whose timed waits measure CLOCK_MONOTONIC (sim_deadline's clock). */
void sim_cond_init_monotonic(pthread_cond_t *cv);

/* ------------------------------------------------------------------ errors (error.c) ------ */

/* Records "func: message" as the calling thread's newest recent error and returns code. */
aclError sim_fail_(const char *func, aclError code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define sim_fail(code, ...) sim_fail_(__func__, (code), __VA_ARGS__)
/* Records a message that was prepared earlier (e.g. a stream's stored task failure). */
void sim_error_message(const char *func, const char *text);
/* The calling thread's last runtime error (aclrtGetLastError / aclrtPeekAtLastError). As in
 * the real runtime, only runtime-layer codes (107xxx, 207xxx, 507xxx) are recorded, by the
 * failing call; success never clears it. sim_fail_ records it for those codes; a call that
 * returns an error it did not produce with sim_fail_ (a task failure at synchronize) calls
 * this itself. */
void sim_set_last_error(aclError code);
#define SIM_CHECK_NOT_NULL(p) \
    do { if ((p) == NULL) return sim_fail(ACL_ERROR_INVALID_PARAM, "%s must not be NULL", #p); } while (0)

/* ------------------------------------------------------------------ handles (handle.c) ---- */

typedef enum sim_kind {
    SIM_KIND_CONTEXT = 1,
    SIM_KIND_STREAM = 2,
    SIM_KIND_EVENT = 3,
    SIM_KIND_BINARY = 4,
    SIM_KIND_FUNCTION = 5,
    SIM_KIND_BINARY_DESC = 6, /* aclrtCreateBinary's descriptor (not loaded) */
    SIM_KIND_MODEL = 7,       /* aclmdlRI (capture.c) */
    SIM_KIND_TASKGRP = 8,     /* aclrtTaskGrp (capture.c) */
    SIM_KIND_LABEL = 9,       /* aclrtLabel (label.c; issue 23) */
    SIM_KIND_LABEL_LIST = 10, /* aclrtLabelList (label.c) */
    SIM_KIND_COND = 11,       /* aclmdlRICondHandle (cond.c) */
    /* issue 11: numbered down from the top of the 4-bit kind space (at most 15), clear of
     * kinds added upwards. Memory family: */
    SIM_KIND_PHYS = 12,       /* aclrtDrvMemHandle: a physical memory handle (vmm.c) */
    SIM_KIND_ALLOCATOR = 13,  /* aclrtAllocatorDesc (allocator.c) */
    /* device share: */
    SIM_KIND_NOTIFY = 15,     /* aclrtNotify (notify.c) */
} sim_kind;

/* Every handle-bearing object starts with this header. The table holds one reference while
 * the handle is open; each successful lookup returns another that the caller drops with
 * sim_obj_put. The object is destroyed by the last put. */
typedef struct sim_obj {
    atomic_int refs;
    sim_kind kind;
    void *handle;
    void (*destroy)(struct sim_obj *);
} sim_obj;

void sim_obj_init(sim_obj *o, sim_kind kind, void (*destroy)(sim_obj *));
void *sim_handle_open(sim_obj *o);                  /* NULL when the table is full */
sim_obj *sim_handle_get(const void *h, sim_kind k); /* +1 ref, or NULL if stale/foreign */
sim_obj *sim_handle_close(const void *h, sim_kind k); /* unregisters; returns the table's ref */
void sim_obj_get(sim_obj *o);
void sim_obj_put(sim_obj *o);
const char *sim_kind_name(sim_kind k);
/* The slot index a live handle encodes: a small integer, unique among live handles and reused
 * after a close, which is what the runtime's per-device ids (event ids) look like. */
uint32_t sim_handle_slot(const void *h);

/* ------------------------------------------------------------------ faults (fault.c) ----- */

/* Result of running code under a guard: sig is 0 on success, else the signal that ended it
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, or sim_fault_timeout_signal() when interrupted). Only a
 * fault the CPU reported has an address (has_addr); a signal some thread sent (raise, kill,
 * sigqueue: `sent`) has none, and neither has a general-protection fault. */
typedef struct sim_fault {
    int sig;
    void *addr;    /* NULL unless has_addr */
    bool has_addr;
    bool sent;
    const char *what; /* sig == SIM_FAULT_KERNEL_RULE: the kernel's message (the guard's buffer) */
} sim_fault;

/* sim_fault.sig of a block the kernel itself ended (aclsim_kernel_rt.fail: an Ascend C rule
 * broken, trap()): no signal, the kernel's own message. */
#define SIM_FAULT_KERNEL_RULE (-1)

typedef struct sim_guard sim_guard;
typedef void (*sim_guarded_fn)(void *arg);
void sim_fault_install(void);             /* idempotent; installs the process signal handlers */
sim_guard *sim_fault_thread_init(void);   /* per worker thread: guard + alternate signal stack */
void sim_fault_thread_fini(sim_guard *g);
sim_fault sim_guarded_call(sim_guard *g, sim_guarded_fn fn, void *arg);
/* Interrupts the guarded call that thread t runs with guard g (kernel timeout). The caller
 * must know, under its own lock, that t is inside a guarded call it wants to end; a signal
 * that arrives after that call returned is ignored. */
void sim_fault_interrupt(sim_guard *g, pthread_t t);
int sim_fault_timeout_signal(void);
/* Ends the calling thread's guarded call as a fault carrying `what` (kernel_rt.c's fail):
 * never returns. A thread with no active guard has no block to end: the process aborts. */
__attribute__((noreturn)) void sim_fault_raise(const char *what);
/* The table kernel binaries call (kernel_rt.c); binary.c puts it in each binary's slot. A core
 * thread names the launch whose block it runs around each block (SyncAll needs it). */
const aclsim_kernel_rt *sim_kernel_rt(void);
struct sim_job;
void sim_kernel_rt_enter(struct sim_job *j);
/* What f was and where, for an error message: "invalid memory access (SIGSEGV) at address
 * 0x...", or a sentence saying there is no address. Returns buf. */
const char *sim_fault_text(sim_fault f, char *buf, size_t len);
/* Copies len bytes from src, which the caller was handed as an integer, into dst; false (and
 * nothing faults) if any of them is not readable. Any thread; no system call unless it faults. */
bool sim_guarded_read(void *dst, const void *src, size_t len);
const char *sim_fault_describe(int sig);

/* ------------------------------------------------------------------ runtime (rt_floor.c) - */

typedef struct sim_runtime {
    pthread_mutex_t lock;
    bool booted;                 /* the runtime has started (first use or aclInit) and not
                                  * been torn down by aclFinalize since */
    bool finalized;              /* aclFinalize since the last aclInit (aclFinalizeFlag) */
    sim_config cfg;
    uint64_t secret;             /* mixes user-memory args-handle cookies */
    uint64_t init_refs;          /* aclInit calls since the first, for aclFinalizeReference */
} sim_runtime;

extern sim_runtime g_rt;

uint64_t sim_now_ns(void); /* CLOCK_MONOTONIC */

/* fork(): the child has copies of the runtime's memory but none of its threads, and any lock
 * a vanished thread held stays locked. Every API entry point checks this first and refuses with
 * 100001 and a clear message, instead of deadlocking. */
extern atomic_bool g_sim_forked;
aclError sim_forked_error(const char *func);
#define SIM_CHECK_PROCESS() \
    do { if (atomic_load_explicit(&g_sim_forked, memory_order_relaxed)) return sim_forked_error(__func__); } while (0)
bool sim_is_initialized(void); /* the runtime has booted */
/* Boots the runtime on first use, as the real one boots on the process's first runtime call
 * (runtime.c): 0, or the configuration's or the chip's error, recorded for func. */
aclError sim_runtime_boot(const char *func);
/* The same with g_rt.lock held (aclInit, runtime.c). */
aclError sim_runtime_boot_locked(const char *func);
/* Why ASCEND_RT_VISIBLE_DEVICES leaves no device usable, or NULL if it does not. */
const char *sim_visible_problem(void);
/* Every call that needs the runtime's configuration boots the runtime first (no aclInit is
 * needed, as in the real runtime). */
#define SIM_REQUIRE_INIT() \
    do { aclError boot_rc_ = sim_runtime_boot(__func__); if (boot_rc_) return boot_rc_; } while (0)

/* Absolute deadline for a timeout in ms (-1 = forever); used with pthread_cond_timedwait. */
bool sim_deadline(int32_t timeout_ms, struct timespec *ts);

/* ------------------------------------------------------------------ devices (device.c) --- */

struct sim_stream;

/* A kernel launch as the AI cores see it: blocks are claimed one by one by idle cores. */
typedef struct sim_job {
    struct sim_job *next;
    const aclsim_kernel_desc *desc;
    const void *args;
    uint32_t num_blocks;
    uint32_t next_block;        /* guarded by pool lock */
    uint32_t running;           /* blocks currently executing, guarded by pool lock */
    uint32_t finished;          /* guarded by pool lock */
    bool batch;                 /* schedule mode 1: start only when enough cores are idle */
    bool abort;                 /* set on the first failure or timeout: unclaimed blocks skip */
    uint64_t timeout_us;        /* launch timeout attribute, 0 = none */
    uint64_t deadline_ns;       /* set when the first block starts */
    uint64_t start_ns;          /* the caller's clock read as it hands the job over, or 0: the
                                 * pool reads no clock of its own for a job started at once */
    bool timed_out;
    aclError error;             /* first failure */
    char errmsg[448];
    int device;                 /* for trace records */
    uint64_t stream, seq;
    pthread_cond_t done_cv;     /* signalled when finished == num_blocks (pool lock) */
    /* issue 11, device share. max_cores: at most this many blocks run at once (a core limit,
     * res_limit.c; 0 = all cores). status: the ACLSIM_BLOCK_STATUS_* bits its blocks reported
     * through take_status (NULL: the binary cannot report). running_slot: where the launching
     * stream keeps the job it runs, set and cleared under the pool lock, so that an abort can
     * find it (abort.c). killed: ended by an abort, not by a fault. All under the pool lock. */
    uint32_t max_cores;
    uint32_t status;
    uint32_t (*take_status)(void);
    struct sim_job **running_slot;
    bool killed;
    /* SyncAll (kernel_rt.c): blocks arrived at the current barrier and its generation, and how
     * many blocks can run at once (a barrier needs all of them running). */
    atomic_uint sync_arrived, sync_gen;
    uint32_t concurrency;
    int sat_mode;               /* issue 23: its stream's float overflow mode (kernel_rt.c) */
} sim_job;

/* One AI core: a slot that runs one block at a time. Normally its own thread runs the blocks;
 * a stream worker may borrow an idle slot to run a block of its own launch itself (saving two
 * thread hand-offs), so `runner`/`runner_guard` say which thread to interrupt on a timeout. */
typedef struct sim_core {
    pthread_t thread;
    sim_guard *guard;
    sim_job *job;               /* job whose block this core runs, guarded by pool lock */
    uint64_t block;
    bool borrowed;              /* a stream worker runs a block on this slot */
    pthread_t runner;
    sim_guard *runner_guard;
} sim_core;

typedef struct sim_core_pool {
    pthread_mutex_t lock;
    pthread_cond_t work_cv;
    sim_job *head, *tail;       /* jobs with unclaimed blocks, FIFO */
    int num_cores;
    int idle;
    sim_core *cores;
    bool stop;
    pthread_t watchdog;
    pthread_cond_t watchdog_cv;
    int timed_jobs;             /* jobs with a deadline currently queued or running */
    uint64_t watchdog_wake_ns;  /* when the watchdog looks next (pool lock) */
} sim_core_pool;

typedef struct sim_copy_req sim_copy_req;

typedef struct sim_copy_engine {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pthread_cond_t done_cv;
    sim_copy_req *head, *tail;
    bool stop;
    pthread_t thread;
} sim_copy_engine;

/* Device memory: one reserved virtual range per device; allocations are carved from it with
 * an unmapped gap on each side as long as the allocation (memory.c), so an overrun or underrun
 * faults instead of corrupting a neighbour. */
typedef struct sim_alloc {
    uintptr_t user;      /* start handed to the user (64-byte aligned) */
    size_t size;         /* requested size */
    size_t rounded;      /* ACL size rounding: roundup(size, 32) + 32 */
    uintptr_t map;       /* first page of the mapping */
    size_t map_len;      /* mapped bytes (pages, without the guard) */
} sim_alloc;

typedef struct sim_extent {
    uintptr_t start;
    size_t len;
} sim_extent;

/* A set of free address ranges, sorted by address (memory.c): the free space of a device's
 * reserved range, and of the virtual-memory arena (vmm.c). Not locked: its owner's lock. */
typedef struct sim_extents {
    sim_extent *v;
    size_t n, cap;
} sim_extents;
/* Takes len bytes from the first free range that holds them: at `want` when it is not 0
 * (which must then be free), else at the first address aligned to `align` (a power of two).
 * Returns the start, or 0 when nothing fits. */
uintptr_t sim_extents_take(sim_extents *x, size_t len, size_t align, uintptr_t want);
/* Gives [start, start+len) back, merged with its neighbours; false (the range stays lost,
 * which costs address space only) when the list cannot grow. */
bool sim_extents_give(sim_extents *x, uintptr_t start, size_t len);
void sim_extents_clear(sim_extents *x);

typedef struct sim_memory {
    pthread_mutex_t lock;
    uintptr_t base;
    size_t reserved;
    _Atomic uintptr_t space_lo, space_hi; /* [base, base+reserved), read without the lock */
    size_t capacity;     /* device memory size (cfg.device_memory) */
    size_t used;         /* sum of rounded sizes */
    sim_alloc *allocs;   /* sorted by user address */
    size_t nallocs, cap_allocs;
    sim_extents free;    /* free page ranges */
    /* issue 11: the device's memory is a memfd mapped at `base` (-1 when the system has no
     * memfd: private memory then, and aclrtIpcMemGetExportKey is not supported), so that
     * pages can be shared with other processes (ipc.c); and the bytes of physical memory
     * (vmm.c) held on the device, which count against its capacity whether it is active or
     * not (so not reset by sim_memory_fini). */
    int fd;
    size_t phys_used;
} sim_memory;

#define SIM_CTX_SYS_OPTS 3 /* aclrtCtxSetSysParamOpt accepts options 0..2 */

struct sim_context {
    sim_obj obj;
    struct sim_device *dev;
    bool is_default;
    /* Failure mode of the context (src/runtime/core/src/context/context.cc ctxMode_): setting
     * ACL_STOP_ON_FAILURE on any of its streams makes the whole context stop on failure. Once
     * a task fails in that mode, failure_error holds its code for good (Context::failureError_):
     * every submission, synchronize and query in the context returns it. Written by the API
     * thread (mode) and by a stream worker (failure_error), read without locks on hot paths. */
    _Atomic uint32_t mode;
    _Atomic aclError failure_error;
    struct sim_stream *default_stream;
    struct sim_context *next; /* device->contexts */
    /* aclrtCtxSetSysParamOpt values, guarded by dev->lock; unset ones read as 107021. */
    bool sys_opt_set[SIM_CTX_SYS_OPTS];
    int64_t sys_opt[SIM_CTX_SYS_OPTS];
};

struct sim_device {
    int id;
    pthread_mutex_t lock;
    int refcount;                /* aclrtSetDevice calls not yet reset, plus created contexts */
    int set_refs;                /* the aclrtSetDevice calls alone (the primary context's retains) */
    bool active;
    sim_context *default_ctx;
    sim_context *contexts;       /* all contexts incl. default */
    struct sim_stream *streams;  /* all streams incl. default ones */
    int num_streams;
    uint32_t next_stream_id;     /* aclrtStreamGetId: ids are per device, never reused here */
    uint64_t clock_origin_ns;    /* when the device booted, on CLOCK_MONOTONIC: 0, with the machine */
    atomic_int num_events;
    uint64_t peer_access;        /* bit p: aclrtDeviceEnablePeerAccess(p) done here (lock) */
    sim_core_pool pool;
    sim_copy_engine copy;
    sim_memory mem;
    /* issue 11, device share. overflow_status: the device's floating-point overflow flags,
     * ACLSIM_BLOCK_STATUS_* bits (overflow.c). res_limit: the process's cube and vector core
     * limits (res_limit.c), reset to all cores when the device is activated; written under
     * lock, read without it by every launch (atomics: the launch path takes no device lock).
     * notify_ids: which notify ids are in use (notify.c, under lock). task_abort: an
     * aclrtDeviceTaskAbort is in progress (abort.c). */
    _Atomic uint32_t overflow_status;
    _Atomic uint32_t res_limit[2];
    uint64_t *notify_ids;
    atomic_bool task_abort;
    /* issue 23: the latest AI-core exception's code on this device (0: none), for
     * aclrtGetErrorVerbose (base.c); set by the stream worker (stream.c), cleared at activation. */
    _Atomic uint32_t last_error;
};

sim_device *sim_device_at(int i);     /* the static slot i < SIM_MAX_DEVICES, configured or not */
sim_device *sim_device_of(int32_t id); /* NULL when id is not a configured device */
/* The calling thread's current context, +1 ref; NULL with 107002 recorded when none. */
sim_context *sim_current_context(const char *func);
sim_context *sim_current_context_quiet(void); /* the same, recording no error when there is none */
void sim_device_teardown(sim_device *d);                   /* under d->lock */
/* Unlinks s from its device's stream list (takes d->lock). */
void sim_device_forget_stream(sim_stream *s);
sim_stream *sim_stream_create_bound(sim_context *ctx, aclError *rc);
void sim_stream_release_bound(sim_stream *s);

/* The stack of every thread that runs kernel blocks -- a device's AI-core threads and the
 * stream workers, which run blocks on borrowed cores (sim_pool_run) -- so that what a kernel may
 * put on its stack does not depend on which thread runs a block (the workers had 256 KB: a
 * kernel with 300 KB of locals faulted on one and ran on the other). Kernels are built with
 * stack probes (aiocann/_frontend.py), so one that overflows faults on the guard page below. */
#define SIM_KERNEL_STACK_BYTES (1u << 20)

int sim_pool_start(sim_core_pool *p, int num_cores, int device_id);
void sim_pool_stop(sim_core_pool *p);
/* Runs all blocks of job on the pool and returns when they are done (or failed). The calling
 * stream worker runs blocks itself on idle core slots when it can (guard: its fault guard). */
void sim_pool_run(sim_core_pool *p, sim_job *job, sim_guard *guard);

/* ------------------------------------------------------------------ memory (memory.c) ---- */

int sim_memory_init(sim_memory *m, size_t capacity);
void sim_memory_fini(sim_memory *m);
/* Finds the device allocation containing [p, p+len): returns true and sets *dev_id. */
bool sim_device_range(const void *p, size_t len, int *dev_id);
bool sim_in_device_space(const void *p);
bool sim_pinned_range(const void *p, size_t len);
/* True if [p, p+len) is mapped, readable host memory (not device memory): checked before the
 * runtime reads a host address it was given as an integer, so a bad one is an error and not a
 * fault. sim_host_writable: mapped and writable, for memory the runtime will write. */
bool sim_host_mapped(const void *p, size_t len);
bool sim_host_writable(void *p, size_t len);
int sim_copy_start(sim_copy_engine *e, int device_id);
/* Runs a copy (or a memset when is_memset) on device's copy engine and waits for it. Returns 0,
 * or 507013 with a description in msg when it faulted. */
aclError sim_copy_execute(int device, void *dst, const void *src, size_t count, bool is_memset, int32_t value,
                          char *msg, size_t msglen);
void sim_copy_stop(sim_copy_engine *e);
void sim_pinned_free_all(void);
/* Allocates size bytes of d's memory (d active). `padded`: ACL's size rounding adds 32 bytes
 * (aclrtMalloc, aclrtMallocCached); aclrtMallocAlign32 only rounds to a multiple of 32. */
aclError sim_dev_alloc(sim_device *d, size_t size, bool padded, void **out);
/* Runs a 2-D copy (height rows of width bytes, pitches apart) on device's copy engine and
 * waits for it; 0 or 507013 with msg. A 1-D copy is height 1. */
aclError sim_copy_execute_2d(int device, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                             size_t height, char *msg, size_t msglen);

/* ------------------------------------------------------------------ streams (stream.c) --- */

/* A task's kind is its operations (sim_task_ops), defined in the file that owns the kind --
 * as libuv's uv__io_t carries its callback and redis's aeFileEvent its handlers: the stream's
 * executor (stream.c) and a model's replay (capture.c) call through them and never ask which
 * kind a task is. The kinds: */
typedef struct sim_task_ops sim_task_ops;
extern const sim_task_ops sim_task_kernel;       /* launch.c: a kernel launch */
extern const sim_task_ops sim_task_memcpy;       /* memory.c: an async copy (1-D or 2-D) */
extern const sim_task_ops sim_task_memset;       /* memory.c: an async memset */
extern const sim_task_ops sim_task_event_record; /* event.c */
extern const sim_task_ops sim_task_event_reset;  /* event.c */
extern const sim_task_ops sim_task_event_wait;   /* event.c */
extern const sim_task_ops sim_task_callback;     /* callback.c: a host callback's report */
extern const sim_task_ops sim_task_model;        /* capture.c: a replay of a captured model */
extern const sim_task_ops sim_task_update;       /* capture.c: a task-group update (swaps a captured kernel) */
/* ... and, issue 11, the kinds whose operands are u.op (cmo.c, memcpy_desc.c, notify.c,
 * overflow.c, reduce.c, value.c: their ops are private to their files). */

struct sim_event;
struct sim_function;
struct sim_subscriber;
struct sim_model;
struct sim_capslot;
struct sim_capkernel;
struct sim_capstate;
struct sim_capevent;

#define SIM_TASK_INLINE_ARGS 256

typedef struct sim_task {
    struct sim_task *next;
    const sim_task_ops *ops;     /* its kind: what running, replaying, discarding it means */
    uint64_t seq;
    uint32_t task_id;            /* the runtime's task id (sim_stream_submit), see stream.c */
    uint32_t tid;                /* Linux thread id of the submitting thread */
    /* Parking (executor.c): t's run returned SIM_TASK_PARKED and t waits at the head of its
     * stream's queue to be run again (resumed); wait_deadline_ns is its wait's timeout on
     * CLOCK_MONOTONIC (0: none), wait_ctx what its kind keeps between runs (a blocking
     * callback's report), park_t0 when it first ran (its trace record's start). */
    bool parked;
    bool traced;                 /* traced when it was handed over (traced_at_start) */
    uint64_t wait_deadline_ns;
    void *wait_ctx;
    uint64_t park_t0;
    union {
        struct {
            struct sim_function *fn; /* holds a ref (and through it, the binary) */
            void *args;              /* owned copy (WithConfig) or device memory (LaunchKernel) */
            bool owns_args;
            size_t args_size;
            uint32_t num_blocks;
            bool batch;
            uint64_t timeout_us;     /* 0 = none */
            bool overflow_en;        /* the stream's overflow switch at submission (overflow.c) */
            uint32_t max_cores;      /* core limit at submission, 0 = none (res_limit.c) */
        } kernel;
        struct {
            void *dst;
            const void *src;
            size_t count;            /* bytes in all (2-D: width * height) */
            int32_t value;
            int device;              /* engine that runs it */
            size_t width, height;    /* aclrtMemcpy2dAsync: height rows of width bytes; 0 = 1-D */
            size_t dpitch, spitch;
        } copy;
        struct {
            struct sim_event *event; /* holds a ref */
            uint64_t gen;            /* a captured EXTERNAL-flag record/wait: 1 + its index in
                                      * the model's external list (capture.c) */
            uint32_t timeout_s;      /* a wait's: aclrtSetOpWaitTimeout at submission, 0 = never */
        } event;
        struct {
            struct sim_subscriber *sub; /* holds a ref */
            aclrtCallback fn;
            void *user_data;
            bool block;
        } callback;
        struct {
            struct sim_model *model;   /* holds a ref */
            uint64_t *ext_gen;         /* issue 23: the generations of its external records and
                                        * waits, taken by aclmdlRIExecuteAsync (owned) */
            bool ran;                  /* run or discarded by its stream (its worker writes it) */
            bool unkept;               /* a failure of it could not be kept: it parks no more */
            size_t resume;             /* parked (sim_replay_can_park): the item of the model's
                                        * run list its replay goes on from (capture.c) */
            aclError failed;           /* parked after a task of it failed: the first failure, */
            char *failed_msg;          /* and its message (owned), which the replay returns */
            void *built_run;           /* a built model's: its schedule while parked (model_build.c) */
            struct sim_replay_path *path; /* where it goes on below its own model (capture.c) */
        } model;
        struct {
            struct sim_model *model;   /* holds a ref: the slot is the model's */
            struct sim_capslot *slot;  /* the captured kernel it replaces */
            struct sim_capkernel *kernel; /* the new kernel, owned until applied */
        } update;
        struct {
            void *obj;                 /* what the task acts on (ops->release drops it) */
            uint64_t a, b;             /* operands, as ops defines them */
        } op;
    } u;
    /* Launch arguments up to this size are copied here instead of into a malloc'ed block. */
    _Alignas(16) uint8_t inline_args[SIM_TASK_INLINE_ARGS];
} sim_task;

/* What a kind of task does, wherever it is (stream.c's worker, capture.c's replay):
 *  run      executes t on s in stream order; a failure is returned with its description in
 *           msg and reported as every task failure is (the stream's error slot, the
 *           exception-info callbacks, stop-on-failure). Required.
 *  replay   executes captured task t as part of replay task rt on s (capture.c). The captured
 *           task is shared by every replay, so neither may change it. NULL: run.
 *  discard  instead of run, when t will never execute: a force-destroyed stream
 *           (aclrtDestroyStreamForce), an abort (aclrtStreamAbort, aclrtDeviceTaskAbort), or,
 *           with stop_abort, a stream stopped by a failure in a stop-on-failure context -- so
 *           that nobody waits forever for work that will never run. NULL: nothing happens.
 *  replay_discard  the same for a captured task a replay skips (after a failure in stop mode
 *           or an abort). NULL: nothing happens.
 *  release  drops what t holds (references, owned memory), once, whether it ran or not.
 *  defers_reports  t is known to be short, so a worker owing a report thread a wake-up may
 *           run it first (stream.c's report deferral). NULL: never.
 *  trace_type  its ACLSIM_TRACE_* type, 0 when it is not traced (a replay is traced as the
 *           captured tasks it runs); trace fills the kind's fields of the record (may be NULL).
 *  publish_with_stream  run under the stream lock, so that what t does and the stream's
 *           progress are published together (event records and resets; run then takes only
 *           leaf locks and never fails).
 *  reports_own_failure  run reported its failure itself, at the moment it happened (a
 *           replay, for its first failed captured task); the worker must not report it again.
 *  traced_at_start  t is traced as it is handed over rather than when run returns (a blocking
 *           callback: its completion may be seen, and a trace stopped, before the stream goes
 *           on past it). NULL: never.
 *  failed_kernel  t is a kernel launch (issue 23): its failure goes to the device's fast ring
 *           buffer too, and *k is filled with what its exception info carries (k->func NULL
 *           when the task has no function). NULL: not a kernel. */
/* What a run returns when its task waits for something not there yet and parked its stream
 * instead of blocking the worker (sim_park; executor.c). Never an ACL code. */
#define SIM_TASK_PARKED ((aclError)-1)

struct sim_exception_kernel;
struct sim_task_ops {
    aclError (*run)(sim_stream *s, sim_task *t, char *msg, size_t msglen);
    aclError (*replay)(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen);
    void (*discard)(sim_stream *s, sim_task *t, bool stop_abort);
    void (*replay_discard)(const sim_task *rt, const sim_task *t);
    void (*release)(sim_task *t);
    bool (*defers_reports)(const sim_stream *s, const sim_task *t);
    void (*trace)(const sim_task *t, aclsimTraceRecord *r);
    bool (*traced_at_start)(const sim_task *t);
    bool (*failed_kernel)(const sim_task *t, struct sim_exception_kernel *k);
    int32_t trace_type;
    bool publish_with_stream;
    bool reports_own_failure;
};

struct sim_stream {
    sim_obj obj;
    sim_device *dev;
    sim_context *ctx;
    bool is_default;
    uint32_t flags, priority;
    pthread_mutex_t lock;
    sim_task *head, *tail;
    _Atomic uint64_t submitted;  /* seq of the last enqueued task (written under lock; the
                                  * worker reads it without the lock while it spins) */
    /* On the executor's run queue or run by one of its workers (executor.c): set by the
     * submission that finds it clear, cleared by the turn that finds the queue empty; under
     * lock. run_next: the run queue's link (the executor's lock). */
    bool scheduled;
    struct sim_stream *run_next;
    bool stopping;
    /* A task failed while the context was in stop-on-failure mode (ABORT_ON_FAILURE): the
     * worker discards every later task unexecuted and the error is never cleared. */
    bool aborted;
    /* The failure mode configured on this stream (Stream::modeConfig_, bit 0 of every mode
     * aclrtSetStreamFailureMode set on it, OR-ed: 0 continue, 1 stop). Together with `aborted`
     * it is the stream's Stream::failureMode_ (ABORT once aborted, else this), which decides
     * what aclrtSetStreamFailureMode accepts; aclrtGetStreamAttribute(FAILURE_MODE) reads it.
     * Setting stop also makes the whole context stop on failure (sim_context.mode). Guarded
     * by lock. */
    uint32_t fail_mode;
    uint32_t id;                 /* aclrtStreamGetId */
    /* A stream of a captured model (capture.c, sim_stream_create_bound): an id and a handle
     * that reports and queries name, no worker; it takes no work and is not destroyed by
     * aclrtDestroyStream (107005), only with its model. */
    bool bound;
    uint16_t last_task;          /* per-stream task counter and its wrap count (stream.c) */
    uint16_t task_flip;
    struct sim_subscriber *subscriber; /* report thread bound by aclrtSubscribeReport */
    /* The running turn's only (passed between turns under lock): the subscriber it owes a wake-up for `owed` queued non-blocking
     * reports, the first queued at owed_since (holds a subscriber reference). */
    struct sim_subscriber *owed_sub;
    uint32_t owed;
    uint64_t owed_since;
    sim_guard *guard;            /* the running turn's worker's fault guard (it runs blocks on
                                  * borrowed cores) */
    bool exec_blocked;           /* the running task waits (sim_stream_block_on): counted out
                                  * of the executor's running workers */
    /* Capture state (capture.c): non-NULL while the stream captures into a model, or has a
     * task-group state. Written under the capture lock; a submission reads it without. */
    _Atomic(struct sim_capstate *) cap;
    /* issue 23: the stream's binding to a model built by stream binding (model_build.c), or
     * NULL. Written under the build lock; a submission reads it without. */
    _Atomic(struct sim_mbind *) mbind;
    struct sim_stream *next;     /* device->streams */
    /* issue 11 (stream_attr.c): aclrtDestroyStreamForce sets `discard`, after which the
     * worker discards what is left instead of running it (sim_task_ops.discard); attributes
     * kept for aclrtSet/GetStreamAttribute, guarded by lock. */
    atomic_bool discard;
    /* issue 23: the float overflow mode (aclrtFloatOverflowMode) the process had when the
     * stream was created (Stream::SetSatMode); its kernels compute in it. */
    int sat_mode;
    /* issue 21: the stream is being shut down (sim_stream_shutdown): a wait for an event record
     * that will never happen (sim_event_record_lost) gives up instead of holding it for good. */
    atomic_bool closing;
    uint32_t user_tag, cache_op_info;
    /* issue 11, device share. overflow_switch: aclrtSetStreamOverflowSwitch (overflow.c).
     * res_set/res_value: the stream's own core limits (res_limit.c). All written under lock
     * and read by every launch without it (atomics: a launch reads them, nothing more).
     * aborting: an aclrtStreamAbort or aclrtDeviceTaskAbort is discarding this stream's work
     * (abort.c); abort_epoch counts aborts begun, abort_code says which kind (107023/107022),
     * for synchronizers that were waiting. running_job: the kernel job the worker runs (pool
     * lock). blocker: what the worker waits on inside a task, so an abort can wake it. */
    _Atomic uint32_t overflow_switch;
    atomic_bool res_set[2];
    _Atomic uint32_t res_value[2];
    atomic_bool aborting;
    _Atomic uint64_t abort_epoch;
    _Atomic aclError abort_code;
    /* Written by the worker for every task, kernel and wait: kept off the cache lines of the
     * fields above, which every submission reads and writes. `completed` sat beside `submitted`
     * until the worker's store of it after every task made the submitting thread fetch that
     * line back before its next launch: moving it here cut the launch loops of P1 by 7-12%
     * (raw aclrtLaunchKernelWithConfig 0.78-0.84 -> 0.72-0.78 us with the worker on the other
     * core, 4 alternating runs). */
    char worker_written_pad_[64];
    _Atomic uint64_t completed;  /* seq of the last finished task (stored by the worker, which
                                  * takes the lock to signal done_cv only when waiters > 0;
                                  * submissions never read it) */
    atomic_int waiters;          /* threads waiting on done_cv (changed under the lock) */
    sim_job *running_job;
    struct {
        pthread_mutex_t *mu;
        pthread_cond_t *cv;
        _Atomic uint32_t *word;
    } blocker;
    /* Parking (executor.c). park_state and timer_pos (1 + the index in the executor's timer
     * heap, 0: none) are the executor's, under its lock; wq_* link s on the wait queue
     * (sim_waitq) of what its parked task waits for, under that queue owner's lock; running is
     * the task the turn runs directly (sim_task_can_park), the turn's own. */
    int park_state;
    uint32_t timer_pos;
    uint64_t timer_ns;           /* the parked task's deadline while timer_pos is set */
    struct sim_stream *wq_next, *wq_prev;
    bool wq_linked;
    bool timer_reserved;         /* sim_exec_start reserved its timer heap place */
    struct sim_watcher *watcher; /* the futex watch's, while its parked wait watches a shared word
                                  * (futex_watch.c, under its lock), with its place there */
    uint32_t watch_slot;
    sim_task *running;
    /* Last, out of the way of the fields above, which every submission and every turn touch:
     * with many streams (issue 25: 1900) each visit to a stream finds them cache-cold, so they
     * are kept in as few lines as may be, and what only a synchronize or a failure uses
     * comes after them. done_cv: synchronizers (and a shutdown) wait for progress. error:
     * Stream::errCode_, the latest failed task's code (a later failure overwrites it),
     * reported once by synchronize and then cleared -- unless the stream is aborted (above). */
    pthread_cond_t done_cv;
    aclError error;
    char errmsg[512];
};

/* Resolves a stream argument: NULL is the current context's default stream. +1 ref, and *rc
 * is 0; or NULL with the error in *rc. */
sim_stream *sim_stream_resolve(aclrtStream s, const char *func, aclError *rc);
/* As sim_stream_resolve, for submitting work: the stream must also belong to the calling
 * thread's current context (107003 otherwise, 107002 without a context). Same contract. */
sim_stream *sim_stream_for_work(aclrtStream s, const char *func, aclError *rc);
/* A zeroed task of kind ops: one the calling thread took from the recycled tasks, or a
 * new one. */
sim_task *sim_task_new(const sim_task_ops *ops);
/* Runs the aclrtRegStreamStateCallback callbacks for a user stream just created (created) or
 * about to be destroyed (stream_config.c). No simulator lock may be held: they are user code. */
void sim_stream_state_notify(aclrtStream stream, bool created);
void sim_task_free(sim_task *t); /* drops the references the task holds, frees it */
/* Enqueues t, gives it its task id (which becomes the calling thread's last task id) and
 * returns 0 with its sequence number in *seq (seq may be NULL). Or frees t and returns the
 * error, recorded for func: the context's failure in stop-on-failure mode (Context::
 * CheckTaskSend), or 107017 when the stream is being destroyed. A capturing stream records t
 * in its model instead (capture.c; *seq is then 0), or refuses it. */
aclError sim_stream_submit(sim_stream *s, sim_task *t, const char *func, uint64_t *seq);
/* The context's sticky stop-on-failure error, or 0 (Context::CheckStatus). When it is set,
 * the failure is recorded for func as the real runtime reports it. */
aclError sim_context_failure(sim_context *c, const char *func);
/* Waits until task seq has finished (timeout in ms, -1 forever); returns 0 or ETIMEDOUT. */
int sim_stream_wait_seq(sim_stream *s, uint64_t seq, int32_t timeout_ms);
sim_stream *sim_stream_create(sim_context *ctx, bool is_default, uint32_t priority, uint32_t flags,
                              aclError *rc);
/* Waits for pending tasks to drain from the executor and closes the handle. Caller holds no
 * locks. */
void sim_stream_shutdown(sim_stream *s);
/* Synchronize's report: the stream's error, cleared unless the stream is aborted (Stream::
 * GetError). Records the failure's message and last error for func when there is one. */
aclError sim_stream_take_error(sim_stream *s, const char *func);
/* A stream worker's reaction to a failed task t: the error slot, the exception-info callbacks
 * and, in a stop-on-failure context, the abort. A replay (capture.c) calls it itself, with the
 * replay task, for the first captured task that fails. */
void sim_stream_task_failed(sim_stream *s, const sim_task *t, aclError rc, const char *msg);
/* Adds task t, run on s from t0 with outcome status, to the trace (when tracing is on). */
void sim_stream_trace_task(sim_stream *s, const sim_task *t, uint64_t t0, aclError status);
/* A non-blocking report queued for sub by s's running task (callback.c): the worker owes sub's
 * thread a wake-up, which it pays when it runs out of short tasks (stream.c). Worker only. */
void sim_stream_owe_report(sim_stream *s, sim_subscriber *sub);

/* One turn of a pool worker on scheduled stream s (stream.c), with the worker's fault guard. */
void sim_stream_run_turn(sim_stream *s, sim_guard *guard);

/* ------------------------------------------------------------------ executor (executor.c) */

/* Makes sure the pool has a worker: 0, or 107xxx (no thread could start), recorded for func. */
aclError sim_exec_start(const char *func);
/* Puts scheduled stream s on the run queue and starts a worker for it if one is needed; s->lock
 * held. Returns the wake-up it owes an idle worker (or NULL), which the caller sends with
 * sim_exec_wake once it has dropped s->lock: a worker woken while the waker holds the lock of
 * the very stream it is woken for blocks on that lock at once, and on a busy machine the waker
 * is preempted by the thread it woke while it still holds it, to be woken back by the lock
 * (issue 25: on 2 cores with 1900 streams, a fifth of the submitting thread's switches). */
sim_wake sim_exec_schedule(sim_stream *s);
void sim_exec_wake(sim_wake w);
/* Streams are waiting on the run queue (a polling worker gives way). Lock-free. */
bool sim_exec_others_waiting(void);
/* The calling worker starts / stops polling its stream for more work: while one polls, a
 * newly queued stream needs no wake-up, the poller gives way to it at once. */
void sim_exec_polling(bool on);
/* The calling worker waits inside a task (sim_stream_block_on, a value wait) / is back: while
 * it waits it does not count as one of the pool's running workers. No-ops off the pool. */
void sim_exec_block(void);
void sim_exec_unblock(void);
/* The pool's live worker threads. */
int sim_exec_threads(void);
/* A stream that sim_exec_start succeeded for is gone (stream.c's destroy): the place it
 * reserved in the timer heap goes too. */
void sim_exec_forget(void);

/* Parking: a task whose wait is not over does not hold its worker. Its run, when
 * sim_task_can_park(s, t) (t is run directly by a pool worker's turn, not inside a replay),
 * calls sim_park_arm(s), then -- under the lock of what it waits for -- checks the wait; when it
 * is not over, it links s on that thing's wait queue (sim_waitq_add) and returns
 * sim_park(s, t, deadline_ns). The turn puts t back at the head of s's queue and ends; s stays
 * scheduled but on no run queue. Whatever may end the wait -- the thing it waits for (under its
 * lock, via sim_waitq_wake_all or sim_stream_wake), the deadline (the executor's timer), an
 * abort, a forced destroy, a shutdown (sim_stream_interrupt / shutdown) -- wakes s, and a worker
 * runs t again (t->parked is set): the run unlinks s (sim_waitq_remove), checks again, and
 * finishes or parks again. A wake between the arm and the park is not lost: the turn sees it
 * and runs t again at once. */
bool sim_task_can_park(const sim_stream *s, const sim_task *t);
void sim_park_arm(sim_stream *s);
aclError sim_park(sim_stream *s, sim_task *t, uint64_t deadline_ns);
/* The wait of s's parked task may be over: a worker runs it again. Any thread, any lock held
 * (the executor's lock is a leaf). */
void sim_stream_wake(sim_stream *s);
/* The turn's end of a park (stream.c): false when s was woken since sim_park_arm (run t again
 * now). s->lock held. */
bool sim_exec_park(sim_stream *s, uint64_t deadline_ns);
/* A parked stream's timeout is due: the caller (a worker between batches) fires it. */
void sim_exec_fire_timers(void);
/* futex_watch.c: parking for a wait on a word another process may write (an IPC event's page,
 * a shared notify's flag). After sim_park_arm(s) and a read that found the word at `seen` and
 * the wait not over, sim_watch_add(s, word, seen) has s woken once the word is no longer
 * `seen`; false: no watch can take it (no futex_waitv, no thread, too many), block instead.
 * The wait, run again, first calls sim_watch_remove(s) (a no-op when s is not watched). */
bool sim_watch_add(sim_stream *s, _Atomic uint32_t *word, uint32_t seen);
void sim_watch_remove(sim_stream *s);
/* sim_waitq (above): streams parked on one thing. */
void sim_waitq_add(sim_waitq *q, sim_stream *s);    /* if not yet linked */
void sim_waitq_remove(sim_waitq *q, sim_stream *s); /* if linked */
void sim_waitq_wake_all(sim_waitq *q);               /* unlinks and wakes each */

/* ------------------------------------------------------------------ capture (capture.c) -- */

/* The hooks through which the other files route work to stream capture. Each is cheap when
 * no capture exists: a stream's or event's `cap` pointer, or a count of active captures. */

/* sim_stream_submit's hook for a stream whose `cap` is set: captures t into the stream's
 * model or refuses it, returning true with the outcome in *rc and the captured task's id in
 * *task_id; or returns false to enqueue *t as usual -- *t then possibly replaced by a
 * task-group update task. */
bool sim_capture_route(sim_stream *s, sim_task **t, const char *func, aclError *rc, uint32_t *task_id);
/* An event record, reset or wait (kind: &sim_task_event_record, _reset, _wait) of e
 * on s, before event.c does it: true when capture takes it (captured or refused, outcome in
 * *rc); false to do it as usual. */
bool sim_capture_event_op(sim_stream *s, sim_event *e, const sim_task_ops *kind, const char *func, aclError *rc);
/* issue 23: an ACL_EVENT_RECORD_EXTERNAL record (record) or ACL_EVENT_WAIT_EXTERNAL wait of e on
 * s: captured as an external one (107029 when s is not capturing). */
aclError sim_capture_external_flag_op(sim_stream *s, sim_event *e, bool record, const char *func);
/* event.c: the generation an execution of a model takes for an external record of e (a new
 * record) or wait on e (the newest record, 0 for none); and its undoing when the execution is
 * refused. */
uint64_t sim_event_external_take(sim_event *e, bool record);
void sim_event_external_untake(sim_event *e, uint64_t gen, bool record);
/* 107027 when s is capturing (synchronize, query or destroy it), else 0. */
aclError sim_capture_stream_busy(sim_stream *s, const char *func);
/* 107027 when any stream of context c is capturing (aclrtSynchronizeDevice), else 0. */
aclError sim_capture_context_busy(sim_context *c, const char *func);
/* 107028 when e has a record in an active capture (synchronize, query, timestamps), else 0. */
aclError sim_capture_event_busy(sim_event *e, const char *func);
/* A synchronous memcpy/memset on the calling thread: 107030 when the capture modes forbid
 * it (Context::IsCaptureModeSupport), else 0. */
aclError sim_capture_check_sync_call(const char *func);
/* An async copy that touches pageable host memory, on s: 107000 when s is capturing; 107041
 * when the capture modes forbid the synchronous copy it turns into; else 0. */
aclError sim_capture_pageable_copy(sim_stream *s, const char *func);
/* Teardown: stream s goes away (its capture is abandoned, its task-group state dropped);
 * context c goes away (its models are destroyed). */
void sim_capture_stream_gone(sim_stream *s);
void sim_capture_context_gone(sim_context *c);

/* ------------------------------------------------------------------ built models -------
 * (model_build.c, label.c, stream_switch.c; issue 23) A model built by stream binding is
 * capture.c's model object with a program of model_build.c's: the streams bound to it and the
 * tasks recorded on each. */

typedef struct sim_built sim_built;
struct sim_mbind;
/* Where a recorded task sits: its model's program, the bound stream's index there, its index
 * among that stream's tasks. */
typedef struct sim_build_pos {
    sim_built *b;
    uint64_t uid;   /* b's unique id: a position outlives its model, which a later one may reuse */
    uint32_t index;
    size_t pos;
} sim_build_pos;
/* sim_stream_submit's hook for a stream whose `mbind` is set: records t in its model (true,
 * outcome in *rc, t taken either way), or false when the stream is no longer bound. */
bool sim_build_route(sim_stream *s, sim_task *t, const char *func, aclError *rc, uint32_t *task_id);
/* An event record, reset or wait (kind as sim_capture_event_op's) on bound stream s: recorded in
 * the model as an operation on the event done at each replay (capture.c's event hook). */
aclError sim_build_event_op(sim_stream *s, sim_event *e, const sim_task_ops *kind, const char *func);
/* Records t on bound stream s and says where (107005 when s is not bound); takes t. */
aclError sim_build_add(sim_stream *s, sim_task *t, const char *func, sim_build_pos *where);
/* s is a model's stream: bound by aclmdlRIBindStream, or a captured model's own
 * (Stream::IsModelStream). */
bool sim_build_is_bound(sim_stream *s);
void sim_build_unbind_all(sim_built *b);                          /* the model is destroyed */
void sim_build_free(sim_built *b);                                /* the model is gone */
uint32_t sim_build_streams(sim_built *b, aclrtStream *out, uint32_t max); /* bound streams */
/* The replay of a built model on s, as part of model task rt; SIM_TASK_PARKED when one of its
 * waits parked s (its schedule kept in rt->u.model.built_run until it goes on). */
aclError sim_build_replay(sim_stream *s, sim_task *rt, sim_built *b, char *msg, size_t msglen);
void sim_build_run_free(void *run); /* a replay's schedule (NULL: nothing); also release_model's, for a kept one */
/* For the control tasks, inside a replay: run target (a stream of the running model) after the
 * running stream, or with jump instead of the rest of it; or jump to a recorded position. */
aclError sim_build_run_stream(sim_stream *target, bool jump, char *msg, size_t msglen);
aclError sim_build_run_jump(const sim_build_pos *to, char *msg, size_t msglen);
extern const sim_task_ops sim_task_label_set, sim_task_label_switch;      /* label.c */
extern const sim_task_ops sim_task_stream_switch, sim_task_stream_active; /* stream_switch.c */
/* The id of the stream a switch or activation task starts; UINT32_MAX for another task. */
uint32_t sim_stream_control_target(const sim_task *t);
/* capture.c: the model object. get: +1, or 107017; in_current_context: 107004 when not. */
struct sim_model *sim_model_get(aclmdlRI h, const char *func, aclError *rc);
void sim_model_put(struct sim_model *m);
aclError sim_model_in_current_context(struct sim_model *m, const char *func);
/* A new model of context ctx whose program is b (not ready until sim_model_set_ready): its
 * handle is open, the handle table holds it. */
struct sim_model *sim_model_new_built(sim_context *ctx, sim_built *b, const char *func, aclError *rc);
aclmdlRI sim_model_handle(struct sim_model *m);
sim_built *sim_model_built(struct sim_model *m); /* NULL for a captured model */
void sim_model_set_ready(struct sim_model *m);
uint32_t sim_model_id(struct sim_model *m);
/* Every task a captured model replays, in order, with the id of the model stream it was
 * captured on. */
void sim_capture_model_visit(struct sim_model *m, void (*fn)(void *arg, uint32_t stream_id, const sim_task *t),
                             void *arg);

/* Condition tasks (cond.c; issue 23): a captured task that, at replay, runs a sub-model chosen
 * by an 8-byte value in device memory (IF, WHILE, SWITCH). capture.c keeps the sub-models and
 * handles in their parent model. */
struct sim_cond;
extern const sim_task_ops sim_task_cond;
void sim_cond_launch(struct sim_cond *c);  /* a run of its model begins: the default value */
void sim_cond_close(struct sim_cond *c);   /* its model is destroyed: the handle closes */
void sim_cond_release(struct sim_cond *c); /* its model is gone: the handle and memory go */
bool sim_model_capturing(struct sim_model *m);
/* Hands c (the caller's reference) to capturing model m. */
aclError sim_model_add_cond(struct sim_model *m, struct sim_cond *c, const char *func);
/* Captures condition task t on capturing stream s, whose model must be parent, after making n
 * empty sub-models of parent (+1 each in subs[]). Takes t. */
aclError sim_capture_cond_task(sim_stream *s, struct sim_model *parent, sim_task *t, uint32_t n,
                               struct sim_model **subs, const char *func);
/* Replays ready model m inside replay task rt on s (a condition task's branch): its failures
 * are returned, not reported. */
aclError sim_capture_replay_model(sim_stream *s, const sim_task *rt, struct sim_model *m, char *msg, size_t msglen);
/* The replay of one recorded task t on s, as part of replay task rt: its kind's replay, or its
 * run when replaying it is running it (models built by binding replay through it too). */
aclError sim_capture_replay_task(sim_stream *s, const sim_task *rt, const sim_task *t, char *msg, size_t msglen);
/* The recorded task being replayed now, as part of replay task rt on s, may park s (as
 * sim_task_can_park, with sim_park(s, rt, ...)): rt is run directly by a pool worker's turn and
 * replays a captured model's run list -- its condition tasks' sub-models too -- or a built
 * model's program, which goes on from that item when the stream is woken -- after a failure
 * too, at any depth of sub-models (each level keeps its first failure while parked). Only out
 * of memory -- a failure whose message could not be kept, a replay whose path of sub-models
 * could not be allocated -- do its waits block their worker, as a hand-off (executor.c). */
bool sim_replay_can_park(const sim_stream *s, const sim_task *rt);
/* Replays item t of replay task rt (sim_capture_replay_task), letting it park s when `may_park`
 * (and sim_replay_can_park's rules allow): then SIM_TASK_PARKED; otherwise rt's park state is
 * cleared. */
aclError sim_replay_item(sim_stream *s, sim_task *rt, const sim_task *t, bool may_park, char *msg, size_t msglen);
/* The first failure rc of the model the replay runs at the current depth (its own, or a
 * condition's sub-model), msg its message: kept, so that a later item may still park and the
 * failure is returned when the replay goes on (sim_replay_resume). */
void sim_replay_keep_failure(sim_task *rt, aclError rc, const char *msg);
/* A condition task of replay rt (cond.c): the branch it ran when the replay parked inside it,
 * if the replay is going back to that wait now (it does not evaluate its condition again), or
 * -1; and, when its branch parked, the branch to go back to. */
int sim_replay_resume_branch(const sim_task *rt);
void sim_replay_park_branch(const sim_task *rt, uint32_t branch);
/* A replay going on after a park, at the current depth: the failure kept there (its message
 * into msg), or ACL_SUCCESS. */
aclError sim_replay_resume(sim_task *rt, char *msg, size_t msglen);
/* The run of the model at the current depth is done: what was kept of it goes. */
void sim_replay_done(sim_task *rt);

/* ------------------------------------------------------------------ events (event.c) ----- */

struct sim_event {
    sim_obj obj;
    sim_device *dev;
    uint32_t flags;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    uint64_t record_gen;   /* records submitted */
    uint64_t done_gen;     /* newest record executed */
    uint64_t reset_gen;    /* record_gen at the last executed reset */
    uint64_t timestamp_ns;
    sim_context *ctx;      /* context it was created in: its stop-on-failure error applies */
    /* issue 11: aclrtCreateEventExWithFlag's events ("new mode": no reset, no QueryEvent or
     * QueryEventWaitStatus; complete until first recorded), set once at creation; and the
     * stream waits on this event submitted and executed so far (aclrtQueryEventWaitStatus). */
    bool ex_mode;
    uint64_t waits_submitted, waits_done;
    /* issue 23: the flag of its first aclrtRecordEventWithFlag / aclrtStreamWaitEventWithFlag
     * (UINT32_MAX: none yet); a later one with the other flag is refused (event.c). Lock. */
    uint32_t record_flag, wait_flag;
    /* Set while a capture holds a record of it (capture.c; written under the capture lock). */
    _Atomic(struct sim_capevent *) cap;
    /* issue 21: the newest record that will never happen -- discarded behind a failed task of
     * a stream that stopped on failure, on a STARS chip -- and that stream's context's failure,
     * which host waiters then get (under lock). */
    uint64_t lost_gen;
    aclError lost_code;
    /* issue 23: an ACL_EVENT_IPC event's shared state (ipc_event.c), set at creation: its
     * records and waits use it instead of the generations above. */
    struct sim_ipc_event *ipc;
    sim_waitq parked;      /* streams whose wait on it parked (executor.c), woken by records */
};

/* ipc_event.c (issue 23): the shared page of an IPC event, mapped by every process holding it.
 * Records take a generation at submission (take) and publish it when executed (complete); a
 * wait captures the latest one still pending (pending: 0 when none) and blocks its stream on
 * the page's futex until it is done, or the stream is aborted; sync is the host's wait. */
typedef struct sim_ipc_event sim_ipc_event;
aclError sim_ipc_event_supported(const char *func); /* 207000 on a chip without IPC events */
aclError sim_ipc_event_setup(sim_event *e, const char *func); /* the creator's page and export */
void sim_ipc_event_release(sim_ipc_event *ie);                /* NULL: nothing */
void sim_ipc_event_unshare(sim_ipc_event *ie); /* aclrtDestroyEvent: the handle opens no more */
uint32_t sim_ipc_event_take(sim_ipc_event *ie);
void sim_ipc_event_complete(sim_ipc_event *ie, uint32_t gen);
uint32_t sim_ipc_event_pending(sim_ipc_event *ie);
bool sim_ipc_event_complete_now(sim_ipc_event *ie);
/* The wait of task t for record gen; parks s (on the futex watch) when `park` says it may. */
aclError sim_ipc_event_wait(sim_stream *s, sim_task *t, sim_ipc_event *ie, uint32_t gen, uint32_t timeout_s,
                            bool park, char *msg, size_t msglen);
aclError sim_ipc_event_sync(sim_ipc_event *ie, sim_context *ctx, int32_t timeout_ms, const char *func);
/* event.c: a new IPC event of the current context -- the creator's (ie NULL) or one opened
 * from a handle (ie: the opened page, owned by the event on success). */
aclError sim_event_create_ipc(aclrtEvent *event, sim_ipc_event *ie, const char *func);

/* Its tasks (record, reset, wait: sim_task_event_*) are event.c's. A stream-side wait parks
 * its stream (executor.c) until the record it names has executed; it ends early, with success, when the
 * stream is aborted, and after the aclrtSetOpWaitTimeout limit taken at submission (0: never)
 * it fails with 107020. */

/* ------------------------------------------------------------------ callbacks ------------ */

typedef struct sim_report {
    struct sim_report *next;
    aclrtCallback fn;
    void *user_data;
    bool block;
    bool done;             /* guarded by the subscriber lock */
    sim_stream *parked;    /* the stream whose task waits for it, parked (executor.c); lock */
} sim_report;

struct sim_subscriber {
    atomic_int refs;
    uint64_t tid;
    sim_device *dev;
    int num_streams;
    pthread_mutex_t lock;
    pthread_cond_t cv;      /* new reports */
    pthread_cond_t done_cv; /* blocking reports ran */
    sim_report *head, *tail;
    bool closed;            /* sim_callback_close: reports are dropped, not queued; lock */
    struct sim_subscriber *next;
};

void sim_subscriber_put(sim_subscriber *sub);
/* Joins the threads that run aclrtLaunchHostFunc's functions (host_func.c); aclFinalize. */
void sim_host_func_stop(void);
/* Its task (sim_task_callback) hands the report over. A blocking one wakes the processing
 * thread and parks its stream until the callback has returned (executor.c; inside a replay,
 * or out of memory, its worker waits instead). A non-blocking one is only queued: the stream
 * worker owes the thread a sim_callback_wake (sim_stream_owe_report), which it may defer to wake
 * it once for several reports (see stream.c). A blocking one that s's abort finds still queued
 * is withdrawn; one already running is waited for (user code cannot be stopped). */
void sim_callback_wake(sim_subscriber *sub);
void sim_callback_stream_gone(sim_stream *s);
/* aclFinalize and aclrtResetDeviceForce, before their streams are drained: the subscribers of
 * device d (every device's when NULL) drop every report queued and not yet taken, and every
 * report delivered to them from now on, so no callback that nobody processes can hold the
 * teardown (a blocking one would, for good). A callback already running is waited for. The
 * subscribers go when their streams do. */
void sim_callback_close(const sim_device *d);
/* aclFinalize, after every stream is gone: forgets every subscriber and drops the reports
 * delivered to them but never processed, so none survives into the next aclInit. */
void sim_callback_reset(void);

/* ------------------------------------------------------------------ exceptions ----------- */

/* Calls every registered exception-info callback with this failure, on the calling thread
 * (a stream worker, before it moves past the failed task). */
/* What an AI-core exception's info carries about the kernel (issue 23: aclrtGetArgsFrom-
 * ExceptionInfo, aclrtGetFuncHandleFromExceptionInfo); NULL for a failure that is not a kernel's. */
typedef struct sim_exception_kernel {
    void *args;
    size_t args_size;
    aclrtFuncHandle func;
} sim_exception_kernel;
void sim_exception_notify(uint32_t task_id, uint32_t stream_id, uint32_t tid, int32_t device, aclError code,
                          const sim_exception_kernel *kernel);
/* A task failed: the exception-info callbacks, inline on STARS chips, from another thread a
 * moment later on HWTS chips (no barrier: the stream goes on meanwhile). */
void sim_exception_report(uint32_t task_id, uint32_t stream_id, uint32_t tid, int32_t device, aclError code,
                          const char *msg, const sim_exception_kernel *kernel);
/* The fast ring buffer (millisecond operator timeouts only): a failed kernel is posted there,
 * and reported again by the next thread that submits to or checks a context of its device. */
void sim_exception_fast_post(sim_stream *s, uint32_t task_id, uint32_t tid, aclError code, const char *msg);
void sim_exception_fast_poll(sim_device *d, sim_context *c);
void sim_exception_fast_clear(int device);
void sim_stream_task_failed_as(sim_stream *s, aclError rc, const char *msg, uint32_t report_stream, uint32_t task_id,
                               uint32_t tid, const sim_exception_kernel *kernel);

/* ------------------------------------------------------------------ binaries ------------- */

struct sim_binary {
    sim_obj obj;
    void *dl;
    int device;                          /* -1: any (LoadFromFile); else LoadFromData's device */
    const aclsim_kernel_desc *kernels;
    uint32_t num_kernels;
    pthread_mutex_t lock;
    bool unloaded;                       /* written under lock; launches read it atomically */
    struct sim_function **functions;     /* one per kernel, created on first lookup */
    /* issue 11, device share: the stub's status reader (NULL in older binaries; overflow.c);
     * cpu_mode: loaded with ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE (an AI CPU program, no
     * AI-core kernels), -1 otherwise; cpu_functions: what aclrtRegisterCpuFunc registered
     * (cpu_kernel.c, under lock). */
    uint32_t (*take_status)(void);
    int cpu_mode;
    struct sim_cpu_reg *cpu_functions;
    /* Loaded from data: the memory file dlopen() mapped, open for the binary's life, so the
     * name dlopen knows it by (/proc/self/fd/N) stays its own (binary.c load_from_data); -1. */
    int memfd;
    char path[];
};

struct sim_function {
    sim_obj obj;
    sim_binary *bin;                     /* holds a ref */
    const aclsim_kernel_desc *desc;
    _Atomic uint64_t last_ns;            /* duration of its latest launch, 0 = none yet */
    /* issue 11: an AI CPU function (aclrtRegisterCpuFunc): the .so symbol it names; desc is
     * then the function's own descriptor (its name the op type, no entry). NULL otherwise. */
    char *cpu_func;
};

sim_function *sim_function_get(aclrtFuncHandle h); /* +1 ref or NULL */
void sim_binary_unload_all(void);

/* ------------------------------------------------------------------ kernel args ---------- */

/* Bytes of args a kernel's signature reads: parameter i sits at offset 8*i. */
static inline size_t sim_kernel_args_need(const aclsim_kernel_desc *d)
{
    return d->num_params ? (size_t)(d->num_params - 1) * 8 + d->param_sizes[d->num_params - 1] : 0;
}

/* Validated view of an args handle for launch: copies [0, argsSize) into inline_buf when it
 * fits in inline_cap bytes, else into a new malloc'ed block, with every placeholder slot
 * patched to point at its data inside the copy. *out is the copy. */
aclError sim_args_prepare_launch(aclrtArgsHandle h, sim_function *fn, void *inline_buf, size_t inline_cap, void **out,
                                 size_t *out_size, const char *func);

/* ------------------------------------------------------------------ trace (trace.c) ------ */

bool sim_trace_on(void);
void sim_trace_add(const aclsimTraceRecord *r);

/* ------------------------------------------------------------------ launch (launch.c) ---- */

/* Runs a kernel task on the stream's device; returns 0 or the failure (message in msg). */
aclError sim_kernel_execute(sim_stream *s, sim_task *t, char *msg, size_t msglen);

/* ------------------------------------------------------------------ memory family ------
 * (vmm.c, share.c, ipc.c, host_register.c, memcpy_desc.c, value.c, reduce.c, cmo.c,
 * allocator.c, uce.c; issue 11)
 * Locking: vmm.c's, share.c's, ipc.c's and host_register.c's registry locks are leaves: no
 * other lock is taken while one is held, except the handle table's. */

/* Where an address lives, as the runtime's pointer attributes say it. */
typedef enum sim_where {
    SIM_WHERE_NONE = 0,    /* not memory the runtime knows: plain (unregistered) host memory */
    SIM_WHERE_DEVICE,      /* device memory of *dev: aclrtMalloc, mapped virtual memory, IPC */
    SIM_WHERE_HOST,        /* host memory the runtime knows: aclrtMallocHost, registered, or
                            * host physical memory mapped into a reservation */
    SIM_WHERE_INVALID,     /* in device address space but not in live memory (freed, unmapped,
                            * out of bounds, or spanning two allocations) */
} sim_where;
/* Classifies [p, p+len) (len >= 1). */
sim_where sim_where_is(const void *p, size_t len, int *dev);

/* The arena every reservation and IPC import lives in (vmm.c); in_space is lock-free. */
bool sim_vmm_in_space(const void *p);
/* [p, p+len) mapped (one mapping, or contiguous mappings of one reservation, all of one
 * place): 1 device memory of *dev, 2 host physical memory; 0 outside the arena; -1 in the
 * arena but not all mapped. */
int sim_vmm_classify(const void *p, size_t len, int *dev);
/* Maps len bytes of file fd at offset off (len and off page multiples) into the arena, as
 * device memory of dev (an IPC import); returns the address, or 0 with *rc set for func. */
uintptr_t sim_vmm_map_import(int fd, uint64_t off, size_t len, int dev, const char *func, aclError *rc);
/* Unmaps an import made by sim_vmm_map_import: false if va is not one. */
bool sim_vmm_unmap_import(uintptr_t va);
void sim_vmm_reset(void);              /* aclFinalize: every mapping, reservation and handle */

/* host_register.c: [p, p+len) inside one registered host range (mapped or pinned). */
bool sim_host_registered(const void *p, size_t len);
void sim_host_register_reset(void);    /* aclFinalize */

/* memory.c: the file range backing [p, p+len) of device memory from aclrtMalloc, page
 * aligned: fd (the device's memfd), the offset and length of the pages, p's offset in its
 * first page, and the device. False when [p, p+len) is not inside one allocation; *rc 207000
 * when the device memory is not shareable (no memfd). */
bool sim_dev_share_range(const void *p, size_t len, int *fd, uint64_t *off, size_t *maplen, size_t *in_page,
                         int *dev, aclError *rc);
/* Accounts (or returns, with a negative delta) physical memory of device d: false when it
 * does not fit the device's free memory. */
bool sim_dev_phys_account(sim_device *d, size_t bytes, bool take);
/* Runs fn(arg) on device's copy engine, under its fault guard, after the copies queued before
 * it; returns the fault (sig 0 when none). */
sim_fault sim_copy_run(int device, void (*fn)(void *), void *arg);
/* aclrtMemcpyAsync's implementation, for the calls that behave as it does. */
aclError sim_memcpy_async(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream, const char *func);

/* share.c: an export, in the exporting process. */
typedef struct sim_share sim_share;
/* Exports len bytes of file data_fd from offset off (page multiples); in_page and size are
 * what the importer is told (the exported address's offset in its first page, the size).
 * NULL with *rc on failure. */
sim_share *sim_share_export(int data_fd, uint64_t off, uint64_t len, uint64_t in_page, uint64_t size, int device,
                            bool no_pid_check, const char *func, aclError *rc);
uint64_t sim_share_id(const sim_share *sh);                   /* its shareable handle */
void sim_share_key(const sim_share *sh, char *out, size_t len); /* its IPC key */
size_t sim_share_key_len(void);                               /* the longest key, without NUL */
bool sim_share_parse_key(const char *key, int *pid, int *fd, uint64_t *nonce);
/* Adds n pids to the whitelist. */
aclError sim_share_allow(sim_share *sh, const int32_t *pid, size_t n, const char *func);
uint32_t sim_share_importers(const sim_share *sh);
/* Ends the export: no new import succeeds; the memory lives on in the importers' mappings. */
void sim_share_close(sim_share *sh);

/* An import, in the importing process: the memory's file (an fd of this process) and range. */
typedef struct sim_share_import {
    void *rec;          /* the record, mapped (counts this import until sim_share_import_done) */
    int data_fd;
    uint64_t off, len, in_page, size;
    int device, owner;
} sim_share_import;
aclError sim_share_import_id(uint64_t id, const char *func, sim_share_import *out);
aclError sim_share_import_key(const char *key, const char *func, sim_share_import *out);
void sim_share_import_done(sim_share_import *imp);

/* ipc.c */
void sim_ipc_reset(void);              /* aclFinalize */

/* value.c: helpers of every stream-ordered memory operation. */
/* A non-NULL stream handle must be live (107017): rts validates it before the runtime's checks. */
aclError sim_op_stream_valid(aclrtStream stream, const char *func);
/* Submits a SIM_TASK_OP of ops (obj NULL) whose operands a[0..n) are kept in the task's
 * inline_args, where sim_op_arg reads them back. */
#define SIM_OP_MAX_ARGS (SIM_TASK_INLINE_ARGS / sizeof(uint64_t))
aclError sim_op_submit(sim_stream *s, const sim_task_ops *ops, const uint64_t *a, size_t n, const char *func);
uint64_t sim_op_arg(const sim_task *t, size_t i);
/* The runtime's "pointer attributes say DEVICE" check: 0 with *dev (may be NULL), or 107000. */
aclError sim_op_device_address(const void *p, const char *what, const char *func, int *dev);

/* ------------------------------------------------------------------ device share -------
 * (abort.c, overflow.c, res_limit.c, op_timeout.c, notify.c, cpu_kernel.c; issue 11) */

/* The device a user device id names (device_query.c): 100001 before aclInit, 107001 for an id
 * that is not a configured device. */
sim_device *sim_device_arg(int32_t id, const char *func, aclError *rc);

/* Blocking inside a task (stream.c), for the waits that cannot park (executor.c: inside a
 * replay, on a shared notify). A worker that waits for something another thread or
 * process provides says what it waits on -- a condition variable and its mutex, or a futex
 * word -- so that an abort can wake it; it re-checks sim_stream_abort_requested() after every
 * wake-up. */
void sim_stream_block_on(sim_stream *s, pthread_mutex_t *mu, pthread_cond_t *cv, _Atomic uint32_t *word);
void sim_stream_unblock(sim_stream *s);
bool sim_stream_abort_requested(const sim_stream *s); /* aborting, or being force-destroyed */
/* A task that may run for good (a replay's loop: a label jump back, a WHILE) must end: its
 * stream is aborted, force-destroyed or being destroyed. Takes the stream's lock. */
bool sim_stream_must_end_task(sim_stream *s);
/* Wakes what the worker registered with sim_stream_block_on, and a parked task (its stream
 * is queued again, executor.c), after the caller set the flag
 * sim_stream_abort_requested reads; returns once a futex waiter has left its wait. The caller
 * holds no stream lock. */
void sim_stream_interrupt(sim_stream *s);
/* aclrtDestroyStream, and with force aclrtDestroyStreamForce: the queued tasks are discarded
 * instead of run (stream_attr.c) and a wait inside the running one ends. */
aclError sim_stream_destroy(aclrtStream stream, bool force, const char *func);
/* 107022 while the stream's device runs an aclrtDeviceTaskAbort, 107023 while the stream is
 * being aborted, recorded for func; else 0 (Stream::GetSynchronizeError, CheckContextStatus). */
aclError sim_stream_abort_status(sim_stream *s, const char *func);

/* The AI cores (device.c): ends the blocks of the job that *slot names, if any -- unclaimed
 * ones are skipped, running ones interrupted -- and marks it killed. */
void sim_pool_kill(sim_core_pool *p, sim_job **slot);


/* op_timeout.c: the timeout of a launch without a timeout attribute, in microseconds (0 =
 * never), and the wait timeout of stream waits in seconds (0 = never), as configured now;
 * sim_op_timeout_reset forgets the configuration (aclFinalize). */
uint64_t sim_op_execute_timeout_us(void);
uint32_t sim_op_wait_timeout_s(void);
void sim_op_timeout_reset(void);
/* issue 21: aclrtSetDeviceSatMode's process-wide mode back to the chip's default (aclFinalize;
 * device_query.c). */
void sim_sat_mode_reset(void);
/* The process's float overflow mode now (aclrtFloatOverflowMode): what a new stream takes. */
int sim_sat_mode_current(void);
/* Whether the driver supports millisecond operator timeouts (Runtime::IsSupportOpTimeoutMs). */
bool sim_op_timeout_ms_mode(void);

/* overflow.c: what a finished kernel task reports: its blocks' status, and whether its
 * stream's switch was on at submission. Returns 0, or ACL_ERROR_RT_AICORE_OVER_FLOW with msg
 * when the launch overflowed with the switch on (the stream's error, reported by synchronize,
 * but not a failure: no exception report, no stop-on-failure abort). */
aclError sim_overflow_report(sim_stream *s, const sim_task *t, uint32_t status, char *msg, size_t msglen);
/* A task outcome rc on s that is that overflow warning: kept as the stream's error (what
 * synchronize reports) and true -- the caller then treats the task as successful; else false. */
bool sim_overflow_absorb(sim_stream *s, aclError rc, const char *msg);

/* res_limit.c: the most AI cores a launch on s may use (0 = all), engine AIV or not; a
 * device's limits back to all cores (activation). */
uint32_t sim_res_limit_for_launch(sim_stream *s, bool aiv);
void sim_res_limit_device_init(sim_device *d);

/* Waiting on a word another thread or process changes (notify.c): futex wait with an
 * optional absolute CLOCK_MONOTONIC deadline; futex wake of every waiter. */
int sim_futex_wait(_Atomic uint32_t *word, uint32_t expected, const struct timespec *deadline);
void sim_futex_wake(_Atomic uint32_t *word);

/* cpu_kernel.c: a function registered by aclrtRegisterCpuFunc is an AI CPU kernel; the
 * simulated device has no AI CPU to run it on. */
bool sim_function_is_cpu(const sim_function *f);
/* aclrtBinaryUnLoad of b: closes the handles of its registered CPU functions. b->lock held. */
void sim_cpu_unload_locked(sim_binary *b);
/* The files an AI CPU program loaded from binPath in mode 0 or 1 needs (its .json, mode 1 its
 * .so too) exist and the JSON parses: 0, or the code (107000). */
aclError sim_cpu_check_files(const char *binPath, int mode, const char *func);

#endif /* AIOCANN_SIM_H_ */
