/* aiocann: umbrella header, as acl/acl.h in CANN (the op and model APIs are not provided). */
#ifndef AIOCANN_ACL_H_
#define AIOCANN_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"

#endif /* AIOCANN_ACL_H_ */
