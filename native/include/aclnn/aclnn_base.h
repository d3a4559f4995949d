/* aiocann toolkit: CANN's aclnn/aclnn_base.h, the operator library's base declarations. */
#ifndef AIOCANN_ACLNN_ACLNN_BASE_H_
#define AIOCANN_ACLNN_ACLNN_BASE_H_

#include "aclnn/acl_meta.h"

#endif /* AIOCANN_ACLNN_ACLNN_BASE_H_ */
