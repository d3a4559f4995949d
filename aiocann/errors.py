"""ACL errors as Python exceptions, and the table of ACL error codes.

Every ACL return code that is not ``ACL_SUCCESS`` becomes an :class:`AclError` (via
``aiocann._lib.check``). Codes that callers commonly handle have their own subclass,
registered by code; any other code raises :class:`AclError` itself. Every instance carries the
numeric ``code``, its ACL ``name`` (e.g. ``ACL_ERROR_RT_PARAM_INVALID``), the ``api`` that
failed, and the runtime's recent error message (``aclGetRecentErrMsg``) when there was one.

``ERROR_CODES`` maps every ACL error name to its code: the one table of them in Python. The
exception classes register their codes by name from it, and the tests take their codes from
it; native/include/acl/acl_base.h is the one table in C. tests/sim/test_abi.py checks that
both hold exactly the real headers' codes. ``code_name(code)`` goes the other way.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar, Final

__all__ = [
    "AclError",
    "ApiNotSupportedError",
    "BadAllocError",
    "ClosedError",
    "CompletionTimeoutError",
    "DeviceOutOfMemoryError",
    "DmaError",
    "EventNotCompleteError",
    "EventSyncTimeoutError",
    "EventTimestampError",
    "FeatureNotSupportedError",
    "FileOpenError",
    "InvalidDeviceError",
    "InvalidFileError",
    "InvalidHandleError",
    "InvalidParamError",
    "KernelFaultError",
    "KernelLookupError",
    "KernelTimeoutError",
    "NoContextError",
    "RepeatFinalizeError",
    "RepeatInitializeError",
    "RepeatSubscribeError",
    "ReportTimeoutError",
    "ResourceExhaustedError",
    "RtParamInvalidError",
    "StreamContextError",
    "StreamNotSubscribedError",
    "StreamSubscribeError",
    "StreamSyncTimeoutError",
    "ThreadSubscribeError",
    "UninitializedError",
    "WrongThreadError",
]

#: Every ACL error code by its name in the ACL headers (acl_base.h, then the few acl_rt.h and
#: acl_rt_device.h defines), in their order. ACL_SUCCESS (0) is not an error.
ERROR_CODES: Final[Mapping[str, int]] = MappingProxyType(
    {
        "ACL_ERROR_INVALID_PARAM": 100000,
        "ACL_ERROR_UNINITIALIZE": 100001,
        "ACL_ERROR_REPEAT_INITIALIZE": 100002,
        "ACL_ERROR_INVALID_FILE": 100003,
        "ACL_ERROR_REPEAT_SUBSCRIBE": 100033,
        "ACL_ERROR_STREAM_NOT_SUBSCRIBE": 100034,
        "ACL_ERROR_THREAD_NOT_SUBSCRIBE": 100035,
        "ACL_ERROR_WAIT_CALLBACK_TIMEOUT": 100036,
        "ACL_ERROR_REPEAT_FINALIZE": 100037,
        "ACL_ERROR_BAD_ALLOC": 200000,
        "ACL_ERROR_API_NOT_SUPPORT": 200001,
        "ACL_ERROR_INVALID_DEVICE": 200002,
        "ACL_ERROR_MEMORY_ADDRESS_UNALIGNED": 200003,
        "ACL_ERROR_RESOURCE_NOT_MATCH": 200004,
        "ACL_ERROR_INVALID_RESOURCE_HANDLE": 200005,
        "ACL_ERROR_FEATURE_UNSUPPORTED": 200006,
        "ACL_ERROR_STORAGE_OVER_LIMIT": 300000,
        "ACL_ERROR_INTERNAL_ERROR": 500000,
        "ACL_ERROR_FAILURE": 500001,
        "ACL_ERROR_GE_FAILURE": 500002,
        "ACL_ERROR_RT_FAILURE": 500003,
        "ACL_ERROR_DRV_FAILURE": 500004,
        "ACL_ERROR_PROFILING_FAILURE": 500005,
        "ACL_ERROR_RT_PARAM_INVALID": 107000,
        "ACL_ERROR_RT_INVALID_DEVICEID": 107001,
        "ACL_ERROR_RT_CONTEXT_NULL": 107002,
        "ACL_ERROR_RT_STREAM_CONTEXT": 107003,
        "ACL_ERROR_RT_MODEL_CONTEXT": 107004,
        "ACL_ERROR_RT_STREAM_MODEL": 107005,
        "ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID": 107006,
        "ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL": 107007,
        "ACL_ERROR_RT_ADDR_UNALIGNED": 107008,
        "ACL_ERROR_RT_FILE_OPEN": 107009,
        "ACL_ERROR_RT_FILE_WRITE": 107010,
        "ACL_ERROR_RT_STREAM_SUBSCRIBE": 107011,
        "ACL_ERROR_RT_THREAD_SUBSCRIBE": 107012,
        "ACL_ERROR_RT_GROUP_NOT_SET": 107013,
        "ACL_ERROR_RT_GROUP_NOT_CREATE": 107014,
        "ACL_ERROR_RT_STREAM_NO_CB_REG": 107015,
        "ACL_ERROR_RT_INVALID_MEMORY_TYPE": 107016,
        "ACL_ERROR_RT_INVALID_HANDLE": 107017,
        "ACL_ERROR_RT_INVALID_MALLOC_TYPE": 107018,
        "ACL_ERROR_RT_WAIT_TIMEOUT": 107019,
        "ACL_ERROR_RT_TASK_TIMEOUT": 107020,
        "ACL_ERROR_RT_SYMBOL_NOT_FOUND": 107042,
        "ACL_ERROR_RT_INVALID_DEVICE_FUNCTION": 107044,
        "ACL_ERROR_RT_FEATURE_NOT_SUPPORT": 207000,
        "ACL_ERROR_RT_MEMORY_ALLOCATION": 207001,
        "ACL_ERROR_RT_MEMORY_FREE": 207002,
        "ACL_ERROR_RT_AICORE_OVER_FLOW": 207003,
        "ACL_ERROR_RT_NO_DEVICE": 207004,
        "ACL_ERROR_RT_RESOURCE_ALLOC_FAIL": 207005,
        "ACL_ERROR_RT_NO_PERMISSION": 207006,
        "ACL_ERROR_RT_NO_EVENT_RESOURCE": 207007,
        "ACL_ERROR_RT_NO_STREAM_RESOURCE": 207008,
        "ACL_ERROR_RT_NO_NOTIFY_RESOURCE": 207009,
        "ACL_ERROR_RT_NO_MODEL_RESOURCE": 207010,
        "ACL_ERROR_RT_NO_CDQ_RESOURCE": 207011,
        "ACL_ERROR_RT_OVER_LIMIT": 207012,
        "ACL_ERROR_RT_DEVICE_OOM": 207018,
        "ACL_ERROR_RT_TIMEOUT": 207020,
        "ACL_ERROR_RT_INTERNAL_ERROR": 507000,
        "ACL_ERROR_RT_TS_ERROR": 507001,
        "ACL_ERROR_RT_STREAM_TASK_FULL": 507002,
        "ACL_ERROR_RT_STREAM_TASK_EMPTY": 507003,
        "ACL_ERROR_RT_STREAM_NOT_COMPLETE": 507004,
        "ACL_ERROR_RT_END_OF_SEQUENCE": 507005,
        "ACL_ERROR_RT_EVENT_NOT_COMPLETE": 507006,
        "ACL_ERROR_RT_CONTEXT_RELEASE_ERROR": 507007,
        "ACL_ERROR_RT_SOC_VERSION": 507008,
        "ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT": 507009,
        "ACL_ERROR_RT_LOST_HEARTBEAT": 507010,
        "ACL_ERROR_RT_MODEL_EXECUTE": 507011,
        "ACL_ERROR_RT_REPORT_TIMEOUT": 507012,
        "ACL_ERROR_RT_SYS_DMA": 507013,
        "ACL_ERROR_RT_AICORE_TIMEOUT": 507014,
        "ACL_ERROR_RT_AICORE_EXCEPTION": 507015,
        "ACL_ERROR_RT_AICORE_TRAP_EXCEPTION": 507016,
        "ACL_ERROR_RT_AICPU_TIMEOUT": 507017,
        "ACL_ERROR_RT_AICPU_EXCEPTION": 507018,
        "ACL_ERROR_RT_KERNEL_LOOKUP": 507027,
        "ACL_ERROR_RT_VECTOR_CORE_TIMEOUT": 507034,
        "ACL_ERROR_RT_VECTOR_CORE_EXCEPTION": 507035,
        "ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION": 507036,
        "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT": 507046,
        "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT": 507047,
        "ACL_ERROR_RT_DEVICE_MEM_ERROR": 507053,
        "ACL_ERROR_RT_DRV_INTERNAL_ERROR": 507899,
        "ACL_ERROR_RT_AICPU_INTERNAL_ERROR": 507900,
        "ACL_ERROR_RT_CAPTURE_DEPENDENCY": 107024,
        "ACL_ERROR_RT_STREAM_UNJOINED": 107025,
        "ACL_ERROR_RT_MODEL_CAPTURED": 107026,
        "ACL_ERROR_RT_STREAM_CAPTURED": 107027,
        "ACL_ERROR_RT_EVENT_CAPTURED": 107028,
        "ACL_ERROR_RT_STREAM_NOT_CAPTURED": 107029,
        "ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT": 107030,
        "ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT": 107031,
        "ACL_ERROR_STREAM_CAPTURE_CONFLICT": 107032,
        "ACL_ERROR_STREAM_TASK_GROUP_STATUS": 107033,
        "ACL_ERROR_STREAM_TASK_GROUP_INTR": 107034,
        "ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED": 107036,
        "ACL_ERROR_RT_MODEL_RUNNING": 107037,
        "ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD": 107038,
        "ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC": 107041,
        "ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED": 507903,
        "ACL_ERROR_RT_SYSPARAMOPT_NOT_SET": 107021,
        "ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED": 507910,
        "ACL_ERROR_HOST_MEMORY_NOT_REGISTERED": 507911,
        # acl_rt_device.h (issue 11, device share)
        "ACL_ERROR_RT_DEVICE_TASK_ABORT": 107022,
        "ACL_ERROR_RT_STREAM_ABORT": 107023,
        "ACL_ERROR_RT_AIVEC_OVER_FLOW": 207016,
        "ACL_ERROR_RT_OVER_FLOW": 207017,
        "ACL_ERROR_RT_DEV_SETUP_ERROR": 507033,
    }
)

_NAMES: dict[int, str] = {code: name for name, code in ERROR_CODES.items()}
_BY_CODE: dict[int, type[AclError]] = {}


class AclError(RuntimeError):
    """An ACL call failed. ``code`` is the ACL error code, ``name`` its ACL name."""

    codes: ClassVar[tuple[int, ...]] = ()

    def __init__(self, code: int, message: str | None = None, api: str | None = None) -> None:
        self.code = code
        self.name = _NAMES.get(code, f"ACL error {code}")
        self.message = message or ""
        self.api = api
        where = f"{api} failed: " if api else ""
        text = f"{where}{self.name} ({code})"
        if self.message:
            text += f": {self.message}"
        super().__init__(text)

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (error_for, (self.code, self.message, self.api))


def _register(*names: str):  # type: ignore[no-untyped-def]
    """Make the decorated class the exception of the named codes (KeyError for a name the
    table lacks: a typo fails at import)."""

    def deco(cls: type[AclError]) -> type[AclError]:
        cls.codes = tuple(ERROR_CODES[name] for name in names)
        for c in cls.codes:
            _BY_CODE[c] = cls
        return cls

    return deco


@_register("ACL_ERROR_INVALID_PARAM")
class InvalidParamError(AclError):
    """ACL_ERROR_INVALID_PARAM: an argument failed the ACL layer's checks (NULL, zero size...)."""


@_register("ACL_ERROR_UNINITIALIZE")
class UninitializedError(AclError):
    """ACL_ERROR_UNINITIALIZE: aclInit has not been called."""


@_register("ACL_ERROR_REPEAT_INITIALIZE")
class RepeatInitializeError(AclError):
    """ACL_ERROR_REPEAT_INITIALIZE: aclInit was called twice."""


@_register("ACL_ERROR_INVALID_FILE")
class InvalidFileError(AclError):
    """ACL_ERROR_INVALID_FILE."""


@_register("ACL_ERROR_REPEAT_SUBSCRIBE")
class RepeatSubscribeError(AclError):
    """ACL_ERROR_REPEAT_SUBSCRIBE: the thread already serves this stream."""


@_register("ACL_ERROR_REPEAT_FINALIZE")
class RepeatFinalizeError(AclError):
    """ACL_ERROR_REPEAT_FINALIZE: aclFinalize without a matching aclInit."""


@_register("ACL_ERROR_BAD_ALLOC")
class BadAllocError(AclError, MemoryError):
    """ACL_ERROR_BAD_ALLOC: host memory allocation failed."""


@_register("ACL_ERROR_API_NOT_SUPPORT")
class ApiNotSupportedError(AclError):
    """ACL_ERROR_API_NOT_SUPPORT: the loaded runtime does not provide this API."""


@_register("ACL_ERROR_RT_PARAM_INVALID")
class RtParamInvalidError(AclError):
    """ACL_ERROR_RT_PARAM_INVALID: the runtime rejected a parameter or the call order."""


@_register("ACL_ERROR_RT_INVALID_DEVICEID")
class InvalidDeviceError(AclError):
    """ACL_ERROR_RT_INVALID_DEVICEID."""


@_register("ACL_ERROR_RT_CONTEXT_NULL")
class NoContextError(AclError):
    """ACL_ERROR_RT_CONTEXT_NULL: the calling thread has no current context."""


@_register("ACL_ERROR_RT_STREAM_CONTEXT")
class StreamContextError(AclError):
    """ACL_ERROR_RT_STREAM_CONTEXT: the stream belongs to another device/context."""


@_register("ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID", "ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL")
class EventTimestampError(AclError):
    """An event has no usable timestamp (not recorded, or end before start)."""


@_register("ACL_ERROR_RT_FILE_OPEN")
class FileOpenError(AclError):
    """ACL_ERROR_RT_FILE_OPEN."""


@_register("ACL_ERROR_RT_STREAM_SUBSCRIBE")
class StreamSubscribeError(AclError):
    """ACL_ERROR_RT_STREAM_SUBSCRIBE: the stream already has (or lacks) a report thread."""


@_register("ACL_ERROR_RT_THREAD_SUBSCRIBE")
class ThreadSubscribeError(AclError):
    """ACL_ERROR_RT_THREAD_SUBSCRIBE: the thread is not subscribed (or bound elsewhere)."""


@_register("ACL_ERROR_RT_STREAM_NO_CB_REG")
class StreamNotSubscribedError(AclError):
    """ACL_ERROR_RT_STREAM_NO_CB_REG: no report thread serves the stream."""


@_register("ACL_ERROR_RT_INVALID_HANDLE")
class InvalidHandleError(AclError):
    """ACL_ERROR_RT_INVALID_HANDLE: a stale, destroyed or foreign handle."""


@_register("ACL_ERROR_RT_FEATURE_NOT_SUPPORT")
class FeatureNotSupportedError(AclError):
    """ACL_ERROR_RT_FEATURE_NOT_SUPPORT (e.g. kernel-args calls in the wrong order)."""


@_register("ACL_ERROR_RT_MEMORY_ALLOCATION", "ACL_ERROR_RT_DEVICE_OOM")
class DeviceOutOfMemoryError(AclError, MemoryError):
    """Device memory is exhausted."""


@_register(
    "ACL_ERROR_RT_NO_DEVICE",
    "ACL_ERROR_RT_RESOURCE_ALLOC_FAIL",
    "ACL_ERROR_RT_NO_EVENT_RESOURCE",
    "ACL_ERROR_RT_NO_STREAM_RESOURCE",
    "ACL_ERROR_RT_OVER_LIMIT",
)
class ResourceExhaustedError(AclError):
    """Out of a runtime resource (streams, events, subscriptions, devices)."""


@_register("ACL_ERROR_RT_EVENT_NOT_COMPLETE")
class EventNotCompleteError(AclError):
    """ACL_ERROR_RT_EVENT_NOT_COMPLETE."""


@_register("ACL_ERROR_RT_REPORT_TIMEOUT")
class ReportTimeoutError(AclError, TimeoutError):
    """ACL_ERROR_RT_REPORT_TIMEOUT: no callback report within the ProcessReport timeout."""


@_register("ACL_ERROR_RT_SYS_DMA")
class DmaError(AclError):
    """ACL_ERROR_RT_SYS_DMA: a copy faulted (e.g. an unmapped host address)."""


@_register("ACL_ERROR_RT_AICORE_TIMEOUT", "ACL_ERROR_RT_VECTOR_CORE_TIMEOUT")
class KernelTimeoutError(AclError, TimeoutError):
    """A kernel exceeded its launch timeout and was stopped."""


@_register(
    "ACL_ERROR_RT_AICORE_EXCEPTION",
    "ACL_ERROR_RT_AICORE_TRAP_EXCEPTION",
    "ACL_ERROR_RT_VECTOR_CORE_EXCEPTION",
    "ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION",
)
class KernelFaultError(AclError):
    """A kernel faulted on the device (invalid access, arithmetic exception, trap)."""


@_register("ACL_ERROR_RT_KERNEL_LOOKUP")
class KernelLookupError(AclError, LookupError):
    """ACL_ERROR_RT_KERNEL_LOOKUP: the binary has no kernel of that name."""


@_register("ACL_ERROR_RT_STREAM_SYNC_TIMEOUT")
class StreamSyncTimeoutError(AclError, TimeoutError):
    """ACL_ERROR_RT_STREAM_SYNC_TIMEOUT."""


@_register("ACL_ERROR_RT_EVENT_SYNC_TIMEOUT")
class EventSyncTimeoutError(AclError, TimeoutError):
    """ACL_ERROR_RT_EVENT_SYNC_TIMEOUT."""


@_register("ACL_ERROR_RT_WAIT_TIMEOUT")
class CompletionTimeoutError(AclError, TimeoutError):
    """ACL_ERROR_RT_WAIT_TIMEOUT; aiocann's watchdog also uses it when a completion callback
    does not arrive within the device's completion timeout."""


class ClosedError(RuntimeError):
    """The object (device, stream, array, args...) was closed, or its device was."""


class WrongThreadError(RuntimeError):
    """A device, or a stream, event or Completion of it, was used from a thread or event loop
    other than the one that opened the device. aiocann objects belong to their device's event
    loop (its dispatcher resolves their work there); hand work to that loop instead, e.g. with
    ``anyio.from_thread.run``."""


def error_for(code: int, message: str | None = None, api: str | None = None) -> AclError:
    """The exception for an ACL code: its registered subclass, else :class:`AclError`."""
    return _BY_CODE.get(code, AclError)(code, message, api)


def code_name(code: int) -> str:
    """The ACL name of an error code (``ACL_ERROR_...``), or ``"ACL error <code>"`` for a code
    the headers do not name."""
    return _NAMES.get(code, f"ACL error {code}")
