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
 * Include this after acl/acl.h (the prototypes give each entry its type via __typeof__).
 */
#ifndef AIOCANN_ACL_TABLE_H_
#define AIOCANN_ACL_TABLE_H_

#include "acl/acl.h"
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

/* Optional: absent from older CANN releases (missing ones return ACL_ERROR_API_NOT_SUPPORT, or
 * UINT32_MAX for the exception-info getters), deprecated in newer ones (aclrtGetVersion), and
 * the simulator's own trace interface (absent from every real runtime). */
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
    X(aclrtGetLogicDevIdByUserDevId) \
    X(aclrtGetUserDevIdByLogicDevId) \
    X(aclsimTraceStart) \
    X(aclsimTraceStop) \
    X(aclsimTraceDrain)

typedef struct aiocann_acl_table {
#define AIOCANN_ACL_ENTRY(name) __typeof__(name) *name;
    AIOCANN_ACL_REQUIRED(AIOCANN_ACL_ENTRY)
    AIOCANN_ACL_OPTIONAL(AIOCANN_ACL_ENTRY)
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
#define aclrtGetLogicDevIdByUserDevId (aiocann_acl.aclrtGetLogicDevIdByUserDevId)
#define aclrtGetUserDevIdByLogicDevId (aiocann_acl.aclrtGetUserDevIdByLogicDevId)
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
#define aclsimTraceStart (aiocann_acl.aclsimTraceStart)
#define aclsimTraceStop (aiocann_acl.aclsimTraceStop)
#define aclsimTraceDrain (aiocann_acl.aclsimTraceDrain)
#endif

#endif /* AIOCANN_ACL_TABLE_H_ */
