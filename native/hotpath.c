/*
 * aiocann._hotpath: the per-launch path of the async layer in C (issue 25).
 *
 * A CPython extension on the limited API (abi3, 3.10+), beside the cffi binding aiocann._native.
 * It does not call the runtime itself: aiocann/_hot.py hands it, once, the addresses of the cffi
 * module's C helpers (aiocann_launch, aiocann_replay, aiocann_cq_drain, aiocann_free), so a
 * launch still makes exactly the one C call of native/fastpath.c -- without cffi's argument
 * conversion and without any Python frame around it.
 *
 * What is here, and what each Python class keeps:
 *   Lane        the state of a stream's submission owner that the hot path reads and writes
 *               (mode, admission counts, pending map, token counter, native queue); the base of
 *               _submission.Submissions, whose methods (the slow paths) stay in Python.
 *               Lane.resolve is the one resolution path (C), Python calls it too.
 *   Completion  the fields of a Completion, its resolution and its await; the base of
 *               completion.Completion (public methods, repr: Python).
 *   Busy        a DeviceArray's in-flight accounting (memory.DeviceArray's base), so a launch
 *               and a resolution count an array's work without Python attribute calls.
 *   ArgsInfo    what the fast path needs of prebuilt KernelArgs, cached on them by the first
 *               launch that went through the Python path (raw handles, arrays, label).
 *   launch()    aiocann.launch: returns an awaitable whose await enqueues at once (no coroutine
 *               frame) when the fast path applies; otherwise it awaits the Python path.
 *   replay()    Graph.launch's awaitable, the same way (one C call: replay + its completion).
 *   drain()     the dispatcher's drain: completion reports from the native queue to resolved
 *               Completions and woken waiters, a batch at a time; failures (rare) go to Python.
 *
 * Threads: everything here runs on the device's event loop thread, holding the GIL, as the
 * Python code it replaces did; the runtime's threads never enter this module (they only append
 * to the native completion queue).
 */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030A0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <stdint.h>
#include <string.h>

/* Py_XSETREF is not in the limited API: the same, here. */
#define SETREF(dst, src)                                                                                               \
    do {                                                                                                               \
        PyObject *old_ = (PyObject *)(dst);                                                                            \
        (dst) = (src);                                                                                                 \
        Py_XDECREF(old_);                                                                                              \
    } while (0)

#define KEY_SHIFT 40
#define STREAM_REPORT 0x8000000000000000ULL
#define TASK_REPORT 0x4000000000000000ULL

typedef int (*launch_fn)(void *qs, void *func, uint32_t blocks, void *cfg, void *args, uint64_t token, int *launched);
typedef int (*replay_fn)(void *qs, void *model, void *cqm, uint64_t token, int *launched);
typedef size_t (*drain_fn)(void *cq, uint64_t *tokens, int32_t *status, char **messages, size_t max);
typedef void (*free_fn)(void *p);

/* ---------------------------------------------------------------- module globals (setup) */
static launch_fn c_launch;
static replay_fn c_replay;
static drain_fn c_drain;
static free_fn c_free;
static PyObject *CompletionType; /* completion.Completion (a subclass of CompletionBase) */
static PyObject *StreamType;     /* stream.Stream */
static PyObject *KernelArgsType; /* kernel.KernelArgs */
static PyObject *OPEN;           /* _submission.Mode.OPEN */
static PyObject *slow_launch;    /* launch._launch: the Python path of launch() (async) */
static PyObject *slow_replay;    /* graph.Graph._launch: the Python path of Graph.launch (async) */
static PyObject *launch_failed;  /* launch._launch_failed(sub, stream, token, kernel, args, rc) */
static PyObject *slow_await;     /* completion._await(c): the Python path of Completion's await */
static PyObject *error_for;      /* errors.error_for(code, message, label) */
static PyObject *trace;          /* tracing's active Trace, or NULL/None (tracing.py provides it) */
static PyObject *current_stream; /* _context._current_stream (a ContextVar) */
static PyObject *empty_tuple;
static uint64_t epoch = 1; /* ArgsInfo caches of an older epoch are stale (invalidate()) */

static PyObject *s_sub, *s_fast, *s_unuse_idle, *s_resolve_late, *s_wake_next, *s_failed, *s_wrong_thread,
    *s_on_submit, *s_on_resolve, *s_create_future, *s_await, *s_done, *s_set_result, *s_wake,
    *s_special, *s_error, *s_unuse, *s_label, *s_get, *s_blocks, *s_stream, *s_config, *s_resolve,
    *s_replay_started, *s_last, *s_replay_failed, *s_graph;
static PyObject *CancelledError, *get_running_loop; /* asyncio's */

/* Something the path needs was not provided (provide()): its module is not imported yet. */
static int missing(const char *what)
{
    PyErr_Format(PyExc_RuntimeError, "aiocann._hotpath: %s has not provided what the hot path needs", what);
    return -1;
}

/* ---------------------------------------------------------------- Busy (DeviceArray's base) */
typedef struct {
    PyObject_HEAD
    Py_ssize_t busy;    /* Completions in flight that use it, plus holds (a graph's) */
    Py_ssize_t busy_on; /* how many of them are on `stream` (at most) */
    PyObject *stream;   /* the stream of the newest of them */
    char closing;
} Busy;

static PyObject *BusyType;

static int busy_traverse(Busy *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->stream);
    return 0;
}

static int busy_clear(Busy *self)
{
    Py_CLEAR(self->stream);
    return 0;
}

static PyMemberDef busy_members[] = {
    {"_busy", T_PYSSIZET, offsetof(Busy, busy), 0, NULL},
    {"_busy_on", T_PYSSIZET, offsetof(Busy, busy_on), 0, NULL},
    {"_stream", T_OBJECT, offsetof(Busy, stream), 0, NULL},
    {"_closing", T_BOOL, offsetof(Busy, closing), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

/* A Completion that uses the array was enqueued on stream (what Completion._init does). */
static inline void busy_use(PyObject *a, PyObject *stream)
{
    Busy *b = (Busy *)a;
    b->busy++;
    if (b->stream == stream) {
        b->busy_on++;
    } else {
        Py_INCREF(stream);
        SETREF(b->stream, stream);
        b->busy_on = 1;
    }
}

/* Its work on stream is done (DeviceArray._unuse); a closed array's last work: _idle(). */
static int busy_unuse(PyObject *a, PyObject *stream)
{
    Busy *b = (Busy *)a;
    b->busy--;
    if (b->stream == stream)
        b->busy_on--;
    if (b->busy == 0 && b->closing) {
        PyObject *r = PyObject_CallMethodObjArgs(a, s_unuse_idle, NULL);
        if (!r)
            return -1;
        Py_DECREF(r);
    }
    return 0;
}

static PyObject *busy_unuse_method(PyObject *self, PyObject *stream)
{
    if (busy_unuse(self, stream) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef busy_methods[] = {
    {"_unuse", busy_unuse_method, METH_O, "Work on the given stream that used the array is done."},
    {NULL, NULL, 0, NULL},
};

static void busy_dealloc(Busy *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    busy_clear(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static PyType_Slot busy_slots[] = {
    {Py_tp_doc, "A device array's in-flight accounting (memory.DeviceArray's base)."},
    {Py_tp_members, busy_members},
    {Py_tp_methods, busy_methods},
    {Py_tp_traverse, busy_traverse},
    {Py_tp_clear, busy_clear},
    {Py_tp_dealloc, busy_dealloc},
    {0, NULL},
};

static PyType_Spec busy_spec = {"aiocann._hotpath.Busy", sizeof(Busy), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, busy_slots};

/* ---------------------------------------------------------------- Lane (Submissions' base) */
typedef struct {
    PyObject_HEAD
    PyObject *mode;    /* _submission.Mode */
    PyObject *pending; /* dict: token -> Completion */
    PyObject *waiters; /* deque of admission waiters (anyio.Event) */
    PyObject *last;    /* the newest Completion in flight, or NULL */
    PyObject *loop;    /* the device's asyncio loop; None under trio */
    PyObject *flavour; /* _flavour.Flavour */
    PyObject *npu;     /* the device's NPU (its runtime device): same NPU is the same object */
    PyObject *owner;   /* the open device the stream belongs to (a graph's replay checks it) */
    Py_ssize_t in_flight;
    Py_ssize_t max_in_flight;
    unsigned long thread; /* the device's thread */
    uint64_t next_token;  /* the last token handed out */
    void *qs;             /* aiocann_cq_stream * */
    int *launched;        /* the fast paths' out-flag (cffi memory Submissions owns) */
} Lane;

static PyObject *LaneType;

static int lane_traverse(Lane *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->mode);
    Py_VISIT(self->pending);
    Py_VISIT(self->waiters);
    Py_VISIT(self->last);
    Py_VISIT(self->loop);
    Py_VISIT(self->flavour);
    Py_VISIT(self->npu);
    Py_VISIT(self->owner);
    return 0;
}

static int lane_clear(Lane *self)
{
    Py_CLEAR(self->mode);
    Py_CLEAR(self->pending);
    Py_CLEAR(self->waiters);
    Py_CLEAR(self->last);
    Py_CLEAR(self->loop);
    Py_CLEAR(self->flavour);
    Py_CLEAR(self->npu);
    Py_CLEAR(self->owner);
    return 0;
}

static void lane_dealloc(Lane *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    lane_clear(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static PyMemberDef lane_members[] = {
    {"mode", T_OBJECT, offsetof(Lane, mode), 0, NULL},
    {"pending", T_OBJECT, offsetof(Lane, pending), 0, NULL},
    {"waiters", T_OBJECT, offsetof(Lane, waiters), 0, NULL},
    {"last", T_OBJECT, offsetof(Lane, last), 0, NULL},
    {"loop", T_OBJECT, offsetof(Lane, loop), 0, NULL},
    {"flavour", T_OBJECT, offsetof(Lane, flavour), 0, NULL},
    {"npu", T_OBJECT, offsetof(Lane, npu), 0, NULL},
    {"owner", T_OBJECT, offsetof(Lane, owner), 0, NULL},
    {"in_flight", T_PYSSIZET, offsetof(Lane, in_flight), 0, NULL},
    {"max_in_flight", T_PYSSIZET, offsetof(Lane, max_in_flight), 0, NULL},
    {"thread", T_ULONG, offsetof(Lane, thread), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyObject *lane_new_token(Lane *self, PyObject *Py_UNUSED(ignored))
{
    return PyLong_FromUnsignedLongLong(++self->next_token);
}

static PyObject *lane_set_native(Lane *self, PyObject *args)
{
    unsigned long long qs, launched, first;
    if (!PyArg_ParseTuple(args, "KKK", &qs, &launched, &first))
        return NULL;
    self->qs = (void *)(uintptr_t)qs;
    self->launched = (int *)(uintptr_t)launched;
    if (first) /* 0: keep the tokens (the stream closes: no queue any more) */
        self->next_token = first;
    Py_RETURN_NONE;
}

static int completion_resolve(PyObject *c, int code, PyObject *message);

/* The first exception of a sequence of steps that must all run (a finally block): save() keeps
 * the current one if none is kept yet (and clears it either way), restore() raises it again. */
struct saved {
    PyObject *type, *value, *tb;
};

static void save(struct saved *s)
{
    if (s->type) {
        PyErr_Clear();
        return;
    }
    PyErr_Fetch(&s->type, &s->value, &s->tb);
}

static int restore(struct saved *s)
{
    if (!s->type)
        return 0;
    PyErr_Restore(s->type, s->value, s->tb);
    return -1;
}

static int call_method0(PyObject *obj, PyObject *name)
{
    PyObject *r = PyObject_CallMethodObjArgs(obj, name, NULL);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* Submissions.resolve: the work of token ended with code. Every path that ends a pending
 * Completion comes here. Returns -1 with an exception set (from on_done, or accounting). */
static int lane_resolve(Lane *self, PyObject *key, int code, PyObject *message)
{
    if (!self->pending || !PyDict_Check(self->pending)) {
        PyErr_SetString(PyExc_TypeError, "Lane.pending must be a dict");
        return -1;
    }
    PyObject *c = PyDict_GetItemWithError(self->pending, key);
    if (!c) {
        if (PyErr_Occurred())
            return -1;
        /* Not pending: maybe a completion the watchdog failed whose device work just ended. */
        PyObject *r = PyObject_CallMethodObjArgs((PyObject *)self, s_resolve_late, key, NULL);
        if (!r)
            return -1;
        Py_DECREF(r);
        return 0;
    }
    Py_INCREF(c);
    if (PyDict_DelItem(self->pending, key) < 0) {
        Py_DECREF(c);
        return -1;
    }
    /* try: resolve; finally: the accounting, whatever on_done did. The first exception wins. */
    struct saved err = {0};
    if (completion_resolve(c, code, message) < 0)
        save(&err);
    self->in_flight--;
    if (self->last == c)
        Py_CLEAR(self->last); /* it holds the stream, and the dispatcher holds us */
    if (self->waiters && PyObject_IsTrue(self->waiters) == 1 && call_method0((PyObject *)self, s_wake_next) < 0)
        save(&err);
    PyErr_Clear(); /* PyObject_IsTrue's, if any */
    if (trace && trace != Py_None) {
        PyObject *active = trace;
        Py_INCREF(active);
        PyObject *pc = PyLong_FromLong(code);
        PyObject *r = pc ? PyObject_CallMethodObjArgs(active, s_on_resolve, c, pc, NULL) : NULL;
        Py_XDECREF(pc);
        if (!r)
            save(&err);
        Py_XDECREF(r);
        Py_DECREF(active);
    }
    if (code && !error_for) {
        missing("completion.py");
        save(&err);
    } else if (code) {
        PyObject *label = PyObject_GetAttr(c, s_label);
        PyObject *pc = label ? PyLong_FromLong(code) : NULL;
        PyObject *e = pc ? PyObject_CallFunctionObjArgs(error_for, pc, message, label, NULL) : NULL;
        PyObject *r = e ? PyObject_CallMethodObjArgs((PyObject *)self, s_failed, e, NULL) : NULL;
        if (!r)
            save(&err);
        Py_XDECREF(r);
        Py_XDECREF(e);
        Py_XDECREF(pc);
        Py_XDECREF(label);
    }
    Py_DECREF(c);
    return restore(&err);
}

static PyObject *lane_resolve_method(Lane *self, PyObject *args)
{
    PyObject *key, *message;
    int code;
    if (!PyArg_ParseTuple(args, "OiO", &key, &code, &message))
        return NULL;
    if (lane_resolve(self, key, code, message) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef lane_methods[] = {
    {"new_token", (PyCFunction)lane_new_token, METH_NOARGS, "A new token of this stream."},
    {"_set_native", (PyCFunction)lane_set_native, METH_VARARGS,
     "_set_native(qs, launched, first_token): the native queue, the out-flag and the tokens."},
    {"resolve", (PyCFunction)lane_resolve_method, METH_VARARGS,
     "resolve(token, code, message): the work of token ended with code; resolve its Completion."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot lane_slots[] = {
    {Py_tp_doc, "The hot state of a stream's submission owner (_submission.Submissions' base)."},
    {Py_tp_members, lane_members},
    {Py_tp_methods, lane_methods},
    {Py_tp_traverse, lane_traverse},
    {Py_tp_clear, lane_clear},
    {Py_tp_dealloc, lane_dealloc},
    {Py_tp_new, PyType_GenericNew},
    {0, NULL},
};

static PyType_Spec lane_spec = {"aiocann._hotpath.Lane", sizeof(Lane), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, lane_slots};

/* ---------------------------------------------------------------- Completion (base) */
typedef struct {
    PyObject_HEAD
    PyObject *stream;
    PyObject *lane; /* a Lane */
    PyObject *keep;
    PyObject *arrays; /* a tuple of Busy */
    PyObject *on_done;
    PyObject *message;
    PyObject *waiters; /* list of futures (asyncio) or tasks (trio), or NULL */
    PyObject *label;
    PyObject *weakrefs;
    int code;
    char done;
} Completion;

static PyObject *CompletionBaseType;

static int completion_traverse(Completion *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->stream);
    Py_VISIT(self->lane);
    Py_VISIT(self->keep);
    Py_VISIT(self->arrays);
    Py_VISIT(self->on_done);
    Py_VISIT(self->message);
    Py_VISIT(self->waiters);
    Py_VISIT(self->label);
    return 0;
}

static int completion_clear(Completion *self)
{
    Py_CLEAR(self->stream);
    Py_CLEAR(self->lane);
    Py_CLEAR(self->keep);
    Py_CLEAR(self->arrays);
    Py_CLEAR(self->on_done);
    Py_CLEAR(self->message);
    Py_CLEAR(self->waiters);
    Py_CLEAR(self->label);
    return 0;
}

static void completion_dealloc(Completion *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (self->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)self);
    completion_clear(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static PyMemberDef completion_members[] = {
    {"_stream", T_OBJECT, offsetof(Completion, stream), 0, NULL},
    {"_lane", T_OBJECT, offsetof(Completion, lane), 0, NULL},
    {"_keep", T_OBJECT, offsetof(Completion, keep), 0, NULL},
    {"_arrays", T_OBJECT, offsetof(Completion, arrays), 0, NULL},
    {"_on_done", T_OBJECT, offsetof(Completion, on_done), 0, NULL},
    {"_message", T_OBJECT, offsetof(Completion, message), 0, NULL},
    {"_waiters", T_OBJECT, offsetof(Completion, waiters), 0, NULL},
    {"label", T_OBJECT, offsetof(Completion, label), 0, NULL},
    {"_code", T_INT, offsetof(Completion, code), 0, NULL},
    {"_done", T_BOOL, offsetof(Completion, done), 0, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(Completion, weakrefs), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

/* A new Completion (completion.Completion) for work just enqueued on stream: holds keep and
 * arrays (each counted busy) until resolved. New reference, or NULL. */
static PyObject *completion_make(PyObject *stream, PyObject *lane, PyObject *label, PyObject *keep,
                                 PyObject *arrays)
{
    PyTypeObject *tp = (PyTypeObject *)CompletionType;
    allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
    Completion *c = (Completion *)alloc(tp, 0);
    if (!c)
        return NULL;
    Py_INCREF(stream);
    c->stream = stream;
    Py_INCREF(lane);
    c->lane = lane;
    Py_INCREF(label);
    c->label = label;
    Py_XINCREF(keep);
    c->keep = keep;
    Py_INCREF(arrays);
    c->arrays = arrays;
    Py_ssize_t n = PyTuple_Size(arrays);
    for (Py_ssize_t i = 0; i < n; i++)
        busy_use(PyTuple_GetItem(arrays, i), stream);
    /* Not tracked by the cyclic GC while pending: it is alive by design until resolved (its
     * lane's pending map holds it), every cycle through it (lane -> pending -> it -> lane, a
     * waiter's future -> task -> frame -> it) is broken by its resolution, and a launch loop
     * would otherwise make every young collection walk every Completion in flight.
     * completion_resolve tracks it again. */
    PyObject_GC_UnTrack(c);
    return (PyObject *)c;
}

static int wake(Completion *c, PyObject *waiters)
{
    Lane *lane = (Lane *)c->lane;
    int lane_ok = lane && PyObject_TypeCheck((PyObject *)lane, (PyTypeObject *)LaneType);
    if (!lane_ok || !lane->loop || lane->loop == Py_None || !PyList_Check(waiters)) {
        /* trio (or anything but a Lane's asyncio loop): the flavour wakes its own waiters */
        PyObject *flavour = lane_ok ? (Py_XINCREF(lane->flavour), lane->flavour)
                                    : (lane ? PyObject_GetAttrString((PyObject *)lane, "flavour") : NULL);
        if (!flavour) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "a Completion's lane has no flavour");
            return -1;
        }
        PyObject *r = PyObject_CallMethodObjArgs(flavour, s_wake, waiters, NULL);
        Py_DECREF(flavour);
        if (!r)
            return -1;
        Py_DECREF(r);
        return 0;
    }
    Py_ssize_t n = PyList_Size(waiters);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *fut = PyList_GetItem(waiters, i);
        PyObject *d = PyObject_CallMethodObjArgs(fut, s_done, NULL);
        if (!d)
            return -1;
        int done = PyObject_IsTrue(d);
        Py_DECREF(d);
        if (!done) { /* a cancelled one was detached by its own task */
            PyObject *r = PyObject_CallMethodObjArgs(fut, s_set_result, Py_None, NULL);
            if (!r)
                return -1;
            Py_DECREF(r);
        }
    }
    return 0;
}

/* Completion._resolve: done with code; drops what the device was using, runs on_done, wakes
 * the waiters (even if on_done raised). */
static int completion_resolve(PyObject *obj, int code, PyObject *message)
{
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)CompletionBaseType)) {
        PyObject *pc = PyLong_FromLong(code);
        PyObject *r = pc ? PyObject_CallMethodObjArgs(obj, s_resolve, pc, message, NULL) : NULL;
        Py_XDECREF(pc);
        if (!r)
            return -1;
        Py_DECREF(r);
        return 0;
    }
    Completion *c = (Completion *)obj;
    if (!PyObject_GC_IsTracked(obj)) /* made by completion_make: collectable like any object now */
        PyObject_GC_Track(obj);
    c->done = 1;
    c->code = code;
    Py_INCREF(message);
    SETREF(c->message, message);
    PyObject *on_done = c->on_done;
    c->on_done = NULL;
    PyObject *arrays = c->arrays;
    Py_INCREF(empty_tuple);
    c->arrays = empty_tuple;
    struct saved err = {0};
    Py_CLEAR(c->keep);
    if (arrays) {
        PyObject *seq = PySequence_Tuple(arrays); /* a tuple already, unless Python set another sequence */
        Py_DECREF(arrays);
        if (!seq)
            save(&err);
        Py_ssize_t n = seq ? PyTuple_Size(seq) : 0;
        for (Py_ssize_t i = 0; i < n && !err.type; i++) {
            PyObject *a = PyTuple_GetItem(seq, i);
            if (PyObject_TypeCheck(a, (PyTypeObject *)BusyType)) {
                if (busy_unuse(a, c->stream) < 0)
                    save(&err);
            } else {
                PyObject *r = PyObject_CallMethodObjArgs(a, s_unuse, c->stream, NULL);
                if (!r)
                    save(&err);
                Py_XDECREF(r);
            }
        }
        Py_XDECREF(seq);
    }
    if (!err.type && on_done && on_done != Py_None) {
        PyObject *r = PyObject_CallNoArgs(on_done);
        if (!r)
            save(&err);
        Py_XDECREF(r);
    }
    Py_XDECREF(on_done);
    /* finally: wake every waiter, even if on_done raised */
    PyObject *waiters = c->waiters;
    if (waiters && waiters != Py_None && PyObject_IsTrue(waiters) == 1) {
        c->waiters = NULL;
        if (wake(c, waiters) < 0)
            save(&err);
        Py_DECREF(waiters);
    }
    PyErr_Clear(); /* PyObject_IsTrue's, if any */
    return restore(&err);
}

static PyObject *completion_resolve_method(PyObject *self, PyObject *args)
{
    PyObject *message;
    int code;
    if (!PyArg_ParseTuple(args, "iO", &code, &message))
        return NULL;
    if (completion_resolve(self, code, message) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ---- awaiting: finished work (a shared iterator that ends at once) */
static PyObject *DoneIterType, *done_iter;

static PySendResult doneiter_send(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(arg), PyObject **result)
{
    Py_INCREF(Py_None);
    *result = Py_None;
    return PYGEN_RETURN;
}

static PyObject *doneiter_next(PyObject *Py_UNUSED(self))
{
    return NULL; /* exhausted, no exception: StopIteration(None) */
}

static PyObject *self_iter(PyObject *self)
{
    Py_INCREF(self);
    return self;
}

static PyType_Slot doneiter_slots[] = {
    {Py_am_send, doneiter_send},
    {Py_tp_iter, self_iter},
    {Py_tp_iternext, doneiter_next},
    {0, NULL},
};
static PyType_Spec doneiter_spec = {"aiocann._hotpath._Done", sizeof(PyObject), 0, Py_TPFLAGS_DEFAULT, doneiter_slots};

/* ---- awaiting: pending work on asyncio (a future of the device's loop, detached alone) */
typedef struct {
    PyObject_HEAD
    PyObject *completion;
    PyObject *fut;
    PyObject *it; /* fut.__await__(), until the future is done */
} WaitIter;

static PyObject *WaitIterType;

static void waititer_dealloc(WaitIter *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    Py_CLEAR(self->completion);
    Py_CLEAR(self->fut);
    Py_CLEAR(self->it);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static void raise_failure(Completion *c)
{
    if (!error_for) {
        missing("completion.py");
        return;
    }
    PyObject *pc = PyLong_FromLong(c->code);
    PyObject *err = pc ? PyObject_CallFunctionObjArgs(error_for, pc, c->message ? c->message : Py_None,
                                                      c->label ? c->label : Py_None, NULL)
                       : NULL;
    Py_XDECREF(pc);
    if (err) {
        PyErr_SetObject((PyObject *)Py_TYPE(err), err);
        Py_DECREF(err);
    }
}

static PySendResult waititer_send(WaitIter *self, PyObject *arg, PyObject **result)
{
    *result = NULL;
    if (!self->it) {
        PyErr_SetString(PyExc_RuntimeError, "cannot reuse an awaited Completion's iterator");
        return PYGEN_ERROR;
    }
    PyObject *res = NULL;
    PySendResult r = PyIter_Send(self->it, arg, &res);
    if (r == PYGEN_NEXT) {
        *result = res;
        return PYGEN_NEXT;
    }
    Py_CLEAR(self->it);
    if (r == PYGEN_ERROR)
        return PYGEN_ERROR;
    Py_XDECREF(res);
    Completion *c = (Completion *)self->completion;
    if (c->code) {
        raise_failure(c);
        return PYGEN_ERROR;
    }
    Py_INCREF(Py_None);
    *result = Py_None;
    return PYGEN_RETURN;
}

static PyObject *waititer_next(WaitIter *self)
{
    PyObject *res;
    PySendResult r = waititer_send(self, Py_None, &res);
    if (r == PYGEN_NEXT)
        return res;
    if (r == PYGEN_RETURN)
        Py_DECREF(res); /* None: exhausted without an exception means StopIteration(None) */
    return NULL;
}

/* Detach this waiter alone: its task is cancelled, or its coroutine closed. */
static int waititer_detach(WaitIter *self)
{
    Py_CLEAR(self->it);
    Completion *c = (Completion *)self->completion;
    if (self->fut && c->waiters && PyList_Check(c->waiters)) {
        Py_ssize_t n = PyList_Size(c->waiters);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (PyList_GetItem(c->waiters, i) == self->fut)
                return PySequence_DelItem(c->waiters, i);
        }
    }
    return 0;
}

static PyObject *wrong_thread(PyObject *lane)
{
    PyObject *r = PyObject_CallMethodObjArgs(lane, s_wrong_thread, NULL);
    Py_XDECREF(r);
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_RuntimeError, "awaited off the device's thread");
    return NULL;
}

static PyObject *waititer_throw(WaitIter *self, PyObject *args)
{
    PyObject *typ, *val = NULL, *tb = NULL;
    if (!PyArg_UnpackTuple(args, "throw", 1, 3, &typ, &val, &tb))
        return NULL;
    if (waititer_detach(self) < 0)
        return NULL;
    PyObject *exc;
    if (PyExceptionInstance_Check(typ)) {
        exc = typ;
        Py_INCREF(exc);
    } else if (PyExceptionClass_Check(typ)) {
        if (val && PyObject_IsInstance(val, typ) == 1) {
            exc = val;
            Py_INCREF(exc);
        } else {
            exc = (val && val != Py_None) ? PyObject_CallFunctionObjArgs(typ, val, NULL) : PyObject_CallNoArgs(typ);
            if (!exc)
                return NULL;
        }
    } else {
        PyErr_SetString(PyExc_TypeError, "exceptions must be classes or instances deriving from BaseException");
        return NULL;
    }
    if (tb && tb != Py_None)
        PyException_SetTraceback(exc, tb);
    /* Another event loop of the device's thread refuses to wait for our loop's future and
     * throws that in here: the device's WrongThreadError instead. Asked only now (on 3.11,
     * asyncio._get_running_loop() costs a getpid() call). */
    if (!PyErr_GivenExceptionMatches(exc, PyExc_GeneratorExit) && !PyErr_GivenExceptionMatches(exc, CancelledError)) {
        PyObject *running = PyObject_CallNoArgs(get_running_loop);
        PyObject *lane = ((Completion *)self->completion)->lane;
        if (!running) {
            Py_DECREF(exc);
            return NULL;
        }
        int other = running != ((Lane *)lane)->loop;
        Py_DECREF(running);
        if (other) {
            Py_DECREF(exc);
            return wrong_thread(lane);
        }
    }
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

static PyObject *waititer_close(WaitIter *self, PyObject *Py_UNUSED(ignored))
{
    if (waititer_detach(self) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *waititer_send_method(WaitIter *self, PyObject *arg)
{
    PyObject *res;
    PySendResult r = waititer_send(self, arg, &res);
    if (r == PYGEN_NEXT)
        return res;
    if (r == PYGEN_RETURN) {
        PyErr_SetNone(PyExc_StopIteration);
        Py_DECREF(res);
    }
    return NULL;
}

static PyMethodDef waititer_methods[] = {
    {"send", (PyCFunction)waititer_send_method, METH_O, NULL},
    {"throw", (PyCFunction)waititer_throw, METH_VARARGS, NULL},
    {"close", (PyCFunction)waititer_close, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot waititer_slots[] = {
    {Py_am_send, waititer_send},   {Py_tp_iter, self_iter},         {Py_tp_iternext, waititer_next},
    {Py_tp_methods, waititer_methods}, {Py_tp_dealloc, waititer_dealloc}, {0, NULL},
};
static PyType_Spec waititer_spec = {"aiocann._hotpath._Wait", sizeof(WaitIter), 0, Py_TPFLAGS_DEFAULT, waititer_slots};

/* Completion.__await__. On asyncio: finished work returns at once (a finished future's
 * semantics: no trip through the loop), pending work waits on a future of the device's loop.
 * trio, and a Completion whose lane is not a Lane, take the Python path (completion._await). */
static PyObject *completion_await(Completion *self)
{
    PyObject *lane = self->lane;
    if (!slow_await) {
        missing("completion.py");
        return NULL;
    }
    if (!lane || !PyObject_TypeCheck(lane, (PyTypeObject *)LaneType))
        return PyObject_CallFunctionObjArgs(slow_await, (PyObject *)self, NULL);
    Lane *l = (Lane *)lane;
    if (!l->loop || l->loop == Py_None)
        return PyObject_CallFunctionObjArgs(slow_await, (PyObject *)self, NULL);
    if (PyThread_get_thread_ident() != l->thread)
        return wrong_thread(lane);
    if (self->done) {
        if (self->code) {
            raise_failure(self);
            return NULL;
        }
        Py_INCREF(done_iter);
        return done_iter;
    }
    if (!self->waiters || self->waiters == Py_None) {
        PyObject *w = PyList_New(0);
        if (!w)
            return NULL;
        SETREF(self->waiters, w);
    }
    PyObject *fut = PyObject_CallMethodObjArgs(l->loop, s_create_future, NULL);
    if (!fut)
        return NULL;
    PyObject *it = PyObject_CallMethodObjArgs(fut, s_await, NULL);
    if (!it || PyList_Append(self->waiters, fut) < 0) {
        Py_XDECREF(it);
        Py_DECREF(fut);
        return NULL;
    }
    PyTypeObject *tp = (PyTypeObject *)WaitIterType;
    WaitIter *w = (WaitIter *)((allocfunc)PyType_GetSlot(tp, Py_tp_alloc))(tp, 0);
    if (!w) {
        Py_DECREF(it);
        Py_DECREF(fut);
        return NULL;
    }
    Py_INCREF(self);
    w->completion = (PyObject *)self;
    w->fut = fut;
    w->it = it;
    return (PyObject *)w;
}

static PyMethodDef completion_methods[] = {
    {"_resolve", (PyCFunction)completion_resolve_method, METH_VARARGS,
     "_resolve(code, message): the device is done (the dispatcher, on the event loop)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot completion_slots[] = {
    {Py_tp_doc, "The fields, resolution and await of a Completion (completion.Completion's base)."},
    {Py_tp_members, completion_members},
    {Py_tp_methods, completion_methods},
    {Py_am_await, completion_await},
    {Py_tp_traverse, completion_traverse},
    {Py_tp_clear, completion_clear},
    {Py_tp_dealloc, completion_dealloc},
    {0, NULL},
};

static PyType_Spec completion_spec = {"aiocann._hotpath.CompletionBase", sizeof(Completion), 0,
                                      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                                      completion_slots};

/* ---------------------------------------------------------------- ArgsInfo */
typedef struct {
    PyObject_HEAD
    PyObject *kernel;
    PyObject *npu;    /* the NPU the kernel's binary is loaded on */
    PyObject *label;  /* the kernel's name */
    PyObject *arrays; /* tuple: the arrays the args point to */
    void *func;       /* aclrtFuncHandle */
    void *handle;     /* aclrtArgsHandle */
    uint64_t epoch;
} ArgsInfo;

static PyObject *ArgsInfoType;

static PyObject *argsinfo_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    PyObject *kernel, *arrays, *label, *npu;
    unsigned long long func, handle;
    if (kw && PyObject_IsTrue(kw)) {
        PyErr_SetString(PyExc_TypeError, "ArgsInfo takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OKKO!OO", &kernel, &func, &handle, &PyTuple_Type, &arrays, &label, &npu))
        return NULL;
    ArgsInfo *self = (ArgsInfo *)((allocfunc)PyType_GetSlot(tp, Py_tp_alloc))(tp, 0);
    if (!self)
        return NULL;
    Py_ssize_t n = PyTuple_Size(arrays);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyObject_TypeCheck(PyTuple_GetItem(arrays, i), (PyTypeObject *)BusyType)) {
            Py_DECREF(self);
            PyErr_SetString(PyExc_TypeError, "ArgsInfo: the arrays must be DeviceArrays");
            return NULL;
        }
    }
    Py_INCREF(kernel);
    self->kernel = kernel;
    Py_INCREF(npu);
    self->npu = npu;
    Py_INCREF(label);
    self->label = label;
    Py_INCREF(arrays);
    self->arrays = arrays;
    self->func = (void *)(uintptr_t)func;
    self->handle = (void *)(uintptr_t)handle;
    self->epoch = epoch;
    return (PyObject *)self;
}

static int argsinfo_traverse(ArgsInfo *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->kernel);
    Py_VISIT(self->npu);
    Py_VISIT(self->arrays);
    return 0;
}

static int argsinfo_clear(ArgsInfo *self)
{
    Py_CLEAR(self->kernel);
    Py_CLEAR(self->npu);
    Py_CLEAR(self->label);
    Py_CLEAR(self->arrays);
    return 0;
}

static void argsinfo_dealloc(ArgsInfo *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    argsinfo_clear(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static PyType_Slot argsinfo_slots[] = {
    {Py_tp_doc, "ArgsInfo(kernel, func, handle, arrays, label, npu): what launch()'s fast path needs of "
                "prebuilt KernelArgs (KernelArgs._fast); stale once invalidate() is called."},
    {Py_tp_new, argsinfo_new},
    {Py_tp_traverse, argsinfo_traverse},
    {Py_tp_clear, argsinfo_clear},
    {Py_tp_dealloc, argsinfo_dealloc},
    {0, NULL},
};

static PyType_Spec argsinfo_spec = {"aiocann._hotpath.ArgsInfo", sizeof(ArgsInfo), 0,
                                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, argsinfo_slots};

/* ---------------------------------------------------------------- the awaitables of launch() and replay() */
typedef struct {
    PyObject_HEAD
    PyObject *a, *b, *c, *d, *e; /* launch: kernel, args, blocks, stream, config; replay: graph, stream, native */
    PyObject *inner;             /* the Python path's coroutine, while it runs (state 1) */
    char replay;
    char state; /* 0: not started, 1: the Python path runs, 2: finished */
} Call;

static PyObject *CallType;

static int call_traverse(Call *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->a);
    Py_VISIT(self->b);
    Py_VISIT(self->c);
    Py_VISIT(self->d);
    Py_VISIT(self->e);
    Py_VISIT(self->inner);
    return 0;
}

static int call_clear(Call *self)
{
    Py_CLEAR(self->a);
    Py_CLEAR(self->b);
    Py_CLEAR(self->c);
    Py_CLEAR(self->d);
    Py_CLEAR(self->e);
    Py_CLEAR(self->inner);
    return 0;
}

static void call_dealloc(Call *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    call_clear(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

/* The stream: the one given, or the task's current stream. NULL without an exception: none. */
static PyObject *the_stream(PyObject *given)
{
    if (given && given != Py_None) {
        Py_INCREF(given);
        return given;
    }
    PyObject *s = PyObject_CallMethodObjArgs(current_stream, s_get, NULL);
    if (!s)
        PyErr_Clear(); /* no current stream: the Python path raises the error */
    return s;
}

/* The stream's lane if work can go in at once: open, on its device's thread, room in flight and
 * nobody queued for it. New reference, or NULL (no exception: the Python path decides). */
static Lane *ready_lane(PyObject *s)
{
    if ((PyObject *)Py_TYPE(s) != StreamType)
        return NULL;
    PyObject *sub = PyObject_GetAttr(s, s_sub);
    if (!sub) {
        PyErr_Clear();
        return NULL;
    }
    Lane *l = (Lane *)sub;
    if (!PyObject_TypeCheck(sub, (PyTypeObject *)LaneType) || l->mode != OPEN || l->qs == NULL ||
        !l->pending || !PyDict_Check(l->pending) ||
        l->thread != PyThread_get_thread_ident() || l->in_flight >= l->max_in_flight ||
        (l->waiters && PyObject_Size(l->waiters) != 0)) {
        PyErr_Clear();
        Py_DECREF(sub);
        return NULL;
    }
    return l;
}

/* Register c, the Completion of work just enqueued with token (Submissions.track). */
static int lane_track(Lane *l, PyObject *s, PyObject *tok, PyObject *c)
{
    if (PyDict_SetItem(l->pending, tok, c) < 0)
        return -1;
    l->in_flight++;
    Py_INCREF(c);
    SETREF(l->last, c);
    int rc = 0;
    if (trace && trace != Py_None) {
        PyObject *active = trace;
        Py_INCREF(active);
        PyObject *r = PyObject_CallMethodObjArgs(active, s_on_submit, s, c, NULL);
        if (!r)
            rc = -1;
        Py_XDECREF(r);
        Py_DECREF(active);
    }
    return rc;
}

/* launch()'s fast path: prebuilt args whose cache is current, no config, an open stream with
 * room. Returns the Completion (new reference), NULL with an exception, or NULL without one:
 * the Python path takes it. */
static PyObject *launch_fast(Call *self)
{
    PyObject *kernel = self->a, *args = self->b, *blocks = self->c;
    if (!(CompletionType && StreamType && KernelArgsType && OPEN && launch_failed && c_launch))
        return NULL; /* not everything was provided yet: the Python path */
    if ((self->e && self->e != Py_None) || (PyObject *)Py_TYPE(args) != KernelArgsType || !PyLong_CheckExact(blocks))
        return NULL;
    unsigned long long nb = PyLong_AsUnsignedLongLong(blocks);
    if (nb == 0 || nb > 0xFFFFFFFFULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *info_obj = PyObject_GetAttr(args, s_fast);
    if (!info_obj) {
        PyErr_Clear();
        return NULL;
    }
    ArgsInfo *info = (ArgsInfo *)info_obj;
    if ((PyObject *)Py_TYPE(info_obj) != ArgsInfoType || info->kernel != kernel || info->epoch != epoch) {
        Py_DECREF(info_obj);
        return NULL;
    }
    PyObject *s = the_stream(self->d);
    if (!s) {
        Py_DECREF(info_obj);
        return NULL;
    }
    Lane *l = ready_lane(s);
    if (!l || l->npu != info->npu) {
        Py_XDECREF(l);
        Py_DECREF(s);
        Py_DECREF(info_obj);
        return NULL;
    }
    uint64_t token = ++l->next_token;
    PyObject *tok = PyLong_FromUnsignedLongLong(token);
    PyObject *c = NULL;
    if (!tok)
        goto out;
    int rc = c_launch(l->qs, info->func, (uint32_t)nb, NULL, info->handle, token, l->launched);
    if (rc) { /* refused, or its callback was: the Python path's failure handling */
        PyObject *prc = PyLong_FromLong(rc);
        if (prc)
            c = PyObject_CallFunctionObjArgs(launch_failed, (PyObject *)l, s, tok, kernel, args, prc, NULL);
        Py_XDECREF(prc);
        goto out;
    }
    c = completion_make(s, (PyObject *)l, info->label, args, info->arrays);
    if (c && lane_track(l, s, tok, c) < 0)
        Py_CLEAR(c);
out:
    if (!c && !PyErr_Occurred())
        PyErr_SetString(PyExc_SystemError, "launch: no completion");
    Py_XDECREF(tok);
    Py_DECREF(l);
    Py_DECREF(s);
    Py_DECREF(info_obj);
    return c;
}

/* Graph.launch()'s fast path: a ready graph (native: the model's and its registered model's
 * addresses, and the open device it belongs to -- None unless ready), no replay of it in flight on another
 * stream (graph._last: None, or this stream or its lane), an open stream of that device with
 * room. One C call replays it and queues its completion; graph._replay_started(lane) then does
 * the graph's bookkeeping and says what the Completion keeps and runs when done. Same returns
 * as launch_fast. */
static PyObject *replay_fast(Call *self)
{
    PyObject *graph = self->a, *native = self->c;
    if (!(CompletionType && StreamType && OPEN && c_replay) || !native || !PyTuple_Check(native) ||
        PyTuple_Size(native) != 3)
        return NULL; /* not ready (None), or not everything provided: the Python path */
    unsigned long long model = PyLong_AsUnsignedLongLong(PyTuple_GetItem(native, 0));
    unsigned long long cqm = PyLong_AsUnsignedLongLong(PyTuple_GetItem(native, 1));
    PyObject *owner = PyTuple_GetItem(native, 2);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *s = the_stream(self->b);
    Lane *l = s ? ready_lane(s) : NULL;
    PyObject *last = l ? PyObject_GetAttr(graph, s_last) : NULL;
    PyObject *c = NULL, *tok = NULL, *started = NULL;
    if (!last || l->owner != owner || (last != Py_None && last != s && last != (PyObject *)l)) {
        PyErr_Clear(); /* the Python path: checks, waits, orders the replay behind another stream's */
        goto out;
    }
    uint64_t token = ++l->next_token;
    tok = PyLong_FromUnsignedLongLong(token);
    if (!tok)
        goto fail;
    int rc = c_replay(l->qs, (void *)(uintptr_t)model, (void *)(uintptr_t)cqm, token, l->launched);
    if (rc) {
        PyObject *prc = PyLong_FromLong(rc);
        if (prc)
            c = PyObject_CallMethodObjArgs(graph, s_replay_failed, (PyObject *)l, s, tok, prc, NULL);
        Py_XDECREF(prc);
        goto fail;
    }
    started = PyObject_CallMethodObjArgs(graph, s_replay_started, (PyObject *)l, s, NULL);
    if (!started)
        goto fail;
    if (!PyTuple_Check(started) || PyTuple_Size(started) != 2) {
        PyErr_SetString(PyExc_TypeError, "Graph._replay_started must return (keep, on_done)");
        goto fail;
    }
    c = completion_make(s, (PyObject *)l, s_graph, PyTuple_GetItem(started, 0), empty_tuple);
    if (c) {
        PyObject *on_done = PyTuple_GetItem(started, 1);
        Py_INCREF(on_done);
        SETREF(((Completion *)c)->on_done, on_done);
        if (lane_track(l, s, tok, c) < 0)
            Py_CLEAR(c);
    }
fail:
    if (!c && !PyErr_Occurred())
        PyErr_SetString(PyExc_SystemError, "replay: no completion");
out:
    Py_XDECREF(started);
    Py_XDECREF(tok);
    Py_XDECREF(last);
    Py_XDECREF((PyObject *)l);
    Py_XDECREF(s);
    return c;
}

/* The Call is a coroutine in all but type (registered as a collections.abc.Coroutine, so
 * asyncio.run, create_task and trio's start_soon take it): nothing happens until its first send.
 * That send runs the fast path, and returns the Completion at once; otherwise it starts the
 * Python path's coroutine (state 1) and every send, throw and close goes to it. */
static int call_start(Call *self, PyObject **result)
{
    self->state = 2;
    PyObject *c = self->replay ? replay_fast(self) : launch_fast(self);
    if (c) {
        *result = c;
        return 1;
    }
    if (PyErr_Occurred())
        return -1;
    /* The Python path: validates, builds, waits for room, captures, raises. */
    PyObject *coro = self->replay
                         ? PyObject_CallFunctionObjArgs(slow_replay, self->a, self->b ? self->b : Py_None, NULL)
                         : PyObject_CallFunctionObjArgs(slow_launch, self->a, self->b, self->c,
                                                        self->d ? self->d : Py_None, self->e ? self->e : Py_None, NULL);
    if (!coro)
        return -1;
    self->inner = coro;
    self->state = 1;
    return 0;
}

static PySendResult call_send(Call *self, PyObject *arg, PyObject **result)
{
    *result = NULL;
    if (self->state == 0) {
        if (arg != Py_None) {
            PyErr_SetString(PyExc_TypeError, "can't send non-None value to a just-started coroutine");
            return PYGEN_ERROR;
        }
        int r = call_start(self, result);
        if (r)
            return r > 0 ? PYGEN_RETURN : PYGEN_ERROR;
    }
    if (self->state == 1) {
        PySendResult r = PyIter_Send(self->inner, arg, result);
        if (r != PYGEN_NEXT) {
            self->state = 2;
            Py_CLEAR(self->inner);
        }
        return r;
    }
    PyErr_SetString(PyExc_RuntimeError, "cannot reuse already awaited coroutine");
    return PYGEN_ERROR;
}

static PyObject *call_await(Call *self)
{
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *call_next(Call *self)
{
    PyObject *res;
    PySendResult r = call_send(self, Py_None, &res);
    if (r == PYGEN_NEXT)
        return res;
    if (r == PYGEN_RETURN) {
        PyObject *stop = PyObject_CallFunctionObjArgs(PyExc_StopIteration, res, NULL);
        Py_DECREF(res);
        if (stop) {
            PyErr_SetObject(PyExc_StopIteration, stop);
            Py_DECREF(stop);
        }
    }
    return NULL;
}

static PyObject *call_send_method(Call *self, PyObject *arg)
{
    PyObject *res;
    PySendResult r = call_send(self, arg, &res);
    if (r == PYGEN_NEXT)
        return res;
    if (r == PYGEN_RETURN) {
        PyObject *stop = PyObject_CallFunctionObjArgs(PyExc_StopIteration, res, NULL);
        Py_DECREF(res);
        if (stop) {
            PyErr_SetObject(PyExc_StopIteration, stop);
            Py_DECREF(stop);
        }
    }
    return NULL;
}

static PyObject *call_throw(Call *self, PyObject *args)
{
    if (self->state == 1) {
        PyObject *meth = PyObject_GetAttrString(self->inner, "throw");
        PyObject *r = meth ? PyObject_CallObject(meth, args) : NULL;
        Py_XDECREF(meth);
        if (!r) {
            self->state = 2;
            Py_CLEAR(self->inner);
        }
        return r;
    }
    /* Not started (or finished): the exception comes straight back, as from a coroutine. */
    self->state = 2;
    PyObject *typ, *val = NULL, *tb = NULL;
    if (!PyArg_UnpackTuple(args, "throw", 1, 3, &typ, &val, &tb))
        return NULL;
    if (PyExceptionInstance_Check(typ))
        PyErr_SetObject((PyObject *)Py_TYPE(typ), typ);
    else if (PyExceptionClass_Check(typ))
        PyErr_SetObject(typ, val && val != Py_None ? val : NULL);
    else
        PyErr_SetString(PyExc_TypeError, "exceptions must be classes or instances deriving from BaseException");
    return NULL;
}

static PyObject *call_close(Call *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *inner = self->inner;
    self->inner = NULL;
    self->state = 2;
    if (inner) {
        PyObject *r = PyObject_CallMethod(inner, "close", NULL);
        Py_DECREF(inner);
        return r;
    }
    Py_RETURN_NONE;
}

static PyMethodDef call_methods[] = {
    {"send", (PyCFunction)call_send_method, METH_O, NULL},
    {"throw", (PyCFunction)call_throw, METH_VARARGS, NULL},
    {"close", (PyCFunction)call_close, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot call_slots[] = {
    {Py_am_await, call_await},     {Py_am_send, call_send},     {Py_tp_iter, self_iter},
    {Py_tp_iternext, call_next},   {Py_tp_traverse, call_traverse}, {Py_tp_clear, call_clear},
    {Py_tp_methods, call_methods},
    {Py_tp_dealloc, call_dealloc}, {0, NULL},
};
static PyType_Spec call_spec = {"aiocann._hotpath._Call", sizeof(Call), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
                                call_slots};

static Call *call_new(void)
{
    PyTypeObject *tp = (PyTypeObject *)CallType;
    return (Call *)((allocfunc)PyType_GetSlot(tp, Py_tp_alloc))(tp, 0);
}


/* launch(kernel, args, /, *, blocks, stream=None, config=None): aiocann.launch (launch.py's docstring) */
static const char launch_doc[] =
    "launch(kernel, args, /, *, blocks, stream=None, config=None)\n"
    "--\n"
    "\n"
    "Enqueue ``kernel`` with ``args`` on a stream, over ``blocks`` blocks.\n"
    "\n"
    "Waits only for a free in-flight slot on the stream (back-pressure; cancelling that wait\n"
    "enqueues nothing), then enqueues the launch and its completion callback in one C call.\n"
    "\n"
    ":param kernel: the :class:`Kernel` to run (``binary.function(name)``).\n"
    ":param args: its :class:`KernelArgs`, or an :class:`ArgsBuilder`, which is built first.\n"
    ":param blocks: how many blocks run the kernel, 1 to 2**32 - 1.\n"
    ":param stream: the stream (default: the task's current stream).\n"
    ":param config: launch attributes (:class:`LaunchConfig`), or None.\n"
    ":returns: the :class:`Completion` of the launch, once it is enqueued: ``await`` it for the device\n"
    "    to finish (it raises the launch's :class:`AclError`, e.g. ``KernelFaultError``). It\n"
    "    holds the args and every array they point to until then.\n"
    ":raises TypeError: a wrong type for any argument.\n"
    ":raises ValueError: ``blocks`` out of range, args built for another kernel, or a kernel of\n"
    "    another NPU than the stream's.\n"
    ":raises ClosedError: the stream, the kernel's binary or the args are closed.\n"
    ":raises RuntimeError: no ``stream`` and no current stream.\n"
    ":raises AclError: the runtime refused the launch.\n";

static PyObject *hot_launch(PyObject *Py_UNUSED(m), PyObject *const *argv, Py_ssize_t nargs, PyObject *kwnames)
{
    if (!slow_launch)
        return missing("launch.py"), NULL;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "launch() takes 2 positional arguments (kernel, args) but %zd were given",
                     nargs);
        return NULL;
    }
    PyObject *blocks = NULL, *stream = NULL, *config = NULL;
    Py_ssize_t nk = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nk; i++) {
        PyObject *name = PyTuple_GetItem(kwnames, i), *v = argv[nargs + i];
        if (name == s_blocks || PyUnicode_Compare(name, s_blocks) == 0)
            blocks = v;
        else if (name == s_stream || PyUnicode_Compare(name, s_stream) == 0)
            stream = v;
        else if (name == s_config || PyUnicode_Compare(name, s_config) == 0)
            config = v;
        else {
            PyErr_Format(PyExc_TypeError, "launch() got an unexpected keyword argument '%U'", name);
            return NULL;
        }
    }
    if (!blocks) {
        PyErr_SetString(PyExc_TypeError, "launch() missing required keyword-only argument: 'blocks'");
        return NULL;
    }
    Call *c = call_new();
    if (!c)
        return NULL;
    Py_INCREF(argv[0]);
    c->a = argv[0];
    Py_INCREF(argv[1]);
    c->b = argv[1];
    Py_INCREF(blocks);
    c->c = blocks;
    Py_XINCREF(stream);
    c->d = stream;
    Py_XINCREF(config);
    c->e = config;
    return (PyObject *)c;
}

/* replay(graph, stream, native): Graph.launch's awaitable. */
static PyObject *hot_replay(PyObject *Py_UNUSED(m), PyObject *const *argv, Py_ssize_t nargs)
{
    if (!slow_replay)
        return missing("graph.py"), NULL;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "replay(graph, stream, native)");
        return NULL;
    }
    Call *c = call_new();
    if (!c)
        return NULL;
    c->replay = 1;
    Py_INCREF(argv[0]);
    c->a = argv[0];
    Py_INCREF(argv[1]);
    c->b = argv[1];
    Py_INCREF(argv[2]);
    c->c = argv[2];
    return (PyObject *)c;
}

/* ---------------------------------------------------------------- the dispatcher's drain */
static void free_messages(char **msgs, size_t from, size_t n)
{
    for (size_t j = from; j < n; j++) {
        if (msgs[j]) {
            c_free(msgs[j]);
            msgs[j] = NULL;
        }
    }
}

static void keep_error(PyObject *dispatcher)
{
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    PyErr_NormalizeException(&et, &ev, &etb);
    if (ev && etb)
        PyException_SetTraceback(ev, etb);
    PyObject *cur = PyObject_GetAttr(dispatcher, s_error);
    if (cur == Py_None && ev)
        PyObject_SetAttr(dispatcher, s_error, ev);
    if (!cur)
        PyErr_Clear();
    Py_XDECREF(cur);
    Py_XDECREF(et);
    Py_XDECREF(ev);
    Py_XDECREF(etb);
    PyErr_Clear();
}

/* drain(dispatcher, cq, streams, tokens, status, messages, batch) -> (drained, resolved)
 * Moves every queued completion out of the native queue, a batch at a time, and resolves each
 * with its stream's lane; an exception of a resolution (an on_done hook) is kept as
 * dispatcher.error and the rest goes on. Failures (a status, maybe a report) go to
 * dispatcher._special(token, code, message) in order, which returns 1 if it resolved one. */
static PyObject *hot_drain(PyObject *Py_UNUSED(m), PyObject *args)
{
    PyObject *dispatcher, *streams;
    unsigned long long cq, ta, sa, ma;
    Py_ssize_t batch;
    if (!PyArg_ParseTuple(args, "OKO!KKKn", &dispatcher, &cq, &PyDict_Type, &streams, &ta, &sa, &ma, &batch))
        return NULL;
    if (!c_drain || !c_free)
        return missing("_dispatch.py"), NULL;
    if (!cq) /* the queue is freed */
        return Py_BuildValue("nn", (Py_ssize_t)0, (Py_ssize_t)0);
    uint64_t *toks = (uint64_t *)(uintptr_t)ta;
    int32_t *st = (int32_t *)(uintptr_t)sa;
    char **msgs = (char **)(uintptr_t)ma;
    Py_ssize_t total = 0, resolved = 0;
    for (;;) {
        size_t n = c_drain((void *)(uintptr_t)cq, toks, st, msgs, (size_t)batch);
        if (n == 0)
            break;
        total += (Py_ssize_t)n;
        uint64_t key = UINT64_MAX;
        PyObject *owner = NULL; /* strong: a resolution may unregister its stream */
        for (size_t i = 0; i < n; i++) {
            uint64_t token = toks[i];
            int code = st[i];
            PyObject *tok = PyLong_FromUnsignedLongLong(token);
            if (!tok)
                goto error;
            if (code) {
                PyObject *message = Py_None;
                Py_INCREF(message);
                if (msgs[i]) {
                    Py_DECREF(message);
                    message = PyUnicode_DecodeUTF8(msgs[i], (Py_ssize_t)strlen(msgs[i]), "replace");
                    c_free(msgs[i]);
                    msgs[i] = NULL;
                }
                PyObject *pc = message ? PyLong_FromLong(code) : NULL;
                PyObject *r = pc ? PyObject_CallMethodObjArgs(dispatcher, s_special, tok, pc, message, NULL) : NULL;
                Py_XDECREF(pc);
                Py_XDECREF(message);
                Py_DECREF(tok);
                if (!r) {
                    free_messages(msgs, i + 1, n);
                    Py_XDECREF(owner);
                    goto error;
                }
                resolved += PyLong_AsSsize_t(r);
                Py_DECREF(r);
                key = UINT64_MAX; /* a report may have registered or unregistered streams */
                Py_CLEAR(owner);
                continue;
            }
            if (msgs[i]) {
                c_free(msgs[i]);
                msgs[i] = NULL;
            }
            if (token >> KEY_SHIFT != key) {
                key = token >> KEY_SHIFT;
                Py_CLEAR(owner);
                PyObject *k = PyLong_FromUnsignedLongLong(key);
                owner = k ? PyDict_GetItemWithError(streams, k) : NULL;
                Py_XDECREF(k);
                if (!owner && PyErr_Occurred()) {
                    Py_DECREF(tok);
                    free_messages(msgs, i + 1, n);
                    goto error;
                }
                Py_XINCREF(owner);
            }
            if (owner) {
                resolved++;
                int rc;
                if (PyObject_TypeCheck(owner, (PyTypeObject *)LaneType)) {
                    rc = lane_resolve((Lane *)owner, tok, 0, Py_None);
                } else {
                    PyObject *zero = PyLong_FromLong(0);
                    PyObject *r = zero ? PyObject_CallMethodObjArgs(owner, s_resolve, tok, zero, Py_None, NULL) : NULL;
                    Py_XDECREF(zero);
                    rc = r ? 0 : -1;
                    Py_XDECREF(r);
                }
                if (rc < 0) {
                    if (PyErr_ExceptionMatches(PyExc_Exception))
                        keep_error(dispatcher); /* an on_done hook failed: resolve the rest */
                    else {
                        Py_DECREF(tok);
                        Py_DECREF(owner);
                        free_messages(msgs, i + 1, n);
                        goto error;
                    }
                }
            }
            Py_DECREF(tok);
        }
        Py_XDECREF(owner);
        if (n < (size_t)batch)
            break;
    }
    return Py_BuildValue("nn", total, resolved);
error:
    return NULL;
}

/* ---------------------------------------------------------------- setup */
static PyObject *hot_invalidate(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    epoch++;
    Py_RETURN_NONE;
}

/* provide(**what): each module of the core hands over, at its import, what it owns that the hot
 * path works with (imports point down: this module is below all of them). A path runs in C only
 * once what it needs was provided; before that it takes the Python path, or refuses. */
static PyObject *hot_provide(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kw)
{
    static const char *const objects[] = {"completion", "stream", "kernel_args", "open", "slow_launch",
                                          "slow_replay", "launch_failed", "slow_await", "error_for", "trace",
                                          "current_stream", NULL};
    PyObject **slots[] = {&CompletionType, &StreamType, &KernelArgsType, &OPEN, &slow_launch, &slow_replay,
                          &launch_failed, &slow_await, &error_for, &trace, &current_stream};
    static const char *const addresses[] = {"launch_fn", "replay_fn", "drain_fn", "free_fn", NULL};
    void **fns[] = {(void **)&c_launch, (void **)&c_replay, (void **)&c_drain, (void **)&c_free};
    if (PyTuple_Size(args) != 0) {
        PyErr_SetString(PyExc_TypeError, "provide() takes keyword arguments only");
        return NULL;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (kw && PyDict_Next(kw, &pos, &key, &value)) {
        int found = 0;
        for (int i = 0; objects[i] && !found; i++) {
            if (PyUnicode_CompareWithASCIIString(key, objects[i]) == 0) {
                if (i == 0 && (!PyType_Check(value) ||
                               !PyType_IsSubtype((PyTypeObject *)value, (PyTypeObject *)CompletionBaseType))) {
                    PyErr_SetString(PyExc_TypeError, "completion must be a subclass of CompletionBase");
                    return NULL;
                }
                Py_INCREF(value);
                SETREF(*slots[i], value);
                found = 1;
            }
        }
        for (int i = 0; addresses[i] && !found; i++) {
            if (PyUnicode_CompareWithASCIIString(key, addresses[i]) == 0) {
                unsigned long long addr = PyLong_AsUnsignedLongLong(value);
                if (PyErr_Occurred())
                    return NULL;
                *fns[i] = (void *)(uintptr_t)addr;
                found = 1;
            }
        }
        if (!found) {
            PyErr_Format(PyExc_TypeError, "provide() got an unexpected keyword argument '%U'", key);
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

static PyObject *hot_is_set_up(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    return PyBool_FromLong(CompletionType && StreamType && KernelArgsType && OPEN && slow_launch && slow_replay &&
                           launch_failed && slow_await && error_for && current_stream && c_launch &&
                           c_replay && c_drain && c_free);
}

static PyMethodDef hot_methods[] = {
    {"is_set_up", hot_is_set_up, METH_NOARGS, "Whether everything was provided (tests)."},
    {"launch", (PyCFunction)(void (*)(void))hot_launch, METH_FASTCALL | METH_KEYWORDS, launch_doc},
    {"replay", (PyCFunction)(void (*)(void))hot_replay, METH_FASTCALL,
     "replay(graph, stream, native): the awaitable of Graph.launch (replay and its completion, one C call)."},
    {"drain", hot_drain, METH_VARARGS,
     "drain(dispatcher, cq, streams, tokens, status, messages, batch) -> (drained, resolved)."},
    {"invalidate", hot_invalidate, METH_NOARGS,
     "Make every KernelArgs' fast-path cache stale (a binary was unloaded, a device closed)."},
    {"provide", (PyCFunction)(void (*)(void))hot_provide, METH_VARARGS | METH_KEYWORDS,
     "provide(**what): a module's classes, functions or C helpers' addresses the hot path works with."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef hot_module = {PyModuleDef_HEAD_INIT, "aiocann._hotpath",
                                        "The per-launch path of aiocann in C (see native/hotpath.c).", -1,
                                        hot_methods, NULL, NULL, NULL, NULL};

static int add_type(PyObject *m, PyType_Spec *spec, PyObject **out, const char *name)
{
    *out = PyType_FromSpec(spec);
    if (!*out)
        return -1;
    if (name) {
        Py_INCREF(*out);
        if (PyModule_AddObject(m, name, *out) < 0) {
            Py_DECREF(*out);
            return -1;
        }
    }
    return 0;
}

#define INTERN(var, text)                                                                                              \
    do {                                                                                                               \
        if (!((var) = PyUnicode_InternFromString(text)))                                                               \
            return NULL;                                                                                               \
    } while (0)

PyMODINIT_FUNC PyInit__hotpath(void)
{
    PyObject *m = PyModule_Create(&hot_module);
    if (!m)
        return NULL;
    if (add_type(m, &busy_spec, &BusyType, "Busy") < 0 || add_type(m, &lane_spec, &LaneType, "Lane") < 0 ||
        add_type(m, &completion_spec, &CompletionBaseType, "CompletionBase") < 0 ||
        add_type(m, &argsinfo_spec, &ArgsInfoType, "ArgsInfo") < 0 ||
        add_type(m, &doneiter_spec, &DoneIterType, NULL) < 0 || add_type(m, &waititer_spec, &WaitIterType, NULL) < 0 ||
        add_type(m, &call_spec, &CallType, NULL) < 0)
        return NULL;
    {
        PyTypeObject *tp = (PyTypeObject *)DoneIterType;
        done_iter = ((allocfunc)PyType_GetSlot(tp, Py_tp_alloc))(tp, 0);
        if (!done_iter)
            return NULL;
    }
    /* launch()'s and replay()'s awaitable is a coroutine in all but type: so registered, asyncio.run,
     * create_task and trio's start_soon take it as one. */
    PyObject *abc = PyImport_ImportModule("collections.abc");
    PyObject *coro = abc ? PyObject_GetAttrString(abc, "Coroutine") : NULL;
    PyObject *reg = coro ? PyObject_CallMethod(coro, "register", "O", CallType) : NULL;
    Py_XDECREF(abc);
    Py_XDECREF(coro);
    if (!reg)
        return NULL;
    Py_DECREF(reg);
    empty_tuple = PyTuple_New(0);
    PyObject *asyncio = PyImport_ImportModule("asyncio");
    if (!empty_tuple || !asyncio)
        return NULL;
    CancelledError = PyObject_GetAttrString(asyncio, "CancelledError");
    get_running_loop = PyObject_GetAttrString(asyncio, "_get_running_loop");
    Py_DECREF(asyncio);
    if (!CancelledError || !get_running_loop)
        return NULL;
    INTERN(s_sub, "_sub");
    INTERN(s_fast, "_fast");
    INTERN(s_unuse_idle, "_idle");
    INTERN(s_unuse, "_unuse");
    INTERN(s_resolve_late, "_resolve_late");
    INTERN(s_wake_next, "_wake_next");
    INTERN(s_failed, "_failed");
    INTERN(s_wrong_thread, "wrong_thread");
    INTERN(s_on_submit, "_on_submit");
    INTERN(s_on_resolve, "_on_resolve");
    INTERN(s_create_future, "create_future");
    INTERN(s_await, "__await__");
    INTERN(s_done, "done");
    INTERN(s_set_result, "set_result");
    INTERN(s_wake, "wake");
    INTERN(s_special, "_special");
    INTERN(s_error, "error");
    INTERN(s_label, "label");
    INTERN(s_get, "get");
    INTERN(s_blocks, "blocks");
    INTERN(s_stream, "stream");
    INTERN(s_config, "config");
    INTERN(s_resolve, "_resolve");
    INTERN(s_replay_started, "_replay_started");
    INTERN(s_last, "_last");
    INTERN(s_replay_failed, "_replay_failed");
    INTERN(s_graph, "graph");
    return m;
}
