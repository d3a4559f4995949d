# aiocann's CANN toolkit: the Ascend C CMake module, as CANN's tikcpp/ascendc_kernel_cmake has it.
#
#   set(ASCENDC_CMAKE_DIR $ENV{ASCENDC_CMAKE_DIR})      # set_env.sh exports it
#   include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)
#   ascendc_library(kernels STATIC add_custom.cpp ...)  # or SHARED: host objects, <<<>>> inside
#   ascendc_fatbin_library(my_kernels a.cpp b.cpp)      # a kernel binary: out/fatbin/my_kernels/my_kernels.o
#   ascendc_compile_definitions(kernels PRIVATE FOO=1)
#   ascendc_include_directories(kernels PRIVATE include)
#   ascendc_compile_options(kernels PRIVATE -O3)
#
# The kernel compiler is aiocann's (`python -m aiocann cc`, bisheng's role): a source's kernels
# become host code that runs on the simulator's AI cores. ascendc_library() compiles each source
# with `cc -c` into a host object that embeds its kernel binary and whose <<<>>> launches go
# through the runtime, and archives (STATIC) or links (SHARED) the objects; the library brings
# the runtime (lib64/libascendcl.so) to whatever links it. ascendc_fatbin_library() compiles its
# sources into one kernel binary, loadable with aclrtBinaryLoadFromFile, at
# ${CMAKE_CURRENT_BINARY_DIR}/fatbin/<target>/<target>.o and installed (cmake --install) to
# ${CMAKE_INSTALL_PREFIX}/fatbin/<target>/<target>.o -- the samples set the prefix to out/.
#
# The Python that runs the compiler: ASCENDC_PYTHON (cache or environment), else the
# interpreter of the virtual environment this toolkit is installed in, else the first python3
# on PATH that imports this very toolkit.
# SOC_VERSION, when set, must name the simulated chip (its SoC family, e.g. Ascend910B, or one
# of its part names, e.g. Ascend910B1): there is one chip per process (AIOCANN_SIM_SOC_NAME).

cmake_minimum_required(VERSION 3.16)
include_guard(GLOBAL)

get_filename_component(_ASCENDC_TOOLKIT "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
if(NOT DEFINED ASCEND_CANN_PACKAGE_PATH)
    set(ASCEND_CANN_PACKAGE_PATH "${_ASCENDC_TOOLKIT}")
endif()
set(ASCENDC_RUNTIME_LIBRARY "${_ASCENDC_TOOLKIT}/lib64/libascendcl.so")

# ------------------------------------------------------------------ the compiler's Python
function(_ascendc_python_ok candidate result)
    set(${result} FALSE PARENT_SCOPE)
    if(NOT EXISTS "${candidate}")
        return()
    endif()
    execute_process(
        COMMAND "${candidate}" -m aiocann toolkit
        OUTPUT_VARIABLE _out ERROR_QUIET RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_rc EQUAL 0)
        get_filename_component(_out "${_out}" REALPATH)
        get_filename_component(_mine "${_ASCENDC_TOOLKIT}" REALPATH)
        if(_out STREQUAL _mine)
            set(${result} TRUE PARENT_SCOPE)
        endif()
    endif()
endfunction()

if(NOT ASCENDC_PYTHON AND DEFINED ENV{ASCENDC_PYTHON})
    set(ASCENDC_PYTHON "$ENV{ASCENDC_PYTHON}")
endif()
if(NOT ASCENDC_PYTHON)
    # <venv>/lib/pythonX.Y/site-packages/aiocann/toolkit -> <venv>/bin/python
    get_filename_component(_venv "${_ASCENDC_TOOLKIT}/../../../../.." ABSOLUTE)
    set(_candidates "${_venv}/bin/python3" "${_venv}/bin/python")
    find_program(_ascendc_path_python NAMES python3 python NO_CACHE)
    if(_ascendc_path_python)
        list(APPEND _candidates "${_ascendc_path_python}")
    endif()
    foreach(_c IN LISTS _candidates)
        _ascendc_python_ok("${_c}" _ok)
        if(_ok)
            set(ASCENDC_PYTHON "${_c}")
            break()
        endif()
    endforeach()
endif()
if(NOT ASCENDC_PYTHON)
    message(FATAL_ERROR
        "ascendc.cmake: no Python that imports the aiocann of ${_ASCENDC_TOOLKIT} was found; "
        "set ASCENDC_PYTHON to the interpreter aiocann is installed in (e.g. -DASCENDC_PYTHON=/path/to/venv/bin/python)")
endif()
set(ASCENDC_PYTHON "${ASCENDC_PYTHON}" CACHE FILEPATH "the Python that runs the Ascend C compiler (python -m aiocann cc)")

# ------------------------------------------------------------------ the chip
if(SOC_VERSION)
    execute_process(COMMAND "${_ASCENDC_TOOLKIT}/bin/aclsim-chip" --all
        OUTPUT_VARIABLE _chip RESULT_VARIABLE _rc ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
        message(FATAL_ERROR "ascendc.cmake: cannot read the simulated chip: ${_err}")
    endif()
    string(REGEX MATCH "soc_version=([^\n]*)" _m "${_chip}")
    set(_family "${CMAKE_MATCH_1}")
    string(REGEX MATCH "soc_name=([^\n]*)" _m "${_chip}")
    set(_name "${CMAKE_MATCH_1}")
    string(TOLOWER "${SOC_VERSION}" _want)
    string(TOLOWER "${_family}" _lf)
    string(TOLOWER "${_name}" _ln)
    # A part of the same family (Ascend910B3 on an Ascend910B1) compiles the same kernels.
    if(NOT _want STREQUAL _lf AND NOT _want STREQUAL _ln AND NOT _want MATCHES "^${_lf}[0-9]*$")
        message(FATAL_ERROR
            "ascendc.cmake: SOC_VERSION=${SOC_VERSION} is not the simulated chip (${_name}, SoC ${_family}); "
            "set AIOCANN_SIM_SOC_NAME to choose the chip, or SOC_VERSION to ${_family}")
    endif()
endif()

# ------------------------------------------------------------------ flags per target
# Each kernel target keeps its definitions, include directories and options in properties that
# the compile commands read at generate time, so ascendc_compile_* may come after the target.
function(_ascendc_flags target out)
    set(_p "$<TARGET_PROPERTY:${target},ASCENDC_DEFINITIONS>")
    set(_i "$<TARGET_PROPERTY:${target},ASCENDC_INCLUDES>")
    set(_o "$<TARGET_PROPERTY:${target},ASCENDC_OPTIONS>")
    # $<SEMICOLON> keeps the joined list one argument until COMMAND_EXPAND_LISTS splits it.
    set(${out}
        "$<$<BOOL:${_p}>:-D$<JOIN:${_p},$<SEMICOLON>-D>>"
        "$<$<BOOL:${_i}>:-I$<JOIN:${_i},$<SEMICOLON>-I>>"
        "${_o}"
        PARENT_SCOPE)
endfunction()

function(_ascendc_append target prop)
    if(NOT TARGET ${target})
        message(FATAL_ERROR "ascendc.cmake: ${target} is not a target of ascendc_library or ascendc_fatbin_library")
    endif()
    get_target_property(_kind ${target} ASCENDC_KIND)
    if(NOT _kind)
        message(FATAL_ERROR "ascendc.cmake: ${target} was not made by ascendc_library or ascendc_fatbin_library")
    endif()
    set(_vals "")
    foreach(_a IN LISTS ARGN)
        if(NOT _a MATCHES "^(PRIVATE|PUBLIC|INTERFACE)$")
            if(prop STREQUAL "ASCENDC_INCLUDES" AND NOT IS_ABSOLUTE "${_a}")
                set(_a "${CMAKE_CURRENT_SOURCE_DIR}/${_a}")
            endif()
            if(prop STREQUAL "ASCENDC_DEFINITIONS")
                string(REGEX REPLACE "^-D" "" _a "${_a}")
            endif()
            list(APPEND _vals "${_a}")
        endif()
    endforeach()
    set_property(TARGET ${target} APPEND PROPERTY ${prop} ${_vals})
endfunction()

function(ascendc_compile_definitions target)
    _ascendc_append(${target} ASCENDC_DEFINITIONS ${ARGN})
endfunction()

function(ascendc_include_directories target)
    _ascendc_append(${target} ASCENDC_INCLUDES ${ARGN})
endfunction()

function(ascendc_compile_options target)
    _ascendc_append(${target} ASCENDC_OPTIONS ${ARGN})
endfunction()

function(_ascendc_sources out)
    set(_srcs "")
    foreach(_s IN LISTS ARGN)
        if(NOT IS_ABSOLUTE "${_s}")
            set(_s "${CMAKE_CURRENT_SOURCE_DIR}/${_s}")
        endif()
        get_filename_component(_s "${_s}" ABSOLUTE)
        list(APPEND _srcs "${_s}")
    endforeach()
    set(${out} "${_srcs}" PARENT_SCOPE)
endfunction()

# ------------------------------------------------------------------ ascendc_library
function(ascendc_library target kind)
    if(NOT kind MATCHES "^(STATIC|SHARED)$")
        message(FATAL_ERROR "ascendc_library(${target} ${kind} ...): the library kind must be STATIC or SHARED")
    endif()
    _ascendc_sources(_srcs ${ARGN})
    if(NOT _srcs)
        message(FATAL_ERROR "ascendc_library(${target} ${kind}): no source files")
    endif()
    set(_dir "${CMAKE_CURRENT_BINARY_DIR}/ascendc/${target}")
    set(_objs "")
    set(_n 0)
    foreach(_src IN LISTS _srcs)
        get_filename_component(_base "${_src}" NAME)
        set(_obj "${_dir}/${_n}_${_base}.o")
        math(EXPR _n "${_n} + 1")
        _ascendc_flags(${target} _flags)
        add_custom_command(
            OUTPUT "${_obj}"
            COMMAND "${CMAKE_COMMAND}" -E make_directory "${_dir}"
            COMMAND "${ASCENDC_PYTHON}" -m aiocann cc -c ${_flags} "${_src}" -o "${_obj}"
            DEPENDS "${_src}"
            COMMENT "Ascend C: compiling ${_base} for ${target}"
            COMMAND_EXPAND_LISTS
            VERBATIM)
        list(APPEND _objs "${_obj}")
    endforeach()
    set_source_files_properties(${_objs} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    add_library(${target} ${kind} ${_objs})
    set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX ASCENDC_KIND library POSITION_INDEPENDENT_CODE ON)
    # The launches inside call the runtime: whatever links the library links the simulator.
    target_link_libraries(${target} PUBLIC "${ASCENDC_RUNTIME_LIBRARY}")
    if(kind STREQUAL "SHARED")
        set_target_properties(${target} PROPERTIES BUILD_RPATH "${_ASCENDC_TOOLKIT}/lib64")
    endif()
endfunction()

# ------------------------------------------------------------------ ascendc_fatbin_library
function(ascendc_fatbin_library target)
    _ascendc_sources(_srcs ${ARGN})
    if(NOT _srcs)
        message(FATAL_ERROR "ascendc_fatbin_library(${target}): no source files")
    endif()
    set(_dir "${CMAKE_CURRENT_BINARY_DIR}/fatbin/${target}")
    set(_out "${_dir}/${target}.o")
    add_custom_target(${target} ALL DEPENDS "${_out}")
    set_target_properties(${target} PROPERTIES ASCENDC_KIND fatbin ASCENDC_OUTPUT "${_out}")
    _ascendc_flags(${target} _flags)
    add_custom_command(
        OUTPUT "${_out}"
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${_dir}"
        COMMAND "${ASCENDC_PYTHON}" -m aiocann cc ${_flags} ${_srcs} -o "${_out}"
        DEPENDS ${_srcs}
        COMMENT "Ascend C: building the kernel binary ${target}"
        COMMAND_EXPAND_LISTS
        VERBATIM)
    install(FILES "${_out}" DESTINATION "fatbin/${target}")
endfunction()
