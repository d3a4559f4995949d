/*
 * aiocann: the external-allocator API of ACL, as declared in CANN 9.1
 * include/external/acl/acl_rt_allocator.h (the four handle typedefs are in its acl_base_rt.h).
 * acl_rt.h includes it, as CANN's does. The simulator keeps the registry
 * (native/sim/allocator.c); the model executor of a real CANN install is what calls the
 * registered functions.
 *
 * The region between the cffi markers is part of the cffi cdef (native/build_ffi.py).
 */
#ifndef AIOCANN_ACL_RT_ALLOCATOR_H_
#define AIOCANN_ACL_RT_ALLOCATOR_H_

#include <stddef.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cffi-begin */
typedef void *aclrtAllocatorDesc;
typedef void *aclrtAllocator;
typedef void *aclrtAllocatorBlock;
typedef void *aclrtAllocatorAddr;

typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr);
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

/* BEGIN GENERATED "allocator": written by native/gen_acl.py from native/acl_functions.py */
aclrtAllocatorDesc aclrtAllocatorCreateDesc(void);
aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);
aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator);
aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocFunc func);
aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorFreeFunc func);
aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocAdviseFunc func);
aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                     aclrtAllocatorGetAddrFromBlockFunc func);
aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc);
aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
                                   aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
                                   aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                   aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);
aclError aclrtAllocatorUnregister(aclrtStream stream);
/* END GENERATED "allocator" */
/* cffi-end */

#ifdef __cplusplus
}
#endif

#endif /* AIOCANN_ACL_RT_ALLOCATOR_H_ */
