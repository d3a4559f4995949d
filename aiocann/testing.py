"""aiocann's pytest plugin: a device and a stream as fixtures, and checks that a test leaves
nothing behind.

Installing aiocann registers it with pytest (entry point ``pytest11``, plugin name
``aiocann``; ``-p no:aiocann`` turns it off). It sits beside the async core, for the tests of
programs built on it. pytest imports it at startup, and with it the aiocann package, which
loads the ACL runtime library that ``AIOCANN_BACKEND`` chooses (a misconfigured backend stops
pytest with aiocann's ``BackendError``: fix the environment, or pass ``-p no:aiocann``). It
opens nothing and changes no environment variable unless asked to: a run whose tests use
neither its fixtures nor its options is not affected.

Fixtures (async; the test runs under pytest-asyncio or under anyio's plugin, on asyncio,
uvloop or trio):

* ``aiocann_device`` -- an open :class:`aiocann.Device` (index 0 unless configured), the
  test's current device; closed after the test.
* ``aiocann_stream`` -- an open stream on it, the test's current stream (so
  ``aiocann.launch(kernel, args, blocks=8)`` runs there); closed after the test.

After a test that passed, the plugin fails it if, on the fixture's device,

* a stream the test made is still open (a leaked stream);
* a Completion is unresolved: work enqueued and never awaited, neither by awaiting its
  Completion nor by anything awaited after it on the same stream (``synchronize()``, a
  download, a later launch's Completion);
* a stream has an unobserved error: a failure no synchronize point has reported yet -- what
  ``await stream.synchronize()`` or leaving ``async with stream`` would raise, as
  ``aclrtSynchronizeStream`` reports a failed task once. Awaiting the failed launch's
  Completion does not count: the stream still holds the error. Observe it with
  ``with pytest.raises(...): await stream.synchronize()``.

Configuration. The simulator reads its configuration (``AIOCANN_SIM_*``) at ``aclInit``,
which happens when the first device in the process opens:

* ini options ``aiocann_sim_devices``, ``aiocann_sim_cores``, ``aiocann_sim_memory`` set
  those variables for the whole run (a variable already set in the environment wins);
* the marker ``@pytest.mark.aiocann(devices=4, cores=2, memory="512m")`` sets them for one
  test, around the opening of its device; the test fails if ACL is already initialised then
  (a configuration could not take effect), and is skipped where the backend is not the
  simulator. ``device=1`` picks the fixture's device, ``completion_timeout=`` is passed to
  ``Device``, and ``checks=False`` turns the checks off for the test;
* ini ``aiocann_device`` (the fixture's device index) and ``aiocann_checks`` (``false`` turns
  the checks off).

The backend is chosen by ``AIOCANN_BACKEND`` in the environment, when pytest imports this
plugin (``sim`` insists on the simulator where CANN is installed).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import os
import types
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from ._context import _current_device, _current_stream

if TYPE_CHECKING:
    from ._submission import Submissions
    from .device import Device
    from .errors import AclError
    from .stream import Stream

# pytest-asyncio runs an async fixture on its loop only if the fixture carries its mark.
try:
    _pytest_asyncio: Any = importlib.import_module("pytest_asyncio")
except ImportError:  # anyio's plugin is then the only way to run the fixtures
    _pytest_asyncio = None

__all__ = ["aiocann_device", "aiocann_stream"]

# marker / ini name -> the simulator's variable
_SIM_VARS = {
    "devices": "AIOCANN_SIM_DEVICES",
    "cores": "AIOCANN_SIM_CORES",
    "memory": "AIOCANN_SIM_MEMORY",
    "max_streams": "AIOCANN_SIM_MAX_STREAMS",
    "max_events": "AIOCANN_SIM_MAX_EVENTS",
    "spin_us": "AIOCANN_SIM_SPIN_US",
}
_INI_SIM = ("devices", "cores", "memory")
_MARKER_OPTIONS = {*_SIM_VARS, "device", "completion_timeout", "checks"}

_TRACKER = pytest.StashKey["_Tracker"]()
_SET_ENV = pytest.StashKey[list[str]]()


# --------------------------------------------------------------------------- configuration


def pytest_addoption(parser: pytest.Parser) -> None:
    for name in _INI_SIM:
        parser.addini(f"aiocann_sim_{name}", f"{_SIM_VARS[name]} for the whole run (aiocann)", default="")
    parser.addini("aiocann_device", "device index of the aiocann_device fixture (default 0)", default="0")
    parser.addini(
        "aiocann_checks", "fail tests that leave aiocann work behind (default true)", type="bool", default=True
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    # As early as a plugin can: the simulator reads these at aclInit, and a conftest could
    # open a device.
    wanted = {_SIM_VARS[name]: str(early_config.getini(f"aiocann_sim_{name}")) for name in _INI_SIM}
    early_config.stash[_SET_ENV] = set_env = []
    for var, value in wanted.items():
        if value and var not in os.environ:  # the environment wins over the ini file
            os.environ[var] = value
            set_env.append(var)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "aiocann(devices=, cores=, memory=, max_streams=, max_events=, spin_us=, device=, completion_timeout=, "
        "checks=): configure the simulator (read at aclInit) and the aiocann_device fixture for one test",
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    for var in config.stash.get(_SET_ENV, []):
        os.environ.pop(var, None)


@dataclass
class _Options:
    device: int = 0
    completion_timeout: float | None = None
    checks: bool = True
    sim_env: dict[str, str] = field(default_factory=dict)


def _options(request: pytest.FixtureRequest) -> _Options:
    config = request.config
    opts = _Options(device=int(str(config.getini("aiocann_device")) or 0), checks=bool(config.getini("aiocann_checks")))
    marker = request.node.get_closest_marker("aiocann")
    if marker is None:
        return opts
    if marker.args:
        pytest.fail("@pytest.mark.aiocann takes keyword arguments only", pytrace=False)
    unknown = set(marker.kwargs) - _MARKER_OPTIONS
    if unknown:
        pytest.fail(
            f"@pytest.mark.aiocann: unknown option(s) {', '.join(sorted(unknown))}; "
            f"known: {', '.join(sorted(_MARKER_OPTIONS))}",
            pytrace=False,
        )
    for key, value in marker.kwargs.items():
        if key in _SIM_VARS:
            opts.sim_env[_SIM_VARS[key]] = str(value)
    opts.device = int(marker.kwargs.get("device", opts.device))
    opts.completion_timeout = marker.kwargs.get("completion_timeout")
    opts.checks = bool(marker.kwargs.get("checks", opts.checks))
    return opts


@contextlib.contextmanager
def _simulator_configured(env: dict[str, str]) -> Iterator[None]:
    """Sets ``env`` around the opening of the test's device, where aclInit reads it."""
    if not env:
        yield
        return
    import aiocann
    from aiocann import _runtime

    if aiocann.backend().name != "sim":
        pytest.skip(f"@pytest.mark.aiocann configures the simulator; the backend is {aiocann.backend().name}")
    users, _ = _runtime.initialised()
    if users:
        pytest.fail(
            f"@pytest.mark.aiocann({_describe(env)}) cannot take effect: ACL is already initialised in this "
            f"process ({users} aiocann user(s): an open Device or a live pinned array), and the simulator "
            "reads its configuration at aclInit",
            pytrace=False,
        )
    saved = {var: os.environ.get(var) for var in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for var, value in saved.items():
            if value is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = value
    if not _runtime.initialised()[1]:
        pytest.fail(
            f"@pytest.mark.aiocann({_describe(env)}) did not take effect: ACL was initialised by other "
            "code in this process (e.g. acl.init()), before the test's device opened",
            pytrace=False,
        )


def _describe(env: dict[str, str]) -> str:
    names = {var: name for name, var in _SIM_VARS.items()}
    return ", ".join(f"{names[var]}={value!r}" for var, value in env.items())


# --------------------------------------------------------------------------- what a test left


@dataclass
class _Tracker:
    """What the checks look at: the fixture's device, every stream made on it, and the
    fixture's own stream (which the plugin closes, so it is never a leak)."""

    device: Device
    checks: bool
    streams: list[Stream] = field(default_factory=list)
    fixture_stream: Stream | None = None

    def problems(self) -> list[str]:
        found = []
        for s in self.streams:
            if not _is_open(s):
                continue  # closing awaited its work and reported its error
            if s is not self.fixture_stream:
                found.append(
                    f"{s!r} was left open: use `async with dev.stream() as s:` or `await s.aclose()`",
                )
            pending = _pending(s)
            if pending:
                found.append(
                    f"{len(pending)} Completion(s) on {s!r} unresolved when the test ended "
                    f"({', '.join(pending[:5])}{', ...' if len(pending) > 5 else ''}): await them, or "
                    "`await stream.synchronize()`",
                )
            error = _unreported(s)
            if error is not None:
                found.append(
                    f"{s!r} has an error no synchronize point reported: {type(error).__name__}: {error} -- "
                    "observe it with `with pytest.raises(...): await stream.synchronize()`",
                )
        return found

    async def close_streams(self) -> None:
        for s in self.streams:
            await s.aclose(raise_errors=False)  # what they held was reported by the checks


# The Stream's owner of submission (aiocann._submission.Submissions) holds these; the plugin
# only reads them, after the test, with the event loop stopped.
def _lane(s: Stream) -> Submissions | None:
    return s._sub  # the plugin's one read of a stream's internals


def _is_open(s: Stream) -> bool:
    lane = _lane(s)
    return lane is not None and lane.mode.value == "open"


def _pending(s: Stream) -> list[str]:
    lane = _lane(s)
    return [c.label for c in lane.pending.values()] if lane is not None else []


def _unreported(s: Stream) -> AclError | None:
    lane = _lane(s)
    return lane.unreported if lane is not None else None


_checked_device: Callable[..., Device] | None = None


def _checked_device_class() -> Callable[..., Device]:
    """A Device that keeps every stream it makes (in ``made``): a stream the test leaves open
    is then found and reported, instead of being collected with only a ResourceWarning."""
    global _checked_device
    if _checked_device is None:
        from .device import Device

        class CheckedDevice(Device):
            def __init__(self, index: int, *, made: list[Stream], **kwargs: Any) -> None:
                super().__init__(index, **kwargs)
                self._made = made

            def stream(self, *, max_in_flight: int | None = None, priority: int = 0) -> Stream:
                s = super().stream(max_in_flight=max_in_flight, priority=priority)
                self._made.append(s)
                return s

        _checked_device = CheckedDevice
    return _checked_device


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    result = yield  # a failing test raises here, and its failure is the one to report
    tracker = item.stash.get(_TRACKER, None)
    if tracker is not None and tracker.checks:
        problems = tracker.problems()
        if problems:
            pytest.fail(
                "aiocann: the test left work behind on its device\n  - "
                + "\n  - ".join(problems)
                + "\n(turn the checks off for a test with @pytest.mark.aiocann(checks=False))",
                pytrace=False,
            )
    return result


# --------------------------------------------------------------------------- fixtures


def _under_anyio(request: pytest.FixtureRequest) -> bool:
    return "anyio_backend" in request.fixturenames


async def _aiocann_device(request: pytest.FixtureRequest) -> AsyncIterator[Device]:
    opts = _options(request)
    kwargs: dict[str, Any] = {}
    if opts.completion_timeout is not None:
        kwargs["completion_timeout"] = opts.completion_timeout
    made: list[Stream] = []
    dev = _checked_device_class()(opts.device, made=made, **kwargs)
    tracker = _Tracker(dev, opts.checks, made)
    request.node.stash[_TRACKER] = tracker
    if _under_anyio(request):
        # anyio runs a fixture's setup, the test and the fixture's teardown in one task, so the
        # Device's task group (its dispatcher) can span them.
        async with contextlib.AsyncExitStack() as stack:
            with _simulator_configured(opts.sim_env):
                await stack.enter_async_context(dev)
            yield dev
            await tracker.close_streams()
    else:
        # pytest-asyncio runs setup and teardown as separate tasks, and a task group must be
        # left by the task that entered it: a task of its own holds the Device open.
        host = _DeviceHost(dev)
        try:
            with _simulator_configured(opts.sim_env):
                await host.start()
        except BaseException:
            await host.stop()
            raise
        token = _current_device.set(dev)  # pytest-asyncio carries it into the test's context
        try:
            yield dev
            await tracker.close_streams()
        finally:
            _current_device.reset(token)
            await host.stop()


async def _aiocann_stream(aiocann_device: Device, request: pytest.FixtureRequest) -> AsyncIterator[Stream]:
    s = aiocann_device.stream()
    request.node.stash[_TRACKER].fixture_stream = s
    # What `async with stream` does, without raising the stream's error when the fixture ends:
    # the checks report it (or the test failed already).
    token = _current_stream.set(s)
    try:
        yield s
    finally:
        _current_stream.reset(token)
        await s.aclose(raise_errors=False)


class _DeviceHost:
    """An asyncio task holding ``async with device`` open until told to stop."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        opened: asyncio.Future[None] = loop.create_future()

        async def host() -> None:
            try:
                async with self.device:
                    opened.set_result(None)
                    await self._stop.wait()
                    await self.device.aclose(raise_errors=False)
            except BaseException as exc:
                if opened.done():
                    raise
                opened.set_exception(exc)

        self._task = loop.create_task(host())
        await opened

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await self._task


def _async_fixture(func: Callable[..., Any], name: str) -> Any:
    """``func`` as a fixture both async plugins can run: marked for pytest-asyncio (whose
    strict mode runs only marked async fixtures); anyio's plugin needs no mark."""
    if _pytest_asyncio is not None:
        return _pytest_asyncio.fixture(func, name=name)
    return pytest.fixture(func, name=name)


aiocann_device = _async_fixture(_aiocann_device, "aiocann_device")
aiocann_stream = _async_fixture(_aiocann_stream, "aiocann_stream")
_OURS = (_aiocann_device, _aiocann_stream)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_fixture_setup(fixturedef: Any, request: pytest.FixtureRequest) -> Any:
    """Hands our fixtures to the plugin that runs the test, on the test's own event loop.

    The fixture functions carry pytest-asyncio's mark. Under anyio's plugin they run as an
    unmarked copy (else pytest-asyncio would also claim them, for a loop of its own); under
    pytest-asyncio as a copy marked with the test's loop scope, so fixture and test share
    one loop whatever the defaults say. Runs before both plugins' own hooks (tryfirst)."""
    func = fixturedef.func
    if func not in _OURS:
        return (yield)
    replacement: Callable[..., Any] = _copy(func)
    test = getattr(request.node, "function", None)
    if not inspect.iscoroutinefunction(test):
        replacement = _refusal(
            f"{fixturedef.argname} is an async fixture: request it from an async test run by anyio's "
            "plugin (@pytest.mark.anyio) or by pytest-asyncio (@pytest.mark.asyncio)"
        )
    elif not _under_anyio(request):
        if _pytest_asyncio is None or request.node.get_closest_marker("asyncio") is None:
            replacement = _refusal(
                f"{fixturedef.argname}: the test is run neither by anyio's plugin (@pytest.mark.anyio) "
                "nor by pytest-asyncio (@pytest.mark.asyncio)"
            )
        else:
            _pytest_asyncio.fixture(replacement, loop_scope=_test_loop_scope(request))  # marks it
    fixturedef.func = replacement
    try:
        return (yield)
    finally:
        fixturedef.func = func


def _refusal(message: str) -> Callable[..., Any]:
    # Raised from the fixture function, not from this hook, so that pytest records it as the
    # fixture's error (and tears down what the fixture requested) as for any failing fixture.
    def refuse(**_: Any) -> None:
        pytest.fail(message, pytrace=False)

    return refuse


def _copy(func: Callable[..., Any]) -> types.FunctionType:
    """The same function as a new object, without the attributes (marks) of the original."""
    assert isinstance(func, types.FunctionType)
    copy = types.FunctionType(func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__)
    copy.__kwdefaults__ = func.__kwdefaults__
    copy.__qualname__ = func.__qualname__
    copy.__doc__ = func.__doc__
    return copy


def _test_loop_scope(request: pytest.FixtureRequest) -> str:
    marker = request.node.get_closest_marker("asyncio")
    scope = (marker.kwargs.get("loop_scope") or marker.kwargs.get("scope")) if marker is not None else None
    if not scope:
        try:
            scope = request.config.getini("asyncio_default_test_loop_scope")
        except ValueError:  # an older pytest-asyncio without the option
            scope = None
    return str(scope or "function")
