/*
 * aiocann native helpers: the ACL function table -- the one place where the C boundary to the
 * runtime library is crossed.
 *
 * The loader (loader.c) dlopen()s a runtime library (the bundled simulator or a real CANN
 * libacl_rt.so / libascendcl.so) and fills `aiocann_acl` with dlsym(). Every ACL call in the
 * extension -- those cffi generates for `aiocann._native.lib.aclrtMalloc` etc., and those in
 * the completion queue and fast paths -- goes through this table, because each ACL name is
 * defined below as a macro that reads its table entry. So the simulator and a real CANN
 * install take exactly the same code path.
 *
 * It includes the ACL headers: their prototypes give each entry its type (via __typeof__).
 *
 * Generated: written by native/gen_acl.py from native/acl_functions.py; edit that, not this file.
 */
#ifndef AIOCANN_ACL_TABLE_H_
#define AIOCANN_ACL_TABLE_H_

#include "acl/acl.h"
#include "acl/acl_rt_compile.h"
#include "aclsim_chip.h"
#include "aclsim_ext.h"

/* Required: loading fails, naming them, if the library lacks any. */
#define AIOCANN_ACL_REQUIRED(X) \
    X(aclInit) \
    X(aclFinalize) \
    X(aclGetRecentErrMsg) \
    X(aclrtSetDevice) \
    X(aclrtResetDevice) \
    X(aclrtGetDevice) \
    X(aclrtGetDeviceCount) \
    X(aclrtSynchronizeDevice) \
    X(aclrtCreateContext) \
    X(aclrtDestroyContext) \
    X(aclrtSetCurrentContext) \
    X(aclrtGetCurrentContext) \
    X(aclrtCreateStream) \
    X(aclrtCreateStreamWithConfig) \
    X(aclrtDestroyStream) \
    X(aclrtSynchronizeStream) \
    X(aclrtSynchronizeStreamWithTimeout) \
    X(aclrtStreamQuery) \
    X(aclrtStreamWaitEvent) \
    X(aclrtMalloc) \
    X(aclrtFree) \
    X(aclrtMallocHost) \
    X(aclrtFreeHost) \
    X(aclrtMemcpy) \
    X(aclrtMemcpyAsync) \
    X(aclrtMemset) \
    X(aclrtMemsetAsync) \
    X(aclrtGetMemInfo) \
    X(aclrtCreateEvent) \
    X(aclrtCreateEventWithFlag) \
    X(aclrtDestroyEvent) \
    X(aclrtRecordEvent) \
    X(aclrtResetEvent) \
    X(aclrtQueryEventStatus) \
    X(aclrtSynchronizeEvent) \
    X(aclrtSynchronizeEventWithTimeout) \
    X(aclrtEventElapsedTime) \
    X(aclrtSubscribeReport) \
    X(aclrtUnSubscribeReport) \
    X(aclrtLaunchCallback) \
    X(aclrtProcessReport) \
    X(aclrtBinaryLoadFromFile) \
    X(aclrtBinaryGetFunction) \
    X(aclrtBinaryUnLoad) \
    X(aclrtKernelArgsGetHandleMemSize) \
    X(aclrtKernelArgsGetMemSize) \
    X(aclrtKernelArgsInit) \
    X(aclrtKernelArgsInitByUserMem) \
    X(aclrtKernelArgsAppend) \
    X(aclrtKernelArgsAppendPlaceHolder) \
    X(aclrtKernelArgsGetPlaceHolderBuffer) \
    X(aclrtKernelArgsParaUpdate) \
    X(aclrtKernelArgsFinalize) \
    X(aclrtLaunchKernelWithConfig) \
    X(aclrtLaunchKernel)

/* Optional, from the runtime library: absent from older CANN releases, deprecated in newer
 * ones (aclrtGetVersion), absent from chips without a feature (stream capture), or the
 * simulator's own (aclsim*, absent from every real runtime). A missing one is a stand-in
 * (acl_standins.h) returning what native/acl_functions.py says, by default
 * ACL_ERROR_API_NOT_SUPPORT. */
#define AIOCANN_ACL_OPTIONAL(X) \
    X(aclrtGetVersion) \
    X(aclrtResetDeviceForce) \
    X(aclrtEventGetTimestamp) \
    X(aclrtBinaryLoadFromData) \
    X(aclrtPeekAtLastError) \
    X(aclrtGetLastError) \
    X(aclrtSetExceptionInfoCallback) \
    X(aclrtExceptionInfoCallbackRegister) \
    X(aclrtExceptionInfoCallbackUnregister) \
    X(aclrtGetTaskIdFromExceptionInfo) \
    X(aclrtGetStreamIdFromExceptionInfo) \
    X(aclrtGetThreadIdFromExceptionInfo) \
    X(aclrtGetDeviceIdFromExceptionInfo) \
    X(aclrtGetErrorCodeFromExceptionInfo) \
    X(aclrtSetStreamFailureMode) \
    X(aclrtGetThreadLastTaskId) \
    X(aclrtStreamGetId) \
    X(aclFinalizeReference) \
    X(aclsysGetVersionStr) \
    X(aclsysGetCANNVersion) \
    X(aclrtGetSocName) \
    X(aclGetDeviceCapability) \
    X(aclrtGetRunMode) \
    X(aclrtSetTsDevice) \
    X(aclrtSetDeviceSatMode) \
    X(aclrtGetDeviceSatMode) \
    X(aclrtGetDeviceUtilizationRate) \
    X(aclrtQueryDeviceStatus) \
    X(aclrtSynchronizeDeviceWithTimeout) \
    X(aclrtGetDeviceInfo) \
    X(aclrtDeviceGetStreamPriorityRange) \
    X(aclrtGetDeviceCapability) \
    X(aclrtGetLogicDevIdByUserDevId) \
    X(aclrtGetUserDevIdByLogicDevId) \
    X(aclrtGetLogicDevIdByPhyDevId) \
    X(aclrtGetPhyDevIdByLogicDevId) \
    X(aclrtDeviceGetUuid) \
    X(aclrtDeviceGetBareTgid) \
    X(aclrtDeviceCanAccessPeer) \
    X(aclrtDeviceEnablePeerAccess) \
    X(aclrtDeviceDisablePeerAccess) \
    X(aclrtDevicePeerAccessStatus) \
    X(aclrtCtxGetCurrentDefaultStream) \
    X(aclrtGetPrimaryCtxState) \
    X(aclrtCtxSetSysParamOpt) \
    X(aclrtCtxGetSysParamOpt) \
    X(aclrtSetSysParamOpt) \
    X(aclrtGetSysParamOpt) \
    X(aclrtDestroyStreamForce) \
    X(aclrtGetStreamAvailableNum) \
    X(aclrtSetStreamAttribute) \
    X(aclrtGetStreamAttribute) \
    X(aclrtCreateEventExWithFlag) \
    X(aclrtQueryEvent) \
    X(aclrtQueryEventWaitStatus) \
    X(aclrtGetEventId) \
    X(aclrtGetEventAvailNum) \
    X(aclrtMallocAlign32) \
    X(aclrtMallocCached) \
    X(aclrtMallocWithCfg) \
    X(aclrtMallocForTaskScheduler) \
    X(aclrtMallocHostWithCfg) \
    X(aclrtMemFlush) \
    X(aclrtMemInvalidate) \
    X(aclrtPointerGetAttributes) \
    X(aclrtMemcpy2d) \
    X(aclrtMemcpy2dAsync) \
    X(aclrtCreateBinary) \
    X(aclrtDestroyBinary) \
    X(aclrtBinaryLoad) \
    X(aclrtGetFunctionAddr) \
    X(aclrtGetFunctionName) \
    X(aclrtReserveMemAddress) \
    X(aclrtReleaseMemAddress) \
    X(aclrtMallocPhysical) \
    X(aclrtFreePhysical) \
    X(aclrtMapMem) \
    X(aclrtUnmapMem) \
    X(aclrtMemGetAllocationGranularity) \
    X(aclrtMemExportToShareableHandle) \
    X(aclrtMemSetPidToShareableHandle) \
    X(aclrtMemImportFromShareableHandle) \
    X(aclrtIpcMemGetExportKey) \
    X(aclrtIpcMemSetImportPid) \
    X(aclrtIpcMemImportByKey) \
    X(aclrtIpcMemClose) \
    X(aclrtHostRegister) \
    X(aclrtHostRegisterV2) \
    X(aclrtHostGetDevicePointer) \
    X(aclrtHostUnregister) \
    X(aclrtGetMemcpyDescSize) \
    X(aclrtSetMemcpyDesc) \
    X(aclrtMemcpyAsyncWithDesc) \
    X(aclrtMemcpyAsyncWithCondition) \
    X(aclrtReduceAsync) \
    X(aclrtCmoAsync) \
    X(aclrtValueWrite) \
    X(aclrtValueWait) \
    X(aclrtGetMemUceInfo) \
    X(aclrtMemUceRepair) \
    X(aclmdlRICaptureBegin) \
    X(aclmdlRICaptureGetInfo) \
    X(aclmdlRICaptureEnd) \
    X(aclmdlRICaptureThreadExchangeMode) \
    X(aclmdlRIExecuteAsync) \
    X(aclmdlRIDestroy) \
    X(aclmdlRIGetStreams) \
    X(aclmdlRICaptureTaskGrpBegin) \
    X(aclmdlRICaptureTaskGrpEnd) \
    X(aclmdlRICaptureTaskUpdateBegin) \
    X(aclmdlRICaptureTaskUpdateEnd) \
    X(aclrtAllocatorCreateDesc) \
    X(aclrtAllocatorDestroyDesc) \
    X(aclrtAllocatorSetObjToDesc) \
    X(aclrtAllocatorSetAllocFuncToDesc) \
    X(aclrtAllocatorSetFreeFuncToDesc) \
    X(aclrtAllocatorSetAllocAdviseFuncToDesc) \
    X(aclrtAllocatorSetGetAddrFromBlockFuncToDesc) \
    X(aclrtAllocatorRegister) \
    X(aclrtAllocatorGetByStream) \
    X(aclrtAllocatorUnregister) \
    X(aclrtSetStreamOverflowSwitch) \
    X(aclrtGetStreamOverflowSwitch) \
    X(aclrtGetOverflowStatus) \
    X(aclrtResetOverflowStatus) \
    X(aclrtSetOpWaitTimeout) \
    X(aclrtSetOpExecuteTimeOut) \
    X(aclrtSetOpExecuteTimeOutWithMs) \
    X(aclrtSetOpExecuteTimeOutV2) \
    X(aclrtGetOpTimeOutInterval) \
    X(aclrtGetOpExecuteTimeout) \
    X(aclrtCreateNotify) \
    X(aclrtDestroyNotify) \
    X(aclrtRecordNotify) \
    X(aclrtWaitAndResetNotify) \
    X(aclrtGetNotifyId) \
    X(aclrtNotifyBatchReset) \
    X(aclrtNotifyGetExportKey) \
    X(aclrtNotifyImportByKey) \
    X(aclrtNotifySetImportPid) \
    X(aclrtGetDeviceResLimit) \
    X(aclrtSetDeviceResLimit) \
    X(aclrtResetDeviceResLimit) \
    X(aclrtGetStreamResLimit) \
    X(aclrtSetStreamResLimit) \
    X(aclrtResetStreamResLimit) \
    X(aclrtUseStreamResInCurrentThread) \
    X(aclrtUnuseStreamResInCurrentThread) \
    X(aclrtGetResInCurrentThread) \
    X(aclrtGetDevicesTopo) \
    X(aclrtStreamAbort) \
    X(aclrtDeviceTaskAbort) \
    X(aclrtRegisterCpuFunc) \
    X(aclrtSetGroup) \
    X(aclrtGetGroupCount) \
    X(aclrtCreateGroupInfo) \
    X(aclrtDestroyGroupInfo) \
    X(aclrtGetAllGroupInfo) \
    X(aclrtGetGroupInfoDetail) \
    X(aclsimTraceStart) \
    X(aclsimTraceStop) \
    X(aclsimTraceDrain) \
    X(aclsimGetChip)

/* Optional, from the runtime compiler (aclrtc*): libacl_rtc.so beside the runtime library
 * on CANN; the loader takes them from the runtime library itself when it has them (the
 * simulator). Missing ones are stand-ins, as above. */
#define AIOCANN_ACL_OPTIONAL_RTC(X) \
    X(aclrtcCreateProg) \
    X(aclrtcCompileProg) \
    X(aclrtcAddNameExpr) \
    X(aclrtcGetLoweredName) \
    X(aclrtcGetBinDataSize) \
    X(aclrtcGetBinData) \
    X(aclrtcGetCompileLogSize) \
    X(aclrtcGetCompileLog) \
    X(aclrtcDestroyProg)

typedef struct aiocann_acl_table {
#define AIOCANN_ACL_ENTRY(name) __typeof__(name) *name;
    AIOCANN_ACL_REQUIRED(AIOCANN_ACL_ENTRY)
    AIOCANN_ACL_OPTIONAL(AIOCANN_ACL_ENTRY)
    AIOCANN_ACL_OPTIONAL_RTC(AIOCANN_ACL_ENTRY)
#undef AIOCANN_ACL_ENTRY
} aiocann_acl_table;

extern aiocann_acl_table aiocann_acl;

/* From here on, every ACL call in this translation unit goes through the table (except in the
 * loader, which only fills it and defines AIOCANN_ACL_NO_MACROS). */
#ifndef AIOCANN_ACL_NO_MACROS
#define aclInit (aiocann_acl.aclInit)
#define aclFinalize (aiocann_acl.aclFinalize)
#define aclGetRecentErrMsg (aiocann_acl.aclGetRecentErrMsg)
#define aclrtGetVersion (aiocann_acl.aclrtGetVersion)
#define aclrtSetDevice (aiocann_acl.aclrtSetDevice)
#define aclrtResetDevice (aiocann_acl.aclrtResetDevice)
#define aclrtResetDeviceForce (aiocann_acl.aclrtResetDeviceForce)
#define aclrtGetDevice (aiocann_acl.aclrtGetDevice)
#define aclrtGetDeviceCount (aiocann_acl.aclrtGetDeviceCount)
#define aclrtSynchronizeDevice (aiocann_acl.aclrtSynchronizeDevice)
#define aclrtCreateContext (aiocann_acl.aclrtCreateContext)
#define aclrtDestroyContext (aiocann_acl.aclrtDestroyContext)
#define aclrtSetCurrentContext (aiocann_acl.aclrtSetCurrentContext)
#define aclrtGetCurrentContext (aiocann_acl.aclrtGetCurrentContext)
#define aclrtCreateStream (aiocann_acl.aclrtCreateStream)
#define aclrtCreateStreamWithConfig (aiocann_acl.aclrtCreateStreamWithConfig)
#define aclrtDestroyStream (aiocann_acl.aclrtDestroyStream)
#define aclrtSynchronizeStream (aiocann_acl.aclrtSynchronizeStream)
#define aclrtSynchronizeStreamWithTimeout (aiocann_acl.aclrtSynchronizeStreamWithTimeout)
#define aclrtStreamQuery (aiocann_acl.aclrtStreamQuery)
#define aclrtStreamWaitEvent (aiocann_acl.aclrtStreamWaitEvent)
#define aclrtMalloc (aiocann_acl.aclrtMalloc)
#define aclrtFree (aiocann_acl.aclrtFree)
#define aclrtMallocHost (aiocann_acl.aclrtMallocHost)
#define aclrtFreeHost (aiocann_acl.aclrtFreeHost)
#define aclrtMemcpy (aiocann_acl.aclrtMemcpy)
#define aclrtMemcpyAsync (aiocann_acl.aclrtMemcpyAsync)
#define aclrtMemset (aiocann_acl.aclrtMemset)
#define aclrtMemsetAsync (aiocann_acl.aclrtMemsetAsync)
#define aclrtGetMemInfo (aiocann_acl.aclrtGetMemInfo)
#define aclrtCreateEvent (aiocann_acl.aclrtCreateEvent)
#define aclrtCreateEventWithFlag (aiocann_acl.aclrtCreateEventWithFlag)
#define aclrtDestroyEvent (aiocann_acl.aclrtDestroyEvent)
#define aclrtRecordEvent (aiocann_acl.aclrtRecordEvent)
#define aclrtResetEvent (aiocann_acl.aclrtResetEvent)
#define aclrtQueryEventStatus (aiocann_acl.aclrtQueryEventStatus)
#define aclrtSynchronizeEvent (aiocann_acl.aclrtSynchronizeEvent)
#define aclrtSynchronizeEventWithTimeout (aiocann_acl.aclrtSynchronizeEventWithTimeout)
#define aclrtEventElapsedTime (aiocann_acl.aclrtEventElapsedTime)
#define aclrtEventGetTimestamp (aiocann_acl.aclrtEventGetTimestamp)
#define aclrtSubscribeReport (aiocann_acl.aclrtSubscribeReport)
#define aclrtUnSubscribeReport (aiocann_acl.aclrtUnSubscribeReport)
#define aclrtLaunchCallback (aiocann_acl.aclrtLaunchCallback)
#define aclrtProcessReport (aiocann_acl.aclrtProcessReport)
#define aclrtBinaryLoadFromFile (aiocann_acl.aclrtBinaryLoadFromFile)
#define aclrtBinaryLoadFromData (aiocann_acl.aclrtBinaryLoadFromData)
#define aclrtBinaryGetFunction (aiocann_acl.aclrtBinaryGetFunction)
#define aclrtBinaryUnLoad (aiocann_acl.aclrtBinaryUnLoad)
#define aclrtKernelArgsGetHandleMemSize (aiocann_acl.aclrtKernelArgsGetHandleMemSize)
#define aclrtKernelArgsGetMemSize (aiocann_acl.aclrtKernelArgsGetMemSize)
#define aclrtKernelArgsInit (aiocann_acl.aclrtKernelArgsInit)
#define aclrtKernelArgsInitByUserMem (aiocann_acl.aclrtKernelArgsInitByUserMem)
#define aclrtKernelArgsAppend (aiocann_acl.aclrtKernelArgsAppend)
#define aclrtKernelArgsAppendPlaceHolder (aiocann_acl.aclrtKernelArgsAppendPlaceHolder)
#define aclrtKernelArgsGetPlaceHolderBuffer (aiocann_acl.aclrtKernelArgsGetPlaceHolderBuffer)
#define aclrtKernelArgsParaUpdate (aiocann_acl.aclrtKernelArgsParaUpdate)
#define aclrtKernelArgsFinalize (aiocann_acl.aclrtKernelArgsFinalize)
#define aclrtLaunchKernelWithConfig (aiocann_acl.aclrtLaunchKernelWithConfig)
#define aclrtLaunchKernel (aiocann_acl.aclrtLaunchKernel)
#define aclrtPeekAtLastError (aiocann_acl.aclrtPeekAtLastError)
#define aclrtGetLastError (aiocann_acl.aclrtGetLastError)
#define aclrtSetExceptionInfoCallback (aiocann_acl.aclrtSetExceptionInfoCallback)
#define aclrtExceptionInfoCallbackRegister (aiocann_acl.aclrtExceptionInfoCallbackRegister)
#define aclrtExceptionInfoCallbackUnregister (aiocann_acl.aclrtExceptionInfoCallbackUnregister)
#define aclrtGetTaskIdFromExceptionInfo (aiocann_acl.aclrtGetTaskIdFromExceptionInfo)
#define aclrtGetStreamIdFromExceptionInfo (aiocann_acl.aclrtGetStreamIdFromExceptionInfo)
#define aclrtGetThreadIdFromExceptionInfo (aiocann_acl.aclrtGetThreadIdFromExceptionInfo)
#define aclrtGetDeviceIdFromExceptionInfo (aiocann_acl.aclrtGetDeviceIdFromExceptionInfo)
#define aclrtGetErrorCodeFromExceptionInfo (aiocann_acl.aclrtGetErrorCodeFromExceptionInfo)
#define aclrtSetStreamFailureMode (aiocann_acl.aclrtSetStreamFailureMode)
#define aclrtGetThreadLastTaskId (aiocann_acl.aclrtGetThreadLastTaskId)
#define aclrtStreamGetId (aiocann_acl.aclrtStreamGetId)
#define aclFinalizeReference (aiocann_acl.aclFinalizeReference)
#define aclsysGetVersionStr (aiocann_acl.aclsysGetVersionStr)
#define aclsysGetCANNVersion (aiocann_acl.aclsysGetCANNVersion)
#define aclrtGetSocName (aiocann_acl.aclrtGetSocName)
#define aclGetDeviceCapability (aiocann_acl.aclGetDeviceCapability)
#define aclrtGetRunMode (aiocann_acl.aclrtGetRunMode)
#define aclrtSetTsDevice (aiocann_acl.aclrtSetTsDevice)
#define aclrtSetDeviceSatMode (aiocann_acl.aclrtSetDeviceSatMode)
#define aclrtGetDeviceSatMode (aiocann_acl.aclrtGetDeviceSatMode)
#define aclrtGetDeviceUtilizationRate (aiocann_acl.aclrtGetDeviceUtilizationRate)
#define aclrtQueryDeviceStatus (aiocann_acl.aclrtQueryDeviceStatus)
#define aclrtSynchronizeDeviceWithTimeout (aiocann_acl.aclrtSynchronizeDeviceWithTimeout)
#define aclrtGetDeviceInfo (aiocann_acl.aclrtGetDeviceInfo)
#define aclrtDeviceGetStreamPriorityRange (aiocann_acl.aclrtDeviceGetStreamPriorityRange)
#define aclrtGetDeviceCapability (aiocann_acl.aclrtGetDeviceCapability)
#define aclrtGetLogicDevIdByUserDevId (aiocann_acl.aclrtGetLogicDevIdByUserDevId)
#define aclrtGetUserDevIdByLogicDevId (aiocann_acl.aclrtGetUserDevIdByLogicDevId)
#define aclrtGetLogicDevIdByPhyDevId (aiocann_acl.aclrtGetLogicDevIdByPhyDevId)
#define aclrtGetPhyDevIdByLogicDevId (aiocann_acl.aclrtGetPhyDevIdByLogicDevId)
#define aclrtDeviceGetUuid (aiocann_acl.aclrtDeviceGetUuid)
#define aclrtDeviceGetBareTgid (aiocann_acl.aclrtDeviceGetBareTgid)
#define aclrtDeviceCanAccessPeer (aiocann_acl.aclrtDeviceCanAccessPeer)
#define aclrtDeviceEnablePeerAccess (aiocann_acl.aclrtDeviceEnablePeerAccess)
#define aclrtDeviceDisablePeerAccess (aiocann_acl.aclrtDeviceDisablePeerAccess)
#define aclrtDevicePeerAccessStatus (aiocann_acl.aclrtDevicePeerAccessStatus)
#define aclrtCtxGetCurrentDefaultStream (aiocann_acl.aclrtCtxGetCurrentDefaultStream)
#define aclrtGetPrimaryCtxState (aiocann_acl.aclrtGetPrimaryCtxState)
#define aclrtCtxSetSysParamOpt (aiocann_acl.aclrtCtxSetSysParamOpt)
#define aclrtCtxGetSysParamOpt (aiocann_acl.aclrtCtxGetSysParamOpt)
#define aclrtSetSysParamOpt (aiocann_acl.aclrtSetSysParamOpt)
#define aclrtGetSysParamOpt (aiocann_acl.aclrtGetSysParamOpt)
#define aclrtDestroyStreamForce (aiocann_acl.aclrtDestroyStreamForce)
#define aclrtGetStreamAvailableNum (aiocann_acl.aclrtGetStreamAvailableNum)
#define aclrtSetStreamAttribute (aiocann_acl.aclrtSetStreamAttribute)
#define aclrtGetStreamAttribute (aiocann_acl.aclrtGetStreamAttribute)
#define aclrtCreateEventExWithFlag (aiocann_acl.aclrtCreateEventExWithFlag)
#define aclrtQueryEvent (aiocann_acl.aclrtQueryEvent)
#define aclrtQueryEventWaitStatus (aiocann_acl.aclrtQueryEventWaitStatus)
#define aclrtGetEventId (aiocann_acl.aclrtGetEventId)
#define aclrtGetEventAvailNum (aiocann_acl.aclrtGetEventAvailNum)
#define aclrtMallocAlign32 (aiocann_acl.aclrtMallocAlign32)
#define aclrtMallocCached (aiocann_acl.aclrtMallocCached)
#define aclrtMallocWithCfg (aiocann_acl.aclrtMallocWithCfg)
#define aclrtMallocForTaskScheduler (aiocann_acl.aclrtMallocForTaskScheduler)
#define aclrtMallocHostWithCfg (aiocann_acl.aclrtMallocHostWithCfg)
#define aclrtMemFlush (aiocann_acl.aclrtMemFlush)
#define aclrtMemInvalidate (aiocann_acl.aclrtMemInvalidate)
#define aclrtPointerGetAttributes (aiocann_acl.aclrtPointerGetAttributes)
#define aclrtMemcpy2d (aiocann_acl.aclrtMemcpy2d)
#define aclrtMemcpy2dAsync (aiocann_acl.aclrtMemcpy2dAsync)
#define aclrtCreateBinary (aiocann_acl.aclrtCreateBinary)
#define aclrtDestroyBinary (aiocann_acl.aclrtDestroyBinary)
#define aclrtBinaryLoad (aiocann_acl.aclrtBinaryLoad)
#define aclrtGetFunctionAddr (aiocann_acl.aclrtGetFunctionAddr)
#define aclrtGetFunctionName (aiocann_acl.aclrtGetFunctionName)
#define aclrtReserveMemAddress (aiocann_acl.aclrtReserveMemAddress)
#define aclrtReleaseMemAddress (aiocann_acl.aclrtReleaseMemAddress)
#define aclrtMallocPhysical (aiocann_acl.aclrtMallocPhysical)
#define aclrtFreePhysical (aiocann_acl.aclrtFreePhysical)
#define aclrtMapMem (aiocann_acl.aclrtMapMem)
#define aclrtUnmapMem (aiocann_acl.aclrtUnmapMem)
#define aclrtMemGetAllocationGranularity (aiocann_acl.aclrtMemGetAllocationGranularity)
#define aclrtMemExportToShareableHandle (aiocann_acl.aclrtMemExportToShareableHandle)
#define aclrtMemSetPidToShareableHandle (aiocann_acl.aclrtMemSetPidToShareableHandle)
#define aclrtMemImportFromShareableHandle (aiocann_acl.aclrtMemImportFromShareableHandle)
#define aclrtIpcMemGetExportKey (aiocann_acl.aclrtIpcMemGetExportKey)
#define aclrtIpcMemSetImportPid (aiocann_acl.aclrtIpcMemSetImportPid)
#define aclrtIpcMemImportByKey (aiocann_acl.aclrtIpcMemImportByKey)
#define aclrtIpcMemClose (aiocann_acl.aclrtIpcMemClose)
#define aclrtHostRegister (aiocann_acl.aclrtHostRegister)
#define aclrtHostRegisterV2 (aiocann_acl.aclrtHostRegisterV2)
#define aclrtHostGetDevicePointer (aiocann_acl.aclrtHostGetDevicePointer)
#define aclrtHostUnregister (aiocann_acl.aclrtHostUnregister)
#define aclrtGetMemcpyDescSize (aiocann_acl.aclrtGetMemcpyDescSize)
#define aclrtSetMemcpyDesc (aiocann_acl.aclrtSetMemcpyDesc)
#define aclrtMemcpyAsyncWithDesc (aiocann_acl.aclrtMemcpyAsyncWithDesc)
#define aclrtMemcpyAsyncWithCondition (aiocann_acl.aclrtMemcpyAsyncWithCondition)
#define aclrtReduceAsync (aiocann_acl.aclrtReduceAsync)
#define aclrtCmoAsync (aiocann_acl.aclrtCmoAsync)
#define aclrtValueWrite (aiocann_acl.aclrtValueWrite)
#define aclrtValueWait (aiocann_acl.aclrtValueWait)
#define aclrtGetMemUceInfo (aiocann_acl.aclrtGetMemUceInfo)
#define aclrtMemUceRepair (aiocann_acl.aclrtMemUceRepair)
#define aclmdlRICaptureBegin (aiocann_acl.aclmdlRICaptureBegin)
#define aclmdlRICaptureGetInfo (aiocann_acl.aclmdlRICaptureGetInfo)
#define aclmdlRICaptureEnd (aiocann_acl.aclmdlRICaptureEnd)
#define aclmdlRICaptureThreadExchangeMode (aiocann_acl.aclmdlRICaptureThreadExchangeMode)
#define aclmdlRIExecuteAsync (aiocann_acl.aclmdlRIExecuteAsync)
#define aclmdlRIDestroy (aiocann_acl.aclmdlRIDestroy)
#define aclmdlRIGetStreams (aiocann_acl.aclmdlRIGetStreams)
#define aclmdlRICaptureTaskGrpBegin (aiocann_acl.aclmdlRICaptureTaskGrpBegin)
#define aclmdlRICaptureTaskGrpEnd (aiocann_acl.aclmdlRICaptureTaskGrpEnd)
#define aclmdlRICaptureTaskUpdateBegin (aiocann_acl.aclmdlRICaptureTaskUpdateBegin)
#define aclmdlRICaptureTaskUpdateEnd (aiocann_acl.aclmdlRICaptureTaskUpdateEnd)
#define aclrtAllocatorCreateDesc (aiocann_acl.aclrtAllocatorCreateDesc)
#define aclrtAllocatorDestroyDesc (aiocann_acl.aclrtAllocatorDestroyDesc)
#define aclrtAllocatorSetObjToDesc (aiocann_acl.aclrtAllocatorSetObjToDesc)
#define aclrtAllocatorSetAllocFuncToDesc (aiocann_acl.aclrtAllocatorSetAllocFuncToDesc)
#define aclrtAllocatorSetFreeFuncToDesc (aiocann_acl.aclrtAllocatorSetFreeFuncToDesc)
#define aclrtAllocatorSetAllocAdviseFuncToDesc (aiocann_acl.aclrtAllocatorSetAllocAdviseFuncToDesc)
#define aclrtAllocatorSetGetAddrFromBlockFuncToDesc (aiocann_acl.aclrtAllocatorSetGetAddrFromBlockFuncToDesc)
#define aclrtAllocatorRegister (aiocann_acl.aclrtAllocatorRegister)
#define aclrtAllocatorGetByStream (aiocann_acl.aclrtAllocatorGetByStream)
#define aclrtAllocatorUnregister (aiocann_acl.aclrtAllocatorUnregister)
#define aclrtSetStreamOverflowSwitch (aiocann_acl.aclrtSetStreamOverflowSwitch)
#define aclrtGetStreamOverflowSwitch (aiocann_acl.aclrtGetStreamOverflowSwitch)
#define aclrtGetOverflowStatus (aiocann_acl.aclrtGetOverflowStatus)
#define aclrtResetOverflowStatus (aiocann_acl.aclrtResetOverflowStatus)
#define aclrtSetOpWaitTimeout (aiocann_acl.aclrtSetOpWaitTimeout)
#define aclrtSetOpExecuteTimeOut (aiocann_acl.aclrtSetOpExecuteTimeOut)
#define aclrtSetOpExecuteTimeOutWithMs (aiocann_acl.aclrtSetOpExecuteTimeOutWithMs)
#define aclrtSetOpExecuteTimeOutV2 (aiocann_acl.aclrtSetOpExecuteTimeOutV2)
#define aclrtGetOpTimeOutInterval (aiocann_acl.aclrtGetOpTimeOutInterval)
#define aclrtGetOpExecuteTimeout (aiocann_acl.aclrtGetOpExecuteTimeout)
#define aclrtCreateNotify (aiocann_acl.aclrtCreateNotify)
#define aclrtDestroyNotify (aiocann_acl.aclrtDestroyNotify)
#define aclrtRecordNotify (aiocann_acl.aclrtRecordNotify)
#define aclrtWaitAndResetNotify (aiocann_acl.aclrtWaitAndResetNotify)
#define aclrtGetNotifyId (aiocann_acl.aclrtGetNotifyId)
#define aclrtNotifyBatchReset (aiocann_acl.aclrtNotifyBatchReset)
#define aclrtNotifyGetExportKey (aiocann_acl.aclrtNotifyGetExportKey)
#define aclrtNotifyImportByKey (aiocann_acl.aclrtNotifyImportByKey)
#define aclrtNotifySetImportPid (aiocann_acl.aclrtNotifySetImportPid)
#define aclrtGetDeviceResLimit (aiocann_acl.aclrtGetDeviceResLimit)
#define aclrtSetDeviceResLimit (aiocann_acl.aclrtSetDeviceResLimit)
#define aclrtResetDeviceResLimit (aiocann_acl.aclrtResetDeviceResLimit)
#define aclrtGetStreamResLimit (aiocann_acl.aclrtGetStreamResLimit)
#define aclrtSetStreamResLimit (aiocann_acl.aclrtSetStreamResLimit)
#define aclrtResetStreamResLimit (aiocann_acl.aclrtResetStreamResLimit)
#define aclrtUseStreamResInCurrentThread (aiocann_acl.aclrtUseStreamResInCurrentThread)
#define aclrtUnuseStreamResInCurrentThread (aiocann_acl.aclrtUnuseStreamResInCurrentThread)
#define aclrtGetResInCurrentThread (aiocann_acl.aclrtGetResInCurrentThread)
#define aclrtGetDevicesTopo (aiocann_acl.aclrtGetDevicesTopo)
#define aclrtStreamAbort (aiocann_acl.aclrtStreamAbort)
#define aclrtDeviceTaskAbort (aiocann_acl.aclrtDeviceTaskAbort)
#define aclrtRegisterCpuFunc (aiocann_acl.aclrtRegisterCpuFunc)
#define aclrtSetGroup (aiocann_acl.aclrtSetGroup)
#define aclrtGetGroupCount (aiocann_acl.aclrtGetGroupCount)
#define aclrtCreateGroupInfo (aiocann_acl.aclrtCreateGroupInfo)
#define aclrtDestroyGroupInfo (aiocann_acl.aclrtDestroyGroupInfo)
#define aclrtGetAllGroupInfo (aiocann_acl.aclrtGetAllGroupInfo)
#define aclrtGetGroupInfoDetail (aiocann_acl.aclrtGetGroupInfoDetail)
#define aclsimTraceStart (aiocann_acl.aclsimTraceStart)
#define aclsimTraceStop (aiocann_acl.aclsimTraceStop)
#define aclsimTraceDrain (aiocann_acl.aclsimTraceDrain)
#define aclsimGetChip (aiocann_acl.aclsimGetChip)
#define aclrtcCreateProg (aiocann_acl.aclrtcCreateProg)
#define aclrtcCompileProg (aiocann_acl.aclrtcCompileProg)
#define aclrtcAddNameExpr (aiocann_acl.aclrtcAddNameExpr)
#define aclrtcGetLoweredName (aiocann_acl.aclrtcGetLoweredName)
#define aclrtcGetBinDataSize (aiocann_acl.aclrtcGetBinDataSize)
#define aclrtcGetBinData (aiocann_acl.aclrtcGetBinData)
#define aclrtcGetCompileLogSize (aiocann_acl.aclrtcGetCompileLogSize)
#define aclrtcGetCompileLog (aiocann_acl.aclrtcGetCompileLog)
#define aclrtcDestroyProg (aiocann_acl.aclrtcDestroyProg)
#endif

#endif /* AIOCANN_ACL_TABLE_H_ */
