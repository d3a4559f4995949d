"""aiocann: an async Python runtime for Huawei Ascend NPUs (CANN ACL), with a CPU simulator."""

from ._lib import BackendError, BackendInfo, backend
from .errors import *  # noqa: F403
from .errors import __all__ as _errors_all

__all__ = ["BackendError", "BackendInfo", "backend", *_errors_all]
