/*
 * aiocann native helpers: the loader's stand-ins for the optional ACL functions a runtime
 * library lacks. Each has its function's prototype, ignores its arguments and returns what
 * native/acl_functions.py says (by default ACL_ERROR_API_NOT_SUPPORT, and no recent error
 * message: the runtime that would hold one is not involved). Included by loader.c only.
 *
 * Generated: written by native/gen_acl.py from native/acl_functions.py; edit that, not this file.
 */
#ifndef AIOCANN_ACL_STANDINS_H_
#define AIOCANN_ACL_STANDINS_H_

static aclError missing_aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    (void)majorVersion, (void)minorVersion, (void)patchVersion;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtResetDeviceForce(int32_t deviceId)
{
    (void)deviceId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    (void)event, (void)timestamp;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtBinaryLoadFromData(const void *data, size_t length, const aclrtBinaryLoadOptions *options,
                                                aclrtBinHandle *binHandle)
{
    (void)data, (void)length, (void)options, (void)binHandle;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    (void)level;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetLastError(aclrtLastErrLevel level)
{
    (void)level;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
    (void)callback;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback)
{
    (void)callback;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback)
{
    (void)callback;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static uint32_t missing_aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    (void)info;
    return UINT32_MAX;
}

static uint32_t missing_aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    (void)info;
    return UINT32_MAX;
}

static uint32_t missing_aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    (void)info;
    return UINT32_MAX;
}

static uint32_t missing_aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    (void)info;
    return UINT32_MAX;
}

static uint32_t missing_aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info)
{
    (void)info;
    return UINT32_MAX;
}

static aclError missing_aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    (void)stream, (void)mode;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetThreadLastTaskId(uint32_t *taskId)
{
    (void)taskId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    (void)stream, (void)streamId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclFinalizeReference(uint64_t *refCount)
{
    (void)refCount;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclsysGetVersionStr(char *pkgName, char *versionStr)
{
    (void)pkgName, (void)versionStr;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    (void)name, (void)version;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static const char *missing_aclrtGetSocName(void)
{
    return NULL;
}

static aclError missing_aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value)
{
    (void)deviceId, (void)deviceInfo, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetRunMode(aclrtRunMode *runMode)
{
    (void)runMode;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetTsDevice(aclrtTsId tsId)
{
    (void)tsId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
    (void)mode;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
    (void)mode;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo)
{
    (void)deviceId, (void)utilizationInfo;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)
{
    (void)deviceId, (void)deviceStatus;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    (void)timeout;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    (void)deviceId, (void)attr, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)
{
    (void)leastPriority, (void)greatestPriority;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType, int32_t *value)
{
    (void)deviceId, (void)devFeatureType, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId)
{
    (void)userDevid, (void)logicDevId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid)
{
    (void)logicDevId, (void)userDevid;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId)
{
    (void)phyDevId, (void)logicDevId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId)
{
    (void)logicDevId, (void)phyDevId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)
{
    (void)deviceId, (void)uuid;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtDeviceGetBareTgid(int32_t *pid)
{
    (void)pid;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    (void)canAccessPeer, (void)deviceId, (void)peerDeviceId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    (void)peerDeviceId, (void)flags;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    (void)peerDeviceId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status)
{
    (void)deviceId, (void)peerDeviceId, (void)status;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active)
{
    (void)deviceId, (void)flags, (void)active;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    (void)opt, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    (void)opt, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    (void)opt, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    (void)opt, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtDestroyStreamForce(aclrtStream stream)
{
    (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
    (void)streamCount;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                                aclrtStreamAttrValue *value)
{
    (void)stream, (void)stmAttrType, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                                aclrtStreamAttrValue *value)
{
    (void)stream, (void)stmAttrType, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    (void)event, (void)flag;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    (void)event, (void)status;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    (void)event, (void)status;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetEventId(aclrtEvent event, uint32_t *eventId)
{
    (void)event, (void)eventId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetEventAvailNum(uint32_t *eventCount)
{
    (void)eventCount;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    (void)devPtr, (void)size, (void)policy;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    (void)devPtr, (void)size, (void)policy;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                           aclrtMallocConfig *cfg)
{
    (void)devPtr, (void)size, (void)policy, (void)cfg;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMallocForTaskScheduler(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                                    aclrtMallocConfig *cfg)
{
    (void)devPtr, (void)size, (void)policy, (void)cfg;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    (void)ptr, (void)size, (void)cfg;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMemFlush(void *devPtr, size_t size)
{
    (void)devPtr, (void)size;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMemInvalidate(void *devPtr, size_t size)
{
    (void)devPtr, (void)size;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    (void)ptr, (void)attributes;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                      size_t height, aclrtMemcpyKind kind)
{
    (void)dst, (void)dpitch, (void)src, (void)spitch, (void)width, (void)height, (void)kind;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                           size_t height, aclrtMemcpyKind kind, aclrtStream stream)
{
    (void)dst, (void)dpitch, (void)src, (void)spitch, (void)width, (void)height, (void)kind, (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclrtBinary missing_aclrtCreateBinary(const void *data, size_t dataLen)
{
    (void)data, (void)dataLen;
    return NULL;
}

static aclError missing_aclrtDestroyBinary(aclrtBinary binary)
{
    (void)binary;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle *binHandle)
{
    (void)binary, (void)binHandle;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr)
{
    (void)funcHandle, (void)aicAddr, (void)aivAddr;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetFunctionName(aclrtFuncHandle funcHandle, uint32_t maxLen, char *name)
{
    (void)funcHandle, (void)maxLen, (void)name;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                               uint64_t flags)
{
    (void)virPtr, (void)size, (void)alignment, (void)expectPtr, (void)flags;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtReleaseMemAddress(void *virPtr)
{
    (void)virPtr;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                                            uint64_t flags)
{
    (void)handle, (void)size, (void)prop, (void)flags;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtFreePhysical(aclrtDrvMemHandle handle)
{
    (void)handle;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags)
{
    (void)virPtr, (void)size, (void)offset, (void)handle, (void)flags;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtUnmapMem(void *virPtr)
{
    (void)virPtr;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option,
                                                         size_t *granularity)
{
    (void)prop, (void)option, (void)granularity;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                                        uint64_t flags, uint64_t *shareableHandle)
{
    (void)handle, (void)handleType, (void)flags, (void)shareableHandle;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
    (void)shareableHandle, (void)pid, (void)pidNum;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                          aclrtDrvMemHandle *handle)
{
    (void)shareableHandle, (void)deviceId, (void)handle;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags)
{
    (void)devPtr, (void)size, (void)key, (void)len, (void)flags;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
    (void)key, (void)pid, (void)num;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)
{
    (void)devPtr, (void)key, (void)flags;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtIpcMemClose(const char *key)
{
    (void)key;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr)
{
    (void)ptr, (void)size, (void)type, (void)devPtr;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag)
{
    (void)ptr, (void)size, (void)flag;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag)
{
    (void)pHost, (void)pDevice, (void)flag;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtHostUnregister(void *ptr)
{
    (void)ptr;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize)
{
    (void)kind, (void)descSize;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr, size_t count,
                                           void *config)
{
    (void)desc, (void)kind, (void)srcAddr, (void)dstAddr, (void)count, (void)config;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream)
{
    (void)desc, (void)kind, (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src, size_t count,
                                                      aclrtMemcpyKind kind, aclrtStream stream)
{
    (void)dst, (void)destMax, (void)src, (void)count, (void)kind, (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtReduceAsync(void *dst, const void *src, uint64_t count, aclrtReduceKind kind,
                                         aclDataType type, aclrtStream stream, void *reserve)
{
    (void)dst, (void)src, (void)count, (void)kind, (void)type, (void)stream, (void)reserve;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream)
{
    (void)src, (void)size, (void)cmoType, (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    (void)devAddr, (void)value, (void)flag, (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    (void)devAddr, (void)value, (void)flag, (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize,
                                           size_t *retSize)
{
    (void)deviceId, (void)memUceInfoArray, (void)arraySize, (void)retSize;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtMemUceRepair(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize)
{
    (void)deviceId, (void)memUceInfoArray, (void)arraySize;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    (void)stream, (void)mode;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI)
{
    (void)stream, (void)status, (void)modelRI;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    (void)stream, (void)modelRI;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
    (void)mode;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    (void)modelRI, (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclmdlRIDestroy(aclmdlRI modelRI)
{
    (void)modelRI;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams)
{
    (void)modelRI, (void)streams, (void)numStreams;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclmdlRICaptureTaskGrpBegin(aclrtStream stream)
{
    (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle)
{
    (void)stream, (void)handle;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle)
{
    (void)stream, (void)handle;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclmdlRICaptureTaskUpdateEnd(aclrtStream stream)
{
    (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclrtAllocatorDesc missing_aclrtAllocatorCreateDesc(void)
{
    return NULL;
}

static aclError missing_aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
    (void)allocatorDesc;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator)
{
    (void)allocatorDesc, (void)allocator;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocFunc func)
{
    (void)allocatorDesc, (void)func;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorFreeFunc func)
{
    (void)allocatorDesc, (void)func;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                               aclrtAllocatorAllocAdviseFunc func)
{
    (void)allocatorDesc, (void)func;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                                    aclrtAllocatorGetAddrFromBlockFunc func)
{
    (void)allocatorDesc, (void)func;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
    (void)stream, (void)allocatorDesc;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
                                                  aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
                                                  aclrtAllocatorFreeFunc *freeFunc,
                                                  aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                                  aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    (void)stream, (void)allocatorDesc, (void)allocator, (void)allocFunc, (void)freeFunc, (void)allocAdviseFunc,
        (void)getAddrFromBlockFunc;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtAllocatorUnregister(aclrtStream stream)
{
    (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
    (void)stream, (void)flag;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
    (void)stream, (void)flag;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream)
{
    (void)outputAddr, (void)outputSize, (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtResetOverflowStatus(aclrtStream stream)
{
    (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetOpWaitTimeout(uint32_t timeout)
{
    (void)timeout;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
    (void)timeout;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout)
{
    (void)timeout;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout)
{
    (void)timeout, (void)actualTimeout;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetOpTimeOutInterval(uint64_t *interval)
{
    (void)interval;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs)
{
    (void)timeoutMs;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    (void)notify, (void)flag;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtDestroyNotify(aclrtNotify notify)
{
    (void)notify;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    (void)notify, (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    (void)notify, (void)stream, (void)timeout;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId)
{
    (void)notify, (void)notifyId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num)
{
    (void)notifies, (void)num;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags)
{
    (void)notify, (void)key, (void)len, (void)flags;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)
{
    (void)notify, (void)key, (void)flags;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)
{
    (void)notify, (void)pid, (void)num;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value)
{
    (void)deviceId, (void)type, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value)
{
    (void)deviceId, (void)type, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtResetDeviceResLimit(int32_t deviceId)
{
    (void)deviceId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value)
{
    (void)stream, (void)type, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value)
{
    (void)stream, (void)type, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtResetStreamResLimit(aclrtStream stream)
{
    (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtUseStreamResInCurrentThread(aclrtStream stream)
{
    (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtUnuseStreamResInCurrentThread(aclrtStream stream)
{
    (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
    (void)type, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value)
{
    (void)deviceId, (void)otherDeviceId, (void)value;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtStreamAbort(aclrtStream stream)
{
    (void)stream;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout)
{
    (void)deviceId, (void)timeout;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtRegisterCpuFunc(const aclrtBinHandle handle, const char *funcName, const char *kernelName,
                                             aclrtFuncHandle *funcHandle)
{
    (void)handle, (void)funcName, (void)kernelName, (void)funcHandle;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtSetGroup(int32_t groupId)
{
    (void)groupId;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetGroupCount(uint32_t *count)
{
    (void)count;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclrtGroupInfo *missing_aclrtCreateGroupInfo(void)
{
    return NULL;
}

static aclError missing_aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo)
{
    (void)groupInfo;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo)
{
    (void)groupInfo;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex,
                                                aclrtGroupAttr attr, void *attrValue, size_t valueLen,
                                                size_t *paramRetSize)
{
    (void)groupInfo, (void)groupIndex, (void)attr, (void)attrValue, (void)valueLen, (void)paramRetSize;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static int missing_aclsimTraceStart(size_t capacity)
{
    (void)capacity;
    return -1;
}

static uint64_t missing_aclsimTraceStop(void)
{
    return 0;
}

static size_t missing_aclsimTraceDrain(aclsimTraceRecord *out, size_t max)
{
    (void)out, (void)max;
    return 0;
}

static const aclsimChip *missing_aclsimGetChip(void)
{
    return NULL;
}

static aclError missing_aclrtcCreateProg(aclrtcProg *prog, const char *src, const char *name, int numHeaders,
                                         const char **headers, const char **includeNames)
{
    (void)prog, (void)src, (void)name, (void)numHeaders, (void)headers, (void)includeNames;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtcCompileProg(aclrtcProg prog, int numOptions, const char **options)
{
    (void)prog, (void)numOptions, (void)options;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtcAddNameExpr(aclrtcProg prog, const char *const nameExpression)
{
    (void)prog, (void)nameExpression;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtcGetLoweredName(aclrtcProg prog, const char *nameExpression, const char **loweredName)
{
    (void)prog, (void)nameExpression, (void)loweredName;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtcGetBinDataSize(aclrtcProg prog, size_t *binDataSizeRet)
{
    (void)prog, (void)binDataSizeRet;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtcGetBinData(aclrtcProg prog, char *binData)
{
    (void)prog, (void)binData;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtcGetCompileLogSize(aclrtcProg prog, size_t *logSizeRet)
{
    (void)prog, (void)logSizeRet;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtcGetCompileLog(aclrtcProg prog, char *log)
{
    (void)prog, (void)log;
    return ACL_ERROR_API_NOT_SUPPORT;
}

static aclError missing_aclrtcDestroyProg(aclrtcProg *prog)
{
    (void)prog;
    return ACL_ERROR_API_NOT_SUPPORT;
}

#endif /* AIOCANN_ACL_STANDINS_H_ */
