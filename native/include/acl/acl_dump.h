/*
 * aiocann: include/external/acl/acl_dump.h of CANN -- the data dump (adump) and the operators'
 * argument dump. Names, values, layouts and prototypes are those of hicann/runtime at commit
 * 681ef7610. The simulator has no dump: every function returns ACL_ERROR_API_NOT_SUPPORT
 * (200001; NULL, or nothing, where the return type has no code) with a recent-error message
 * saying so (native/sim/not_provided.c), so a program links and learns at run time.
 * The prototypes are generated from native/acl_functions.py (header-only groups: in neither
 * the loader's table nor the cffi cdef); edit them there and run native/gen_acl.py.
 */
#ifndef AIOCANN_ACL_DUMP_H_
#define AIOCANN_ACL_DUMP_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifndef ACL_DUMP_API
#define ACL_DUMP_API
#endif
#ifndef ACL_DUMP_WEAK
#define ACL_DUMP_WEAK
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_DUMP_MAX_FILE_PATH_LENGTH 4096
#define ACL_OP_DUMP_OP_AICORE_ARGS 0x00000001U
#define ACL_DUMP_MAX_SHAPE_NUM 25

typedef struct acldumpChunk {
    char fileName[ACL_DUMP_MAX_FILE_PATH_LENGTH];
    uint32_t bufLen;
    uint32_t isLastChunk;
    int64_t offset;
    int32_t flag;
    uint8_t dataBuf[0]; /* a GNU zero-length array, as the real header has it */
} acldumpChunk;

typedef enum acldumpType {
    AIC_ERR_BRIEF_DUMP = 1,
    AIC_ERR_NORM_DUMP = 2,
    AIC_ERR_DETAIL_DUMP = 3,
    DATA_DUMP = 4,
    OVERFLOW_DUMP = 5
} acldumpType;

typedef enum acldumpTensorType {
    ACL_DUMP_TENSOR_INPUT = 0,
    ACL_DUMP_TENSOR_OUTPUT,
    ACL_DUMP_TENSOR_WORKSPACE
} acldumpTensorType;

typedef enum acldumpTensorAddressType {
    ACL_DUMP_ADDR_PTR = 0,
    ACL_DUMP_ADDR_PTR_PTR,
    ACL_DUMP_ADDR_RAW
} acldumpTensorAddressType;

typedef enum acldumpTensorPlacement {
    ACL_DUMP_PLACEMENT_DEVICE = 0,
    ACL_DUMP_PLACEMENT_HOST,
    ACL_DUMP_PLACEMENT_END
} acldumpTensorPlacement;

typedef struct acldumpTensorInfo {
    acldumpTensorType type;
    size_t tensorSize;
    int32_t format;
    int32_t dataType;
    int64_t *tensorAddr;
    acldumpTensorAddressType addrType;
    acldumpTensorPlacement placement;
    uint32_t argsOffset;
    uint32_t shapeNum;
    uint32_t originShapeNum;
    uint64_t shape[ACL_DUMP_MAX_SHAPE_NUM];
    uint64_t originShape[ACL_DUMP_MAX_SHAPE_NUM];
} acldumpTensorInfo;

/* BEGIN GENERATED "dump": written by native/gen_acl.py from native/acl_functions.py */
ACL_DUMP_API aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *, int32_t), int32_t flag);
ACL_DUMP_API void acldumpUnregCallback(void);
ACL_FUNC_VISIBILITY aclError aclopStartDumpArgs(uint32_t dumpType, const char *path);
ACL_FUNC_VISIBILITY aclError aclopStopDumpArgs(uint32_t dumpType);
ACL_FUNC_VISIBILITY const char *acldumpGetPath(acldumpType dumpType);
ACL_DUMP_WEAK ACL_FUNC_VISIBILITY aclError acldumpSaveExceptionInfo(const char *fileName, const char *userTag,
                                                                    const acldumpTensorInfo *tensors,
                                                                    size_t tensorCount);
ACL_DUMP_WEAK ACL_FUNC_VISIBILITY aclError acldumpGetExceptionInfoPath(char *path, size_t maxLen);
/* END GENERATED "dump" */

#ifdef __cplusplus
}
#endif

#endif /* AIOCANN_ACL_DUMP_H_ */
