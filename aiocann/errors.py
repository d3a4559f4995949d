"""ACL errors as Python exceptions.

Every ACL return code that is not ``ACL_SUCCESS`` becomes an :class:`AclError` (via
``aiocann._lib.check``). Codes that callers commonly handle have their own subclass,
registered by code; any other code raises :class:`AclError` itself. Every instance carries the
numeric ``code``, its ACL ``name`` (e.g. ``ACL_ERROR_RT_PARAM_INVALID``), the ``api`` that
failed, and the runtime's recent error message (``aclGetRecentErrMsg``) when there was one.
"""

from __future__ import annotations

from typing import ClassVar

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

_BY_CODE: dict[int, type[AclError]] = {}
_NAMES: dict[int, str] = {}


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


def _register(*codes: int):  # type: ignore[no-untyped-def]
    def deco(cls: type[AclError]) -> type[AclError]:
        cls.codes = codes
        for c in codes:
            _BY_CODE[c] = cls
        return cls

    return deco


@_register(100000)
class InvalidParamError(AclError):
    """ACL_ERROR_INVALID_PARAM: an argument failed the ACL layer's checks (NULL, zero size...)."""


@_register(100001)
class UninitializedError(AclError):
    """ACL_ERROR_UNINITIALIZE: aclInit has not been called."""


@_register(100002)
class RepeatInitializeError(AclError):
    """ACL_ERROR_REPEAT_INITIALIZE: aclInit was called twice."""


@_register(100003)
class InvalidFileError(AclError):
    """ACL_ERROR_INVALID_FILE."""


@_register(100033)
class RepeatSubscribeError(AclError):
    """ACL_ERROR_REPEAT_SUBSCRIBE: the thread already serves this stream."""


@_register(100037)
class RepeatFinalizeError(AclError):
    """ACL_ERROR_REPEAT_FINALIZE: aclFinalize without a matching aclInit."""


@_register(200000)
class BadAllocError(AclError, MemoryError):
    """ACL_ERROR_BAD_ALLOC: host memory allocation failed."""


@_register(200001)
class ApiNotSupportedError(AclError):
    """ACL_ERROR_API_NOT_SUPPORT: the loaded runtime does not provide this API."""


@_register(107000)
class RtParamInvalidError(AclError):
    """ACL_ERROR_RT_PARAM_INVALID: the runtime rejected a parameter or the call order."""


@_register(107001)
class InvalidDeviceError(AclError):
    """ACL_ERROR_RT_INVALID_DEVICEID."""


@_register(107002)
class NoContextError(AclError):
    """ACL_ERROR_RT_CONTEXT_NULL: the calling thread has no current context."""


@_register(107003)
class StreamContextError(AclError):
    """ACL_ERROR_RT_STREAM_CONTEXT: the stream belongs to another device/context."""


@_register(107006, 107007)
class EventTimestampError(AclError):
    """An event has no usable timestamp (not recorded, or end before start)."""


@_register(107009)
class FileOpenError(AclError):
    """ACL_ERROR_RT_FILE_OPEN."""


@_register(107011)
class StreamSubscribeError(AclError):
    """ACL_ERROR_RT_STREAM_SUBSCRIBE: the stream already has (or lacks) a report thread."""


@_register(107012)
class ThreadSubscribeError(AclError):
    """ACL_ERROR_RT_THREAD_SUBSCRIBE: the thread is not subscribed (or bound elsewhere)."""


@_register(107015)
class StreamNotSubscribedError(AclError):
    """ACL_ERROR_RT_STREAM_NO_CB_REG: no report thread serves the stream."""


@_register(107017)
class InvalidHandleError(AclError):
    """ACL_ERROR_RT_INVALID_HANDLE: a stale, destroyed or foreign handle."""


@_register(207000)
class FeatureNotSupportedError(AclError):
    """ACL_ERROR_RT_FEATURE_NOT_SUPPORT (e.g. kernel-args calls in the wrong order)."""


@_register(207001, 207018)
class DeviceOutOfMemoryError(AclError, MemoryError):
    """Device memory is exhausted."""


@_register(207004, 207005, 207007, 207008, 207012)
class ResourceExhaustedError(AclError):
    """Out of a runtime resource (streams, events, subscriptions, devices)."""


@_register(507006)
class EventNotCompleteError(AclError):
    """ACL_ERROR_RT_EVENT_NOT_COMPLETE."""


@_register(507012)
class ReportTimeoutError(AclError, TimeoutError):
    """ACL_ERROR_RT_REPORT_TIMEOUT: no callback report within the ProcessReport timeout."""


@_register(507013)
class DmaError(AclError):
    """ACL_ERROR_RT_SYS_DMA: a copy faulted (e.g. an unmapped host address)."""


@_register(507014, 507034)
class KernelTimeoutError(AclError, TimeoutError):
    """A kernel exceeded its launch timeout and was stopped."""


@_register(507015, 507016, 507035, 507036)
class KernelFaultError(AclError):
    """A kernel faulted on the device (invalid access, arithmetic exception, trap)."""


@_register(507027)
class KernelLookupError(AclError, LookupError):
    """ACL_ERROR_RT_KERNEL_LOOKUP: the binary has no kernel of that name."""


@_register(507046)
class StreamSyncTimeoutError(AclError, TimeoutError):
    """ACL_ERROR_RT_STREAM_SYNC_TIMEOUT."""


@_register(507047)
class EventSyncTimeoutError(AclError, TimeoutError):
    """ACL_ERROR_RT_EVENT_SYNC_TIMEOUT."""


@_register(107019)
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


def set_code_names(names: dict[int, str]) -> None:
    """Called by aiocann._lib with the code -> ACL name map of the loaded headers."""
    for code, name in names.items():
        _NAMES.setdefault(code, name)


def error_for(code: int, message: str | None = None, api: str | None = None) -> AclError:
    """The exception for an ACL code: its registered subclass, else :class:`AclError`."""
    return _BY_CODE.get(code, AclError)(code, message, api)


def code_name(code: int) -> str:
    """The ACL name of an error code (``ACL_ERROR_...``)."""
    return _NAMES.get(code, f"ACL error {code}")
