/* aiocann: acl/acl.h, CANN's umbrella header: the runtime (acl_rt.h) and the model and operator
 * headers, which CANN's runtime package ships empty (acl_op.h, acl_mdl.h: their APIs are other
 * packages', not simulated). */
#ifndef AIOCANN_ACL_H_
#define AIOCANN_ACL_H_

#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"

#endif /* AIOCANN_ACL_H_ */
