/*
 * aiocann simulator: the functions of CANN libraries the simulator does not have (issue 23) --
 * the data dump (acl_dump.h), the profiler (acl_prof.h) and tensor data transfer (acl_tdt.h,
 * acl_tdt_queue.h). Declared as in the real headers, so that a program written for CANN links
 * against the toolkit; each returns ACL_ERROR_API_NOT_SUPPORT (200001) with a recent-error
 * message saying the simulator does not provide it (NULL, 0, nothing or the "undefined" value
 * where the return type carries no code). One definition per prototype of those headers.
 */
#include "acl/acl_dump.h"
#include "acl/acl_prof.h"
#include "acl/acl_tdt.h"
#include "acl/acl_tdt_queue.h"
#include "sim.h"

static void not_provided(const char *func, const char *what)
{
    sim_fail_(func, ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide %s", what);
}

/* ------------------------------------------------------------------ acl_dump.h */

SIM_API aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *, int32_t), int32_t flag)
{
    (void)messageCallback;
    (void)flag;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the data dump (adump)");
}

SIM_API void acldumpUnregCallback(void)
{
    not_provided(__func__, "the data dump (adump)");
}

SIM_API aclError aclopStartDumpArgs(uint32_t dumpType, const char *path)
{
    (void)dumpType;
    (void)path;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the data dump (adump)");
}

SIM_API aclError aclopStopDumpArgs(uint32_t dumpType)
{
    (void)dumpType;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the data dump (adump)");
}

SIM_API const char *acldumpGetPath(acldumpType dumpType)
{
    (void)dumpType;
    not_provided(__func__, "the data dump (adump)");
    return NULL;
}

SIM_API aclError acldumpSaveExceptionInfo(const char *fileName, const char *userTag, const acldumpTensorInfo *tensors, size_t tensorCount)
{
    (void)fileName;
    (void)userTag;
    (void)tensors;
    (void)tensorCount;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the data dump (adump)");
}

SIM_API aclError acldumpGetExceptionInfoPath(char *path, size_t maxLen)
{
    (void)path;
    (void)maxLen;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the data dump (adump)");
}


/* ------------------------------------------------------------------ acl_prof.h */

SIM_API aclError aclprofInit(const char *profilerResultPath, size_t length)
{
    (void)profilerResultPath;
    (void)length;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofFinalize(void)
{
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofStart(const aclprofConfig *profilerConfig)
{
    (void)profilerConfig;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums, aclprofAicoreMetrics aicoreMetrics, const aclprofAicoreEvents *aicoreEvents, uint64_t dataTypeConfig)
{
    (void)deviceIdList;
    (void)deviceNums;
    (void)aicoreMetrics;
    (void)aicoreEvents;
    (void)dataTypeConfig;
    not_provided(__func__, "the profiler (msprof)");
    return NULL;
}

SIM_API aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig)
{
    (void)profilerConfig;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofStop(const aclprofConfig *profilerConfig)
{
    (void)profilerConfig;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofSetConfig(aclprofConfigType configType, const char *config, size_t configLength)
{
    (void)configType;
    (void)config;
    (void)configLength;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofModelSubscribe(uint32_t modelId, const aclprofSubscribeConfig *profSubscribeConfig)
{
    (void)modelId;
    (void)profSubscribeConfig;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofModelUnSubscribe(uint32_t modelId)
{
    (void)modelId;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclprofSubscribeConfig *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch, aclprofAicoreMetrics aicoreMetrics, void *fd)
{
    (void)timeInfoSwitch;
    (void)aicoreMetrics;
    (void)fd;
    not_provided(__func__, "the profiler (msprof)");
    return NULL;
}

SIM_API aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig)
{
    (void)profSubscribeConfig;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofGetOpDescSize(size_t *opDescSize)
{
    (void)opDescSize;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)opNumber;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opTypeLen)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    (void)opTypeLen;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index, char *opType, size_t opTypeLen)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    (void)opType;
    (void)opTypeLen;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *opNameLen)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    (void)opNameLen;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index, char *opName, size_t opNameLen)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    (void)opName;
    (void)opNameLen;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    not_provided(__func__, "the profiler (msprof)");
    return 0;
}

SIM_API uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    not_provided(__func__, "the profiler (msprof)");
    return 0;
}

SIM_API uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    not_provided(__func__, "the profiler (msprof)");
    return 0;
}

SIM_API size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    not_provided(__func__, "the profiler (msprof)");
    return 0;
}

SIM_API aclprofSubscribeOpFlag aclprofGetOpFlag(const void *opInfo, size_t opInfoLen, uint32_t index)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    not_provided(__func__, "the profiler (msprof)");
    return ACL_SUBSCRIBE_NONE;
}

SIM_API const char *aclprofGetOpAttriValue(const void *opInfo, size_t opInfoLen, uint32_t index, aclprofSubscribeOpAttri attri)
{
    (void)opInfo;
    (void)opInfoLen;
    (void)index;
    (void)attri;
    not_provided(__func__, "the profiler (msprof)");
    return NULL;
}

SIM_API aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag, aclrtStream stream)
{
    (void)stepInfo;
    (void)tag;
    (void)stream;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclprofStepInfo *aclprofCreateStepInfo(void)
{
    not_provided(__func__, "the profiler (msprof)");
    return NULL;
}

SIM_API void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo)
{
    (void)stepinfo;
    not_provided(__func__, "the profiler (msprof)");
}

SIM_API void *aclprofCreateStamp(void)
{
    not_provided(__func__, "the profiler (msprof)");
    return NULL;
}

SIM_API void aclprofDestroyStamp(void *stamp)
{
    (void)stamp;
    not_provided(__func__, "the profiler (msprof)");
}

SIM_API aclError aclprofPush(void *stamp)
{
    (void)stamp;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofPop(void)
{
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofRangeStart(void *stamp, uint32_t *rangeId)
{
    (void)stamp;
    (void)rangeId;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofRangeStop(uint32_t rangeId)
{
    (void)rangeId;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen)
{
    (void)stamp;
    (void)msg;
    (void)msgLen;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofMark(void *stamp)
{
    (void)stamp;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream)
{
    (void)msg;
    (void)msgLen;
    (void)stream;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API uint64_t aclprofStr2Id(const char *message)
{
    (void)message;
    not_provided(__func__, "the profiler (msprof)");
    return 0;
}

SIM_API aclError aclprofRangePushEx(aclprofEventAttributes *attr)
{
    (void)attr;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}

SIM_API aclError aclprofRangePop(void)
{
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide the profiler (msprof)");
}


/* ------------------------------------------------------------------ acl_tdt.h */

SIM_API acltdtTensorType acltdtGetTensorTypeFromItem(const acltdtDataItem *dataItem)
{
    (void)dataItem;
    not_provided(__func__, "tdt channels (tensor data transfer)");
    return ACL_TENSOR_DATA_UNDEFINED;
}

SIM_API aclDataType acltdtGetDataTypeFromItem(const acltdtDataItem *dataItem)
{
    (void)dataItem;
    not_provided(__func__, "tdt channels (tensor data transfer)");
    return ACL_DT_UNDEFINED;
}

SIM_API void *acltdtGetDataAddrFromItem(const acltdtDataItem *dataItem)
{
    (void)dataItem;
    not_provided(__func__, "tdt channels (tensor data transfer)");
    return NULL;
}

SIM_API size_t acltdtGetDataSizeFromItem(const acltdtDataItem *dataItem)
{
    (void)dataItem;
    not_provided(__func__, "tdt channels (tensor data transfer)");
    return 0;
}

SIM_API size_t acltdtGetDimNumFromItem(const acltdtDataItem *dataItem)
{
    (void)dataItem;
    not_provided(__func__, "tdt channels (tensor data transfer)");
    return 0;
}

SIM_API aclError acltdtGetSliceInfoFromItem(const acltdtDataItem *dataItem, size_t *sliceNum, size_t *sliceId)
{
    (void)dataItem;
    (void)sliceNum;
    (void)sliceId;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt channels (tensor data transfer)");
}

SIM_API aclError acltdtGetDimsFromItem(const acltdtDataItem *dataItem, int64_t *dims, size_t dimNum)
{
    (void)dataItem;
    (void)dims;
    (void)dimNum;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt channels (tensor data transfer)");
}

SIM_API acltdtDataItem *acltdtCreateDataItem(acltdtTensorType tdtType, const int64_t *dims, size_t dimNum, aclDataType dataType, void *data, size_t size)
{
    (void)tdtType;
    (void)dims;
    (void)dimNum;
    (void)dataType;
    (void)data;
    (void)size;
    not_provided(__func__, "tdt channels (tensor data transfer)");
    return NULL;
}

SIM_API aclError acltdtDestroyDataItem(acltdtDataItem *dataItem)
{
    (void)dataItem;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt channels (tensor data transfer)");
}

SIM_API acltdtDataset *acltdtCreateDataset(void)
{
    not_provided(__func__, "tdt channels (tensor data transfer)");
    return NULL;
}

SIM_API aclError acltdtDestroyDataset(acltdtDataset *dataset)
{
    (void)dataset;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt channels (tensor data transfer)");
}

SIM_API acltdtDataItem *acltdtGetDataItem(const acltdtDataset *dataset, size_t index)
{
    (void)dataset;
    (void)index;
    not_provided(__func__, "tdt channels (tensor data transfer)");
    return NULL;
}

SIM_API aclError acltdtAddDataItem(acltdtDataset *dataset, acltdtDataItem *dataItem)
{
    (void)dataset;
    (void)dataItem;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt channels (tensor data transfer)");
}

SIM_API size_t acltdtGetDatasetSize(const acltdtDataset *dataset)
{
    (void)dataset;
    not_provided(__func__, "tdt channels (tensor data transfer)");
    return 0;
}

SIM_API const char *acltdtGetDatasetName(const acltdtDataset *dataset)
{
    (void)dataset;
    not_provided(__func__, "tdt channels (tensor data transfer)");
    return NULL;
}

SIM_API aclError acltdtStopChannel(acltdtChannelHandle *handle)
{
    (void)handle;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt channels (tensor data transfer)");
}

SIM_API acltdtChannelHandle *acltdtCreateChannel(uint32_t deviceId, const char *name)
{
    (void)deviceId;
    (void)name;
    not_provided(__func__, "tdt channels (tensor data transfer)");
    return NULL;
}

SIM_API acltdtChannelHandle *acltdtCreateChannelWithCapacity(uint32_t deviceId, const char *name, size_t capacity)
{
    (void)deviceId;
    (void)name;
    (void)capacity;
    not_provided(__func__, "tdt channels (tensor data transfer)");
    return NULL;
}

SIM_API aclError acltdtDestroyChannel(acltdtChannelHandle *handle)
{
    (void)handle;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt channels (tensor data transfer)");
}

SIM_API aclError acltdtCleanChannel(acltdtChannelHandle *handle)
{
    (void)handle;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt channels (tensor data transfer)");
}

SIM_API aclError acltdtSendTensor(const acltdtChannelHandle *handle, const acltdtDataset *dataset, int32_t timeout)
{
    (void)handle;
    (void)dataset;
    (void)timeout;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt channels (tensor data transfer)");
}

SIM_API aclError acltdtReceiveTensor(const acltdtChannelHandle *handle, acltdtDataset *dataset, int32_t timeout)
{
    (void)handle;
    (void)dataset;
    (void)timeout;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt channels (tensor data transfer)");
}

SIM_API aclError acltdtQueryChannelSize(const acltdtChannelHandle *handle, size_t *size)
{
    (void)handle;
    (void)size;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt channels (tensor data transfer)");
}


/* ------------------------------------------------------------------ acl_tdt_queue.h */

SIM_API aclError acltdtCreateQueue(const acltdtQueueAttr *attr, uint32_t *qid)
{
    (void)attr;
    (void)qid;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtDestroyQueue(uint32_t qid)
{
    (void)qid;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtEnqueue(uint32_t qid, acltdtBuf buf, int32_t timeout)
{
    (void)qid;
    (void)buf;
    (void)timeout;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtDequeue(uint32_t qid, acltdtBuf *buf, int32_t timeout)
{
    (void)qid;
    (void)buf;
    (void)timeout;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtEnqueueData(uint32_t qid, const void *data, size_t dataSize, const void *userData, size_t userDataSize, int32_t timeout, uint32_t rsv)
{
    (void)qid;
    (void)data;
    (void)dataSize;
    (void)userData;
    (void)userDataSize;
    (void)timeout;
    (void)rsv;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtDequeueData(uint32_t qid, void *data, size_t dataSize, size_t *retDataSize, void *userData, size_t userDataSize, int32_t timeout)
{
    (void)qid;
    (void)data;
    (void)dataSize;
    (void)retDataSize;
    (void)userData;
    (void)userDataSize;
    (void)timeout;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtGrantQueue(uint32_t qid, int32_t pid, uint32_t permission, int32_t timeout)
{
    (void)qid;
    (void)pid;
    (void)permission;
    (void)timeout;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtAttachQueue(uint32_t qid, int32_t timeout, uint32_t *permission)
{
    (void)qid;
    (void)timeout;
    (void)permission;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtBindQueueRoutes(acltdtQueueRouteList *qRouteList)
{
    (void)qRouteList;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtUnbindQueueRoutes(acltdtQueueRouteList *qRouteList)
{
    (void)qRouteList;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtQueryQueueRoutes(const acltdtQueueRouteQueryInfo *queryInfo, acltdtQueueRouteList *qRouteList)
{
    (void)queryInfo;
    (void)qRouteList;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtAllocBuf(size_t size, uint32_t type, acltdtBuf *buf)
{
    (void)size;
    (void)type;
    (void)buf;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtFreeBuf(acltdtBuf buf)
{
    (void)buf;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtGetBufData(const acltdtBuf buf, void **dataPtr, size_t *size)
{
    (void)buf;
    (void)dataPtr;
    (void)size;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtSetBufDataLen(acltdtBuf buf, size_t len)
{
    (void)buf;
    (void)len;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtGetBufDataLen(acltdtBuf buf, size_t *len)
{
    (void)buf;
    (void)len;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtAppendBufChain(acltdtBuf headBuf, acltdtBuf buf)
{
    (void)headBuf;
    (void)buf;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtGetBufChainNum(acltdtBuf headBuf, uint32_t *num)
{
    (void)headBuf;
    (void)num;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtGetBufFromChain(acltdtBuf headBuf, uint32_t index, acltdtBuf *buf)
{
    (void)headBuf;
    (void)index;
    (void)buf;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtGetBufUserData(const acltdtBuf buf, void *dataPtr, size_t size, size_t offset)
{
    (void)buf;
    (void)dataPtr;
    (void)size;
    (void)offset;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtSetBufUserData(acltdtBuf buf, const void *dataPtr, size_t size, size_t offset)
{
    (void)buf;
    (void)dataPtr;
    (void)size;
    (void)offset;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtCopyBufRef(const acltdtBuf buf, acltdtBuf *newBuf)
{
    (void)buf;
    (void)newBuf;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API acltdtQueueAttr *acltdtCreateQueueAttr(void)
{
    not_provided(__func__, "tdt queues");
    return NULL;
}

SIM_API aclError acltdtDestroyQueueAttr(const acltdtQueueAttr *attr)
{
    (void)attr;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtSetQueueAttr(acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len, const void *param)
{
    (void)attr;
    (void)type;
    (void)len;
    (void)param;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtGetQueueAttr(const acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len, size_t *paramRetSize, void *param)
{
    (void)attr;
    (void)type;
    (void)len;
    (void)paramRetSize;
    (void)param;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API acltdtQueueRoute *acltdtCreateQueueRoute(uint32_t srcId, uint32_t dstId)
{
    (void)srcId;
    (void)dstId;
    not_provided(__func__, "tdt queues");
    return NULL;
}

SIM_API aclError acltdtDestroyQueueRoute(const acltdtQueueRoute *route)
{
    (void)route;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtGetQueueRouteParam(const acltdtQueueRoute *route, acltdtQueueRouteParamType type, size_t len, size_t *paramRetSize, void *param)
{
    (void)route;
    (void)type;
    (void)len;
    (void)paramRetSize;
    (void)param;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API acltdtQueueRouteList *acltdtCreateQueueRouteList(void)
{
    not_provided(__func__, "tdt queues");
    return NULL;
}

SIM_API aclError acltdtDestroyQueueRouteList(const acltdtQueueRouteList *routeList)
{
    (void)routeList;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtAddQueueRoute(acltdtQueueRouteList *routeList, const acltdtQueueRoute *route)
{
    (void)routeList;
    (void)route;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtGetQueueRoute(const acltdtQueueRouteList *routeList, size_t index, acltdtQueueRoute *route)
{
    (void)routeList;
    (void)index;
    (void)route;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API size_t acltdtGetQueueRouteNum(const acltdtQueueRouteList *routeList)
{
    (void)routeList;
    not_provided(__func__, "tdt queues");
    return 0;
}

SIM_API acltdtQueueRouteQueryInfo *acltdtCreateQueueRouteQueryInfo(void)
{
    not_provided(__func__, "tdt queues");
    return NULL;
}

SIM_API aclError acltdtDestroyQueueRouteQueryInfo(const acltdtQueueRouteQueryInfo *info)
{
    (void)info;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}

SIM_API aclError acltdtSetQueueRouteQueryInfo(acltdtQueueRouteQueryInfo *param, acltdtQueueRouteQueryInfoParamType type, size_t len, const void *value)
{
    (void)param;
    (void)type;
    (void)len;
    (void)value;
    return sim_fail(ACL_ERROR_API_NOT_SUPPORT, "the simulator does not provide tdt queues");
}
