/*
 * aiocann toolkit: the operator library's tensor descriptions (CANN's aclnn/acl_meta.h), written
 * from the public API documentation for the simulator's libnnopbase.so.
 *
 * An aclnn operator is called in two phases: <Op>GetWorkspaceSize checks its tensors and returns
 * the device workspace it needs and an executor, and <Op>(workspace, size, executor, stream)
 * launches it on the stream. The tensors describe device memory the caller owns (aclCreateTensor
 * copies the shape, strides and address, not the data); the executor is used once: the launch
 * consumes it.
 */
#ifndef AIOCANN_ACLNN_ACL_META_H_
#define AIOCANN_ACLNN_ACL_META_H_

#include <stdint.h>

#include "acl/acl_rt.h" /* aclDataType, aclFormat, aclrtStream */

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t aclnnStatus;

#define ACLNN_SUCCESS 0
#define ACLNN_ERR_PARAM_NULLPTR 161001 /* a required pointer argument is NULL */
#define ACLNN_ERR_PARAM_INVALID 161002 /* a dtype, shape or value the operator does not take */
#define ACLNN_ERR_RUNTIME_ERROR 361001 /* the runtime refused a call (no device set, a bad stream) */
#define ACLNN_ERR_INNER 561000         /* the library itself failed (out of host memory) */

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;

/* A view of device memory: viewDims (the logical shape) with stride (elements per step of each
 * dimension; NULL: contiguous) from element offset of tensorData; storageDims the shape of the
 * memory itself. NULL when an argument is invalid. */
ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                                               const int64_t *stride, int64_t offset, aclFormat format,
                                               const int64_t *storageDims, uint64_t storageDimsNum,
                                               void *tensorData);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *tensor);
/* A host value of dataType, copied. */
ACL_FUNC_VISIBILITY aclScalar *aclCreateScalar(void *value, aclDataType dataType);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar *scalar);
ACL_FUNC_VISIBILITY aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyIntArray(const aclIntArray *array);

/* The view's shape (*viewDims is the tensor's own array, valid while the tensor lives), its
 * storage shape, its format and dtype. */
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
                                                   uint64_t *storageDimsNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue,
                                                  uint64_t *stridesNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset);
ACL_FUNC_VISIBILITY aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format);
ACL_FUNC_VISIBILITY aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType);
/* Points the tensor at other device memory (a graph replayed on new buffers, say). */
ACL_FUNC_VISIBILITY aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr);
ACL_FUNC_VISIBILITY aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr);

/* An executor made repeatable may be launched any number of times until aclDestroyAclOpExecutor;
 * otherwise the launch consumes it. */
ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);

#ifdef __cplusplus
}
#endif

#endif /* AIOCANN_ACLNN_ACL_META_H_ */
