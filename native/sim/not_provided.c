/*
 * aiocann simulator: the functions of CANN libraries the simulator does not have (issue 23) --
 * the data dump (acl_dump.h) and the profiler (acl_prof.h). Declared as in the real headers, so
 * that a program written for CANN links against the toolkit; each returns
 * ACL_ERROR_API_NOT_SUPPORT (200001) with a recent-error message saying the simulator does not
 * provide it (NULL, 0 or nothing where the return type carries no code).
 * Written from native/include/acl/acl_dump.h and acl_prof.h, one definition per prototype.
 */
#include "acl/acl_dump.h"
#include "acl/acl_prof.h"
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
