"""ABI check: our ACL declarations against the real CANN headers.

Every function, #define / static-const constant, enum member, typedef and struct/union that
native/include/acl/acl_base.h, acl_rt.h, acl_rt_allocator.h and acl_rt_device.h declare is
checked against facts taken from the real headers: hicann/runtime, include/external/acl/{acl_rt.h,
acl_rt_allocator.h, acl_base_rt.h, acl_base.h, error_codes/rt_error_codes.h} at commit
681ef7610. The facts below are data (names, values, normalized signatures, sizes/offsets
measured by compiling those headers with gcc on x86_64);
no header text is copied. The runtime compiler's acl_rt_compile.h is checked the same way,
against hicann/asc-devkit's tools/include/acl/acl_rt_compile.h. Simulator extensions
(aclsim_ext.h: aclsim*, aiocann_native.h: aiocann_*) are not part of ACL and are not checked
here.

Signatures are normalized: whitespace collapsed, parameter names dropped, ``const`` kept,
``(void)`` and ``()`` both mean no parameters.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aiocann._lib import ffi, lib

ACL_INCLUDE = Path(__file__).resolve().parents[2] / "native" / "include" / "acl"
OUR_HEADERS = ("acl_base.h", "acl_rt.h", "acl_rt_allocator.h", "acl_rt_device.h", "acl_rt_compile.h")

REAL_FUNCTIONS = {
    "aclInit": ("aclError", ("const char *",)),
    "aclFinalize": ("aclError", ()),
    "aclGetRecentErrMsg": ("const char *", ()),
    "aclrtGetVersion": ("aclError", ("int32_t *", "int32_t *", "int32_t *")),
    "aclrtSetDevice": ("aclError", ("int32_t",)),
    "aclrtResetDevice": ("aclError", ("int32_t",)),
    "aclrtResetDeviceForce": ("aclError", ("int32_t",)),
    "aclrtGetDevice": ("aclError", ("int32_t *",)),
    "aclrtGetDeviceCount": ("aclError", ("uint32_t *",)),
    "aclrtGetLogicDevIdByUserDevId": ("aclError", ("const int32_t", "int32_t * const")),
    "aclrtGetUserDevIdByLogicDevId": ("aclError", ("const int32_t", "int32_t * const")),
    "aclrtSynchronizeDevice": ("aclError", ()),
    "aclrtCreateContext": ("aclError", ("aclrtContext *", "int32_t")),
    "aclrtDestroyContext": ("aclError", ("aclrtContext",)),
    "aclrtSetCurrentContext": ("aclError", ("aclrtContext",)),
    "aclrtGetCurrentContext": ("aclError", ("aclrtContext *",)),
    "aclrtCreateStream": ("aclError", ("aclrtStream *",)),
    "aclrtCreateStreamWithConfig": ("aclError", ("aclrtStream *", "uint32_t", "uint32_t")),
    "aclrtDestroyStream": ("aclError", ("aclrtStream",)),
    "aclrtSynchronizeStream": ("aclError", ("aclrtStream",)),
    "aclrtSynchronizeStreamWithTimeout": ("aclError", ("aclrtStream", "int32_t")),
    "aclrtStreamQuery": ("aclError", ("aclrtStream", "aclrtStreamStatus *")),
    "aclrtStreamWaitEvent": ("aclError", ("aclrtStream", "aclrtEvent")),
    "aclrtMalloc": ("aclError", ("void **", "size_t", "aclrtMemMallocPolicy")),
    "aclrtFree": ("aclError", ("void *",)),
    "aclrtMallocHost": ("aclError", ("void **", "size_t")),
    "aclrtFreeHost": ("aclError", ("void *",)),
    "aclrtMemcpy": ("aclError", ("void *", "size_t", "const void *", "size_t", "aclrtMemcpyKind")),
    "aclrtMemcpyAsync": ("aclError", ("void *", "size_t", "const void *", "size_t", "aclrtMemcpyKind", "aclrtStream")),
    "aclrtMemset": ("aclError", ("void *", "size_t", "int32_t", "size_t")),
    "aclrtMemsetAsync": ("aclError", ("void *", "size_t", "int32_t", "size_t", "aclrtStream")),
    "aclrtGetMemInfo": ("aclError", ("aclrtMemAttr", "size_t *", "size_t *")),
    "aclrtCreateEvent": ("aclError", ("aclrtEvent *",)),
    "aclrtCreateEventWithFlag": ("aclError", ("aclrtEvent *", "uint32_t")),
    "aclrtDestroyEvent": ("aclError", ("aclrtEvent",)),
    "aclrtRecordEvent": ("aclError", ("aclrtEvent", "aclrtStream")),
    "aclrtResetEvent": ("aclError", ("aclrtEvent", "aclrtStream")),
    "aclrtQueryEventStatus": ("aclError", ("aclrtEvent", "aclrtEventRecordedStatus *")),
    "aclrtSynchronizeEvent": ("aclError", ("aclrtEvent",)),
    "aclrtSynchronizeEventWithTimeout": ("aclError", ("aclrtEvent", "int32_t")),
    "aclrtEventElapsedTime": ("aclError", ("float *", "aclrtEvent", "aclrtEvent")),
    "aclrtEventGetTimestamp": ("aclError", ("aclrtEvent", "uint64_t *")),
    "aclrtSubscribeReport": ("aclError", ("uint64_t", "aclrtStream")),
    "aclrtUnSubscribeReport": ("aclError", ("uint64_t", "aclrtStream")),
    "aclrtLaunchCallback": ("aclError", ("aclrtCallback", "void *", "aclrtCallbackBlockType", "aclrtStream")),
    "aclrtProcessReport": ("aclError", ("int32_t",)),
    "aclrtBinaryLoadFromFile": ("aclError", ("const char *", "aclrtBinaryLoadOptions *", "aclrtBinHandle *")),
    "aclrtBinaryLoadFromData": (
        "aclError",
        ("const void *", "size_t", "const aclrtBinaryLoadOptions *", "aclrtBinHandle *"),
    ),
    "aclrtBinaryGetFunction": ("aclError", ("const aclrtBinHandle", "const char *", "aclrtFuncHandle *")),
    "aclrtBinaryUnLoad": ("aclError", ("aclrtBinHandle",)),
    "aclrtKernelArgsGetHandleMemSize": ("aclError", ("aclrtFuncHandle", "size_t *")),
    "aclrtKernelArgsGetMemSize": ("aclError", ("aclrtFuncHandle", "size_t", "size_t *")),
    "aclrtKernelArgsInit": ("aclError", ("aclrtFuncHandle", "aclrtArgsHandle *")),
    "aclrtKernelArgsInitByUserMem": ("aclError", ("aclrtFuncHandle", "aclrtArgsHandle", "void *", "size_t")),
    "aclrtKernelArgsAppend": ("aclError", ("aclrtArgsHandle", "void *", "size_t", "aclrtParamHandle *")),
    "aclrtKernelArgsAppendPlaceHolder": ("aclError", ("aclrtArgsHandle", "aclrtParamHandle *")),
    "aclrtKernelArgsGetPlaceHolderBuffer": ("aclError", ("aclrtArgsHandle", "aclrtParamHandle", "size_t", "void **")),
    "aclrtKernelArgsParaUpdate": ("aclError", ("aclrtArgsHandle", "aclrtParamHandle", "void *", "size_t")),
    "aclrtKernelArgsFinalize": ("aclError", ("aclrtArgsHandle",)),
    "aclrtLaunchKernelWithConfig": (
        "aclError",
        ("aclrtFuncHandle", "uint32_t", "aclrtStream", "aclrtLaunchKernelCfg *", "aclrtArgsHandle", "void *"),
    ),
    "aclrtLaunchKernel": ("aclError", ("aclrtFuncHandle", "uint32_t", "const void *", "size_t", "aclrtStream")),
    "aclrtPeekAtLastError": ("aclError", ("aclrtLastErrLevel",)),
    "aclrtGetLastError": ("aclError", ("aclrtLastErrLevel",)),
    "aclrtSetExceptionInfoCallback": ("aclError", ("aclrtExceptionInfoCallback",)),
    "aclrtExceptionInfoCallbackRegister": ("aclError", ("aclrtExceptionInfoCallback",)),
    "aclrtExceptionInfoCallbackUnregister": ("aclError", ("aclrtExceptionInfoCallback",)),
    "aclrtGetTaskIdFromExceptionInfo": ("uint32_t", ("const aclrtExceptionInfo *",)),
    "aclrtGetStreamIdFromExceptionInfo": ("uint32_t", ("const aclrtExceptionInfo *",)),
    "aclrtGetThreadIdFromExceptionInfo": ("uint32_t", ("const aclrtExceptionInfo *",)),
    "aclrtGetDeviceIdFromExceptionInfo": ("uint32_t", ("const aclrtExceptionInfo *",)),
    "aclrtGetErrorCodeFromExceptionInfo": ("uint32_t", ("const aclrtExceptionInfo *",)),
    "aclrtSetStreamFailureMode": ("aclError", ("aclrtStream", "uint64_t")),
    "aclrtGetThreadLastTaskId": ("aclError", ("uint32_t *",)),
    "aclrtStreamGetId": ("aclError", ("aclrtStream", "int32_t *")),
    # stream capture (ACL Graph)
    "aclmdlRICaptureBegin": ("aclError", ("aclrtStream", "aclmdlRICaptureMode")),
    "aclmdlRICaptureGetInfo": ("aclError", ("aclrtStream", "aclmdlRICaptureStatus *", "aclmdlRI *")),
    "aclmdlRICaptureEnd": ("aclError", ("aclrtStream", "aclmdlRI *")),
    "aclmdlRICaptureThreadExchangeMode": ("aclError", ("aclmdlRICaptureMode *",)),
    "aclmdlRIExecuteAsync": ("aclError", ("aclmdlRI", "aclrtStream")),
    "aclmdlRIDestroy": ("aclError", ("aclmdlRI",)),
    "aclmdlRIGetStreams": ("aclError", ("aclmdlRI", "aclrtStream *", "uint32_t *")),  # acl_rt.h:4977
    "aclmdlRICaptureTaskGrpBegin": ("aclError", ("aclrtStream",)),
    "aclmdlRICaptureTaskGrpEnd": ("aclError", ("aclrtStream", "aclrtTaskGrp *")),
    "aclmdlRICaptureTaskUpdateBegin": ("aclError", ("aclrtStream", "aclrtTaskGrp")),
    "aclmdlRICaptureTaskUpdateEnd": ("aclError", ("aclrtStream",)),
}

# typedef name -> (kind, C spelling); kind 'alias' and 'fnptr' are spelled as cffi resolves them
REAL_TYPEDEFS = {
    "aclError": ("alias", "int"),
    "aclrtArgsHandle": ("alias", "void *"),
    "aclrtBinHandle": ("alias", "void *"),
    "aclrtBinaryLoadOption": ("struct", ""),
    "aclrtBinaryLoadOptionType": ("enum", "aclrtBinaryLoadOptionType"),
    "aclrtBinaryLoadOptionValue": ("union", "aclrtBinaryLoadOptionValue"),
    "aclrtBinaryLoadOptions": ("struct", "aclrtBinaryLoadOptions"),
    "aclrtCallback": ("fnptr", "void(*)(void *)"),
    "aclrtCallbackBlockType": ("enum", "aclrtCallbackBlockType"),
    "aclrtContext": ("alias", "void *"),
    "aclrtEngineType": ("enum", ""),
    "aclrtEvent": ("alias", "void *"),
    "aclrtEventRecordedStatus": ("enum", "aclrtEventRecordedStatus"),
    "aclrtEventStatus": ("enum", "aclrtEventStatus"),
    "aclrtExceptionInfo": ("alias", "struct rtExceptionInfo"),
    "aclrtExceptionInfoCallback": ("fnptr", "void(*)(aclrtExceptionInfo *)"),
    "aclrtFuncHandle": ("alias", "void *"),
    "aclrtLastErrLevel": ("enum", "aclrtLastErrLevel"),
    "aclrtLaunchKernelAttr": ("struct", "aclrtLaunchKernelAttr"),
    "aclrtLaunchKernelAttrId": ("enum", "aclrtLaunchKernelAttrId"),
    "aclrtLaunchKernelAttrValue": ("union", "aclrtLaunchKernelAttrValue"),
    "aclrtLaunchKernelCfg": ("struct", "aclrtLaunchKernelCfg"),
    "aclrtMemAttr": ("enum", "aclrtMemAttr"),
    "aclrtMemMallocPolicy": ("enum", "aclrtMemMallocPolicy"),
    "aclrtMemcpyKind": ("enum", "aclrtMemcpyKind"),
    "aclrtParamHandle": ("alias", "void *"),
    "aclrtStream": ("alias", "void *"),
    "aclrtStreamStatus": ("enum", "aclrtStreamStatus"),
    "aclrtTimeoutUs": ("struct", ""),
    "aclmdlRI": ("alias", "void *"),
    "aclrtTaskGrp": ("alias", "void *"),
    "aclmdlRICaptureMode": ("enum", ""),
    "aclmdlRICaptureStatus": ("enum", ""),
}

REAL_ENUM_SIZES = {
    "aclrtBinaryLoadOptionType": 4,
    "aclrtCallbackBlockType": 4,
    "aclrtEngineType": 4,
    "aclrtEventRecordedStatus": 4,
    "aclrtEventStatus": 4,
    "aclrtLastErrLevel": 4,
    "aclrtLaunchKernelAttrId": 4,
    "aclrtMemAttr": 4,
    "aclrtMemMallocPolicy": 4,
    "aclrtMemcpyKind": 4,
    "aclrtStreamStatus": 4,
    "aclmdlRICaptureMode": 4,
    "aclmdlRICaptureStatus": 4,
}

REAL_CONSTANTS = {
    "ACL_SUCCESS": 0,
    "ACL_ERROR_NONE": 0,
    "ACL_RT_SUCCESS": 0,
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
    "ACL_MODEL_RI_CAPTURE_MODE_GLOBAL": 0,
    "ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL": 1,
    "ACL_MODEL_RI_CAPTURE_MODE_RELAXED": 2,
    "ACL_MODEL_RI_CAPTURE_STATUS_NONE": 0,
    "ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE": 1,
    "ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED": 2,
    "ACL_MAJOR_VERSION": 1,
    "ACL_MINOR_VERSION": 17,
    "ACL_PATCH_VERSION": 0,
    "ACL_EVENT_SYNC": 1,
    "ACL_EVENT_CAPTURE_STREAM_PROGRESS": 2,
    "ACL_EVENT_TIME_LINE": 8,
    "ACL_EVENT_DEVICE_USE_ONLY": 16,
    "ACL_EVENT_EXTERNAL": 32,
    "ACL_EVENT_IPC": 64,
    "ACL_STREAM_FAST_LAUNCH": 1,
    "ACL_STREAM_FAST_SYNC": 2,
    "ACL_STREAM_PERSISTENT": 4,
    "ACL_STREAM_HUGE": 8,
    "ACL_STREAM_CPU_SCHEDULE": 16,
    "ACL_STREAM_DEVICE_USE_ONLY": 32,
    "ACL_CONTINUE_ON_FAILURE": 0,
    "ACL_STOP_ON_FAILURE": 1,
    "ACL_RT_BINARY_MAGIC_ELF_AICORE": 1129660997,
    "ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE": 1094799942,
    "ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE": 1095320387,
    "ACL_EVENT_STATUS_COMPLETE": 0,
    "ACL_EVENT_STATUS_NOT_READY": 1,
    "ACL_EVENT_STATUS_RESERVED": 2,
    "ACL_EVENT_RECORDED_STATUS_NOT_READY": 0,
    "ACL_EVENT_RECORDED_STATUS_COMPLETE": 1,
    "ACL_STREAM_STATUS_COMPLETE": 0,
    "ACL_STREAM_STATUS_NOT_READY": 1,
    "ACL_STREAM_STATUS_RESERVED": 65535,
    "ACL_CALLBACK_NO_BLOCK": 0,
    "ACL_CALLBACK_BLOCK": 1,
    "ACL_MEMCPY_HOST_TO_HOST": 0,
    "ACL_MEMCPY_HOST_TO_DEVICE": 1,
    "ACL_MEMCPY_DEVICE_TO_HOST": 2,
    "ACL_MEMCPY_DEVICE_TO_DEVICE": 3,
    "ACL_MEMCPY_DEFAULT": 4,
    "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE": 5,
    "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE": 6,
    "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE": 7,
    "ACL_MEM_MALLOC_HUGE_FIRST": 0,
    "ACL_MEM_MALLOC_HUGE_ONLY": 1,
    "ACL_MEM_MALLOC_NORMAL_ONLY": 2,
    "ACL_MEM_MALLOC_HUGE_FIRST_P2P": 3,
    "ACL_MEM_MALLOC_HUGE_ONLY_P2P": 4,
    "ACL_MEM_MALLOC_NORMAL_ONLY_P2P": 5,
    "ACL_MEM_MALLOC_HUGE1G_ONLY": 6,
    "ACL_MEM_MALLOC_HUGE1G_ONLY_P2P": 7,
    "ACL_MEM_TYPE_LOW_BAND_WIDTH": 256,
    "ACL_MEM_TYPE_HIGH_BAND_WIDTH": 4096,
    "ACL_MEM_ACCESS_USER_SPACE_READONLY": 1048576,
    "ACL_DDR_MEM": 0,
    "ACL_HBM_MEM": 1,
    "ACL_DDR_MEM_HUGE": 2,
    "ACL_DDR_MEM_NORMAL": 3,
    "ACL_HBM_MEM_HUGE": 4,
    "ACL_HBM_MEM_NORMAL": 5,
    "ACL_DDR_MEM_P2P_HUGE": 6,
    "ACL_DDR_MEM_P2P_NORMAL": 7,
    "ACL_HBM_MEM_P2P_HUGE": 8,
    "ACL_HBM_MEM_P2P_NORMAL": 9,
    "ACL_HBM_MEM_HUGE1G": 10,
    "ACL_HBM_MEM_P2P_HUGE1G": 11,
    "ACL_MEM_NORMAL": 12,
    "ACL_MEM_HUGE": 13,
    "ACL_MEM_HUGE1G": 14,
    "ACL_MEM_P2P_NORMAL": 15,
    "ACL_MEM_P2P_HUGE": 16,
    "ACL_MEM_P2P_HUGE1G": 17,
    "ACL_RT_THREAD_LEVEL": 0,
    "ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD": 1,
    "ACL_RT_BINARY_LOAD_OPT_MAGIC": 2,
    "ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE": 3,
    "ACL_RT_ENGINE_TYPE_AIC": 0,
    "ACL_RT_ENGINE_TYPE_AIV": 1,
    "ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE": 1,
    "ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE": 2,
    "ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE": 3,
    "ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET": 4,
    "ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH": 5,
    "ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP": 6,
    "ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT": 7,
    "ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US": 8,
    "ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING": 9,
}

# name -> (kind, sizeof, alignof, ((member, type, offset, size), ...)) on LP64 (x86_64 gcc)
REAL_RECORDS = {
    "aclrtBinaryLoadOptionValue": (
        "union",
        16,
        4,
        (
            ("isLazyLoad", "uint32_t", 0, 4),
            ("magic", "uint32_t", 0, 4),
            ("cpuKernelMode", "int32_t", 0, 4),
            ("rsv", "uint32_t[4]", 0, 16),
        ),
    ),
    "aclrtBinaryLoadOption": (
        "struct",
        20,
        4,
        (
            ("type", "aclrtBinaryLoadOptionType", 0, 4),
            ("value", "aclrtBinaryLoadOptionValue", 4, 16),
        ),
    ),
    "aclrtBinaryLoadOptions": (
        "struct",
        16,
        8,
        (
            ("options", "aclrtBinaryLoadOption *", 0, 8),
            ("numOpt", "size_t", 8, 8),
        ),
    ),
    "aclrtTimeoutUs": (
        "struct",
        8,
        4,
        (
            ("timeoutLow", "uint32_t", 0, 4),
            ("timeoutHigh", "uint32_t", 4, 4),
        ),
    ),
    "aclrtLaunchKernelAttrValue": (
        "union",
        16,
        4,
        (
            ("schemMode", "uint8_t", 0, 1),
            ("localMemorySize", "uint32_t", 0, 4),
            ("dynUBufSize", "uint32_t", 0, 4),
            ("engineType", "aclrtEngineType", 0, 4),
            ("blockDimOffset", "uint32_t", 0, 4),
            ("isBlockTaskPrefetch", "uint8_t", 0, 1),
            ("isDataDump", "uint8_t", 0, 1),
            ("timeout", "uint16_t", 0, 2),
            ("timeoutUs", "aclrtTimeoutUs", 0, 8),
            ("enableProfiling", "uint8_t", 0, 1),
            ("rsv", "uint32_t[4]", 0, 16),
        ),
    ),
    "aclrtLaunchKernelAttr": (
        "struct",
        20,
        4,
        (
            ("id", "aclrtLaunchKernelAttrId", 0, 4),
            ("value", "aclrtLaunchKernelAttrValue", 4, 16),
        ),
    ),
    "aclrtLaunchKernelCfg": (
        "struct",
        16,
        8,
        (
            ("attrs", "aclrtLaunchKernelAttr *", 0, 8),
            ("numAttrs", "size_t", 8, 8),
        ),
    ),
}


# --- issue 11: the rest of pyACL's runtime surface --------------------------------------
# Facts for the declarations in the "issue 11" block of acl_rt.h, taken the same way from the
# real headers at 681ef7610 (values and layouts measured by compiling them with gcc, x86_64).

REAL_FUNCTIONS.update(
    {
        "aclFinalizeReference": ("aclError", ("uint64_t *",)),
        "aclsysGetVersionStr": ("aclError", ("char *", "char *")),
        "aclsysGetCANNVersion": ("aclError", ("aclCANNPackageName", "aclCANNPackageVersion *")),
        "aclrtGetSocName": ("const char *", ()),
        "aclGetDeviceCapability": ("aclError", ("uint32_t", "aclDeviceInfo", "int64_t *")),
        "aclrtGetRunMode": ("aclError", ("aclrtRunMode *",)),
        "aclrtSetTsDevice": ("aclError", ("aclrtTsId",)),
        "aclrtSetDeviceSatMode": ("aclError", ("aclrtFloatOverflowMode",)),
        "aclrtGetDeviceSatMode": ("aclError", ("aclrtFloatOverflowMode *",)),
        "aclrtGetDeviceUtilizationRate": ("aclError", ("int32_t", "aclrtUtilizationInfo *")),
        "aclrtQueryDeviceStatus": ("aclError", ("int32_t", "aclrtDeviceStatus *")),
        "aclrtSynchronizeDeviceWithTimeout": ("aclError", ("int32_t",)),
        "aclrtGetDeviceInfo": ("aclError", ("uint32_t", "aclrtDevAttr", "int64_t *")),
        "aclrtDeviceGetStreamPriorityRange": ("aclError", ("int32_t *", "int32_t *")),
        "aclrtGetDeviceCapability": ("aclError", ("int32_t", "aclrtDevFeatureType", "int32_t *")),
        "aclrtGetLogicDevIdByUserDevId": ("aclError", ("const int32_t", "int32_t * const")),
        "aclrtGetUserDevIdByLogicDevId": ("aclError", ("const int32_t", "int32_t * const")),
        "aclrtGetLogicDevIdByPhyDevId": ("aclError", ("const int32_t", "int32_t * const")),
        "aclrtGetPhyDevIdByLogicDevId": ("aclError", ("const int32_t", "int32_t * const")),
        "aclrtDeviceGetUuid": ("aclError", ("int32_t", "aclrtUuid *")),
        "aclrtDeviceGetBareTgid": ("aclError", ("int32_t *",)),
        "aclrtDeviceCanAccessPeer": ("aclError", ("int32_t *", "int32_t", "int32_t")),
        "aclrtDeviceEnablePeerAccess": ("aclError", ("int32_t", "uint32_t")),
        "aclrtDeviceDisablePeerAccess": ("aclError", ("int32_t",)),
        "aclrtDevicePeerAccessStatus": ("aclError", ("int32_t", "int32_t", "int32_t *")),
        "aclrtCtxGetCurrentDefaultStream": ("aclError", ("aclrtStream *",)),
        "aclrtGetPrimaryCtxState": ("aclError", ("int32_t", "uint32_t *", "int32_t *")),
        "aclrtCtxSetSysParamOpt": ("aclError", ("aclSysParamOpt", "int64_t")),
        "aclrtCtxGetSysParamOpt": ("aclError", ("aclSysParamOpt", "int64_t *")),
        "aclrtSetSysParamOpt": ("aclError", ("aclSysParamOpt", "int64_t")),
        "aclrtGetSysParamOpt": ("aclError", ("aclSysParamOpt", "int64_t *")),
        "aclrtDestroyStreamForce": ("aclError", ("aclrtStream",)),
        "aclrtGetStreamAvailableNum": ("aclError", ("uint32_t *",)),
        "aclrtSetStreamAttribute": ("aclError", ("aclrtStream", "aclrtStreamAttr", "aclrtStreamAttrValue *")),
        "aclrtGetStreamAttribute": ("aclError", ("aclrtStream", "aclrtStreamAttr", "aclrtStreamAttrValue *")),
        "aclrtCreateEventExWithFlag": ("aclError", ("aclrtEvent *", "uint32_t")),
        "aclrtQueryEvent": ("aclError", ("aclrtEvent", "aclrtEventStatus *")),
        "aclrtQueryEventWaitStatus": ("aclError", ("aclrtEvent", "aclrtEventWaitStatus *")),
        "aclrtGetEventId": ("aclError", ("aclrtEvent", "uint32_t *")),
        "aclrtGetEventAvailNum": ("aclError", ("uint32_t *",)),
        "aclrtMallocAlign32": ("aclError", ("void **", "size_t", "aclrtMemMallocPolicy")),
        "aclrtMallocCached": ("aclError", ("void **", "size_t", "aclrtMemMallocPolicy")),
        "aclrtMallocWithCfg": ("aclError", ("void **", "size_t", "aclrtMemMallocPolicy", "aclrtMallocConfig *")),
        "aclrtMallocForTaskScheduler": (
            "aclError",
            ("void **", "size_t", "aclrtMemMallocPolicy", "aclrtMallocConfig *"),
        ),
        "aclrtMallocHostWithCfg": ("aclError", ("void **", "uint64_t", "aclrtMallocConfig *")),
        "aclrtMemFlush": ("aclError", ("void *", "size_t")),
        "aclrtMemInvalidate": ("aclError", ("void *", "size_t")),
        "aclrtPointerGetAttributes": ("aclError", ("const void *", "aclrtPtrAttributes *")),
        "aclrtMemcpy2d": (
            "aclError",
            ("void *", "size_t", "const void *", "size_t", "size_t", "size_t", "aclrtMemcpyKind"),
        ),
        "aclrtMemcpy2dAsync": (
            "aclError",
            ("void *", "size_t", "const void *", "size_t", "size_t", "size_t", "aclrtMemcpyKind", "aclrtStream"),
        ),
        "aclrtCreateBinary": ("aclrtBinary", ("const void *", "size_t")),
        "aclrtDestroyBinary": ("aclError", ("aclrtBinary",)),
        "aclrtBinaryLoad": ("aclError", ("const aclrtBinary", "aclrtBinHandle *")),
        "aclrtGetFunctionAddr": ("aclError", ("aclrtFuncHandle", "void **", "void **")),
        "aclrtGetFunctionName": ("aclError", ("aclrtFuncHandle", "uint32_t", "char *")),
    }
)

REAL_TYPEDEFS.update(
    {
        "aclCANNPackageName": ("enum", "aclCANNPackageName"),
        "aclCANNPackageVersion": ("struct", "aclCANNPackageVersion"),
        "aclDeviceInfo": ("enum", ""),
        "aclSysParamOpt": ("enum", ""),
        "aclrtBinary": ("alias", "void *"),
        "aclrtDevAttr": ("enum", ""),
        "aclrtDevFeatureType": ("enum", ""),
        "aclrtDeviceStatus": ("enum", "aclrtDeviceStatus"),
        "aclrtEventWaitStatus": ("enum", "aclrtEventWaitStatus"),
        "aclrtFloatOverflowMode": ("enum", "aclrtFloatOverflowMode"),
        "aclrtMallocAttrType": ("enum", ""),
        "aclrtMallocAttrValue": ("union", ""),
        "aclrtMallocAttribute": ("struct", ""),
        "aclrtMallocConfig": ("struct", ""),
        "aclrtMemLocation": ("struct", "aclrtMemLocation"),
        "aclrtMemLocationType": ("enum", "aclrtMemLocationType"),
        "aclrtPtrAttributes": ("struct", "aclrtPtrAttributes"),
        "aclrtRunMode": ("enum", "aclrtRunMode"),
        "aclrtStreamAttr": ("enum", ""),
        "aclrtStreamAttrValue": ("union", ""),
        "aclrtTsId": ("enum", "aclrtTsId"),
        "aclrtUtilizationExtendInfo": ("struct", "aclrtUtilizationExtendInfo"),  # opaque: declared, never defined
        "aclrtUtilizationInfo": ("struct", "aclrtUtilizationInfo"),
        "aclrtUuid": ("struct", "aclrtUuid"),
    }
)

REAL_ENUM_SIZES.update(
    {
        "aclrtRunMode": 4,
        "aclrtTsId": 4,
        "aclrtFloatOverflowMode": 4,
        "aclrtEventWaitStatus": 4,
        "aclrtDeviceStatus": 4,
        "aclrtDevAttr": 4,
        "aclrtDevFeatureType": 4,
        "aclDeviceInfo": 4,
        "aclSysParamOpt": 4,
        "aclrtStreamAttr": 4,
        "aclrtMemLocationType": 4,
        "aclrtMallocAttrType": 4,
        "aclCANNPackageName": 4,
    }
)

REAL_CONSTANTS.update(
    {
        "ACL_ERROR_RT_SYSPARAMOPT_NOT_SET": 107021,
        "ACL_PKG_VERSION_MAX_SIZE": 128,
        "ACL_PKG_VERSION_PARTS_MAX_SIZE": 64,
        "ACL_DEVICE": 0,
        "ACL_HOST": 1,
        "ACL_TS_ID_AICORE": 0,
        "ACL_TS_ID_AIVECTOR": 1,
        "ACL_TS_ID_RESERVED": 2,
        "ACL_RT_OVERFLOW_MODE_SATURATION": 0,
        "ACL_RT_OVERFLOW_MODE_INFNAN": 1,
        "ACL_RT_OVERFLOW_MODE_UNDEF": 2,
        "ACL_EVENT_WAIT_STATUS_COMPLETE": 0,
        "ACL_EVENT_WAIT_STATUS_NOT_READY": 1,
        "ACL_EVENT_WAIT_STATUS_RESERVED": 65535,
        "ACL_RT_DEVICE_STATUS_NORMAL": 0,
        "ACL_RT_DEVICE_STATUS_ABNORMAL": 1,
        "ACL_RT_DEVICE_STATUS_END": 65535,
        "ACL_DEV_ATTR_AICPU_CORE_NUM": 1,
        "ACL_DEV_ATTR_AICORE_CORE_NUM": 101,
        "ACL_DEV_ATTR_CUBE_CORE_NUM": 102,
        "ACL_DEV_ATTR_VECTOR_CORE_NUM": 201,
        "ACL_DEV_ATTR_WARP_SIZE": 202,
        "ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE": 203,
        "ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE": 204,
        "ACL_DEV_ATTR_MAX_GRID_DIM_X": 205,
        "ACL_DEV_ATTR_MAX_GRID_DIM_Y": 206,
        "ACL_DEV_ATTR_MAX_GRID_DIM_Z": 207,
        "ACL_DEV_ATTR_MAX_BLOCK_PER_GRID": 208,
        "ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK": 209,
        "ACL_DEV_ATTR_MAX_BLOCK_DIM_X": 210,
        "ACL_DEV_ATTR_MAX_BLOCK_DIM_Y": 211,
        "ACL_DEV_ATTR_MAX_BLOCK_DIM_Z": 212,
        "ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE": 301,
        "ACL_DEV_ATTR_L2_CACHE_SIZE": 302,
        "ACL_DEV_ATTR_SMP_ID": 401,
        "ACL_DEV_ATTR_PHY_CHIP_ID": 402,
        "ACL_DEV_ATTR_SUPER_POD_DEVICE_ID": 403,
        "ACL_DEV_ATTR_SUPER_POD_SERVER_ID": 404,
        "ACL_DEV_ATTR_SUPER_POD_ID": 405,
        "ACL_DEV_ATTR_CUST_OP_PRIVILEGE": 406,
        "ACL_DEV_ATTR_MAINBOARD_ID": 407,
        "ACL_DEV_ATTR_HD_CONNECT_TYPE": 408,
        "ACL_DEV_ATTR_DEVICE_FORM_FACTOR": 409,
        "ACL_DEV_ATTR_IS_VIRTUAL": 501,
        "ACL_DEV_ATTR_NPU_ARCH": 601,
        "ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV": 1,
        "ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV": 21,
        "ACL_DEVICE_INFO_UNDEFINED": -1,
        "ACL_DEVICE_INFO_AI_CORE_NUM": 0,
        "ACL_DEVICE_INFO_VECTOR_CORE_NUM": 1,
        "ACL_DEVICE_INFO_L2_SIZE": 2,
        "ACL_OPT_DETERMINISTIC": 0,
        "ACL_OPT_ENABLE_DEBUG_KERNEL": 1,
        "ACL_OPT_STRONG_CONSISTENCY": 2,
        "ACL_OPT_ENABLE_KERNEL_EARLY_START": 3,
        "ACL_STREAM_ATTR_FAILURE_MODE": 1,
        "ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK": 2,
        "ACL_STREAM_ATTR_USER_CUSTOM_TAG": 3,
        "ACL_STREAM_ATTR_CACHE_OP_INFO": 4,
        "ACL_STREAM_ATTR_PRIORITY": 5,
        "ACL_MEM_LOCATION_TYPE_HOST": 0,
        "ACL_MEM_LOCATION_TYPE_DEVICE": 1,
        "ACL_MEM_LOCATION_TYPE_UNREGISTERED": 2,
        "ACL_MEM_LOCATION_TYPE_MANAGED": 3,
        "ACL_MEM_LOCATION_TYPE_HOST_NUMA": 4,
        "ACL_RT_MEM_ATTR_RSV": 0,
        "ACL_RT_MEM_ATTR_MODULE_ID": 1,
        "ACL_RT_MEM_ATTR_DEVICE_ID": 2,
        "ACL_RT_MEM_ATTR_VA_FLAG": 3,
        "ACL_PKG_NAME_CANN": 0,
        "ACL_PKG_NAME_RUNTIME": 1,
        "ACL_PKG_NAME_COMPILER": 2,
        "ACL_PKG_NAME_HCCL": 3,
        "ACL_PKG_NAME_TOOLKIT": 4,
        "ACL_PKG_NAME_OPP": 5,
        "ACL_PKG_NAME_OPP_KERNEL": 6,
        "ACL_PKG_NAME_DRIVER": 7,
    }
)

REAL_RECORDS.update(
    {
        "aclrtUtilizationInfo": (
            "struct",
            24,
            8,
            (
                ("cubeUtilization", "int32_t", 0, 4),
                ("vectorUtilization", "int32_t", 4, 4),
                ("aicpuUtilization", "int32_t", 8, 4),
                ("memoryUtilization", "int32_t", 12, 4),
                ("utilizationExtend", "aclrtUtilizationExtendInfo *", 16, 8),
            ),
        ),
        "aclrtStreamAttrValue": (
            "union",
            16,
            8,
            (
                ("failureMode", "uint64_t", 0, 8),
                ("overflowSwitch", "uint32_t", 0, 4),
                ("userCustomTag", "uint32_t", 0, 4),
                ("cacheOpInfoSwitch", "uint32_t", 0, 4),
                ("streamPriority", "uint32_t", 0, 4),
                ("reserve", "uint32_t[4]", 0, 16),
            ),
        ),
        "aclrtMemLocation": (
            "struct",
            8,
            4,
            (
                ("id", "uint32_t", 0, 4),
                ("type", "aclrtMemLocationType", 4, 4),
            ),
        ),
        "aclrtPtrAttributes": (
            "struct",
            28,
            4,
            (
                ("location", "aclrtMemLocation", 0, 8),
                ("pageSize", "uint32_t", 8, 4),
                ("rsv", "uint32_t[4]", 12, 16),
            ),
        ),
        "aclrtMallocAttrValue": (
            "union",
            8,
            4,
            (
                ("moduleId", "uint16_t", 0, 2),
                ("deviceId", "uint32_t", 0, 4),
                ("vaFlag", "uint32_t", 0, 4),
                ("rsv", "uint8_t[8]", 0, 8),
            ),
        ),
        "aclrtMallocAttribute": (
            "struct",
            12,
            4,
            (
                ("attr", "aclrtMallocAttrType", 0, 4),
                ("value", "aclrtMallocAttrValue", 4, 8),
            ),
        ),
        "aclrtMallocConfig": (
            "struct",
            16,
            8,
            (
                ("attrs", "aclrtMallocAttribute *", 0, 8),
                ("numAttrs", "size_t", 8, 8),
            ),
        ),
        "aclrtUuid": ("struct", 16, 1, (("bytes", "char[16]", 0, 16),)),
        "aclCANNPackageVersion": (
            "struct",
            512,
            1,
            (
                ("version", "char[128]", 0, 128),
                ("majorVersion", "char[64]", 128, 64),
                ("minorVersion", "char[64]", 192, 64),
                ("releaseVersion", "char[64]", 256, 64),
                ("patchVersion", "char[64]", 320, 64),
                ("reserved", "char[128]", 384, 128),
            ),
        ),
    }
)

# --- issue 11, memory family ------------------------------------------------------------
# Facts for the "issue 11, memory family" block of acl_rt.h and for acl_rt_allocator.h, taken
# the same way from the real headers at 681ef7610 (acl_rt.h, acl_rt_allocator.h,
# acl_base_rt.h, error_codes/rt_error_codes.h; values and layouts measured by compiling them
# with gcc, x86_64).

REAL_FUNCTIONS.update(
    {
        "aclrtReserveMemAddress": ("aclError", ("void **", "size_t", "size_t", "void *", "uint64_t")),
        "aclrtReleaseMemAddress": ("aclError", ("void *",)),
        "aclrtMallocPhysical": (
            "aclError",
            ("aclrtDrvMemHandle *", "size_t", "const aclrtPhysicalMemProp *", "uint64_t"),
        ),
        "aclrtFreePhysical": ("aclError", ("aclrtDrvMemHandle",)),
        "aclrtMapMem": ("aclError", ("void *", "size_t", "size_t", "aclrtDrvMemHandle", "uint64_t")),
        "aclrtUnmapMem": ("aclError", ("void *",)),
        "aclrtMemGetAllocationGranularity": (
            "aclError",
            ("aclrtPhysicalMemProp *", "aclrtMemGranularityOptions", "size_t *"),
        ),
        "aclrtMemExportToShareableHandle": (
            "aclError",
            ("aclrtDrvMemHandle", "aclrtMemHandleType", "uint64_t", "uint64_t *"),
        ),
        "aclrtMemSetPidToShareableHandle": ("aclError", ("uint64_t", "int32_t *", "size_t")),
        "aclrtMemImportFromShareableHandle": ("aclError", ("uint64_t", "int32_t", "aclrtDrvMemHandle *")),
        "aclrtIpcMemGetExportKey": ("aclError", ("void *", "size_t", "char *", "size_t", "uint64_t")),
        "aclrtIpcMemSetImportPid": ("aclError", ("const char *", "int32_t *", "size_t")),
        "aclrtIpcMemImportByKey": ("aclError", ("void **", "const char *", "uint64_t")),
        "aclrtIpcMemClose": ("aclError", ("const char *",)),
        "aclrtHostRegister": ("aclError", ("void *", "uint64_t", "aclrtHostRegisterType", "void **")),
        "aclrtHostRegisterV2": ("aclError", ("void *", "uint64_t", "uint32_t")),
        "aclrtHostGetDevicePointer": ("aclError", ("void *", "void **", "uint32_t")),
        "aclrtHostUnregister": ("aclError", ("void *",)),
        "aclrtGetMemcpyDescSize": ("aclError", ("aclrtMemcpyKind", "size_t *")),
        "aclrtSetMemcpyDesc": ("aclError", ("void *", "aclrtMemcpyKind", "void *", "void *", "size_t", "void *")),
        "aclrtMemcpyAsyncWithDesc": ("aclError", ("void *", "aclrtMemcpyKind", "aclrtStream")),
        "aclrtMemcpyAsyncWithCondition": (
            "aclError",
            ("void *", "size_t", "const void *", "size_t", "aclrtMemcpyKind", "aclrtStream"),
        ),
        "aclrtReduceAsync": (
            "aclError",
            ("void *", "const void *", "uint64_t", "aclrtReduceKind", "aclDataType", "aclrtStream", "void *"),
        ),
        "aclrtCmoAsync": ("aclError", ("void *", "size_t", "aclrtCmoType", "aclrtStream")),
        "aclrtValueWrite": ("aclError", ("void *", "uint64_t", "uint32_t", "aclrtStream")),
        "aclrtValueWait": ("aclError", ("void *", "uint64_t", "uint32_t", "aclrtStream")),
        "aclrtGetMemUceInfo": ("aclError", ("int32_t", "aclrtMemUceInfo *", "size_t", "size_t *")),
        "aclrtMemUceRepair": ("aclError", ("int32_t", "aclrtMemUceInfo *", "size_t")),
        "aclrtAllocatorCreateDesc": ("aclrtAllocatorDesc", ()),
        "aclrtAllocatorDestroyDesc": ("aclError", ("aclrtAllocatorDesc",)),
        "aclrtAllocatorSetObjToDesc": ("aclError", ("aclrtAllocatorDesc", "aclrtAllocator")),
        "aclrtAllocatorSetAllocFuncToDesc": ("aclError", ("aclrtAllocatorDesc", "aclrtAllocatorAllocFunc")),
        "aclrtAllocatorSetFreeFuncToDesc": ("aclError", ("aclrtAllocatorDesc", "aclrtAllocatorFreeFunc")),
        "aclrtAllocatorSetAllocAdviseFuncToDesc": ("aclError", ("aclrtAllocatorDesc", "aclrtAllocatorAllocAdviseFunc")),
        "aclrtAllocatorSetGetAddrFromBlockFuncToDesc": (
            "aclError",
            ("aclrtAllocatorDesc", "aclrtAllocatorGetAddrFromBlockFunc"),
        ),
        "aclrtAllocatorRegister": ("aclError", ("aclrtStream", "aclrtAllocatorDesc")),
        "aclrtAllocatorGetByStream": (
            "aclError",
            (
                "aclrtStream",
                "aclrtAllocatorDesc *",
                "aclrtAllocator *",
                "aclrtAllocatorAllocFunc *",
                "aclrtAllocatorFreeFunc *",
                "aclrtAllocatorAllocAdviseFunc *",
                "aclrtAllocatorGetAddrFromBlockFunc *",
            ),
        ),
        "aclrtAllocatorUnregister": ("aclError", ("aclrtStream",)),
    }
)

REAL_CONSTANTS.update(
    {
        "ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED": 507910,
        "ACL_ERROR_HOST_MEMORY_NOT_REGISTERED": 507911,
        "ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT": 0,
        "ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION": 1,
        "ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT": 0,
        "ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS": 1,
        "ACL_RT_VMM_EXPORT_FLAG_DEFAULT": 0,
        "ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION": 1,
        "ACL_HOST_REG_MAPPED": 2,
        "ACL_HOST_REG_IOMEMORY": 4,
        "ACL_HOST_REG_READONLY": 8,
        "ACL_HOST_REG_PINNED": 268435456,
        "ACL_RT_MAX_RECORD_PA_NUM_PER_DEV": 20,
        "MAX_MEM_UCE_INFO_ARRAY_SIZE": 128,
        "UCE_INFO_RESERVED_SIZE": 14,
        "ACL_HOST_REGISTER_MAPPED": 0,
        "ACL_HOST_REGISTER_IOMEMORY": 4,
        "ACL_HOST_REGISTER_READONLY": 8,
        "ACL_MEM_ALLOCATION_TYPE_PINNED": 0,
        "ACL_MEM_HANDLE_TYPE_NONE": 0,
        "ACL_MEM_HANDLE_TYPE_POSIX": 2,
        "ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM": 0,
        "ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED": 1,
        "ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF": 65535,
        "ACL_RT_CMO_TYPE_PREFETCH": 0,
        "ACL_RT_CMO_TYPE_WRITEBACK": 1,
        "ACL_RT_CMO_TYPE_INVALID": 2,
        "ACL_RT_CMO_TYPE_FLUSH": 3,
        "ACL_DT_UNDEFINED": -1,
        "ACL_FLOAT": 0,
        "ACL_FLOAT16": 1,
        "ACL_INT8": 2,
        "ACL_INT32": 3,
        "ACL_UINT8": 4,
        "ACL_INT16": 6,
        "ACL_UINT16": 7,
        "ACL_UINT32": 8,
        "ACL_INT64": 9,
        "ACL_UINT64": 10,
        "ACL_DOUBLE": 11,
        "ACL_BOOL": 12,
        "ACL_STRING": 13,
        "ACL_COMPLEX64": 16,
        "ACL_COMPLEX128": 17,
        "ACL_BF16": 27,
        "ACL_INT4": 29,
        "ACL_UINT1": 30,
        "ACL_COMPLEX32": 33,
        "ACL_HIFLOAT8": 34,
        "ACL_FLOAT8_E5M2": 35,
        "ACL_FLOAT8_E4M3FN": 36,
        "ACL_FLOAT8_E8M0": 37,
        "ACL_FLOAT6_E3M2": 38,
        "ACL_FLOAT6_E2M3": 39,
        "ACL_FLOAT4_E2M1": 40,
        "ACL_FLOAT4_E1M2": 41,
        "ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM": 10,
        "ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX": 11,
        "ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN": 12,
        "ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL": 13,
    }
)

REAL_TYPEDEFS.update(
    {
        "aclrtHostRegisterType": ("enum", ""),
        "aclrtMemAllocationType": ("enum", "aclrtMemAllocationType"),
        "aclrtMemHandleType": ("enum", "aclrtMemHandleType"),
        "aclrtPhysicalMemProp": ("struct", "aclrtPhysicalMemProp"),
        "aclrtMemGranularityOptions": ("enum", "aclrtMemGranularityOptions"),
        "aclrtDrvMemHandle": ("alias", "void *"),
        "aclrtMemUceInfo": ("struct", "aclrtMemUceInfo"),
        "aclrtCmoType": ("enum", "aclrtCmoType"),
        "aclrtReduceKind": ("enum", ""),
        "aclDataType": ("enum", ""),
        "aclrtAllocatorDesc": ("alias", "void *"),
        "aclrtAllocator": ("alias", "void *"),
        "aclrtAllocatorBlock": ("alias", "void *"),
        "aclrtAllocatorAddr": ("alias", "void *"),
        "aclrtAllocatorAllocFunc": ("fnptr", "void *(*)(aclrtAllocator, size_t)"),
        "aclrtAllocatorFreeFunc": ("fnptr", "void(*)(aclrtAllocator, aclrtAllocatorBlock)"),
        "aclrtAllocatorAllocAdviseFunc": ("fnptr", "void *(*)(aclrtAllocator, size_t, aclrtAllocatorAddr)"),
        "aclrtAllocatorGetAddrFromBlockFunc": ("fnptr", "void *(*)(aclrtAllocatorBlock)"),
    }
)

REAL_ENUM_SIZES.update(
    {
        "aclrtHostRegisterType": 4,
        "aclrtMemAllocationType": 4,
        "aclrtMemHandleType": 4,
        "aclrtMemGranularityOptions": 4,
        "aclrtCmoType": 4,
        "aclrtReduceKind": 4,
        "aclDataType": 4,
    }
)

REAL_RECORDS.update(
    {
        "aclrtPhysicalMemProp": (
            "struct",
            32,
            8,
            (
                ("handleType", "aclrtMemHandleType", 0, 4),
                ("allocationType", "aclrtMemAllocationType", 4, 4),
                ("memAttr", "aclrtMemAttr", 8, 4),
                ("location", "aclrtMemLocation", 12, 8),
                ("reserve", "uint64_t", 24, 8),
            ),
        ),
        "aclrtMemUceInfo": (
            "struct",
            128,
            8,
            (
                ("addr", "void *", 0, 8),
                ("len", "size_t", 8, 8),
                ("reserved", "size_t[14]", 16, 112),
            ),
        ),
    }
)

# --- issue 11, device share: the declarations of acl_rt_device.h -----------------------------
# Notifies, overflow detection, operator timeouts, core resource limits, topology, abort, AI CPU
# function registration and groups; taken the same way from the real headers at 681ef7610.

REAL_FUNCTIONS.update(
    {
        "aclrtSetStreamOverflowSwitch": ("aclError", ("aclrtStream", "uint32_t")),
        "aclrtGetStreamOverflowSwitch": ("aclError", ("aclrtStream", "uint32_t *")),
        "aclrtGetOverflowStatus": ("aclError", ("void *", "size_t", "aclrtStream")),
        "aclrtResetOverflowStatus": ("aclError", ("aclrtStream",)),
        "aclrtSetOpWaitTimeout": ("aclError", ("uint32_t",)),
        "aclrtSetOpExecuteTimeOut": ("aclError", ("uint32_t",)),
        "aclrtSetOpExecuteTimeOutWithMs": ("aclError", ("uint32_t",)),
        "aclrtSetOpExecuteTimeOutV2": ("aclError", ("uint64_t", "uint64_t *")),
        "aclrtGetOpTimeOutInterval": ("aclError", ("uint64_t *",)),
        "aclrtGetOpExecuteTimeout": ("aclError", ("uint32_t * const",)),
        "aclrtCreateNotify": ("aclError", ("aclrtNotify *", "uint64_t")),
        "aclrtDestroyNotify": ("aclError", ("aclrtNotify",)),
        "aclrtRecordNotify": ("aclError", ("aclrtNotify", "aclrtStream")),
        "aclrtWaitAndResetNotify": ("aclError", ("aclrtNotify", "aclrtStream", "uint32_t")),
        "aclrtGetNotifyId": ("aclError", ("aclrtNotify", "uint32_t *")),
        "aclrtNotifyBatchReset": ("aclError", ("aclrtNotify *", "size_t")),
        "aclrtNotifyGetExportKey": ("aclError", ("aclrtNotify", "char *", "size_t", "uint64_t")),
        "aclrtNotifyImportByKey": ("aclError", ("aclrtNotify *", "const char *", "uint64_t")),
        "aclrtNotifySetImportPid": ("aclError", ("aclrtNotify", "int32_t *", "size_t")),
        "aclrtGetDeviceResLimit": ("aclError", ("int32_t", "aclrtDevResLimitType", "uint32_t *")),
        "aclrtSetDeviceResLimit": ("aclError", ("int32_t", "aclrtDevResLimitType", "uint32_t")),
        "aclrtResetDeviceResLimit": ("aclError", ("int32_t",)),
        "aclrtGetStreamResLimit": ("aclError", ("aclrtStream", "aclrtDevResLimitType", "uint32_t *")),
        "aclrtSetStreamResLimit": ("aclError", ("aclrtStream", "aclrtDevResLimitType", "uint32_t")),
        "aclrtResetStreamResLimit": ("aclError", ("aclrtStream",)),
        "aclrtUseStreamResInCurrentThread": ("aclError", ("aclrtStream",)),
        "aclrtUnuseStreamResInCurrentThread": ("aclError", ("aclrtStream",)),
        "aclrtGetResInCurrentThread": ("aclError", ("aclrtDevResLimitType", "uint32_t *")),
        "aclrtGetDevicesTopo": ("aclError", ("uint32_t", "uint32_t", "uint64_t *")),
        "aclrtStreamAbort": ("aclError", ("aclrtStream",)),
        "aclrtDeviceTaskAbort": ("aclError", ("int32_t", "uint32_t")),
        "aclrtRegisterCpuFunc": (
            "aclError",
            ("const aclrtBinHandle", "const char *", "const char *", "aclrtFuncHandle *"),
        ),
        "aclrtSetGroup": ("aclError", ("int32_t",)),
        "aclrtGetGroupCount": ("aclError", ("uint32_t *",)),
        "aclrtCreateGroupInfo": ("aclrtGroupInfo *", ()),
        "aclrtDestroyGroupInfo": ("aclError", ("aclrtGroupInfo *",)),
        "aclrtGetAllGroupInfo": ("aclError", ("aclrtGroupInfo *",)),
        "aclrtGetGroupInfoDetail": (
            "aclError",
            ("const aclrtGroupInfo *", "int32_t", "aclrtGroupAttr", "void *", "size_t", "size_t *"),
        ),
    }
)

REAL_TYPEDEFS.update(
    {
        "aclrtNotify": ("alias", "void *"),
        "aclrtGroupAttr": ("enum", "aclrtGroupAttr"),
        "aclrtGroupInfo": ("struct", "tagRtGroupInfo"),
        "aclrtDevResLimitType": ("enum", ""),
    }
)

REAL_ENUM_SIZES.update(
    {
        "aclrtGroupAttr": 4,
        "aclrtDevResLimitType": 4,
    }
)

REAL_CONSTANTS.update(
    {
        "ACL_ERROR_RT_DEVICE_TASK_ABORT": 107022,
        "ACL_ERROR_RT_STREAM_ABORT": 107023,
        "ACL_ERROR_RT_AIVEC_OVER_FLOW": 207016,
        "ACL_ERROR_RT_OVER_FLOW": 207017,
        "ACL_ERROR_RT_DEV_SETUP_ERROR": 507033,
        "ACL_NOTIFY_DEFAULT": 0,
        "ACL_NOTIFY_DEVICE_USE_ONLY": 1,
        "ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT": 0,
        "ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION": 2,
        "ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT": 0,
        "ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS": 2,
        "ACL_RT_DEVS_TOPOLOGY_HCCS": 0x01,
        "ACL_RT_DEVS_TOPOLOGY_PIX": 0x02,
        "ACL_RT_DEVS_TOPOLOGY_PIB": 0x04,
        "ACL_RT_DEVS_TOPOLOGY_PHB": 0x08,
        "ACL_RT_DEVS_TOPOLOGY_SYS": 0x10,
        "ACL_RT_DEVS_TOPOLOGY_SIO": 0x20,
        "ACL_RT_DEVS_TOPOLOGY_HCCS_SW": 0x40,
        "ACL_GROUP_AICORE_INT": 0,
        "ACL_GROUP_AIV_INT": 1,
        "ACL_GROUP_AIC_INT": 2,
        "ACL_GROUP_SDMANUM_INT": 3,
        "ACL_GROUP_ASQNUM_INT": 4,
        "ACL_GROUP_GROUPID_INT": 5,
        "ACL_RT_DEV_RES_CUBE_CORE": 0,
        "ACL_RT_DEV_RES_VECTOR_CORE": 1,
    }
)


# --- the runtime compiler: the declarations of acl_rt_compile.h ------------------------------
# Facts of CANN's acl/acl_rt_compile.h: hicann/asc-devkit, tools/include/acl/acl_rt_compile.h at
# commit b8228025e (exported by libacl_rtc.so). Its aclError typedef is acl_base.h's.

REAL_FUNCTIONS.update(
    {
        "aclrtcCreateProg": (
            "aclError",
            ("aclrtcProg *", "const char *", "const char *", "int", "const char **", "const char **"),
        ),
        "aclrtcCompileProg": ("aclError", ("aclrtcProg", "int", "const char **")),
        "aclrtcAddNameExpr": ("aclError", ("aclrtcProg", "const char * const")),
        "aclrtcGetLoweredName": ("aclError", ("aclrtcProg", "const char *", "const char **")),
        "aclrtcGetBinDataSize": ("aclError", ("aclrtcProg", "size_t *")),
        "aclrtcGetBinData": ("aclError", ("aclrtcProg", "char *")),
        "aclrtcGetCompileLogSize": ("aclError", ("aclrtcProg", "size_t *")),
        "aclrtcGetCompileLog": ("aclError", ("aclrtcProg", "char *")),
        "aclrtcDestroyProg": ("aclError", ("aclrtcProg *",)),
    }
)

REAL_TYPEDEFS.update({"aclrtcProg": ("alias", "void *")})


# --- parsing our headers ----------------------------------------------------------------


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


_BUILTIN = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool"}


def _norm_type(decl, drop_name=True):
    """'const char* configPath' -> 'const char *'; 'void **devPtr' -> 'void **'."""
    toks = re.findall(r"\w+|\*|\[\d*\]", decl)
    arr = [t for t in toks if t.startswith("[")]
    toks = [t for t in toks if not t.startswith("[")]
    if drop_name and len(toks) > 1 and re.match(r"\w+$", toks[-1]) and toks[-1] not in _BUILTIN | {"const"}:
        if any(t not in ("const",) for t in toks[:-1]):
            toks = toks[:-1]
    out = ""
    for t in toks:
        if t == "*":
            out += "*" if out.endswith("*") else " *"
        else:
            out += (" " if out else "") + t
    return out + "".join(arr)


def _split_params(params):
    params, parts, depth, cur = params.strip(), [], 0, ""
    for ch in params:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        parts.append(cur)
    parts = [_norm_type(p) for p in parts]
    return [] if parts in ([], ["void"]) else parts


def _cffi_region(text):
    b, e = text.find("/* cffi-begin */"), text.find("/* cffi-end */")
    return text[b + len("/* cffi-begin */") : e]


def _parse_ours(text):
    """Names an aiocann header region declares: defines, enums, records, functions."""
    text = _strip_comments(text)
    defines = dict(re.findall(r"^\s*#define\s+(\w+)\s+(\S+)\s*$", text, flags=re.M))
    body = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    body = re.sub(r'extern\s+"C"\s*\{', " ", body)
    enums, records = {}, {}
    for _name, members, tname in re.findall(r"typedef\s+enum\s+(\w*)\s*\{(.*?)\}\s*(\w+)\s*;", body, flags=re.S):
        enums[tname] = [m.split("=")[0].strip() for m in members.split(",") if m.strip()]
    for kind, _name, members, tname in re.findall(
        r"typedef\s+(struct|union)\s+(\w*)\s*\{(.*?)\}\s*(\w+)\s*;", body, flags=re.S
    ):
        records[tname] = (kind, [_parse_member(m) for m in members.split(";") if m.strip()])
    body = re.sub(r"typedef\s+(enum|struct|union)\s+\w*\s*\{.*?\}\s*\w+\s*;", " ", body, flags=re.S)
    funcs = {}
    for stmt in body.split(";"):
        stmt = " ".join(stmt.split())
        m = re.match(r"^(?!typedef\b)([\w\s*]+?)\b(acl\w+)\s*\((.*)\)$", stmt)
        if m:
            funcs[m.group(2)] = (_norm_type(m.group(1), drop_name=False), _split_params(m.group(3)))
    return defines, enums, records, funcs


def _parse_member(m):
    m = " ".join(m.split())
    name = re.search(r"(\w+)\s*(\[\d+\])?$", m)
    return name.group(1), _norm_type(m)


def _ours(cdef_only: bool):
    defines, enums, records, funcs = {}, {}, {}, {}
    for name in OUR_HEADERS:
        text = (ACL_INCLUDE / name).read_text()
        d, e, r, f = _parse_ours(_cffi_region(text) if cdef_only else text)
        defines.update({k: v for k, v in d.items() if not k.startswith("AIOCANN_")})
        enums.update(e)
        records.update(r)
        funcs.update(f)
    return defines, enums, records, funcs


OUR_DEFINES, OUR_ENUMS, OUR_RECORDS, OUR_FUNCTIONS = _ours(cdef_only=False)
CDEF_DEFINES = set(_ours(cdef_only=True)[0])
OUR_ENUM_MEMBERS = [m for members in OUR_ENUMS.values() for m in members]
OUR_TYPEDEFS = set()
for _name in OUR_HEADERS:
    _region = _strip_comments(_cffi_region((ACL_INCLUDE / _name).read_text()))
    OUR_TYPEDEFS |= set(re.findall(r"typedef\s+[\w\s*]+?\b(\w+)\s*;", _region))
    OUR_TYPEDEFS |= set(re.findall(r"\(\s*\*\s*(\w+)\s*\)", _region))
OUR_TYPEDEFS |= set(OUR_ENUMS) | set(OUR_RECORDS)

# Known, deliberate differences between our headers and the real ones: name -> reason.
# (None at commit 681ef7610 of the real headers.)
KNOWN_MISMATCHES: dict[str, str] = {}


def _params(names):
    return [
        pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_MISMATCHES[n], strict=True))
        if n in KNOWN_MISMATCHES
        else n
        for n in sorted(names)
    ]


def _resolve(ctype: str) -> str:
    """Spell a real C type as cffi does: typedefs resolved, const dropped, no whitespace."""

    def spell(text: str) -> str:
        def sub(m: re.Match) -> str:
            kind, spelling = REAL_TYPEDEFS.get(m.group(0), (None, None))
            if kind in ("alias", "fnptr"):
                return spell(spelling)
            if kind in ("enum", "struct", "union") and spelling:
                return f"{kind} {spelling}"
            return m.group(0)

        return re.sub(r"\b\w+\b", sub, text)

    ctype = re.sub(r"\bconst\b", "", spell(ctype))
    # A pointer to a function-pointer typedef (aclrtAllocatorGetByStream's outputs): spelled
    # out, its stars go inside the declarator, R(*)(A) * -> R(**)(A).
    ctype = re.sub(
        r"\(\*(\**)\)(\((?:[^()]|\([^()]*\))*\))((?:\s*\*)+)",
        lambda m: f"(*{m.group(1)}{m.group(3).replace(' ', '')})" + m.group(2),
        ctype,
    )
    return re.sub(r"\s+", "", ctype).replace("(void)", "()")


def _cffi_cname(ctype) -> str:
    return re.sub(r"\s+", "", ctype.cname).replace("(void)", "()")


# --- coverage: every ACL declaration of ours has a real counterpart in the tables -------


def test_every_declaration_is_in_the_real_header():
    assert sorted(set(OUR_FUNCTIONS) - set(REAL_FUNCTIONS)) == []
    assert sorted((set(OUR_DEFINES) | set(OUR_ENUM_MEMBERS)) - set(REAL_CONSTANTS)) == []
    assert sorted(set(OUR_RECORDS) - set(REAL_RECORDS)) == []
    assert sorted(OUR_TYPEDEFS - set(REAL_TYPEDEFS)) == []
    # and nothing in the tables is stale
    assert set(REAL_FUNCTIONS) == set(OUR_FUNCTIONS)
    assert set(REAL_RECORDS) == set(OUR_RECORDS)


# --- functions ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", _params(OUR_FUNCTIONS))
def test_function_prototype_matches_real(name):
    """The prototype as written in our header (typedef names, const kept)."""
    ret, params = OUR_FUNCTIONS[name]
    real_ret, real_params = REAL_FUNCTIONS[name]
    assert (ret, list(params)) == (real_ret, list(real_params))


@pytest.mark.parametrize("name", _params(OUR_FUNCTIONS))
def test_function_cffi_type_matches_real(name):
    """The type cffi compiled for lib.NAME equals the real prototype with typedefs resolved."""
    real_ret, real_params = REAL_FUNCTIONS[name]
    expected = _resolve(f"{real_ret}(*)({', '.join(real_params)})")
    assert _cffi_cname(ffi.typeof(getattr(lib, name))) == expected


# --- constants and enum members -----------------------------------------------------------


@pytest.mark.parametrize("name", _params(set(OUR_DEFINES) | set(OUR_ENUM_MEMBERS)))
def test_constant_value_matches_real(name):
    if name in OUR_DEFINES:
        assert int(OUR_DEFINES[name].rstrip("uUlL"), 0) == REAL_CONSTANTS[name]
    if name in CDEF_DEFINES or name in OUR_ENUM_MEMBERS:
        assert getattr(lib, name) == REAL_CONSTANTS[name]


# --- typedefs, enums, structs and unions --------------------------------------------------


@pytest.mark.parametrize("name", _params(OUR_TYPEDEFS))
def test_typedef_matches_real(name):
    kind, spelling = REAL_TYPEDEFS[name]
    ctype = ffi.typeof(name)
    if kind in ("alias", "fnptr"):
        assert _cffi_cname(ctype) == _resolve(name)
    else:
        assert ctype.kind == kind
        if spelling:  # the real typedef names a tag; anonymous real tags are ABI-neutral
            assert ctype.cname == f"{kind} {spelling}"
    if kind == "enum":
        assert ffi.sizeof(ctype) == REAL_ENUM_SIZES[name]


@pytest.mark.parametrize("name", _params(OUR_RECORDS))
def test_record_layout_matches_real(name):
    kind, size, align, members = REAL_RECORDS[name]
    our_kind, our_members = OUR_RECORDS[name]
    assert our_kind == kind
    assert [tuple(m) for m in our_members] == [(m, t) for m, t, _, _ in members]
    ctype = ffi.typeof(name)
    assert ctype.kind == kind
    assert (ffi.sizeof(ctype), ffi.alignof(ctype)) == (size, align)
    fields = dict(ctype.fields)
    assert list(fields) == [m for m, _, _, _ in members]
    for member, _, offset, msize in members:
        assert (member, ffi.offsetof(ctype, member), ffi.sizeof(fields[member].type)) == (member, offset, msize)


# --- the error-code table of the Python side ----------------------------------------------


def _error_codes(names_and_values) -> dict[str, int]:
    return {n: int(v) for n, v in names_and_values if n.startswith("ACL_ERROR_") and n != "ACL_ERROR_NONE"}


def test_the_python_error_table_is_the_real_headers():
    """aiocann.errors.ERROR_CODES, the one table of ACL error codes in Python (the exceptions
    and the tests take their codes from it), holds exactly the real headers' codes -- and so
    exactly those of our header, the one table in C, as cffi compiled it."""
    from aiocann.errors import ERROR_CODES

    real = _error_codes(REAL_CONSTANTS.items())
    assert dict(ERROR_CODES) == real
    assert list(ERROR_CODES) == [n for n in OUR_DEFINES if n in real]  # the header's order
    assert dict(ERROR_CODES) == _error_codes((n, getattr(lib, n)) for n in dir(lib))
    assert _error_codes((n, int(v.rstrip("uUlL"), 0)) for n, v in OUR_DEFINES.items()) == real


def test_every_exception_class_is_registered_by_name_from_the_table():
    from aiocann import errors

    registered = {}
    for name in errors.__all__:
        cls = getattr(errors, name)
        for code in getattr(cls, "codes", ()):
            assert errors.error_for(code).__class__ is cls
            registered[code] = cls
            assert errors.code_name(code) in errors.ERROR_CODES
        if len(getattr(cls, "codes", ())) == 1:  # its docstring names the code it stands for
            assert cls.__doc__.startswith(errors.code_name(cls.codes[0])), name
    assert set(registered) <= set(errors.ERROR_CODES.values())
    assert errors.code_name(123456) == "ACL error 123456"
