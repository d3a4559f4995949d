"""Types of aiocann._hotpath, the per-launch path in C (native/hotpath.c)."""

from collections.abc import Awaitable, Generator
from typing import Any

from ._flavour import Flavour
from ._submission import Mode
from .stream import Stream

class Busy:
    _busy: int
    _busy_on: int
    _stream: Any
    _closing: bool
    def _unuse(self, stream: Any, /) -> None: ...

class Lane:
    mode: Mode
    pending: dict[int, Any]
    waiters: Any
    last: Any
    loop: Any
    flavour: Flavour
    npu: Any
    owner: Any
    in_flight: int
    max_in_flight: int
    thread: int
    def new_token(self) -> int: ...
    def _set_native(self, qs: int, launched: int, first_token: int, /) -> None: ...
    def resolve(self, token: int, code: int, message: str | None, /) -> None: ...

class CompletionBase:
    _stream: Stream
    _lane: Any
    _keep: Any
    _arrays: Any
    _on_done: Any
    _message: str | None
    _waiters: list[Any] | None
    label: str
    _code: int
    _done: bool
    def _resolve(self, code: int, message: str | None, /) -> None: ...
    def __await__(self) -> Generator[Any]: ...

class ArgsInfo:
    def __init__(
        self, kernel: Any, func: int, handle: int, arrays: tuple[Any, ...], label: str, npu: Any, /
    ) -> None: ...

def launch(kernel: Any, args: Any, /, *, blocks: int, stream: Any = None, config: Any = None) -> Awaitable[Any]: ...
def replay(graph: Any, stream: Any, native: Any, /) -> Awaitable[Any]: ...
def drain(
    dispatcher: Any, cq: int, streams: dict[int, Any], tokens: int, status: int, messages: int, batch: int, /
) -> tuple[int, int]: ...
def invalidate() -> None: ...
def is_set_up() -> bool: ...
def provide(**what: Any) -> None: ...
