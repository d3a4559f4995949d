"""ABI check of the headers the cffi cdef does not read (issue 23): acl_base_rt.h,
acl_rt_programs.h, acl_dump.h, acl_prof.h, acl_tdt.h and acl_tdt_queue.h, against facts of
the real headers.

tests/sim/test_abi.py checks the headers aiocann's binding compiles (through cffi); this
module checks the rest the same way, with a C compiler instead of cffi: every function's
prototype (normalized, as test_abi.py does), every constant's and enum member's value, every
enum's size, and every struct's and union's size, alignment and member offsets and sizes. The
facts are data taken from hicann/runtime include/external/acl/{acl_rt.h, acl_base_rt.h,
acl_dump.h, acl_prof.h, acl_tdt.h, acl_tdt_queue.h} at commit 681ef7610 (values and layouts
measured by compiling those headers with g++ on x86_64: the real acl_tdt.h is C++ only); no
header text is copied.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "native" / "include"
HEADERS = ("acl_base_rt.h", "acl_rt_programs.h", "acl_dump.h", "acl_prof.h", "acl_tdt.h", "acl_tdt_queue.h")

_spec = importlib.util.spec_from_file_location("_test_abi_helpers", ROOT / "tests" / "sim" / "test_abi.py")
assert _spec is not None and _spec.loader is not None
_abi = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_abi)
_parse_member = _abi._parse_member


def _tolerant_member(m: str) -> tuple[str | None, str | None]:
    # Members with macro-sized arrays or nested unions: their layout is measured below instead.
    try:
        return _parse_member(m)  # type: ignore[no-any-return]
    except AttributeError:
        return None, None


_abi._parse_member = _tolerant_member

REAL_FUNCTIONS = {
    "aclAppLog": ("void", ["aclLogLevel", "const char *", "const char *", "uint32_t", "const char *", ""]),
    "aclCreateDataBuffer": ("aclDataBuffer *", ["void *", "size_t"]),
    "aclDataTypeSize": ("size_t", ["aclDataType"]),
    "aclDestroyDataBuffer": ("aclError", ["const aclDataBuffer *"]),
    "aclFloat16ToFloat": ("float", ["aclFloat16"]),
    "aclFloatToFloat16": ("aclFloat16", ["float"]),
    "aclGetCannAttribute": ("aclError", ["aclCannAttr", "int32_t *"]),
    "aclGetCannAttributeList": ("aclError", ["const aclCannAttr **", "size_t *"]),
    "aclGetDataBufferAddr": ("void *", ["const aclDataBuffer *"]),
    "aclGetDataBufferSize": ("uint32_t", ["const aclDataBuffer *"]),
    "aclGetDataBufferSizeV2": ("size_t", ["const aclDataBuffer *"]),
    "aclUpdateDataBuffer": ("aclError", ["aclDataBuffer *", "void *", "size_t"]),
    "acldumpGetExceptionInfoPath": ("aclError", ["char *", "size_t"]),
    "acldumpGetPath": ("const char *", ["acldumpType"]),
    "acldumpRegCallback": ("aclError", ["int32_t * const messageCallback const acldumpChunk *", "int32_t"]),
    "acldumpSaveExceptionInfo": ("aclError", ["const char *", "const char *", "const acldumpTensorInfo *", "size_t"]),
    "acldumpUnregCallback": ("void", []),
    "aclmdlFinalizeDump": ("aclError", []),
    "aclmdlInitDump": ("aclError", []),
    "aclmdlRIAddCondTask": ("aclError", ["aclmdlRICondTaskParams", "aclrtStream", "uint32_t"]),
    "aclmdlRIBindStream": ("aclError", ["aclmdlRI", "aclrtStream", "uint32_t"]),
    "aclmdlRIBuildBegin": ("aclError", ["aclmdlRI *", "uint32_t"]),
    "aclmdlRIBuildEnd": ("aclError", ["aclmdlRI", "void *"]),
    "aclmdlRICaptureToModelRIBegin": ("aclError", ["aclrtStream", "aclmdlRI", "aclmdlRICaptureMode"]),
    "aclmdlRICondHandleCreate": (
        "aclError",
        ["aclmdlRI", "uint32_t", "aclmdlRICondHandleFlag", "aclmdlRICondHandle *"],
    ),
    "aclmdlRICondHandleGetCondPtr": ("aclError", ["aclmdlRICondHandle", "uint64_t **"]),
    "aclmdlRIDebugJsonPrint": ("aclError", ["aclmdlRI", "const char *", "uint32_t"]),
    "aclmdlRIEndTask": ("aclError", ["aclmdlRI", "aclrtStream"]),
    "aclmdlRIUnbindStream": ("aclError", ["aclmdlRI", "aclrtStream"]),
    "aclmdlSetDump": ("aclError", ["const char *"]),
    "aclopStartDumpArgs": ("aclError", ["uint32_t", "const char *"]),
    "aclopStopDumpArgs": ("aclError", ["uint32_t"]),
    "aclprofCreateConfig": (
        "aclprofConfig *",
        ["uint32_t *", "uint32_t", "aclprofAicoreMetrics", "const aclprofAicoreEvents *", "uint64_t"],
    ),
    "aclprofCreateStamp": ("void *", []),
    "aclprofCreateStepInfo": ("aclprofStepInfo *", []),
    "aclprofCreateSubscribeConfig": ("aclprofSubscribeConfig *", ["int8_t", "aclprofAicoreMetrics", "void *"]),
    "aclprofDestroyConfig": ("aclError", ["const aclprofConfig *"]),
    "aclprofDestroyStamp": ("void", ["void *"]),
    "aclprofDestroyStepInfo": ("void", ["aclprofStepInfo *"]),
    "aclprofDestroySubscribeConfig": ("aclError", ["const aclprofSubscribeConfig *"]),
    "aclprofFinalize": ("aclError", []),
    "aclprofGetModelId": ("size_t", ["const void *", "size_t", "uint32_t"]),
    "aclprofGetOpAttriValue": ("const char *", ["const void *", "size_t", "uint32_t", "aclprofSubscribeOpAttri"]),
    "aclprofGetOpDescSize": ("aclError", ["size_t *"]),
    "aclprofGetOpDuration": ("uint64_t", ["const void *", "size_t", "uint32_t"]),
    "aclprofGetOpEnd": ("uint64_t", ["const void *", "size_t", "uint32_t"]),
    "aclprofGetOpFlag": ("aclprofSubscribeOpFlag", ["const void *", "size_t", "uint32_t"]),
    "aclprofGetOpName": ("aclError", ["const void *", "size_t", "uint32_t", "char *", "size_t"]),
    "aclprofGetOpNameLen": ("aclError", ["const void *", "size_t", "uint32_t", "size_t *"]),
    "aclprofGetOpNum": ("aclError", ["const void *", "size_t", "uint32_t *"]),
    "aclprofGetOpStart": ("uint64_t", ["const void *", "size_t", "uint32_t"]),
    "aclprofGetOpType": ("aclError", ["const void *", "size_t", "uint32_t", "char *", "size_t"]),
    "aclprofGetOpTypeLen": ("aclError", ["const void *", "size_t", "uint32_t", "size_t *"]),
    "aclprofGetStepTimestamp": ("aclError", ["aclprofStepInfo *", "aclprofStepTag", "aclrtStream"]),
    "aclprofInit": ("aclError", ["const char *", "size_t"]),
    "aclprofMark": ("aclError", ["void *"]),
    "aclprofMarkEx": ("aclError", ["const char *", "size_t", "aclrtStream"]),
    "aclprofModelSubscribe": ("aclError", ["uint32_t", "const aclprofSubscribeConfig *"]),
    "aclprofModelUnSubscribe": ("aclError", ["uint32_t"]),
    "aclprofPop": ("aclError", []),
    "aclprofPush": ("aclError", ["void *"]),
    "aclprofRangePop": ("aclError", []),
    "aclprofRangePushEx": ("aclError", ["aclprofEventAttributes *"]),
    "aclprofRangeStart": ("aclError", ["void *", "uint32_t *"]),
    "aclprofRangeStop": ("aclError", ["uint32_t"]),
    "aclprofSetConfig": ("aclError", ["aclprofConfigType", "const char *", "size_t"]),
    "aclprofSetStampTraceMessage": ("aclError", ["void *", "const char *", "uint32_t"]),
    "aclprofStart": ("aclError", ["const aclprofConfig *"]),
    "aclprofStop": ("aclError", ["const aclprofConfig *"]),
    "aclprofStr2Id": ("uint64_t", ["const char *"]),
    "aclrtActiveStream": ("aclError", ["aclrtStream", "aclrtStream"]),
    "aclrtCheckArchCompatibility": ("aclError", ["const char *", "int32_t *"]),
    "aclrtCreateLabel": ("aclError", ["aclrtLabel *"]),
    "aclrtCreateLabelList": ("aclError", ["aclrtLabel *", "size_t", "aclrtLabelList *"]),
    "aclrtCreateStreamConfigHandle": ("aclrtStreamConfigHandle *", []),
    "aclrtCreateStreamV2": ("aclError", ["aclrtStream *", "const aclrtStreamConfigHandle *"]),
    "aclrtDestroyLabel": ("aclError", ["aclrtLabel"]),
    "aclrtDestroyLabelList": ("aclError", ["aclrtLabelList"]),
    "aclrtDestroyStreamConfigHandle": ("aclError", ["aclrtStreamConfigHandle *"]),
    "aclrtGetArgsFromExceptionInfo": ("aclError", ["const aclrtExceptionInfo *", "void **", "uint32_t *"]),
    "aclrtGetErrorVerbose": ("aclError", ["int32_t", "aclrtErrorInfo *"]),
    "aclrtGetFuncHandleFromExceptionInfo": ("aclError", ["const aclrtExceptionInfo *", "aclrtFuncHandle *"]),
    "aclrtIpcGetEventHandle": ("aclError", ["aclrtEvent", "aclrtIpcEventHandle *"]),
    "aclrtIpcOpenEventHandle": ("aclError", ["aclrtIpcEventHandle", "aclrtEvent *"]),
    "aclrtLaunchHostFunc": ("aclError", ["aclrtStream", "aclrtHostFunc", "void *"]),
    "aclrtMemAllocManaged": ("aclError", ["void **", "uint64_t", "uint32_t"]),
    "aclrtMemExportToShareableHandleV2": (
        "aclError",
        ["aclrtDrvMemHandle", "uint64_t", "aclrtMemSharedHandleType", "void *"],
    ),
    "aclrtMemImportFromShareableHandleV2": (
        "aclError",
        ["void *", "aclrtMemSharedHandleType", "uint64_t", "aclrtDrvMemHandle *"],
    ),
    "aclrtMemSetAccess": ("aclError", ["void *", "size_t", "aclrtMemAccessDesc *", "size_t"]),
    "aclrtProcessHostFunc": ("aclError", ["int32_t"]),
    "aclrtRandomNumAsync": ("aclError", ["const aclrtRandomNumTaskInfo *", "const aclrtStream", "void *"]),
    "aclrtRecordEventWithFlag": ("aclError", ["aclrtEvent", "aclrtStream", "uint32_t"]),
    "aclrtRegStreamStateCallback": ("aclError", ["const char *", "aclrtStreamStateCallback", "void *"]),
    "aclrtSetLabel": ("aclError", ["aclrtLabel", "aclrtStream"]),
    "aclrtSetStreamConfigOpt": (
        "aclError",
        ["aclrtStreamConfigHandle *", "aclrtStreamConfigAttr", "const void *", "size_t"],
    ),
    "aclrtStreamGetFlags": ("aclError", ["aclrtStream", "uint32_t *"]),
    "aclrtStreamGetPriority": ("aclError", ["aclrtStream", "uint32_t *"]),
    "aclrtStreamStop": ("aclError", ["aclrtStream"]),
    "aclrtStreamWaitEventWithFlag": ("aclError", ["aclrtStream", "aclrtEvent", "uint32_t", "uint32_t"]),
    "aclrtSubscribeHostFunc": ("aclError", ["uint64_t", "aclrtStream"]),
    "aclrtSwitchLabelByIndex": ("aclError", ["void *", "uint32_t", "aclrtLabelList", "aclrtStream"]),
    "aclrtSwitchStream": (
        "aclError",
        ["void *", "aclrtCondition", "void *", "aclrtCompareDataType", "aclrtStream", "aclrtStream", "aclrtStream"],
    ),
    "aclrtUnSubscribeHostFunc": ("aclError", ["uint64_t", "aclrtStream"]),
    "aclsysGetVersionNum": ("aclError", ["char *", "int32_t *"]),
    "acltdtAddDataItem": ("aclError", ["acltdtDataset *", "acltdtDataItem *"]),
    "acltdtAddQueueRoute": ("aclError", ["acltdtQueueRouteList *", "const acltdtQueueRoute *"]),
    "acltdtAllocBuf": ("aclError", ["size_t", "uint32_t", "acltdtBuf *"]),
    "acltdtAppendBufChain": ("aclError", ["acltdtBuf", "acltdtBuf"]),
    "acltdtAttachQueue": ("aclError", ["uint32_t", "int32_t", "uint32_t *"]),
    "acltdtBindQueueRoutes": ("aclError", ["acltdtQueueRouteList *"]),
    "acltdtCleanChannel": ("aclError", ["acltdtChannelHandle *"]),
    "acltdtCopyBufRef": ("aclError", ["const acltdtBuf", "acltdtBuf *"]),
    "acltdtCreateChannel": ("acltdtChannelHandle *", ["uint32_t", "const char *"]),
    "acltdtCreateChannelWithCapacity": ("acltdtChannelHandle *", ["uint32_t", "const char *", "size_t"]),
    "acltdtCreateDataItem": (
        "acltdtDataItem *",
        ["acltdtTensorType", "const int64_t *", "size_t", "aclDataType", "void *", "size_t"],
    ),
    "acltdtCreateDataset": ("acltdtDataset *", []),
    "acltdtCreateQueue": ("aclError", ["const acltdtQueueAttr *", "uint32_t *"]),
    "acltdtCreateQueueAttr": ("acltdtQueueAttr *", []),
    "acltdtCreateQueueRoute": ("acltdtQueueRoute *", ["uint32_t", "uint32_t"]),
    "acltdtCreateQueueRouteList": ("acltdtQueueRouteList *", []),
    "acltdtCreateQueueRouteQueryInfo": ("acltdtQueueRouteQueryInfo *", []),
    "acltdtDequeue": ("aclError", ["uint32_t", "acltdtBuf *", "int32_t"]),
    "acltdtDequeueData": ("aclError", ["uint32_t", "void *", "size_t", "size_t *", "void *", "size_t", "int32_t"]),
    "acltdtDestroyChannel": ("aclError", ["acltdtChannelHandle *"]),
    "acltdtDestroyDataItem": ("aclError", ["acltdtDataItem *"]),
    "acltdtDestroyDataset": ("aclError", ["acltdtDataset *"]),
    "acltdtDestroyQueue": ("aclError", ["uint32_t"]),
    "acltdtDestroyQueueAttr": ("aclError", ["const acltdtQueueAttr *"]),
    "acltdtDestroyQueueRoute": ("aclError", ["const acltdtQueueRoute *"]),
    "acltdtDestroyQueueRouteList": ("aclError", ["const acltdtQueueRouteList *"]),
    "acltdtDestroyQueueRouteQueryInfo": ("aclError", ["const acltdtQueueRouteQueryInfo *"]),
    "acltdtEnqueue": ("aclError", ["uint32_t", "acltdtBuf", "int32_t"]),
    "acltdtEnqueueData": (
        "aclError",
        ["uint32_t", "const void *", "size_t", "const void *", "size_t", "int32_t", "uint32_t"],
    ),
    "acltdtFreeBuf": ("aclError", ["acltdtBuf"]),
    "acltdtGetBufChainNum": ("aclError", ["acltdtBuf", "uint32_t *"]),
    "acltdtGetBufData": ("aclError", ["const acltdtBuf", "void **", "size_t *"]),
    "acltdtGetBufDataLen": ("aclError", ["acltdtBuf", "size_t *"]),
    "acltdtGetBufFromChain": ("aclError", ["acltdtBuf", "uint32_t", "acltdtBuf *"]),
    "acltdtGetBufUserData": ("aclError", ["const acltdtBuf", "void *", "size_t", "size_t"]),
    "acltdtGetDataAddrFromItem": ("void *", ["const acltdtDataItem *"]),
    "acltdtGetDataItem": ("acltdtDataItem *", ["const acltdtDataset *", "size_t"]),
    "acltdtGetDataSizeFromItem": ("size_t", ["const acltdtDataItem *"]),
    "acltdtGetDataTypeFromItem": ("aclDataType", ["const acltdtDataItem *"]),
    "acltdtGetDatasetName": ("const char *", ["const acltdtDataset *"]),
    "acltdtGetDatasetSize": ("size_t", ["const acltdtDataset *"]),
    "acltdtGetDimNumFromItem": ("size_t", ["const acltdtDataItem *"]),
    "acltdtGetDimsFromItem": ("aclError", ["const acltdtDataItem *", "int64_t *", "size_t"]),
    "acltdtGetQueueAttr": (
        "aclError",
        ["const acltdtQueueAttr *", "acltdtQueueAttrType", "size_t", "size_t *", "void *"],
    ),
    "acltdtGetQueueRoute": ("aclError", ["const acltdtQueueRouteList *", "size_t", "acltdtQueueRoute *"]),
    "acltdtGetQueueRouteNum": ("size_t", ["const acltdtQueueRouteList *"]),
    "acltdtGetQueueRouteParam": (
        "aclError",
        ["const acltdtQueueRoute *", "acltdtQueueRouteParamType", "size_t", "size_t *", "void *"],
    ),
    "acltdtGetSliceInfoFromItem": ("aclError", ["const acltdtDataItem *", "size_t *", "size_t *"]),
    "acltdtGetTensorTypeFromItem": ("acltdtTensorType", ["const acltdtDataItem *"]),
    "acltdtGrantQueue": ("aclError", ["uint32_t", "int32_t", "uint32_t", "int32_t"]),
    "acltdtQueryChannelSize": ("aclError", ["const acltdtChannelHandle *", "size_t *"]),
    "acltdtQueryQueueRoutes": ("aclError", ["const acltdtQueueRouteQueryInfo *", "acltdtQueueRouteList *"]),
    "acltdtReceiveTensor": ("aclError", ["const acltdtChannelHandle *", "acltdtDataset *", "int32_t"]),
    "acltdtSendTensor": ("aclError", ["const acltdtChannelHandle *", "const acltdtDataset *", "int32_t"]),
    "acltdtSetBufDataLen": ("aclError", ["acltdtBuf", "size_t"]),
    "acltdtSetBufUserData": ("aclError", ["acltdtBuf", "const void *", "size_t", "size_t"]),
    "acltdtSetQueueAttr": ("aclError", ["acltdtQueueAttr *", "acltdtQueueAttrType", "size_t", "const void *"]),
    "acltdtSetQueueRouteQueryInfo": (
        "aclError",
        ["acltdtQueueRouteQueryInfo *", "acltdtQueueRouteQueryInfoParamType", "size_t", "const void *"],
    ),
    "acltdtStopChannel": ("aclError", ["acltdtChannelHandle *"]),
    "acltdtUnbindQueueRoutes": ("aclError", ["acltdtQueueRouteList *"]),
}
REAL_CONSTANTS = {
    "ACL_AICORE_ARITHMETIC_UTILIZATION": 0,
    "ACL_AICORE_L0B_AND_WIDTH": 3,
    "ACL_AICORE_L2_CACHE": 6,
    "ACL_AICORE_MEMORY_ACCESS": 8,
    "ACL_AICORE_MEMORY_BANDWIDTH": 2,
    "ACL_AICORE_MEMORY_UB": 5,
    "ACL_AICORE_NONE": 255,
    "ACL_AICORE_PIPE_EXECUTE_UTILIZATION": 7,
    "ACL_AICORE_PIPE_UTILIZATION": 1,
    "ACL_AICORE_RESOURCE_CONFLICT_RATIO": 4,
    "ACL_CANN_ATTR_BF16": 1,
    "ACL_CANN_ATTR_INF_NAN": 0,
    "ACL_CANN_ATTR_JIT_COMPILE": 2,
    "ACL_CANN_ATTR_UNDEFINED": -1,
    "ACL_DEBUG": 0,
    "ACL_DUMP_ADDR_PTR": 0,
    "ACL_DUMP_ADDR_PTR_PTR": 1,
    "ACL_DUMP_ADDR_RAW": 2,
    "ACL_DUMP_MAX_FILE_PATH_LENGTH": 4096,
    "ACL_DUMP_MAX_SHAPE_NUM": 25,
    "ACL_DUMP_PLACEMENT_DEVICE": 0,
    "ACL_DUMP_PLACEMENT_END": 2,
    "ACL_DUMP_PLACEMENT_HOST": 1,
    "ACL_DUMP_TENSOR_INPUT": 0,
    "ACL_DUMP_TENSOR_OUTPUT": 1,
    "ACL_DUMP_TENSOR_WORKSPACE": 2,
    "ACL_ERROR": 3,
    "ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED": 100030,
    "ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED": 100028,
    "ACL_ERROR_COMPILING_STUB_MODE": 100039,
    "ACL_ERROR_DESERIALIZE_MODEL": 100012,
    "ACL_ERROR_DUMP_ALREADY_RUN": 100044,
    "ACL_ERROR_DUMP_NOT_RUN": 100045,
    "ACL_ERROR_FILE_ATTR_INVALID": 100008,
    "ACL_ERROR_FILE_MISSING_ATTR": 100007,
    "ACL_ERROR_FORMAT_NOT_MATCH": 100027,
    "ACL_ERROR_GROUP_NOT_CREATE": 100041,
    "ACL_ERROR_GROUP_NOT_SET": 100040,
    "ACL_ERROR_INVALID_BUNDLE_MODEL_ID": 148053,
    "ACL_ERROR_INVALID_DUMP_CONFIG": 100009,
    "ACL_ERROR_INVALID_FILE_SIZE": 100005,
    "ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG": 148048,
    "ACL_ERROR_INVALID_MODEL_ID": 100011,
    "ACL_ERROR_INVALID_OPP_PATH": 148049,
    "ACL_ERROR_INVALID_PROFILING_CONFIG": 100010,
    "ACL_ERROR_INVALID_QUEUE_ID": 100032,
    "ACL_ERROR_KERNEL_ALREADY_REGISTERED": 100031,
    "ACL_ERROR_KERNEL_NOT_FOUND": 100029,
    "ACL_ERROR_MODEL_INPUT_NOT_MATCH": 100017,
    "ACL_ERROR_MODEL_MISSING_ATTR": 100016,
    "ACL_ERROR_MODEL_NOT_DYNAMIC": 100019,
    "ACL_ERROR_MODEL_OUTPUT_NOT_MATCH": 100018,
    "ACL_ERROR_MODEL_SIZE_INVALID": 100015,
    "ACL_ERROR_NOT_STATIC_AIPP": 100038,
    "ACL_ERROR_OP_ATTR_NOT_MATCH": 100023,
    "ACL_ERROR_OP_INPUT_NOT_MATCH": 100021,
    "ACL_ERROR_OP_LOAD_FAILED": 100025,
    "ACL_ERROR_OP_NOT_FOUND": 100024,
    "ACL_ERROR_OP_OUTPUT_NOT_MATCH": 100022,
    "ACL_ERROR_OP_TYPE_NOT_MATCH": 100020,
    "ACL_ERROR_OP_UNSUPPORTED_DYNAMIC": 148050,
    "ACL_ERROR_PARSE_FILE": 100006,
    "ACL_ERROR_PARSE_MODEL": 100013,
    "ACL_ERROR_PROF_ALREADY_RUN": 100042,
    "ACL_ERROR_PROF_API_CONFLICT": 148047,
    "ACL_ERROR_PROF_MODULES_UNSUPPORTED": 200007,
    "ACL_ERROR_PROF_NOT_RUN": 100043,
    "ACL_ERROR_PROF_REPEAT_SUBSCRIBE": 148046,
    "ACL_ERROR_READ_MODEL_FAILURE": 100014,
    "ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED": 148051,
    "ACL_ERROR_UNSUPPORTED_DATA_TYPE": 100026,
    "ACL_ERROR_UNSUPPORTED_JPEG": 148052,
    "ACL_ERROR_WRITE_FILE": 100004,
    "ACL_EVENT_RECORD_DEFAULT": 0,
    "ACL_EVENT_RECORD_EXTERNAL": 1,
    "ACL_EVENT_WAIT_DEFAULT": 0,
    "ACL_EVENT_WAIT_EXTERNAL": 1,
    "ACL_FORMAT_FRACTAL_NZ": 29,
    "ACL_FORMAT_FRACTAL_NZ_C0_16": 50,
    "ACL_FORMAT_FRACTAL_NZ_C0_2": 52,
    "ACL_FORMAT_FRACTAL_NZ_C0_32": 51,
    "ACL_FORMAT_FRACTAL_NZ_C0_4": 53,
    "ACL_FORMAT_FRACTAL_NZ_C0_8": 54,
    "ACL_FORMAT_FRACTAL_Z": 4,
    "ACL_FORMAT_HWCN": 16,
    "ACL_FORMAT_NC": 35,
    "ACL_FORMAT_NC1HWC0": 3,
    "ACL_FORMAT_NC1HWC0_C04": 12,
    "ACL_FORMAT_NCDHW": 30,
    "ACL_FORMAT_NCHW": 0,
    "ACL_FORMAT_NCL": 47,
    "ACL_FORMAT_ND": 2,
    "ACL_FORMAT_NDC1HWC0": 32,
    "ACL_FORMAT_NDHWC": 27,
    "ACL_FORMAT_NHWC": 1,
    "ACL_FORMAT_UNDEFINED": -1,
    "ACL_FRACTAL_Z_3D": 33,
    "ACL_INFO": 1,
    "ACL_IPC_EVENT_HANDLE_SIZE": 64,
    "ACL_MEMTYPE_DEVICE": 0,
    "ACL_MEMTYPE_HOST": 1,
    "ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT": 2,
    "ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT": 1,
    "ACL_MEM_SHARE_HANDLE_TYPE_FABRIC": 2,
    "ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT": 1,
    "ACL_MODEL_RI_COND_TYPE_IF": 0,
    "ACL_MODEL_RI_COND_TYPE_SWITCH": 2,
    "ACL_MODEL_RI_COND_TYPE_WHILE": 1,
    "ACL_OP_DUMP_OP_AICORE_ARGS": 1,
    "ACL_PROF_ACL_API": 1,
    "ACL_PROF_AICORE_METRICS": 4,
    "ACL_PROF_AICORE_SHAPE": 34359738368,
    "ACL_PROF_AICPU": 8,
    "ACL_PROF_API_STATS": 17179869184,
    "ACL_PROF_ARGS_MAX": 17,
    "ACL_PROF_ARGS_MIN": 0,
    "ACL_PROF_DVPP_FREQ": 7,
    "ACL_PROF_EVENT_ATTR_VERSION": 1,
    "ACL_PROF_GE_API_L0": 512,
    "ACL_PROF_GE_API_L1": 16777216,
    "ACL_PROF_HCCL_TRACE": 32,
    "ACL_PROF_HOST_SYS": 8,
    "ACL_PROF_HOST_SYS_USAGE": 9,
    "ACL_PROF_HOST_SYS_USAGE_FREQ": 10,
    "ACL_PROF_L2CACHE": 16,
    "ACL_PROF_LLC_MODE": 4,
    "ACL_PROF_LOW_POWER_FREQ": 11,
    "ACL_PROF_MAX_OP_NAME_LEN": 257,
    "ACL_PROF_MAX_OP_TYPE_LEN": 65,
    "ACL_PROF_MESSAGE_TYPE_TENSOR_INFO": 0,
    "ACL_PROF_MSPROFTX": 128,
    "ACL_PROF_NTS_METRICS": 15,
    "ACL_PROF_OPTYPE": 14,
    "ACL_PROF_OP_ATTR": 16384,
    "ACL_PROF_PATH": 16,
    "ACL_PROF_RUNTIME_API": 256,
    "ACL_PROF_STORAGE_LIMIT": 1,
    "ACL_PROF_SYS_CPU_FREQ": 13,
    "ACL_PROF_SYS_HARDWARE_MEM_FREQ": 3,
    "ACL_PROF_SYS_INTERCONNECTION_FREQ": 6,
    "ACL_PROF_SYS_IO_FREQ": 5,
    "ACL_PROF_SYS_MEM_SERVICEFLOW": 12,
    "ACL_PROF_TASK_MEMORY": 4096,
    "ACL_PROF_TASK_TIME": 2,
    "ACL_PROF_TASK_TIME_L0": 2048,
    "ACL_PROF_TASK_TIME_L2": 8192,
    "ACL_PROF_TASK_TIME_L3": 32768,
    "ACL_PROF_TENSOR_DATA_SHAPE_LEN": 8,
    "ACL_PROF_TRAINING_TRACE": 64,
    "ACL_RT_AICORE_ERROR_HW_LOCAL": 2,
    "ACL_RT_AICORE_ERROR_SW": 1,
    "ACL_RT_AICORE_ERROR_UNKNOWN": 0,
    "ACL_RT_EQUAL": 0,
    "ACL_RT_ERROR_AICORE": 3,
    "ACL_RT_ERROR_L2": 2,
    "ACL_RT_ERROR_L3_PORT": 5,
    "ACL_RT_ERROR_LINK": 4,
    "ACL_RT_ERROR_MEMORY": 1,
    "ACL_RT_ERROR_OTHERS": 65535,
    "ACL_RT_GREATER": 2,
    "ACL_RT_GREATER_OR_EQUAL": 3,
    "ACL_RT_LESS": 4,
    "ACL_RT_LESS_OR_EQUAL": 5,
    "ACL_RT_MEM_ACCESS_FLAGS_NONE": 0,
    "ACL_RT_MEM_ACCESS_FLAGS_READ": 1,
    "ACL_RT_MEM_ACCESS_FLAGS_READWRITE": 3,
    "ACL_RT_MEM_ATTACH_GLOBAL": 1,
    "ACL_RT_MEM_UCE_INFO_MAX_NUM": 20,
    "ACL_RT_NOT_EQUAL": 1,
    "ACL_RT_NO_ERROR": 0,
    "ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK": 0,
    "ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS": 2,
    "ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS": 3,
    "ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS": 1,
    "ACL_RT_STREAM_FLAG": 2,
    "ACL_RT_STREAM_PRIORITY": 3,
    "ACL_RT_STREAM_STATE_CREATE_POST": 1,
    "ACL_RT_STREAM_STATE_DESTROY_PRE": 2,
    "ACL_RT_STREAM_WORK_ADDR_PTR": 0,
    "ACL_RT_STREAM_WORK_SIZE": 1,
    "ACL_RT_SWITCH_INT32": 0,
    "ACL_RT_SWITCH_INT64": 1,
    "ACL_STEP_END": 1,
    "ACL_STEP_START": 0,
    "ACL_STREAM_WAIT_VALUE_AND": 2,
    "ACL_STREAM_WAIT_VALUE_EQ": 1,
    "ACL_STREAM_WAIT_VALUE_GEQ": 0,
    "ACL_STREAM_WAIT_VALUE_NOR": 3,
    "ACL_SUBSCRIBE_ATTRI_NONE": 1,
    "ACL_SUBSCRIBE_ATTRI_THREADID": 0,
    "ACL_SUBSCRIBE_NONE": 255,
    "ACL_SUBSCRIBE_OP": 0,
    "ACL_SUBSCRIBE_OP_THREAD": 2,
    "ACL_SUBSCRIBE_SUBGRAPH": 1,
    "ACL_TDT_DVPP_MEM": 1,
    "ACL_TDT_NORMAL_MEM": 0,
    "ACL_TDT_QUEUE_DEPTH_UINT32": 1,
    "ACL_TDT_QUEUE_NAME_PTR": 0,
    "ACL_TDT_QUEUE_PERMISSION_DEQUEUE": 2,
    "ACL_TDT_QUEUE_PERMISSION_ENQUEUE": 4,
    "ACL_TDT_QUEUE_PERMISSION_MANAGE": 1,
    "ACL_TDT_QUEUE_ROUTE_BIND": 1,
    "ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL": 2,
    "ACL_TDT_QUEUE_ROUTE_DST_UINT32": 1,
    "ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL": 100,
    "ACL_TDT_QUEUE_ROUTE_QUERY_DST": 1,
    "ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32": 2,
    "ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM": 0,
    "ACL_TDT_QUEUE_ROUTE_QUERY_SRC": 0,
    "ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST": 2,
    "ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32": 1,
    "ACL_TDT_QUEUE_ROUTE_SRC_UINT32": 0,
    "ACL_TDT_QUEUE_ROUTE_STATUS_INT32": 2,
    "ACL_TDT_QUEUE_ROUTE_UNBIND": 0,
    "ACL_TENSOR_DATA_ABNORMAL": 2,
    "ACL_TENSOR_DATA_END_OF_SEQUENCE": 1,
    "ACL_TENSOR_DATA_END_TENSOR": 4,
    "ACL_TENSOR_DATA_SLICE_TENSOR": 3,
    "ACL_TENSOR_DATA_TENSOR": 0,
    "ACL_TENSOR_DATA_UNDEFINED": -1,
    "ACL_WARNING": 2,
    "AIC_ERR_BRIEF_DUMP": 1,
    "AIC_ERR_DETAIL_DUMP": 3,
    "AIC_ERR_NORM_DUMP": 2,
    "DATA_DUMP": 4,
    "MAX_MEM_UCE_INFO_ARRAY_SIZE": 128,
    "OVERFLOW_DUMP": 5,
}
REAL_RECORDS = {
    "acldumpChunk": (
        "struct",
        4120,
        8,
        [
            ("fileName", 0, 4096),
            ("bufLen", 4096, 4),
            ("isLastChunk", 4100, 4),
            ("offset", 4104, 8),
            ("flag", 4112, 4),
            ("dataBuf", 4116, 0),
        ],
    ),
    "acldumpTensorInfo": (
        "struct",
        456,
        8,
        [
            ("type", 0, 4),
            ("tensorSize", 8, 8),
            ("format", 16, 4),
            ("dataType", 20, 4),
            ("tensorAddr", 24, 8),
            ("addrType", 32, 4),
            ("placement", 36, 4),
            ("argsOffset", 40, 4),
            ("shapeNum", 44, 4),
            ("originShapeNum", 48, 4),
            ("shape", 56, 200),
            ("originShape", 256, 200),
        ],
    ),
    "aclmdlRICondTaskParams": (
        "struct",
        24,
        8,
        [("handle", 0, 8), ("type", 8, 4), ("size", 12, 4), ("modelRIArray", 16, 8)],
    ),
    "aclprofEventAttributes": (
        "struct",
        16,
        8,
        [("version", 0, 2), ("size", 2, 2), ("messageType", 4, 4), ("message", 8, 8)],
    ),
    "aclprofTensor": (
        "struct",
        48,
        4,
        [("type", 0, 4), ("format", 4, 4), ("dataType", 8, 4), ("shapeDim", 12, 4), ("shape", 16, 32)],
    ),
    "aclprofTensorInfo": (
        "struct",
        48,
        8,
        [
            ("opNameId", 0, 8),
            ("opTypeId", 8, 8),
            ("resv", 16, 4),
            ("tensorNum", 20, 4),
            ("kernelType", 24, 4),
            ("blockNums", 28, 4),
            ("stream", 32, 8),
            ("tensors", 40, 8),
        ],
    ),
    "aclrtDropoutBitmaskInfo": ("struct", 16, 1, [("dropoutRation", 0, 16)]),
    "aclrtErrorInfo": (
        "struct",
        2576,
        8,
        [("tryRepair", 0, 1), ("hasDetail", 1, 1), ("reserved", 2, 2), ("errorType", 4, 4), ("detail", 8, 2568)],
    ),
    "aclrtErrorInfoDetail": ("union", 2568, 8, [("uceInfo", 0, 2568), ("aicoreErrType", 0, 4)]),
    "aclrtIpcEventHandle": ("struct", 64, 1, [("reserved", 0, 64)]),
    "aclrtMemAccessDesc": ("struct", 24, 4, [("flags", 0, 4), ("location", 4, 8), ("rsv", 12, 12)]),
    "aclrtMemFabricHandle": ("struct", 128, 1, [("data", 0, 128)]),
    "aclrtMemUceInfoArray": ("struct", 2568, 8, [("arraySize", 0, 8), ("memUceInfoArray", 8, 2560)]),
    "aclrtNormalDisInfo": ("struct", 32, 1, [("mean", 0, 16), ("stddev", 16, 16)]),
    "aclrtRandomNumFuncParaInfo": ("struct", 36, 4, [("funcType", 0, 4), ("paramInfo", 4, 32)]),
    "aclrtRandomNumTaskInfo": (
        "struct",
        104,
        8,
        [
            ("dataType", 0, 4),
            ("randomNumFuncParaInfo", 4, 36),
            ("randomParaAddr", 40, 8),
            ("randomResultAddr", 48, 8),
            ("randomCounterAddr", 56, 8),
            ("randomSeed", 64, 16),
            ("randomNum", 80, 16),
            ("rsv", 96, 8),
        ],
    ),
    "aclrtRandomParaInfo": ("struct", 16, 1, [("isAddr", 0, 1), ("valueOrAddr", 1, 8), ("size", 9, 1), ("rsv", 10, 6)]),
    "aclrtStreamConfigHandle": (
        "struct",
        32,
        8,
        [("workptr", 0, 8), ("workSize", 8, 8), ("flag", 16, 8), ("priority", 24, 4)],
    ),
    "aclrtUniformDisInfo": ("struct", 32, 1, [("min", 0, 16), ("max", 16, 16)]),
}
REAL_ENUM_SIZES = {
    "aclCannAttr": 4,
    "aclFormat": 4,
    "aclLogLevel": 4,
    "aclMemType": 4,
    "acldumpTensorAddressType": 4,
    "acldumpTensorPlacement": 4,
    "acldumpTensorType": 4,
    "acldumpType": 4,
    "aclmdlRICondHandleFlag": 4,
    "aclmdlRICondTaskType": 4,
    "aclprofAicoreMetrics": 4,
    "aclprofConfigType": 4,
    "aclprofMessageType": 4,
    "aclprofStepTag": 4,
    "aclprofSubscribeOpAttri": 4,
    "aclprofSubscribeOpFlag": 4,
    "aclrtAicoreErrorType": 4,
    "aclrtCompareDataType": 4,
    "aclrtCondition": 4,
    "aclrtErrorType": 4,
    "aclrtMemAccessFlags": 4,
    "aclrtMemSharedHandleType": 4,
    "aclrtRandomNumFuncType": 4,
    "aclrtStreamConfigAttr": 4,
    "aclrtStreamState": 4,
    "acltdtAllocBufType": 4,
    "acltdtQueueAttrType": 4,
    "acltdtQueueRouteParamType": 4,
    "acltdtQueueRouteQueryInfoParamType": 4,
    "acltdtQueueRouteQueryMode": 4,
    "acltdtTensorType": 4,
}


def _clean(text: str) -> str:
    """Drops the visibility and deprecation decorations the parser of test_abi.py does not know."""
    text = re.sub(r"ACL_DEPRECATED_MESSAGE\s*\((?:[^()]|\([^()]*\))*\)", " ", text)
    text = re.sub(r"\b(ACL_FUNC_VISIBILITY|ACL_DEPRECATED|MSVP_PROF_API|ACL_DUMP_API|ACL_DUMP_WEAK)\b", " ", text)
    return re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", " ", text)


def _ours() -> tuple[dict[str, str], dict[str, list[str]], dict[str, tuple[str, list[str]]]]:
    defines: dict[str, str] = {}
    enums: dict[str, list[str]] = {}
    funcs: dict[str, tuple[str, list[str]]] = {}
    for name in HEADERS:
        d, e, _r, f = _abi._parse_ours(_clean((INCLUDE / "acl" / name).read_text()))
        defines.update({k: v for k, v in d.items() if not k.startswith("AIOCANN_") and not k.startswith("ACL_FUNC")})
        enums.update(e)
        funcs.update(f)
    return defines, enums, funcs


OUR_DEFINES, OUR_ENUMS, OUR_FUNCTIONS = _ours()
OUR_MEMBERS = sorted({m for members in OUR_ENUMS.values() for m in members})
# Function-like and decoration macros are not constants.
OUR_CONSTANTS = sorted((set(OUR_DEFINES) - {"ACL_DEPRECATED", "ACL_APP_LOG"}) | set(OUR_MEMBERS))


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, ...]]:
    """Values and layouts as our headers give them, compiled with the system compiler."""
    lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "acl/acl.h"', '#include "acl/acl_dump.h"']
    lines += ['#include "acl/acl_prof.h"', '#include "acl/acl_tdt.h"', '#include "acl/acl_tdt_queue.h"']
    lines += ["int main(void) {"]
    for c in OUR_CONSTANTS:
        lines.append(f'printf("C {c} %lld\\n", (long long)({c}));')
    for r, (_kind, _size, _align, members) in REAL_RECORDS.items():
        lines.append(f'printf("R {r} %zu %zu\\n", sizeof({r}), _Alignof({r}));')
        for m, _off, _msize in members:
            lines.append(f'printf("M {r}.{m} %zu %zu\\n", offsetof({r}, {m}), sizeof((({r} *)0)->{m}));')
    for e in REAL_ENUM_SIZES:
        lines.append(f'printf("E {e} %zu\\n", sizeof({e}));')
    lines.append("return 0; }")
    d = tmp_path_factory.mktemp("abi")
    (d / "m.c").write_text("\n".join(lines) + "\n")
    subprocess.run(
        ["cc", "-std=c11", "-Wall", "-Werror", f"-I{INCLUDE}", str(d / "m.c"), "-o", str(d / "m")], check=True
    )
    out = subprocess.run([str(d / "m")], capture_output=True, text=True, check=True).stdout
    return {p[1]: tuple(int(x) for x in p[2:]) for p in (line.split() for line in out.splitlines())}


def test_every_declaration_is_in_the_real_header() -> None:
    assert sorted(set(OUR_FUNCTIONS) ^ set(REAL_FUNCTIONS)) == []
    assert sorted(set(OUR_CONSTANTS) - set(REAL_CONSTANTS)) == []


@pytest.mark.parametrize("name", sorted(REAL_FUNCTIONS))
def test_function_prototype_matches_real(name: str) -> None:
    ret, params = OUR_FUNCTIONS[name]
    real_ret, real_params = REAL_FUNCTIONS[name]
    assert (ret, list(params)) == (real_ret, list(real_params))


@pytest.mark.parametrize("name", OUR_CONSTANTS)
def test_constant_value_matches_real(name: str, measured: dict[str, tuple[int, ...]]) -> None:
    assert measured[name] == (REAL_CONSTANTS[name],)


@pytest.mark.parametrize("name", sorted(REAL_RECORDS))
def test_record_layout_matches_real(name: str, measured: dict[str, tuple[int, ...]]) -> None:
    _kind, size, align, members = REAL_RECORDS[name]
    assert measured[name] == (size, align)
    for member, offset, msize in members:
        assert measured[f"{name}.{member}"] == (offset, msize), member


@pytest.mark.parametrize("name", sorted(REAL_ENUM_SIZES))
def test_enum_size_matches_real(name: str, measured: dict[str, tuple[int, ...]]) -> None:
    assert measured[name] == (REAL_ENUM_SIZES[name],)
