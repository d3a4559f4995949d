"""The simulator's own interface: :func:`chip`, the part the simulator stands for.

Its other names are a deprecated alias of :mod:`aiocann.compiler` (the kernel compiler's
earlier name): each resolves to the one in ``aiocann.compiler``, with a ``DeprecationWarning``
naming the new home.

:func:`chip` reads the simulator's one chip description (``native/include/aclsim_chip.h``,
chosen by ``AIOCANN_SIM_SOC_NAME``, Ascend910B1 by default) through its export
``aclsimGetChip``: the Ascend C compiler takes ``__NPU_ARCH__`` and the per-core memory sizes
from it, the toolkit its ``SOC_VERSION``. A real CANN runtime has no such record (it reads the
driver and its platform files); there :func:`chip` returns None.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from . import compiler as _compiler

# The names it had when it moved; what aiocann.compiler gained since is only there.
_MOVED = {
    "KernelBuildError",
    "KernelParam",
    "KernelSignature",
    "ParamSpec",
    "build_kernel",
    "example_kernel",
    "include_dir",
    "kernel_signatures",
    "library_path",
    "read_signatures",
}
__all__ = [*(name for name in _compiler.__all__ if name in _MOVED), "Chip", "chip"]


@dataclass(frozen=True)
class Chip:
    """One simulated Ascend part, as ``aclsim_chip.h`` describes it.

    ``soc_name`` is what ``aclrtGetSocName`` answers ("Ascend910B1"), ``soc_version`` the
    toolkit's ``SOC_VERSION`` family ("Ascend910B"), ``npu_arch`` ``__NPU_ARCH__`` and
    ``ACL_DEV_ATTR_NPU_ARCH`` (2201), ``arch_name`` the compiler's ``--npu-arch``
    ("dav-2201"), ``engine`` the task scheduler ("STARS" or "HWTS"), the core counts and
    memory sizes (bytes) the part's own; ``saturation_mode`` / ``inf_nan_mode`` the overflow
    modes ``aclrtSetDeviceSatMode`` accepts; ``device_groups`` whether the part's firmware has
    device groups."""

    soc_name: str
    soc_version: str
    npu_arch: int
    arch_name: str
    engine: str
    aicore_num: int
    vector_core_num: int
    ub_size: int
    l1_size: int
    l0a_size: int
    l0b_size: int
    l0c_size: int
    hbm_size: int
    saturation_mode: bool
    inf_nan_mode: bool
    device_groups: bool


def chip() -> Chip | None:
    """The chip this process simulates, or None when the runtime is not the simulator.

    Raises ValueError, with the simulator's message naming the known parts, when
    ``AIOCANN_SIM_SOC_NAME`` names none of them."""
    from ._lib import ffi, last_error_message, lib  # loads the runtime: only when asked

    if not lib.aiocann_has_function(b"aclsimGetChip"):  # a real CANN runtime: no simulated chip
        return None
    p = lib.aclsimGetChip()
    if p == ffi.NULL:
        raise ValueError((last_error_message() or "AIOCANN_SIM_SOC_NAME names no simulated part").split("\n", 1)[0])

    def text(s: Any) -> str:
        return str(ffi.string(s).decode())

    return Chip(
        soc_name=text(p.soc_name),
        soc_version=text(p.soc_version),
        npu_arch=int(p.npu_arch),
        arch_name=text(p.arch_name),
        engine="STARS" if p.engine == lib.ACLSIM_ENGINE_STARS else "HWTS",
        aicore_num=int(p.aicore_num),
        vector_core_num=int(p.vector_core_num),
        ub_size=int(p.ub_size),
        l1_size=int(p.l1_size),
        l0a_size=int(p.l0a_size),
        l0b_size=int(p.l0b_size),
        l0c_size=int(p.l0c_size),
        hbm_size=int(p.hbm_size),
        saturation_mode=bool(p.features & lib.ACLSIM_CHIP_SATURATION_MODE),
        inf_nan_mode=bool(p.features & lib.ACLSIM_CHIP_INF_NAN_MODE),
        device_groups=bool(p.features & lib.ACLSIM_CHIP_DEVICE_GROUP),
    )


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        warnings.warn(
            f"aiocann.sim.{name} moved to aiocann.compiler.{name}; aiocann.sim is a deprecated alias",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(_compiler, name)
    raise AttributeError(f"module 'aiocann.sim' has no attribute {name!r}")
