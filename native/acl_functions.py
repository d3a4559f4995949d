"""The ACL functions our headers declare -- those aiocann calls, and (header-only, below) those
only CANN's programs do: one description, from which native/gen_acl.py writes

* the prototypes in the ACL headers (native/include/acl/*.h, native/include/aclsim_ext.h),
  between their ``BEGIN GENERATED`` and ``END GENERATED`` markers -- which are also the cffi
  cdef native/build_ffi.py reads, so cffi declares exactly these functions;
* the loader's function table (native/acl_table.h), of the functions aiocann calls: which
  loading requires, which are optional, from which library, and the macros that route every
  call through the table;
* the loader's stand-ins for the optional functions a runtime lacks (native/acl_standins.h);
* the pyACL wrappers of the two common shapes in aiocann/acl/rt.py, and its ``__all__``.

Adding an ACL function: its `Fn` here (in the group of its header and area), then
``python native/gen_acl.py``; the simulator's implementation, its test and its row in
docs/fidelity.md are the rest (docs/architecture.md, "Adding an ACL function").
``tests/tools/test_generated.py`` fails while a generated file is stale.

Per function:

* ``proto``: the C prototype exactly as the real header declares it (parameter names and
  ``const`` included; tests/sim/test_abi.py checks it against the real headers' facts);
* ``required``: loading a runtime library that lacks it fails, naming it. Every other function
  is optional: when the library lacks it, the table holds a stand-in that returns ``missing``
  -- by default ``ACL_ERROR_API_NOT_SUPPORT`` (200001), what a caller of a function the
  runtime does not have gets, with no recent error message (aiocann_has_function tells the
  two apart);
* the group's ``library``: ``"acl"`` functions come from the runtime library itself
  (libascendcl.so / libacl_rt.so on CANN, the simulator's libascendcl.so), ``"rtc"`` ones
  from the runtime compiler's library, libacl_rtc.so beside it on CANN (the loader looks in
  the runtime library first: the simulator exports them itself), ``"sim"`` ones only from the
  simulator;
* ``py``: its pyACL wrapper in aiocann/acl/rt.py -- a `Call` or an `Out` (generated), a
  `Special` (hand-written there), or None (not part of ``acl.rt``).

Declared in the header only (a group's ``loaded=False``): the functions CANN's C and C++
programs call that aiocann itself does not (issue 23: host functions, labels, random numbers,
data buffers, and the dump, profiler and tensor-data-transfer packages' headers). Their
prototypes are written here all the same, so every runtime function our headers declare has
one description; but they are in neither the loader's table nor the cffi cdef (their blocks lie
outside the headers' ``cffi-begin``/``cffi-end`` regions, which the generator checks), so they
have no ``required``, ``missing`` or ``py`` (and their ``library`` is moot). A program built
against the toolkit links them from the library directly. Their ``decl`` is the visibility
macro the real header writes before each (``ACL_FUNC_VISIBILITY``, ``MSVP_PROF_API``...), and
``deprecated`` its
``ACL_DEPRECATED_MESSAGE``; a prototype may end in ``...`` and an ``__attribute__((...))``,
and take a function pointer spelled out. Making one loaded is moving it to a loaded group (in a
cffi region) when aiocann starts calling it.

The two generated shapes, both ``@_rt(name, fmt)`` functions with positional-only ``int``
parameters (``str`` for ``s``) in the C parameters' order:

* `Call`: every C parameter comes from Python; returns the bare ``ret``;
* `Out`: one C parameter is an output (``out``: by default the only pointer to a value, as
  ``int32_t *`` or ``aclrtStream *``); returns ``(value, ret)``.

A Python argument reaches C as itself, through ``_vptr`` for a handle or address (a ``void *``
typedef), ``_cstr`` for a ``const char *`` and ``_u32`` for an ``i`` that C takes as an
unsigned enum or ``uint32_t`` (pyACL writes the int's 4 bytes); ``conv`` names another
conversion of aiocann/acl/rt.py for a C parameter. An output comes back through ``_addr`` when it is a
handle or address, ``float`` when a float, ``int`` otherwise; ``result`` names another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field

__all__ = ["GROUPS", "Call", "Fn", "Group", "Out", "Special"]


@dataclass(frozen=True)
class Call:
    """A generated pyACL wrapper that returns the bare ``ret``."""

    name: str  # its pyACL name: acl.rt.<name>
    fmt: str | None  # pyACL's PyArg_ParseTuple format; None for "takes no arguments"
    _: KW_ONLY
    message: str | None = None  # the parse-failure text, when not "acl.rt.<name> args parse failed"
    suffix: str = ""  # appended to that text ("!" in some pyACL wrappers)
    native: bool = False  # pyACL's CHECK_NULL has no text: CPython's own parser error shows
    forget: bool = False  # changes the calling thread's current context: forget_context() first
    args: tuple[str, ...] | None = None  # the Python parameters, when not the C ones in snake_case
    conv: Mapping[str, str] = field(default_factory=dict)  # C parameter -> conversion of rt.py
    doc: str | None = None  # its docstring
    note: str | None = None  # a comment on its decorator line
    comment: str | None = None  # comment lines above it
    section: str | None = None  # the section of rt.py it is written in, when not its group's


@dataclass(frozen=True)
class Out(Call):
    """A generated pyACL wrapper that returns ``(value, ret)``, the value from one output."""

    _: KW_ONLY

    out: str | None = None  # the C output parameter, when not the only pointer to a value
    init: str | None = None  # the lib constant the output holds before the call (pyACL's)
    result: str | None = None  # the conversion of the output, when not addr/float/int


@dataclass(frozen=True)
class Special:
    """A pyACL wrapper written by hand in aiocann/acl/rt.py (its shape is its own)."""

    name: str


@dataclass(frozen=True)
class Fn:
    """One ACL function."""

    proto: str
    required: bool = False
    missing: str | None = None  # what its stand-in returns; None: ACL_ERROR_API_NOT_SUPPORT
    py: Call | Special | None = None
    doc: str | None = None  # the comment above its prototype in the header
    decl: str | None = None  # the macros before its prototype, when not its group's
    deprecated: str | None = None  # the message of its ACL_DEPRECATED_MESSAGE line, if deprecated


@dataclass(frozen=True)
class Group:
    """Functions declared together: in one block of one header, under one comment."""

    title: str | None  # the comment above them in the header
    header: str  # under native/include
    block: str  # the generated block of that header they are written in
    functions: tuple[Fn, ...]
    library: str = "acl"  # "acl", "rtc" or "sim" (see above)
    section: str | None = None  # the section of aiocann/acl/rt.py their wrappers are written in
    loaded: bool = True  # False: declared in the header only (see above)
    decl: str = ""  # the macros before each prototype (header-only groups: "ACL_FUNC_VISIBILITY")


REQUIRED = True

GROUPS: tuple[Group, ...] = (
    # ---- acl/acl_rt.h: the core of the runtime, what the async API stands on ---------------------
    Group(
        "init, finalize, version, recent error message",
        "acl/acl_rt.h",
        "core",
        functions=(
            Fn("aclError aclInit(const char *configPath);", REQUIRED),
            Fn("aclError aclFinalize(void);", REQUIRED),
            Fn("const char *aclGetRecentErrMsg(void);", REQUIRED),
            Fn("aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion);"),
        ),
    ),
    Group(
        "device and context",
        "acl/acl_rt.h",
        "core",
        section="device and context",
        functions=(
            Fn("aclError aclrtSetDevice(int32_t deviceId);", REQUIRED, py=Call("set_device", "i", forget=True)),
            Fn("aclError aclrtResetDevice(int32_t deviceId);", REQUIRED, py=Call("reset_device", "i", forget=True)),
            Fn("aclError aclrtResetDeviceForce(int32_t deviceId);", py=Call("reset_device_force", "i", forget=True)),
            Fn("aclError aclrtGetDevice(int32_t *deviceId);", REQUIRED, py=Out("get_device", None)),
            Fn("aclError aclrtGetDeviceCount(uint32_t *count);", REQUIRED, py=Out("get_device_count", None)),
            Fn("aclError aclrtSynchronizeDevice(void);", REQUIRED, py=Call("synchronize_device", None)),
            Fn(
                "aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);",
                REQUIRED,
                py=Out("create_context", "i", forget=True),
            ),
            Fn(
                "aclError aclrtDestroyContext(aclrtContext context);",
                REQUIRED,
                py=Call("destroy_context", "k", forget=True),
            ),
            Fn(
                "aclError aclrtSetCurrentContext(aclrtContext context);",
                REQUIRED,
                py=Call("set_context", "k", forget=True, doc="aclrtSetCurrentContext."),
            ),
            Fn(
                "aclError aclrtGetCurrentContext(aclrtContext *context);",
                REQUIRED,
                py=Out("get_context", None, doc="aclrtGetCurrentContext."),
            ),
        ),
    ),
    Group(
        "streams",
        "acl/acl_rt.h",
        "core",
        section="streams",
        functions=(
            Fn("aclError aclrtCreateStream(aclrtStream *stream);", REQUIRED, py=Out("create_stream", None)),
            Fn(
                "aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag);",
                REQUIRED,
                py=Special("create_stream_with_config"),
            ),
            Fn("aclError aclrtDestroyStream(aclrtStream stream);", REQUIRED, py=Call("destroy_stream", "k")),
            Fn("aclError aclrtSynchronizeStream(aclrtStream stream);", REQUIRED, py=Call("synchronize_stream", "k")),
            Fn(
                "aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);",
                REQUIRED,
                py=Call("synchronize_stream_with_timeout", "ki"),
            ),
            Fn(
                "aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);",
                REQUIRED,
                py=Out("stream_query", "k", suffix="!", init="ACL_STREAM_STATUS_RESERVED", result="_as_u32"),
            ),
            Fn(
                "aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);",
                REQUIRED,
                py=Call("stream_wait_event", "kk"),
            ),
        ),
    ),
    Group(
        "memory",
        "acl/acl_rt.h",
        "core",
        section="memory",
        functions=(
            Fn(
                "aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);",
                REQUIRED,
                py=Out("malloc", "ki"),
            ),
            Fn("aclError aclrtFree(void *devPtr);", REQUIRED, py=Call("free", "k")),
            Fn("aclError aclrtMallocHost(void **hostPtr, size_t size);", REQUIRED, py=Out("malloc_host", "k")),
            Fn("aclError aclrtFreeHost(void *hostPtr);", REQUIRED, py=Call("free_host", "k")),
            Fn(
                (
                    "aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, "
                    "aclrtMemcpyKind kind);"
                ),
                REQUIRED,
                py=Call("memcpy", "kkkki"),
            ),
            Fn(
                (
                    "aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, "
                    "aclrtMemcpyKind kind, aclrtStream stream);"
                ),
                REQUIRED,
                py=Call("memcpy_async", "kkkkik"),
            ),
            Fn(
                "aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);",
                REQUIRED,
                py=Call("memset", "kkik"),
            ),
            Fn(
                (
                    "aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, "
                    "aclrtStream stream);"
                ),
                REQUIRED,
                py=Call("memset_async", "kkikk"),
            ),
            Fn(
                "aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);",
                REQUIRED,
                py=Special("get_mem_info"),
            ),
        ),
    ),
    Group(
        "events",
        "acl/acl_rt.h",
        "core",
        section="events",
        functions=(
            Fn("aclError aclrtCreateEvent(aclrtEvent *event);", REQUIRED, py=Out("create_event", None)),
            Fn(
                "aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);",
                REQUIRED,
                py=Out("create_event_with_flag", "I"),
            ),
            Fn("aclError aclrtDestroyEvent(aclrtEvent event);", REQUIRED, py=Call("destroy_event", "k")),
            Fn(
                "aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);",
                REQUIRED,
                py=Call("record_event", "kk"),
            ),
            Fn(
                "aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);",
                REQUIRED,
                py=Call("reset_event", "kk"),
            ),
            Fn(
                "aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);",
                REQUIRED,
                py=Out(
                    "query_event_status",
                    "k",
                    init="ACL_EVENT_RECORDED_STATUS_NOT_READY",
                    result="_as_u32",
                    doc="``(status, ret)``; status is an aclrtEventRecordedStatus (1 = COMPLETE, 0 = NOT_READY).",
                ),
            ),
            Fn("aclError aclrtSynchronizeEvent(aclrtEvent event);", REQUIRED, py=Call("synchronize_event", "k")),
            Fn(
                "aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);",
                REQUIRED,
                py=Call("synchronize_event_with_timeout", "ki", suffix="!"),
            ),
            Fn(
                "aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent);",
                REQUIRED,
                py=Out(
                    "event_elapsed_time",
                    "kk",
                    args=("start", "end"),
                    doc="``(ms, ret)``: milliseconds between two recorded events, as a float.",
                ),
            ),
            Fn(
                "aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp);",
                py=Out("event_get_timestamp", "k"),
            ),
        ),
    ),
    Group(
        "host callbacks",
        "acl/acl_rt.h",
        "core",
        section="host callbacks",
        functions=(
            Fn(
                "aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);",
                REQUIRED,
                py=Call(
                    "subscribe_report",
                    "Kk",
                    doc=(
                        "Bind the thread whose ``pthread_self()`` is ``thread_id`` (``threading.get_ident()``,\n"
                        "``Thread.ident``, or the id from ``acl.util.start_thread``) to ``stream``'s callbacks."
                    ),
                ),
            ),
            Fn(
                "aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);",
                REQUIRED,
                py=Call("unsubscribe_report", "Kk"),
            ),
            Fn(
                (
                    "aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, "
                    "aclrtCallbackBlockType blockType, aclrtStream stream);"
                ),
                REQUIRED,
                py=Special("launch_callback"),
            ),
            Fn(
                "aclError aclrtProcessReport(int32_t timeout);",
                REQUIRED,
                py=Call(
                    "process_report",
                    "i",
                    doc=(
                        "Wait up to ``timeout`` ms (-1: forever) for callbacks addressed to the calling thread\n"
                        "and run them here. The GIL is released while waiting."
                    ),
                ),
            ),
        ),
    ),
    Group(
        "binaries",
        "acl/acl_rt.h",
        "core",
        section="binaries",
        functions=(
            Fn(
                (
                    "aclError aclrtBinaryLoadFromFile(const char *binPath, aclrtBinaryLoadOptions *options, "
                    "aclrtBinHandle *binHandle);"
                ),
                REQUIRED,
                py=Special("binary_load_from_file"),
            ),
            Fn(
                (
                    "aclError aclrtBinaryLoadFromData(const void *data, size_t length, "
                    "const aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle);"
                ),
                py=Special("binary_load_from_data"),
            ),
            Fn(
                (
                    "aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char *kernelName, "
                    "aclrtFuncHandle *funcHandle);"
                ),
                REQUIRED,
                py=Out("binary_get_function", "ks"),
            ),
            Fn(
                "aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle);",
                REQUIRED,
                py=Call("binary_unload", "k", doc="aclrtBinaryUnLoad."),
            ),
        ),
    ),
    Group(
        "kernel arguments",
        "acl/acl_rt.h",
        "core",
        section="kernel arguments",
        functions=(
            Fn(
                "aclError aclrtKernelArgsGetHandleMemSize(aclrtFuncHandle funcHandle, size_t *memSize);",
                REQUIRED,
                py=Out("kernel_args_get_handle_mem_size", "k"),
            ),
            Fn(
                (
                    "aclError aclrtKernelArgsGetMemSize(aclrtFuncHandle funcHandle, size_t userArgsSize, "
                    "size_t *actualArgsSize);"
                ),
                REQUIRED,
                py=Out("kernel_args_get_mem_size", "kk"),
            ),
            Fn(
                "aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle);",
                REQUIRED,
                py=Out("kernel_args_init", "k"),
            ),
            Fn(
                (
                    "aclError aclrtKernelArgsInitByUserMem(aclrtFuncHandle funcHandle, "
                    "aclrtArgsHandle argsHandle, void *userHostMem, size_t actualArgsSize);"
                ),
                REQUIRED,
                py=Call("kernel_args_init_by_user_mem", "kkkk"),
            ),
            Fn(
                (
                    "aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void *param, size_t paramSize, "
                    "aclrtParamHandle *paramHandle);"
                ),
                REQUIRED,
                py=Out(
                    "kernel_args_append",
                    "kkk",
                    doc="Append ``param_size`` bytes read from the host address ``param``; ``(param_handle, ret)``.",
                ),
            ),
            Fn(
                (
                    "aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle, "
                    "aclrtParamHandle *paramHandle);"
                ),
                REQUIRED,
                py=Out("kernel_args_append_place_holder", "k"),
            ),
            Fn(
                (
                    "aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle, "
                    "aclrtParamHandle paramHandle, size_t dataSize, void **bufferAddr);"
                ),
                REQUIRED,
                py=Out(
                    "kernel_args_get_place_holder_buffer",
                    "kkk",
                    doc="``(buffer_addr, ret)``: host memory, owned by the args handle, for the placeholder's data.",
                ),
            ),
            Fn(
                (
                    "aclError aclrtKernelArgsParaUpdate(aclrtArgsHandle argsHandle, "
                    "aclrtParamHandle paramHandle, void *param, size_t paramSize);"
                ),
                REQUIRED,
                py=Call("kernel_args_para_update", "kkkk"),
            ),
            Fn(
                "aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle);",
                REQUIRED,
                py=Call("kernel_args_finalize", "k"),
            ),
        ),
    ),
    Group(
        "launch",
        "acl/acl_rt.h",
        "core",
        section="launch",
        functions=(
            Fn(
                (
                    "aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks, "
                    "aclrtStream stream, aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle, void *reserve);"
                ),
                REQUIRED,
                py=Special("launch_kernel_with_config"),
            ),
            Fn(
                (
                    "aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, "
                    "const void *argsData, size_t argsSize, aclrtStream stream);"
                ),
                REQUIRED,
                py=Call(
                    "launch_kernel",
                    "kIkkk",
                    args=("func_handle", "block_dim", "args_data", "args_size", "stream"),
                    doc="aclrtLaunchKernel: ``args_data`` is *device* memory holding the packed arguments.",
                ),
            ),
        ),
    ),
    Group(
        "Failures: which task failed, and the thread's last error.",
        "acl/acl_rt.h",
        "core",
        section="streams",
        functions=(
            Fn(
                "aclError aclrtPeekAtLastError(aclrtLastErrLevel level);",
                py=Call(
                    "peek_at_last_error",
                    "i",
                    suffix="!",
                    section="last error",
                    doc="aclrtPeekAtLastError: the code, left in place.",
                ),
            ),
            Fn(
                "aclError aclrtGetLastError(aclrtLastErrLevel level);",
                py=Call(
                    "get_last_error",
                    "i",
                    suffix="!",
                    section="last error",
                    doc="aclrtGetLastError: the code, then cleared.",
                ),
            ),
            Fn(
                "aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback);",
                py=Special("set_exception_info_callback"),
            ),
            Fn("aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback);"),
            Fn("aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback);"),
            Fn(
                "uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info);",
                missing="UINT32_MAX",
                py=Special("get_task_id_from_exception_info"),
            ),
            Fn(
                "uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info);",
                missing="UINT32_MAX",
                py=Special("get_stream_id_from_exception_info"),
            ),
            Fn(
                "uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info);",
                missing="UINT32_MAX",
                py=Special("get_thread_id_from_exception_info"),
            ),
            Fn(
                "uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info);",
                missing="UINT32_MAX",
                py=Special("get_device_id_from_exception_info"),
            ),
            Fn(
                "uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info);",
                missing="UINT32_MAX",
                py=Special("get_error_code_from_exception_info"),
            ),
            Fn(
                "aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode);",
                py=Call(
                    "set_stream_failure_mode",
                    "kI",
                    suffix="!",
                    doc=(
                        "aclrtSetStreamFailureMode: 0 ACL_CONTINUE_ON_FAILURE, 1 ACL_STOP_ON_FAILURE (only bit 0\n"
                        "counts). Stop is set on the stream and makes its whole context stop on failure; stop ->\n"
                        'continue is 207000. pyACL parses ``mode`` with "I" (modulo 2**32).'
                    ),
                ),
            ),
            Fn(
                "aclError aclrtGetThreadLastTaskId(uint32_t *taskId);",
                py=Out(
                    "get_thread_last_task_id",
                    None,
                    doc=(
                        "``(task_id, ret)``: the id of the last task the calling thread submitted, on any stream\n"
                        "(0xFFFFFFFF before its first); the task id an exception report names. pyACL builds it with\n"
                        '"K" from a uint32, so it is never negative.'
                    ),
                ),
            ),
            Fn(
                "aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId);",
                py=Out(
                    "stream_get_id",
                    "k",
                    doc=(
                        "``(stream_id, ret)``: the per-device id exception reports carry (stream 0: the default\n"
                        "stream)."
                    ),
                ),
            ),
        ),
    ),
    # ---- acl/acl_rt.h: the rest of pyACL's runtime surface (issue 11) ----------------------------
    Group(
        "init, version, SoC",
        "acl/acl_rt.h",
        "pyacl",
        functions=(
            Fn("aclError aclFinalizeReference(uint64_t *refCount);"),
            Fn("aclError aclsysGetVersionStr(char *pkgName, char *versionStr);"),
            Fn("aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version);"),
            Fn("const char *aclrtGetSocName(void);", missing="NULL"),
            Fn("aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value);"),
        ),
    ),
    Group(
        "device and context queries",
        "acl/acl_rt.h",
        "pyacl",
        section="device and context",
        functions=(
            Fn(
                "aclError aclrtGetRunMode(aclrtRunMode *runMode);",
                py=Out(
                    "get_run_mode",
                    None,
                    init="ACL_DEVICE",
                    doc=(
                        "``(run_mode, ret)``: 1 (ACL_HOST) -- a program on the host driving devices; 0 is\n"
                        "ACL_DEVICE, a program on the device's own CPUs."
                    ),
                ),
            ),
            Fn("aclError aclrtSetTsDevice(aclrtTsId tsId);", py=Call("set_ts_device", "i")),
            Fn("aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode);", py=Call("set_device_sat_mode", "i")),
            Fn("aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode);", py=Out("get_device_sat_mode", None)),
            Fn(
                "aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo);",
                py=Special("get_device_utilization_rate"),
            ),
            Fn(
                "aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus);",
                py=Out(
                    "query_device_status",
                    "i",
                    init="ACL_RT_DEVICE_STATUS_END",
                    result="_as_u32",
                    doc="``(status, ret)``: 0 normal, 1 abnormal.",
                ),
            ),
            Fn(
                "aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout);",
                py=Call(
                    "synchronize_device_with_timeout",
                    "i",
                    suffix="!",
                    doc=(
                        "Waits up to ``timeout`` ms (-1: forever) for every stream of the current device;\n"
                        "507046 when time runs out."
                    ),
                ),
            ),
            Fn(
                "aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value);",
                py=Special("get_device_info"),
            ),
            Fn(
                "aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority);",
                py=Special("device_get_stream_priority_range"),
            ),
            Fn(
                (
                    "aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType, "
                    "int32_t *value);"
                ),
                py=Out(
                    "get_device_capability", "iI", args=("device_id", "feature"), conv={"devFeatureType": "_as_i32"}
                ),
            ),
            Fn(
                "aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId);",
                py=Out("get_logic_dev_id_by_user_dev_id", "i", args=("device_id",)),
            ),
            Fn(
                "aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid);",
                py=Out("get_user_dev_id_by_logic_dev_id", "i", args=("device_id",)),
            ),
            Fn(
                "aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId);",
                py=Out("get_logic_dev_id_by_phy_dev_id", "i", args=("device_id",)),
            ),
            Fn(
                "aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId);",
                py=Out("get_phy_dev_id_by_logic_dev_id", "i", args=("device_id",)),
            ),
            Fn("aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid);", py=Special("device_get_uuid")),
            Fn("aclError aclrtDeviceGetBareTgid(int32_t *pid);", py=Out("device_get_bare_tgid", None)),
            Fn(
                ("aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId);"),
                py=Out("device_can_access_peer", "ii"),
            ),
            Fn(
                "aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);",
                py=Call("device_enable_peer_access", "iI"),
            ),
            Fn(
                "aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);",
                py=Call("device_disable_peer_access", "i"),
            ),
            Fn(
                "aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status);",
                py=Out("device_peer_access_status", "ii"),
            ),
            Fn(
                "aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream);",
                py=Out(
                    "ctx_get_current_default_stream",
                    None,
                    doc="``(stream, ret)``: the current context's default stream, as a handle.",
                ),
            ),
            Fn(
                "aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active);",
                py=Special("get_primary_ctx_state"),
            ),
            Fn(
                "aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value);",
                py=Call("ctx_set_sys_param_opt", "il"),
            ),
            Fn(
                "aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value);",
                py=Out("ctx_get_sys_param_opt", "i"),
            ),
            Fn(
                "aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value);",
                py=Call(
                    "set_sys_param_opt",
                    "il",
                    message="acl.rt.set_sys_param_opt args parse faild",
                    note="sic, pyACL's text",
                ),
            ),
            Fn(
                "aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value);",
                py=Out("get_sys_param_opt", "i", message="acl.rt.get_sys_param_opt args parse faild", note="sic"),
            ),
        ),
    ),
    Group(
        "streams",
        "acl/acl_rt.h",
        "pyacl",
        section="streams",
        functions=(
            Fn(
                "aclError aclrtDestroyStreamForce(aclrtStream stream);",
                py=Call(
                    "destroy_stream_force",
                    "k",
                    doc="Destroys the stream without waiting for its pending tasks, which are discarded.",
                ),
            ),
            Fn("aclError aclrtGetStreamAvailableNum(uint32_t *streamCount);", py=Out("get_stream_available_num", None)),
            Fn(
                (
                    "aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType, "
                    "aclrtStreamAttrValue *value);"
                ),
                py=Special("set_stream_attribute"),
            ),
            Fn(
                (
                    "aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType, "
                    "aclrtStreamAttrValue *value);"
                ),
                py=Special("get_stream_attribute"),
            ),
        ),
    ),
    Group(
        "events",
        "acl/acl_rt.h",
        "pyacl",
        section="events",
        functions=(
            Fn(
                "aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);",
                py=Out(
                    "create_event_ex_with_flag",
                    "I",
                    doc=(
                        'A "new mode" event: cannot be reset or used with query_event/query_event_wait_status,\n'
                        "and counts as complete until first recorded."
                    ),
                ),
            ),
            Fn(
                "aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status);",
                py=Out(
                    "query_event",
                    "k",
                    init="ACL_EVENT_STATUS_COMPLETE",
                    result="_as_u32",
                    doc="Deprecated. ``(status, ret)``; status is an aclrtEventStatus (0 COMPLETE, 1 NOT_READY).",
                ),
            ),
            Fn(
                "aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status);",
                py=Out(
                    "query_event_wait_status",
                    "k",
                    init="ACL_EVENT_WAIT_STATUS_COMPLETE",
                    doc="``(status, ret)``: 0 once every stream_wait_event on the event has been passed, else 1.",
                ),
            ),
            Fn(
                "aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId);",
                py=Out(
                    "get_event_id",
                    "k",
                    native=True,
                    comment=(
                        "pyACL's wrapper passes its message to PyArg_ParseTuple instead of CHECK_NULL, so a bad\n"
                        'argument shows the parser\'s own error ("function takes exactly 1 argument (0 given)").'
                    ),
                ),
            ),
            Fn("aclError aclrtGetEventAvailNum(uint32_t *eventCount);", py=Out("get_event_avail_num", None)),
        ),
    ),
    Group(
        "memory",
        "acl/acl_rt.h",
        "pyacl",
        section="memory",
        functions=(
            Fn(
                "aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy);",
                py=Out(
                    "malloc_align32",
                    "ki",
                    doc="Device memory with the size rounded up to 32 bytes and no extra padding.",
                ),
            ),
            Fn(
                "aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy);",
                py=Out("malloc_cached", "ki"),
            ),
            Fn(
                (
                    "aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy, "
                    "aclrtMallocConfig *cfg);"
                ),
                py=Special("malloc_with_cfg"),
            ),
            Fn(
                (
                    "aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size, "
                    "aclrtMemMallocPolicy policy, aclrtMallocConfig *cfg);"
                ),
                py=Special("malloc_for_task_scheduler"),
            ),
            Fn(
                "aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg);",
                py=Special("malloc_host_with_cfg"),
            ),
            Fn("aclError aclrtMemFlush(void *devPtr, size_t size);", py=Call("mem_flush", "kk")),
            Fn("aclError aclrtMemInvalidate(void *devPtr, size_t size);", py=Call("mem_invalidate", "kk")),
            Fn(
                "aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes);",
                py=Special("pointer_get_attributes"),
            ),
            Fn(
                (
                    "aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, "
                    "size_t width, size_t height, aclrtMemcpyKind kind);"
                ),
                py=Call(
                    "memcpy2d",
                    "kkkkkki",
                    doc="``height`` rows of ``width`` bytes, ``spitch`` apart in src and ``dpitch`` in dst.",
                ),
            ),
            Fn(
                (
                    "aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, "
                    "size_t width, size_t height, aclrtMemcpyKind kind, aclrtStream stream);"
                ),
                py=Call("memcpy2d_async", "kkkkkkik"),
            ),
        ),
    ),
    Group(
        "binaries and functions",
        "acl/acl_rt.h",
        "pyacl",
        section="binaries",
        functions=(
            Fn(
                "aclrtBinary aclrtCreateBinary(const void *data, size_t dataLen);",
                missing="NULL",
                py=Special("create_binary"),
            ),
            Fn("aclError aclrtDestroyBinary(aclrtBinary binary);", py=Call("destroy_binary", "k")),
            Fn(
                "aclError aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle *binHandle);",
                py=Out(
                    "binary_load",
                    "k",
                    doc="Loads the binary a create_binary descriptor points at: ``(bin_handle, ret)``.",
                ),
            ),
            Fn(
                "aclError aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr);",
                py=Special("get_function_addr"),
            ),
            Fn(
                "aclError aclrtGetFunctionName(aclrtFuncHandle funcHandle, uint32_t maxLen, char *name);",
                py=Special("get_function_name"),
            ),
        ),
    ),
    # ---- acl/acl_rt.h: the memory family (issue 11) ----------------------------------------------
    Group(
        "virtual memory and physical memory handles",
        "acl/acl_rt.h",
        "memory",
        section="virtual memory",
        functions=(
            Fn(
                (
                    "aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, "
                    "void *expectPtr, uint64_t flags);"
                ),
                py=Out(
                    "reserve_mem_address",
                    "kkkK",
                    doc="``(vir_ptr, ret)``: a reservation of device address space (no memory yet).",
                ),
            ),
            Fn("aclError aclrtReleaseMemAddress(void *virPtr);", py=Call("release_mem_address", "k")),
            Fn(
                (
                    "aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, "
                    "const aclrtPhysicalMemProp *prop, uint64_t flags);"
                ),
                py=Special("malloc_physical"),
            ),
            Fn("aclError aclrtFreePhysical(aclrtDrvMemHandle handle);", py=Call("free_physical", "k")),
            Fn(
                (
                    "aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, "
                    "uint64_t flags);"
                ),
                py=Call("map_mem", "kkkkK"),
            ),
            Fn("aclError aclrtUnmapMem(void *virPtr);", py=Call("unmap_mem", "k")),
            Fn(
                (
                    "aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop, "
                    "aclrtMemGranularityOptions option, size_t *granularity);"
                ),
                py=Special("mem_get_allocation_granularity"),
            ),
            Fn(
                (
                    "aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, "
                    "aclrtMemHandleType handleType, uint64_t flags, uint64_t *shareableHandle);"
                ),
                py=Out(
                    "mem_export_to_shareable_handle",
                    "kiK",
                    doc="``(shareable_handle, ret)``: a 64-bit handle another process imports.",
                ),
            ),
            Fn(
                "aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum);",
                py=Special("mem_set_pid_to_shareable_handle"),
            ),
            Fn(
                (
                    "aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId, "
                    "aclrtDrvMemHandle *handle);"
                ),
                py=Out("mem_import_from_shareable_handle", "Ki"),
            ),
        ),
    ),
    Group(
        "IPC memory sharing",
        "acl/acl_rt.h",
        "memory",
        section="IPC memory",
        functions=(
            Fn(
                ("aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags);"),
                py=Special("ipc_mem_get_export_key"),
            ),
            Fn(
                "aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num);",
                py=Special("ipc_mem_set_import_pid"),
            ),
            Fn(
                "aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags);",
                py=Out(
                    "ipc_mem_import_by_key",
                    "sK",
                    doc="``(dev_ptr, ret)``: the exporter's device memory, mapped in this process.",
                ),
            ),
            Fn("aclError aclrtIpcMemClose(const char *key);", py=Call("ipc_mem_close", "s")),
        ),
    ),
    Group(
        "host memory registration",
        "acl/acl_rt.h",
        "memory",
        section="host registration",
        functions=(
            Fn(
                "aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr);",
                py=Out(
                    "host_register",
                    "kki",
                    args=("ptr", "size", "register_type"),
                    doc="``(dev_ptr, ret)``: the device address of the registered host memory.",
                ),
            ),
            Fn(
                "aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag);",
                py=Call("host_register_v2", "KKI"),
            ),
            Fn(
                "aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag);",
                py=Out(
                    "host_get_device_pointer",
                    "KI",
                    message="acl.rt.host_get_device_pointer parse failed",
                    args=("host_ptr", "flag"),
                    note="sic, pyACL's text",
                ),
            ),
            Fn("aclError aclrtHostUnregister(void *ptr);", py=Call("host_unregister", "k")),
        ),
    ),
    Group(
        "copies by descriptor, reduce, cache maintenance, stream memory operations",
        "acl/acl_rt.h",
        "memory",
        section="copies, reduce, CMO",
        functions=(
            Fn(
                "aclError aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize);",
                py=Out("get_memcpy_desc_size", "i"),
            ),
            Fn(
                (
                    "aclError aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr, "
                    "size_t count, void *config);"
                ),
                py=Special("set_memcpy_desc"),
            ),
            Fn(
                "aclError aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream);",
                py=Call("memcpy_async_with_desc", "kik"),
            ),
            Fn(
                (
                    "aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src, "
                    "size_t count, aclrtMemcpyKind kind, aclrtStream stream);"
                ),
                py=Call("memcpy_async_with_condition", "kkkkik", doc="Deprecated in CANN; behaves as memcpy_async."),
            ),
            Fn(
                (
                    "aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count, aclrtReduceKind kind, "
                    "aclDataType type, aclrtStream stream, void *reserve);"
                ),
                py=Call(
                    "reduce_async",
                    "kkkiikk",
                    args=("dst", "src", "count", "kind", "data_type", "stream", "reserve"),
                    doc="``dst[i] = dst[i] op src[i]`` over ``count`` bytes; kind 10 SUM, 11 MAX, 12 MIN.",
                ),
            ),
            Fn(
                "aclError aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream);",
                py=Call("cmo_async", "kkik", suffix="!"),
            ),
            Fn(
                "aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream);",
                py=Call(
                    "value_write", "kkIk", doc="Writes the 64-bit ``value`` at ``dev_addr`` when the stream gets there."
                ),
            ),
            Fn(
                "aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream);",
                py=Call(
                    "value_wait",
                    "kkIk",
                    doc=(
                        "Holds the stream until the 64 bits at ``dev_addr`` meet ``flag``: 0 GEQ (signed), 1 EQ,\n"
                        "2 AND (non-zero), 3 NOR (``~(v | value) != 0``)."
                    ),
                ),
            ),
        ),
    ),
    Group(
        "memory uncorrectable errors",
        "acl/acl_rt.h",
        "memory",
        functions=(
            Fn(
                (
                    "aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, "
                    "size_t arraySize, size_t *retSize);"
                ),
                py=Special("get_mem_uce_info"),
            ),
            Fn(
                ("aclError aclrtMemUceRepair(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize);"),
                py=Special("mem_uce_repair"),
            ),
        ),
    ),
    # ---- acl/acl_rt.h: stream capture (ACL Graph), absent from some releases and chips -----------
    Group(
        None,
        "acl/acl_rt.h",
        "capture",
        functions=(
            Fn("aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);"),
            Fn(
                "aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI);"
            ),
            Fn("aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI);"),
            Fn("aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode);"),
            Fn("aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);"),
            Fn("aclError aclmdlRIDestroy(aclmdlRI modelRI);"),
            Fn("aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams);"),
            Fn("aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream);"),
            Fn("aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle);"),
            Fn("aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle);"),
            Fn("aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream);"),
        ),
    ),
    # ---- acl/acl_rt_allocator.h: user allocators -------------------------------------------------
    Group(
        None,
        "acl/acl_rt_allocator.h",
        "allocator",
        section="allocators",
        functions=(
            Fn(
                "aclrtAllocatorDesc aclrtAllocatorCreateDesc(void);",
                missing="NULL",
                py=Special("allocator_create_desc"),
            ),
            Fn(
                "aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);",
                py=Call("allocator_destroy_desc", "k", args=("desc",)),
            ),
            Fn(
                "aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator);",
                py=Special("allocator_set_obj_to_desc"),
            ),
            Fn(
                (
                    "aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc, "
                    "aclrtAllocatorAllocFunc func);"
                ),
                py=Special("allocator_set_alloc_func_to_desc"),
            ),
            Fn(
                (
                    "aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc, "
                    "aclrtAllocatorFreeFunc func);"
                ),
                py=Special("allocator_set_free_func_to_desc"),
            ),
            Fn(
                (
                    "aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc, "
                    "aclrtAllocatorAllocAdviseFunc func);"
                ),
                py=Special("allocator_set_alloc_advise_func_to_desc"),
            ),
            Fn(
                (
                    "aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc, "
                    "aclrtAllocatorGetAddrFromBlockFunc func);"
                ),
                py=Special("allocator_set_get_addr_from_block_func_to_desc"),
            ),
            Fn(
                "aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc);",
                py=Call("allocator_register", "kk", args=("stream", "desc")),
            ),
            Fn(
                "aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, "
                "aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc, "
                "aclrtAllocatorFreeFunc *freeFunc, aclrtAllocatorAllocAdviseFunc *allocAdviseFunc, "
                "aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);"
            ),
            Fn("aclError aclrtAllocatorUnregister(aclrtStream stream);", py=Call("allocator_unregister", "k")),
        ),
    ),
    # ---- acl/acl_rt_device.h: the device share (issue 11) ----------------------------------------
    Group(
        "overflow detection",
        "acl/acl_rt_device.h",
        "device",
        section="overflow detection",
        functions=(
            Fn(
                "aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag);",
                py=Call(
                    "set_stream_overflow_switch",
                    "kI",
                    doc=(
                        "1 turns overflow detection on for the launches submitted to ``stream`` from now on, 0\n"
                        "off (anything else 100000). A launch that overflows with it on makes the stream's next\n"
                        "synchronize return 207003, and sets the device's overflow status."
                    ),
                ),
            ),
            Fn(
                "aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag);",
                py=Out("get_stream_overflow_switch", "k", doc="``(flag, ret)``."),
            ),
            Fn(
                "aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream);",
                py=Call(
                    "get_overflow_status",
                    "kkk",
                    suffix="!",
                    doc=(
                        "Enqueues on ``stream`` a copy of the device's overflow status, 64 bytes (``output_size``\n"
                        "must be 64), into the device memory at ``output_addr``; nonzero means an overflow.\n"
                        "Synchronize the stream before reading it."
                    ),
                ),
            ),
            Fn(
                "aclError aclrtResetOverflowStatus(aclrtStream stream);",
                py=Call(
                    "reset_overflow_status",
                    "k",
                    suffix="!",
                    doc="Enqueues on ``stream`` the clearing of the device's overflow status.",
                ),
            ),
        ),
    ),
    Group(
        "operator timeouts",
        "acl/acl_rt_device.h",
        "device",
        section="operator timeouts",
        functions=(
            Fn(
                "aclError aclrtSetOpWaitTimeout(uint32_t timeout);",
                py=Call(
                    "set_op_wait_timeout",
                    "I",
                    suffix="!",
                    doc=(
                        "Seconds a stream waits for an event (stream_wait_event submitted from now on); 0, the\n"
                        "default, waits forever. A wait that runs out fails its task: synchronize returns 107020."
                    ),
                ),
            ),
            Fn(
                "aclError aclrtSetOpExecuteTimeOut(uint32_t timeout);",
                py=Call(
                    "set_op_execute_time_out",
                    "I",
                    message="acl.rt.set_op_execute_timeout args parse failed!",
                    note="sic, pyACL's name",
                    doc=(
                        "Seconds a launch without a timeout attribute may run (0: the maximum), rounded up to\n"
                        "the hardware's interval (get_op_timeout_interval)."
                    ),
                ),
            ),
            Fn("aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout);"),
            Fn(
                "aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout);",
                py=Out(
                    "set_op_execute_timeout_v2",
                    "K",
                    suffix="!",
                    doc=(
                        "``(actual_timeout, ret)``: microseconds; the actual timeout is whole intervals, at most\n"
                        "254 of them (0: the maximum)."
                    ),
                ),
            ),
            Fn(
                "aclError aclrtGetOpTimeOutInterval(uint64_t *interval);",
                py=Out(
                    "get_op_timeout_interval",
                    None,
                    doc="``(interval, ret)``: the hardware's timeout granularity in microseconds.",
                ),
            ),
            Fn(
                "aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs);",
                py=Out(
                    "get_op_execute_timeout",
                    None,
                    doc="``(timeout_ms, ret)``: what a launch without a timeout attribute gets now.",
                ),
            ),
        ),
    ),
    Group(
        "notifies",
        "acl/acl_rt_device.h",
        "device",
        section="notifies",
        functions=(
            Fn(
                "aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag);",
                py=Out(
                    "create_notify",
                    "K",
                    doc="``(notify, ret)``; flag 0 (ACL_NOTIFY_DEFAULT) or 1 (ACL_NOTIFY_DEVICE_USE_ONLY).",
                ),
            ),
            Fn("aclError aclrtDestroyNotify(aclrtNotify notify);", py=Call("destroy_notify", "k")),
            Fn(
                "aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream);",
                py=Call(
                    "record_notify",
                    "kk",
                    doc="Enqueues a record on ``stream``: when the stream reaches it, the notify is set.",
                ),
            ),
            Fn(
                "aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout);",
                py=Special("wait_and_reset_notify"),
            ),
            Fn("aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId);", py=Out("get_notify_id", "k")),
            Fn("aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num);", py=Special("notify_batch_reset")),
            Fn(
                "aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags);",
                py=Special("notify_get_export_key"),
            ),
            Fn(
                "aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags);",
                py=Out(
                    "notify_import_by_key",
                    "sK",
                    args=("key", "flag"),
                    doc="``(notify, ret)``: the notify another process exported as ``key``.",
                ),
            ),
            Fn(
                "aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num);",
                py=Special("notify_set_import_pid"),
            ),
        ),
    ),
    Group(
        "core resource limits",
        "acl/acl_rt_device.h",
        "device",
        section="core resource limits",
        functions=(
            Fn(
                "aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value);",
                py=Out(
                    "get_device_res_limit",
                    "iI",
                    args=("device_id", "res_type"),
                    doc="``(value, ret)``: the process's limit of cube (0) or vector (1) cores on the device.",
                ),
            ),
            Fn(
                "aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value);",
                py=Call("set_device_res_limit", "iII", args=("device_id", "res_type", "value")),
            ),
            Fn("aclError aclrtResetDeviceResLimit(int32_t deviceId);", py=Call("reset_device_res_limit", "i")),
            Fn(
                "aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value);",
                py=Out(
                    "get_stream_res_limit",
                    "ki",
                    message="acl.rt.get_stream_res_limit parse failed",
                    args=("stream", "res_type"),
                    note='sic: no "args"',
                    doc="``(value, ret)``: the stream's own limit, else the device's.",
                ),
            ),
            Fn(
                "aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value);",
                py=Call(
                    "set_stream_res_limit",
                    "kiI",
                    message="acl.rt.set_stream_res_limit parse failed",
                    args=("stream", "res_type", "value"),
                ),
            ),
            Fn(
                "aclError aclrtResetStreamResLimit(aclrtStream stream);",
                py=Call("reset_stream_res_limit", "k", message="acl.rt.reset_stream_res_limit parse failed"),
            ),
            Fn(
                "aclError aclrtUseStreamResInCurrentThread(aclrtStream stream);",
                py=Call(
                    "use_stream_res_in_current_thread",
                    "k",
                    message="acl.rt.use_stream_res_in_current_thread parse failed",
                ),
            ),
            Fn(
                "aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream);",
                py=Call(
                    "unuse_stream_res_in_current_thread",
                    "k",
                    message="acl.rt.unuse_stream_res_in_current_thread parse failed",
                ),
            ),
            Fn(
                "aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value);",
                py=Out(
                    "get_res_in_current_thread",
                    "i",
                    message="acl.rt.get_res_in_current_thread parse failed",
                    args=("res_type",),
                    doc="``(value, ret)``: the limit of the stream bound to this thread, else the device's.",
                ),
            ),
        ),
    ),
    Group(
        "topology, abort, AI CPU functions, groups",
        "acl/acl_rt_device.h",
        "device",
        section="topology, abort",
        functions=(
            Fn(
                "aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value);",
                py=Special("get_devices_topo"),
            ),
            Fn(
                "aclError aclrtStreamAbort(aclrtStream stream);",
                py=Call(
                    "stream_abort",
                    "k",
                    doc=(
                        "Kills the stream's running task and drops its queued ones; synchronizes waiting on it\n"
                        "return 107023, and afterwards the stream is clean."
                    ),
                ),
            ),
            Fn(
                "aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout);",
                py=Call(
                    "device_task_abort",
                    "iI",
                    doc=(
                        "The same for every stream of the device (``timeout`` ms, 0: no limit); it also clears\n"
                        "the stop-on-failure errors of the device's contexts."
                    ),
                ),
            ),
            Fn(
                (
                    "aclError aclrtRegisterCpuFunc(const aclrtBinHandle handle, const char *funcName, "
                    "const char *kernelName, aclrtFuncHandle *funcHandle);"
                ),
                py=Special("register_cpu_func"),
            ),
            Fn(
                "aclError aclrtSetGroup(int32_t groupId);",
                py=Call(
                    "set_group",
                    "I",
                    conv={"groupId": "_as_i32"},
                    section="device groups",
                    comment='pyACL parses it with "I" and passes it as int32_t.',
                ),
            ),
            Fn("aclError aclrtGetGroupCount(uint32_t *count);", py=Special("get_group_count")),
            Fn("aclrtGroupInfo *aclrtCreateGroupInfo(void);", missing="NULL", py=Special("create_group_info")),
            Fn("aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo);", py=Special("destroy_group_info")),
            Fn("aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo);", py=Special("get_all_group_info")),
            Fn(
                (
                    "aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex, "
                    "aclrtGroupAttr attr, void *attrValue, size_t valueLen, size_t *paramRetSize);"
                ),
                py=Special("get_group_info_detail"),
            ),
        ),
    ),
    # ---- aclsim_ext.h: the simulator's timeline trace, absent from every real runtime ------------
    Group(
        None,
        "aclsim_ext.h",
        "trace",
        library="sim",
        functions=(
            Fn(
                "int aclsimTraceStart(size_t capacity);",
                missing="-1",
                doc=(
                    "/* Starts recording into a buffer of `capacity` records (records beyond it are dropped and\n"
                    " * counted). Returns 0, or -1 if out of memory. Restarting clears the buffer. */"
                ),
            ),
            Fn(
                "uint64_t aclsimTraceStop(void);",
                missing="0",
                doc="/* Stops recording; returns the number of records dropped for lack of room. */",
            ),
            Fn(
                "size_t aclsimTraceDrain(aclsimTraceRecord *out, size_t max);",
                missing="0",
                doc="/* Moves up to max records out, oldest first; returns how many. */",
            ),
        ),
    ),
    # ---- aclsim_chip.h: the simulated chip, absent from every real runtime -----------------------
    Group(
        None,
        "aclsim_chip.h",
        "chip",
        library="sim",
        functions=(
            Fn(
                "const aclsimChip *aclsimGetChip(void);",
                missing="NULL",  # a real CANN runtime has no simulated chip: aiocann.sim.chip() is None
                doc=(
                    "/* The chip this process simulates (never NULL once the name is valid; NULL and a recent error\n"
                    " * message if AIOCANN_SIM_SOC_NAME names no known part). Works before aclInit. */"
                ),
            ),
        ),
    ),
    # ---- acl/acl_rt_compile.h: the runtime compiler, libacl_rtc.so on CANN -----------------------
    Group(
        "the runtime compiler: a program from source, compiled to a device binary",
        "acl/acl_rt_compile.h",
        "rtc",
        library="rtc",
        functions=(
            Fn(
                "aclError aclrtcCreateProg(aclrtcProg *prog, const char *src, const char *name, int numHeaders, "
                "const char **headers, const char **includeNames);",
                doc=(
                    '/* A program from source text. name is its file name in diagnostics ("" -> "default_program";\n'
                    " * a name ending in .aicpu is an AI CPU program, which cannot be compiled). numHeaders must be\n"
                    " * 0 and headers, includeNames NULL. */"
                ),
            ),
            Fn(
                "aclError aclrtcCompileProg(aclrtcProg prog, int numOptions, const char **options);",
                doc=(
                    "/* Compiles with the given compiler options (-I, -D, -O, -std, --npu-arch=dav-2201 ...). On a\n"
                    " * compile error it returns ACL_ERROR_RTC_COMPILATION and the log holds the diagnostics. */"
                ),
            ),
            Fn(
                "aclError aclrtcAddNameExpr(aclrtcProg prog, const char *const nameExpression);",
                doc=('/* Before aclrtcCompileProg: a name expression ("&ns::kernel<float>") to compile and lower. */'),
            ),
            Fn(
                "aclError aclrtcGetLoweredName(aclrtcProg prog, const char *nameExpression, const char **loweredName);",
                doc=("/* After it: the mangled name of a name expression, valid until aclrtcDestroyProg. */"),
            ),
            Fn("aclError aclrtcGetBinDataSize(aclrtcProg prog, size_t *binDataSizeRet);"),
            Fn("aclError aclrtcGetBinData(aclrtcProg prog, char *binData);"),
            Fn(
                "aclError aclrtcGetCompileLogSize(aclrtcProg prog, size_t *logSizeRet);",
                doc=("/* The log's size includes its terminating NUL. */"),
            ),
            Fn("aclError aclrtcGetCompileLog(aclrtcProg prog, char *log);"),
            Fn("aclError aclrtcDestroyProg(aclrtcProg *prog);"),
        ),
    ),
    # ---- acl/acl_base_rt.h: the runtime's base helpers (declared only: aiocann does not call them) -------------
    Group(
        "IEEE binary16 <-> binary32: round to nearest even, overflow to infinity, NaN kept.",
        "acl/acl_base_rt.h",
        "base",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("float aclFloat16ToFloat(aclFloat16 value);"),
            Fn("aclFloat16 aclFloatToFloat16(float value);"),
        ),
    ),
    Group(
        "A (pointer, length) pair the model and operator APIs take; the runtime only holds it.",
        "acl/acl_base_rt.h",
        "base",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("aclDataBuffer *aclCreateDataBuffer(void *data, size_t size);"),
            Fn("aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer);"),
            Fn("aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size);"),
            Fn("void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer);"),
            Fn(
                "uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer);",
                deprecated="aclGetDataBufferSize is deprecated, use aclGetDataBufferSizeV2 instead",
            ),
            Fn("size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer);"),
        ),
    ),
    Group(
        "the application's log line (ACL_APP_LOG, below, fills in the caller)",
        "acl/acl_base_rt.h",
        "base",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn(
                "void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line, "
                "const char *fmt, ...) __attribute__((format(printf, 5, 6)));",
            ),
        ),
    ),
    Group(
        "the CANN package's attributes",
        "acl/acl_base_rt.h",
        "base",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num);"),
            Fn("aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value);"),
        ),
    ),
    # ---- acl/acl_rt_programs.h: what CANN's programs call beyond aiocann (declared only) -----------------------
    Group(
        None,
        "acl/acl_rt_programs.h",
        "errors",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo);"),
            Fn(
                "aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info, void **devArgsPtr, "
                "uint32_t *devArgsLen);",
            ),
            Fn("aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo *info, aclrtFuncHandle *func);"),
        ),
    ),
    Group(
        None,
        "acl/acl_rt_programs.h",
        "base",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(Fn("size_t aclDataTypeSize(aclDataType dataType);"),),
    ),
    Group(
        None,
        "acl/acl_rt_programs.h",
        "versions",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum);"),
            Fn("aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible);"),
        ),
    ),
    Group(
        None,
        "acl/acl_rt_programs.h",
        "host functions",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream);"),
            Fn("aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args);"),
            Fn("aclError aclrtProcessHostFunc(int32_t timeout);"),
            Fn("aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream);"),
        ),
    ),
    Group(
        None,
        "acl/acl_rt_programs.h",
        "streams",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void);"),
            Fn("aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle);"),
            Fn(
                "aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr, "
                "const void *attrValue, size_t valueSize);",
            ),
            Fn("aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle);"),
            Fn("aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags);"),
            Fn("aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority);"),
            Fn(
                "aclError aclrtRegStreamStateCallback(const char *regName, aclrtStreamStateCallback callback, "
                "void *args);",
            ),
            Fn("aclError aclrtStreamStop(aclrtStream stream);"),
            Fn(
                "aclError aclrtSwitchStream(void *leftValue, aclrtCondition cond, void *rightValue, "
                "aclrtCompareDataType dataType, aclrtStream trueStream, aclrtStream falseStream, aclrtStream stream);",
            ),
            Fn("aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream);"),
        ),
    ),
    Group(
        None,
        "acl/acl_rt_programs.h",
        "events",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag);"),
            Fn(
                "aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout, "
                "uint32_t flag);",
            ),
            Fn("aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle);"),
            Fn("aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event);"),
        ),
    ),
    Group(
        None,
        "acl/acl_rt_programs.h",
        "random",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn(
                "aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo, const aclrtStream stream, "
                "void *reserve);",
            ),
        ),
    ),
    Group(
        None,
        "acl/acl_rt_programs.h",
        "labels",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("aclError aclrtCreateLabel(aclrtLabel *label);"),
            Fn("aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream);"),
            Fn("aclError aclrtDestroyLabel(aclrtLabel label);"),
            Fn("aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList);"),
            Fn("aclError aclrtDestroyLabelList(aclrtLabelList labelList);"),
            Fn(
                "aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList, "
                "aclrtStream stream);",
            ),
            Fn("aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag);"),
            Fn("aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve);"),
            Fn("aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag);"),
            Fn("aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream);"),
            Fn("aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream);"),
            Fn(
                "aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue, "
                "aclmdlRICondHandleFlag flag, aclmdlRICondHandle *handle);",
            ),
            Fn("aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr);"),
            Fn("aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags);"),
            Fn(
                "aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI, "
                "aclmdlRICaptureMode mode);",
            ),
            Fn("aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags);"),
        ),
    ),
    Group(
        None,
        "acl/acl_rt_programs.h",
        "memory",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count);"),
            Fn("aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag);"),
            Fn(
                "aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags, "
                "aclrtMemSharedHandleType shareType, void *shareableHandle);",
            ),
            Fn(
                "aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle, "
                "aclrtMemSharedHandleType shareType, uint64_t flags, aclrtDrvMemHandle *handle);",
            ),
        ),
    ),
    Group(
        None,
        "acl/acl_rt_programs.h",
        "dump",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("aclError aclmdlInitDump(void);"),
            Fn("aclError aclmdlSetDump(const char *dumpCfgPath);"),
            Fn("aclError aclmdlFinalizeDump(void);"),
        ),
    ),
    # ---- acl/acl_dump.h: the dump package (declared only; the simulator: 200001) -------------------------------
    Group(
        None,
        "acl/acl_dump.h",
        "dump",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn(
                "aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *, int32_t), "
                "int32_t flag);",
                decl="ACL_DUMP_API",
            ),
            Fn("void acldumpUnregCallback(void);", decl="ACL_DUMP_API"),
            Fn("aclError aclopStartDumpArgs(uint32_t dumpType, const char *path);"),
            Fn("aclError aclopStopDumpArgs(uint32_t dumpType);"),
            Fn("const char *acldumpGetPath(acldumpType dumpType);"),
            Fn(
                "aclError acldumpSaveExceptionInfo(const char *fileName, const char *userTag, "
                "const acldumpTensorInfo *tensors, size_t tensorCount);",
                decl="ACL_DUMP_WEAK ACL_FUNC_VISIBILITY",
            ),
            Fn(
                "aclError acldumpGetExceptionInfoPath(char *path, size_t maxLen);",
                decl="ACL_DUMP_WEAK ACL_FUNC_VISIBILITY",
            ),
        ),
    ),
    # ---- acl/acl_prof.h: the profiler package (declared only; the simulator: 200001) ---------------------------
    Group(
        None,
        "acl/acl_prof.h",
        "prof",
        loaded=False,
        decl="MSVP_PROF_API",
        functions=(
            Fn("aclError aclprofInit(const char *profilerResultPath, size_t length);"),
            Fn("aclError aclprofFinalize(void);"),
            Fn("aclError aclprofStart(const aclprofConfig *profilerConfig);"),
            Fn(
                "aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums, "
                "aclprofAicoreMetrics aicoreMetrics, const aclprofAicoreEvents *aicoreEvents, "
                "uint64_t dataTypeConfig);",
            ),
            Fn("aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig);"),
            Fn("aclError aclprofStop(const aclprofConfig *profilerConfig);"),
            Fn("aclError aclprofSetConfig(aclprofConfigType configType, const char *config, size_t configLength);"),
            Fn("aclError aclprofModelSubscribe(uint32_t modelId, const aclprofSubscribeConfig *profSubscribeConfig);"),
            Fn("aclError aclprofModelUnSubscribe(uint32_t modelId);"),
            Fn(
                "aclprofSubscribeConfig *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch, "
                "aclprofAicoreMetrics aicoreMetrics, void *fd);",
            ),
            Fn("aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig);"),
            Fn("aclError aclprofGetOpDescSize(size_t *opDescSize);"),
            Fn("aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber);"),
            Fn(
                "aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen, uint32_t index, "
                "size_t *opTypeLen);",
            ),
            Fn(
                "aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index, char *opType, "
                "size_t opTypeLen);",
            ),
            Fn(
                "aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen, uint32_t index, "
                "size_t *opNameLen);",
            ),
            Fn(
                "aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index, char *opName, "
                "size_t opNameLen);",
            ),
            Fn("uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen, uint32_t index);"),
            Fn("uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index);"),
            Fn("uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen, uint32_t index);"),
            Fn("size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index);"),
            Fn("aclprofSubscribeOpFlag aclprofGetOpFlag(const void *opInfo, size_t opInfoLen, uint32_t index);"),
            Fn(
                "const char *aclprofGetOpAttriValue(const void *opInfo, size_t opInfoLen, uint32_t index, "
                "aclprofSubscribeOpAttri attri);",
            ),
            Fn("aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag, aclrtStream stream);"),
            Fn("aclprofStepInfo *aclprofCreateStepInfo(void);"),
            Fn("void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo);"),
            Fn("void *aclprofCreateStamp(void);"),
            Fn("void aclprofDestroyStamp(void *stamp);"),
            Fn("aclError aclprofPush(void *stamp);"),
            Fn("aclError aclprofPop(void);"),
            Fn("aclError aclprofRangeStart(void *stamp, uint32_t *rangeId);"),
            Fn("aclError aclprofRangeStop(uint32_t rangeId);"),
            Fn("aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen);"),
            Fn("aclError aclprofMark(void *stamp);"),
            Fn("aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream);"),
            Fn("uint64_t aclprofStr2Id(const char *message);"),
            Fn("aclError aclprofRangePushEx(aclprofEventAttributes *attr);"),
            Fn("aclError aclprofRangePop(void);"),
        ),
    ),
    # ---- acl/acl_tdt.h: tensor data transfer, channels (declared only; the simulator: 200001) ------------------
    Group(
        None,
        "acl/acl_tdt.h",
        "tdt",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("acltdtTensorType acltdtGetTensorTypeFromItem(const acltdtDataItem *dataItem);"),
            Fn("aclDataType acltdtGetDataTypeFromItem(const acltdtDataItem *dataItem);"),
            Fn("void *acltdtGetDataAddrFromItem(const acltdtDataItem *dataItem);"),
            Fn("size_t acltdtGetDataSizeFromItem(const acltdtDataItem *dataItem);"),
            Fn("size_t acltdtGetDimNumFromItem(const acltdtDataItem *dataItem);"),
            Fn(
                "aclError acltdtGetSliceInfoFromItem(const acltdtDataItem *dataItem, size_t *sliceNum, "
                "size_t *sliceId);",
            ),
            Fn("aclError acltdtGetDimsFromItem(const acltdtDataItem *dataItem, int64_t *dims, size_t dimNum);"),
            Fn(
                "acltdtDataItem *acltdtCreateDataItem(acltdtTensorType tdtType, const int64_t *dims, size_t dimNum, "
                "aclDataType dataType, void *data, size_t size);",
            ),
            Fn("aclError acltdtDestroyDataItem(acltdtDataItem *dataItem);"),
            Fn("acltdtDataset *acltdtCreateDataset(void);"),
            Fn("aclError acltdtDestroyDataset(acltdtDataset *dataset);"),
            Fn("acltdtDataItem *acltdtGetDataItem(const acltdtDataset *dataset, size_t index);"),
            Fn("aclError acltdtAddDataItem(acltdtDataset *dataset, acltdtDataItem *dataItem);"),
            Fn("size_t acltdtGetDatasetSize(const acltdtDataset *dataset);"),
            Fn("const char *acltdtGetDatasetName(const acltdtDataset *dataset);"),
            Fn("aclError acltdtStopChannel(acltdtChannelHandle *handle);"),
            Fn("acltdtChannelHandle *acltdtCreateChannel(uint32_t deviceId, const char *name);"),
            Fn(
                "acltdtChannelHandle *acltdtCreateChannelWithCapacity(uint32_t deviceId, const char *name, "
                "size_t capacity);",
            ),
            Fn("aclError acltdtDestroyChannel(acltdtChannelHandle *handle);"),
            Fn("aclError acltdtCleanChannel(acltdtChannelHandle *handle);"),
            Fn(
                "aclError acltdtSendTensor(const acltdtChannelHandle *handle, const acltdtDataset *dataset, "
                "int32_t timeout);",
            ),
            Fn(
                "aclError acltdtReceiveTensor(const acltdtChannelHandle *handle, acltdtDataset *dataset, "
                "int32_t timeout);",
            ),
            Fn("aclError acltdtQueryChannelSize(const acltdtChannelHandle *handle, size_t *size);"),
        ),
    ),
    # ---- acl/acl_tdt_queue.h: tensor data transfer, queues (declared only; the simulator: 200001) --------------
    Group(
        None,
        "acl/acl_tdt_queue.h",
        "queue",
        loaded=False,
        decl="ACL_FUNC_VISIBILITY",
        functions=(
            Fn("aclError acltdtCreateQueue(const acltdtQueueAttr *attr, uint32_t *qid);"),
            Fn("aclError acltdtDestroyQueue(uint32_t qid);"),
            Fn("aclError acltdtEnqueue(uint32_t qid, acltdtBuf buf, int32_t timeout);"),
            Fn("aclError acltdtDequeue(uint32_t qid, acltdtBuf *buf, int32_t timeout);"),
            Fn(
                "aclError acltdtEnqueueData(uint32_t qid, const void *data, size_t dataSize, const void *userData, "
                "size_t userDataSize, int32_t timeout, uint32_t rsv);",
            ),
            Fn(
                "aclError acltdtDequeueData(uint32_t qid, void *data, size_t dataSize, size_t *retDataSize, "
                "void *userData, size_t userDataSize, int32_t timeout);",
            ),
            Fn("aclError acltdtGrantQueue(uint32_t qid, int32_t pid, uint32_t permission, int32_t timeout);"),
            Fn("aclError acltdtAttachQueue(uint32_t qid, int32_t timeout, uint32_t *permission);"),
            Fn("aclError acltdtBindQueueRoutes(acltdtQueueRouteList *qRouteList);"),
            Fn("aclError acltdtUnbindQueueRoutes(acltdtQueueRouteList *qRouteList);"),
            Fn(
                "aclError acltdtQueryQueueRoutes(const acltdtQueueRouteQueryInfo *queryInfo, "
                "acltdtQueueRouteList *qRouteList);",
            ),
            Fn("aclError acltdtAllocBuf(size_t size, uint32_t type, acltdtBuf *buf);"),
            Fn("aclError acltdtFreeBuf(acltdtBuf buf);"),
            Fn("aclError acltdtGetBufData(const acltdtBuf buf, void **dataPtr, size_t *size);"),
            Fn("aclError acltdtSetBufDataLen(acltdtBuf buf, size_t len);"),
            Fn("aclError acltdtGetBufDataLen(acltdtBuf buf, size_t *len);"),
            Fn("aclError acltdtAppendBufChain(acltdtBuf headBuf, acltdtBuf buf);"),
            Fn("aclError acltdtGetBufChainNum(acltdtBuf headBuf, uint32_t *num);"),
            Fn("aclError acltdtGetBufFromChain(acltdtBuf headBuf, uint32_t index, acltdtBuf *buf);"),
            Fn("aclError acltdtGetBufUserData(const acltdtBuf buf, void *dataPtr, size_t size, size_t offset);"),
            Fn("aclError acltdtSetBufUserData(acltdtBuf buf, const void *dataPtr, size_t size, size_t offset);"),
            Fn("aclError acltdtCopyBufRef(const acltdtBuf buf, acltdtBuf *newBuf);"),
            Fn("acltdtQueueAttr *acltdtCreateQueueAttr(void);"),
            Fn("aclError acltdtDestroyQueueAttr(const acltdtQueueAttr *attr);"),
            Fn(
                "aclError acltdtSetQueueAttr(acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len, "
                "const void *param);",
            ),
            Fn(
                "aclError acltdtGetQueueAttr(const acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len, "
                "size_t *paramRetSize, void *param);",
            ),
            Fn("acltdtQueueRoute *acltdtCreateQueueRoute(uint32_t srcId, uint32_t dstId);"),
            Fn("aclError acltdtDestroyQueueRoute(const acltdtQueueRoute *route);"),
            Fn(
                "aclError acltdtGetQueueRouteParam(const acltdtQueueRoute *route, acltdtQueueRouteParamType type, "
                "size_t len, size_t *paramRetSize, void *param);",
            ),
            Fn("acltdtQueueRouteList *acltdtCreateQueueRouteList(void);"),
            Fn("aclError acltdtDestroyQueueRouteList(const acltdtQueueRouteList *routeList);"),
            Fn("aclError acltdtAddQueueRoute(acltdtQueueRouteList *routeList, const acltdtQueueRoute *route);"),
            Fn(
                "aclError acltdtGetQueueRoute(const acltdtQueueRouteList *routeList, size_t index, "
                "acltdtQueueRoute *route);",
            ),
            Fn("size_t acltdtGetQueueRouteNum(const acltdtQueueRouteList *routeList);"),
            Fn("acltdtQueueRouteQueryInfo *acltdtCreateQueueRouteQueryInfo(void);"),
            Fn("aclError acltdtDestroyQueueRouteQueryInfo(const acltdtQueueRouteQueryInfo *info);"),
            Fn(
                "aclError acltdtSetQueueRouteQueryInfo(acltdtQueueRouteQueryInfo *param, "
                "acltdtQueueRouteQueryInfoParamType type, size_t len, const void *value);",
            ),
        ),
    ),
)
