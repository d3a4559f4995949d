/*
 * aiocann: the device share of issue 11 -- notifies, overflow detection, operator timeouts,
 * core resource limits, device topology, stream and device task abort, AI CPU function
 * registration and device groups. Every name, value and prototype is the one of CANN 9.1
 * (ACL 1.17): include/external/acl/acl_rt.h, acl_base_rt.h and error_codes/rt_error_codes.h
 * of hicann/runtime. They live in their own file, included at the end of acl_rt.h, only to
 * keep this block apart from the others while they are written; a program sees them through
 * acl/acl.h exactly as with the real headers.
 *
 * The region between the cffi markers is part of the cffi cdef (native/build_ffi.py).
 */
#ifndef AIOCANN_ACL_RT_DEVICE_H_
#define AIOCANN_ACL_RT_DEVICE_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cffi-begin */
#define ACL_ERROR_RT_DEVICE_TASK_ABORT 107022
#define ACL_ERROR_RT_STREAM_ABORT 107023
#define ACL_ERROR_RT_AIVEC_OVER_FLOW 207016
#define ACL_ERROR_RT_OVER_FLOW 207017
#define ACL_ERROR_RT_DEV_SETUP_ERROR 507033

#define ACL_NOTIFY_DEFAULT 0x00000000
#define ACL_NOTIFY_DEVICE_USE_ONLY 0x00000001

#define ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT 0x0
#define ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x02
#define ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT 0x0
#define ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x02

#define ACL_RT_DEVS_TOPOLOGY_HCCS 0x01
#define ACL_RT_DEVS_TOPOLOGY_PIX 0x02
#define ACL_RT_DEVS_TOPOLOGY_PIB 0x04
#define ACL_RT_DEVS_TOPOLOGY_PHB 0x08
#define ACL_RT_DEVS_TOPOLOGY_SYS 0x10
#define ACL_RT_DEVS_TOPOLOGY_SIO 0x20
#define ACL_RT_DEVS_TOPOLOGY_HCCS_SW 0x40

typedef void *aclrtNotify;

typedef enum aclrtGroupAttr {
    ACL_GROUP_AICORE_INT,
    ACL_GROUP_AIV_INT,
    ACL_GROUP_AIC_INT,
    ACL_GROUP_SDMANUM_INT,
    ACL_GROUP_ASQNUM_INT,
    ACL_GROUP_GROUPID_INT
} aclrtGroupAttr;

typedef struct tagRtGroupInfo aclrtGroupInfo;

typedef enum {
    ACL_RT_DEV_RES_CUBE_CORE = 0,
    ACL_RT_DEV_RES_VECTOR_CORE
} aclrtDevResLimitType;

/* BEGIN GENERATED "device": written by native/gen_acl.py from native/acl_functions.py */
/* overflow detection */
aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag);
aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag);
aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream);
aclError aclrtResetOverflowStatus(aclrtStream stream);

/* operator timeouts */
aclError aclrtSetOpWaitTimeout(uint32_t timeout);
aclError aclrtSetOpExecuteTimeOut(uint32_t timeout);
aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout);
aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout);
aclError aclrtGetOpTimeOutInterval(uint64_t *interval);
aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs);

/* notifies */
aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag);
aclError aclrtDestroyNotify(aclrtNotify notify);
aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream);
aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout);
aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId);
aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num);
aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags);
aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags);
aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num);

/* core resource limits */
aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value);
aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value);
aclError aclrtResetDeviceResLimit(int32_t deviceId);
aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value);
aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value);
aclError aclrtResetStreamResLimit(aclrtStream stream);
aclError aclrtUseStreamResInCurrentThread(aclrtStream stream);
aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream);
aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value);

/* topology, abort, AI CPU functions, groups */
aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value);
aclError aclrtStreamAbort(aclrtStream stream);
aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout);
aclError aclrtRegisterCpuFunc(const aclrtBinHandle handle, const char *funcName, const char *kernelName,
                              aclrtFuncHandle *funcHandle);
aclError aclrtSetGroup(int32_t groupId);
aclError aclrtGetGroupCount(uint32_t *count);
aclrtGroupInfo *aclrtCreateGroupInfo(void);
aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo);
aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo);
aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex, aclrtGroupAttr attr,
                                 void *attrValue, size_t valueLen, size_t *paramRetSize);
/* END GENERATED "device" */
/* cffi-end */

#ifdef __cplusplus
}
#endif

#endif /* AIOCANN_ACL_RT_DEVICE_H_ */
