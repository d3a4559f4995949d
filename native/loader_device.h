/*
 * aiocann native helpers: stand-ins for the optional functions of the device share of issue 11
 * (native/include/acl/acl_rt_device.h) that an older runtime lacks. Included by loader.c only;
 * kept in their own file so that this block stays apart from the others while they are
 * written.
 */
#ifndef AIOCANN_LOADER_DEVICE_H_
#define AIOCANN_LOADER_DEVICE_H_

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
static aclError missing_aclrtRegisterCpuFunc(
    const aclrtBinHandle handle, const char *funcName, const char *kernelName, aclrtFuncHandle *funcHandle)
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
static aclrtGroupInfo *missing_aclrtCreateGroupInfo(void) { return NULL; }
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
static aclError missing_aclrtGetGroupInfoDetail(
    const aclrtGroupInfo *groupInfo, int32_t groupIndex, aclrtGroupAttr attr, void *attrValue, size_t valueLen, size_t *paramRetSize)
{
    (void)groupInfo, (void)groupIndex, (void)attr, (void)attrValue, (void)valueLen, (void)paramRetSize;
    return ACL_ERROR_API_NOT_SUPPORT;
}

#endif /* AIOCANN_LOADER_DEVICE_H_ */
