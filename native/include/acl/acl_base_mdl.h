/*
 * aiocann: include/external/acl/acl_base_mdl.h of CANN's runtime package. There it is an empty file kept
 * for programs written for older CANN versions; the model (.om) and operator APIs come with
 * other packages, which overwrite it. The simulator provides the runtime only, so it is empty
 * here too.
 */
#ifndef AIOCANN_ACL_BASE_MDL_H_
#define AIOCANN_ACL_BASE_MDL_H_
#endif /* AIOCANN_ACL_BASE_MDL_H_ */
