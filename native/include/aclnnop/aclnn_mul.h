/*
 * aiocann toolkit: aclnnMul (CANN's aclnnop/aclnn_mul.h), the simulator's libopapi.so.
 *
 * out = self * other, element by element, broadcast and typed as aclnnAdd (aclnn_add.h);
 * aclnnInplaceMul writes selfRef.
 */
#ifndef AIOCANN_ACLNNOP_ACLNN_MUL_H_
#define AIOCANN_ACLNNOP_ACLNN_MUL_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceMulGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                                                uint64_t *workspaceSize, aclOpExecutor **executor);
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* AIOCANN_ACLNNOP_ACLNN_MUL_H_ */
