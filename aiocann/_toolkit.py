"""Where aiocann's CANN-shaped install is: ``python -m aiocann toolkit`` prints it.

The directory (``aiocann/toolkit``) is laid out as a CANN toolkit, so that C and C++ programs
written for CANN build and run on the simulator unchanged::

    source "$(python -m aiocann toolkit)/set_env.sh"
    cmake -DASCEND_CANN_PACKAGE_PATH="$ASCEND_HOME_PATH" .. && make && ./main

``include/`` holds the ACL headers (``acl/acl.h`` ...), ``lib64/`` the libraries CANN programs
link (``libascendcl.so``, ``libacl_rt.so``, ``libacl_rt_impl.so``, ``libacl_rtc.so``: each
binds to the one simulator aiocann loads), ``set_env.sh`` / ``bin/setenv.bash`` the
environment, ``tikcpp/ascendc_kernel_cmake/ascendc.cmake`` the Ascend C CMake functions. The
build (``pip install``, editable or not) makes ``lib64`` and ``include``; nothing is assembled
at run time.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["LIBRARIES", "OPERATOR_LIBRARIES", "OTHER_LIBRARIES", "toolkit_path"]

LIBRARIES = ("libascendcl.so", "libacl_rt.so", "libacl_rt_impl.so", "libacl_rtc.so")
# Libraries of CANN packages the simulator does not have (dump, profiler, tdt), linked by CANN's
# samples: the same filter of the simulator, whose functions of theirs return 200001.
OTHER_LIBRARIES = (
    "libascend_dump.so",
    "libmsprofiler.so",
    "libprofapi.so",
    "libacl_tdt_channel.so",
    "libacl_tdt_queue.so",
)
# The operator library (aclnnAdd, aclnnMul): libraries of their own, not filters.
OPERATOR_LIBRARIES = ("libnnopbase.so", "libopapi.so")
_HOME = Path(__file__).resolve().parent / "toolkit"


def toolkit_path() -> Path:
    """The toolkit directory; FileNotFoundError naming what is missing when it is not built."""
    missing = [name for name in ("include/acl/acl.h", "set_env.sh", "bin/aclsim-chip") if not (_HOME / name).exists()]
    libraries = LIBRARIES + OTHER_LIBRARIES + OPERATOR_LIBRARIES
    missing += [f"lib64/{name}" for name in libraries if not (_HOME / "lib64" / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"aiocann's toolkit at {_HOME} lacks {', '.join(missing)}: it is made when aiocann is built "
            "(pip install -e . in a checkout, or reinstall the wheel)"
        )
    return _HOME
