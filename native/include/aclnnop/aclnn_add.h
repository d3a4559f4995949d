/*
 * aiocann toolkit: aclnnAdd (CANN's aclnnop/aclnn_add.h), the simulator's libopapi.so.
 *
 * out = self + alpha * other, element by element, self and other broadcast to out's shape (as
 * numpy and torch broadcast), computed in the promoted type of self and other and written as
 * out's dtype. aclnnInplaceAdd writes selfRef. The dtypes: float, float16, bfloat16, double,
 * int8, uint8, int16, int32, int64 and bool.
 */
#ifndef AIOCANN_ACLNNOP_ACLNN_ADD_H_
#define AIOCANN_ACLNNOP_ACLNN_ADD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                                         const aclScalar *alpha, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                                                const aclScalar *alpha, uint64_t *workspaceSize,
                                                                aclOpExecutor **executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* AIOCANN_ACLNNOP_ACLNN_ADD_H_ */
