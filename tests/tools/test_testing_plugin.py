"""aiocann's pytest plugin (aiocann.testing), run the way a user's project runs it: pytester
writes a test project and runs pytest on it in a subprocess, where the plugin comes in through
its ``pytest11`` entry point like any installed plugin (one run checks that ``-p no:aiocann``
takes the fixtures away again). Each project runs under both async plugins: anyio's (asyncio,
uvloop, trio) and pytest-asyncio's, with warnings as errors."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

INI = """
[pytest]
asyncio_mode = strict
asyncio_default_fixture_loop_scope = function
filterwarnings = error
{extra}
"""

HEADER = '''
import numpy as np
import pytest

import aiocann as ac
from aiocann.compiler import build_kernel, example_kernel


@pytest.fixture(params=["asyncio", "trio", pytest.param(("asyncio", {"use_uvloop": True}), id="uvloop")])
def anyio_backend(request):
    return request.param


async def kernel(dev, source, name):
    return (await dev.load_binary(build_kernel(example_kernel(source)))).function(name)


async def fault(dev):
    """Enqueues a launch that writes far out of bounds; returns its Completion."""
    poke = await kernel(dev, "test_kernels.c", "poke")
    buf = dev.empty(64, np.uint8)
    return await ac.launch(poke, await poke.args().ptr(buf).u64(1 << 30), blocks=1)
'''


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    # The inner runs load their plugins from entry points, as a user's run does.
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    for var in ("AIOCANN_SIM_DEVICES", "AIOCANN_SIM_CORES", "AIOCANN_SIM_MEMORY", "AIOCANN_BACKEND"):
        monkeypatch.delenv(var, raising=False)
    pytester.makeini(INI.format(extra=""))
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", *args, timeout=300)


def test_fixtures_give_the_test_an_open_device_and_its_current_stream(project: pytest.Pytester) -> None:
    project.makepyfile(
        HEADER
        + """
async def add_on(dev, stream):
    add = await kernel(dev, "vector_add.c", "add_custom")
    x = np.arange(4096, dtype=np.float32)
    xd = await stream.upload(x)
    z = dev.empty(x.shape, x.dtype)
    args = await add.args().ptr(xd).ptr(xd).ptr(z).placeholder(np.array([x.size, 0], np.uint32))
    await (await ac.launch(add, args, blocks=4))  # on the current stream: the fixture's
    assert np.array_equal(await z.get(), 2 * x)


@pytest.mark.anyio
async def test_anyio(aiocann_device, aiocann_stream):
    assert ac.current_device() is aiocann_device and ac.current_stream() is aiocann_stream
    await add_on(aiocann_device, aiocann_stream)


@pytest.mark.asyncio
async def test_pytest_asyncio(aiocann_device, aiocann_stream):
    assert ac.current_device() is aiocann_device and ac.current_stream() is aiocann_stream
    await add_on(aiocann_device, aiocann_stream)


@pytest.mark.asyncio(loop_scope="module")
async def test_pytest_asyncio_module_loop(aiocann_stream):
    await add_on(ac.current_device(), aiocann_stream)


@pytest.mark.anyio
async def test_streams_the_test_closes_are_fine(aiocann_device):
    async with aiocann_device.stream() as s:
        await s.synchronize()
    s2 = aiocann_device.stream()
    await s2.aclose()


@pytest.mark.anyio
async def test_an_error_observed_by_synchronize(aiocann_device, aiocann_stream):
    done = await fault(aiocann_device)
    with pytest.raises(ac.KernelFaultError):
        await done  # the launch's own failure (docs/testing.md)
    with pytest.raises(ac.KernelFaultError):
        await aiocann_stream.synchronize()  # and the stream's, reported once


@pytest.mark.asyncio
async def test_an_error_observed_by_synchronize_asyncio(aiocann_device, aiocann_stream):
    await fault(aiocann_device)
    with pytest.raises(ac.KernelFaultError):
        await aiocann_stream.synchronize()


@pytest.mark.anyio
@pytest.mark.aiocann(checks=False)
async def test_checks_off(aiocann_device, aiocann_stream):
    aiocann_device.stream()
    await fault(aiocann_device)


@pytest.mark.anyio
@pytest.mark.aiocann(devices=3, memory="256m", cores=2, device=2)
async def test_marker_configures_the_simulator(aiocann_device):
    assert await ac.device_count() == 3
    assert aiocann_device.index == 2 and aiocann_device.mem_info()[1] == 256 << 20


@pytest.mark.asyncio
async def test_the_next_test_has_the_default_configuration(aiocann_device):
    assert await ac.device_count() == 8  # the simulator's default machine: a 910B server
"""
    )
    result = run(project)
    result.assert_outcomes(passed=3 + 1 + 1 + 3 + 3 + 1 + 3 + 3 + 1)


def test_checks_fail_tests_that_leave_work_behind(project: pytest.Pytester) -> None:
    project.makepyfile(
        HEADER
        + """
@pytest.mark.anyio
async def test_leaked_stream(aiocann_device):
    s = aiocann_device.stream()


@pytest.mark.asyncio
async def test_leaked_stream_asyncio(aiocann_device):
    s = aiocann_device.stream()


async def slow(dev):  # enqueues a kernel that takes 0.3 s, and does not wait for it
    wait_us = await kernel(dev, "test_kernels.c", "wait_us")
    out = dev.empty(1, np.int32)
    await ac.launch(wait_us, await wait_us.args().ptr(out).u64(300_000), blocks=1)


@pytest.mark.anyio
async def test_unresolved(aiocann_device, aiocann_stream):
    await slow(aiocann_device)


@pytest.mark.asyncio
async def test_unresolved_asyncio(aiocann_device, aiocann_stream):
    await slow(aiocann_device)


@pytest.mark.anyio
async def test_unobserved(aiocann_device, aiocann_stream):
    with pytest.raises(ac.KernelFaultError):
        await (await fault(aiocann_device))  # the launch's own failure; the stream still holds it


@pytest.mark.asyncio
async def test_unobserved_asyncio(aiocann_device, aiocann_stream):
    with pytest.raises(ac.KernelFaultError):
        await (await fault(aiocann_device))
"""
    )
    result = run(project)
    result.assert_outcomes(failed=3 + 1 + 3 + 1 + 3 + 1)
    result.stdout.fnmatch_lines(
        [
            "*- <Stream device=0 open in_flight=0> was left open: use `async with dev.stream() as s:`*",
            "*- 1 Completion(s) on <Stream device=0 open in_flight=1> unresolved when the test ended (wait_us)*",
            "*- <Stream device=0 open in_flight=0> has an error no synchronize point reported: KernelFaultError*",
            "*(turn the checks off for a test with @pytest.mark.aiocann(checks=False))",
        ],
        consecutive=False,
    )


def test_misuse_gets_a_clear_error(project: pytest.Pytester) -> None:
    project.makepyfile(
        HEADER
        + """
import aiocann.acl as acl


def test_sync(aiocann_device):
    pass


async def test_no_async_plugin(aiocann_device):
    pass


@pytest.mark.anyio
@pytest.mark.aiocann(cpus=4)
async def test_unknown_option(aiocann_device):
    pass


@pytest.fixture
async def held(anyio_backend):
    async with ac.Device(1) as dev:
        yield dev


@pytest.mark.anyio
@pytest.mark.aiocann(devices=4)
async def test_configuration_while_a_device_is_open(held, aiocann_device):
    pass


@pytest.fixture
def pyacl():
    assert acl.init() == 0
    yield
    acl.finalize()


@pytest.mark.asyncio
@pytest.mark.aiocann(devices=4)
async def test_configuration_after_acl_init(pyacl, aiocann_device):
    pass
"""
    )
    result = run(project)
    result.assert_outcomes(errors=1 + 1 + 3 + 3 + 1, skipped=0, passed=0, failed=0)
    result.stdout.fnmatch_lines_random(
        [
            "*aiocann_device is an async fixture: request it from an async test run by anyio's plugin*",
            "*aiocann_device: the test is run neither by anyio's plugin (@pytest.mark.anyio) nor by pytest-asyncio*",
            "*@pytest.mark.aiocann: unknown option(s) cpus; known: *",
            "*@pytest.mark.aiocann(devices='4') cannot take effect: ACL is already initialised in this process*",
            "*@pytest.mark.aiocann(devices='4') did not take effect: ACL was initialised by other code*",
        ]
    )


def test_ini_options(project: pytest.Pytester) -> None:
    project.makeini(INI.format(extra="aiocann_sim_devices = 3\naiocann_sim_memory = 128m\naiocann_checks = false"))
    # Set before conftests are imported.
    project.makeconftest("import os\nassert os.environ['AIOCANN_SIM_DEVICES'] == '3'\n")
    project.makepyfile(
        HEADER
        + """
@pytest.mark.anyio
async def test_configured_by_the_ini_file(aiocann_device):
    assert await ac.device_count() == 3 and aiocann_device.mem_info()[1] == 128 << 20
    aiocann_device.stream()  # no checks: not a failure
"""
    )
    run(project).assert_outcomes(passed=3)


def test_the_plugin_comes_from_its_entry_point(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
import pytest

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_uses_the_fixture(aiocann_device):
    pass
"""
    )
    run(project).assert_outcomes(passed=1)
    result = run(project, "-p", "no:aiocann")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'aiocann_device' not found*"])
