# aiocann's CANN toolkit: the environment CANN's set_env.sh sets, for the simulator.
#
#   source "$(python -m aiocann toolkit)/set_env.sh"
#
# Exports what CANN's script exports -- ASCEND_TOOLKIT_HOME, ASCEND_HOME_PATH, ASCEND_AICPU_PATH,
# ASCEND_OPP_PATH; lib64 first on LD_LIBRARY_PATH, python/site-packages (where `import acl` finds
# pyACL's module, here aiocann.acl) first on PYTHONPATH, bin first on PATH -- and what CANN's
# samples read: ASCEND_CANN_PACKAGE_PATH, ASCEND_INSTALL_PATH, ASCENDC_CMAKE_DIR (ascendc.cmake)
# and SOC_VERSION, the simulated chip's (bin/aclsim-chip, which follows AIOCANN_SIM_SOC_NAME).
# Sourcing it twice does not grow the path variables. Works from bash, zsh and sh (dash), also
# under `set -euo pipefail` (the samples' run.sh scripts source it so).

if [ -n "${BASH_SOURCE:-}" ]; then
    __aiocann_tk_self="${BASH_SOURCE}"
elif [ -n "${ZSH_VERSION:-}" ]; then
    # shellcheck disable=SC2296
    __aiocann_tk_self="${(%):-%x}"
else
    __aiocann_tk_self="$0"
fi
__aiocann_tk_home="$(cd "$(dirname "${__aiocann_tk_self}")" && pwd -P)"

# name value: value first in the colon list $name, once.
__aiocann_tk_prepend() {
    eval "__aiocann_tk_old=\"\${$1:-}\""
    __aiocann_tk_new="$2"
    __aiocann_tk_rest="$(printf '%s' "${__aiocann_tk_old}" | tr ':' '\n' | { grep -v -x -F -e "$2" || true; } | tr '\n' ':' | sed 's/:$//')"
    if [ -n "${__aiocann_tk_rest}" ]; then
        __aiocann_tk_new="$2:${__aiocann_tk_rest}"
    fi
    eval "export $1=\"\${__aiocann_tk_new}\""
}

if [ ! -f "${__aiocann_tk_home}/lib64/libacl_rt.so" ]; then
    echo "[ERROR]: ${__aiocann_tk_home}/lib64 is not built: reinstall aiocann (pip install -e . or pip install aiocann)" >&2
else
    __aiocann_tk_prepend LD_LIBRARY_PATH "${__aiocann_tk_home}/lib64"
    __aiocann_tk_prepend PYTHONPATH "${__aiocann_tk_home}/python/site-packages"
    __aiocann_tk_prepend PATH "${__aiocann_tk_home}/bin"
    __aiocann_tk_prepend CMAKE_PREFIX_PATH "${__aiocann_tk_home}/lib64/cmake"
    export ASCEND_TOOLKIT_HOME="${__aiocann_tk_home}"
    export ASCEND_HOME_PATH="${__aiocann_tk_home}"
    export ASCEND_CANN_PACKAGE_PATH="${__aiocann_tk_home}"
    export ASCEND_INSTALL_PATH="${__aiocann_tk_home}"
    export ASCEND_AICPU_PATH="${__aiocann_tk_home}"
    export ASCEND_OPP_PATH="${__aiocann_tk_home}/opp"
    export ASCENDC_CMAKE_DIR="${__aiocann_tk_home}/tikcpp/ascendc_kernel_cmake"
    if __aiocann_tk_soc="$("${__aiocann_tk_home}/bin/aclsim-chip")"; then
        export SOC_VERSION="${__aiocann_tk_soc}"
    fi
fi

unset __aiocann_tk_self __aiocann_tk_home __aiocann_tk_old __aiocann_tk_new __aiocann_tk_rest __aiocann_tk_soc
unset -f __aiocann_tk_prepend
