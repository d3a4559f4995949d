/*
 * aiocann native helpers: functions implemented in Python and callable from C (cffi
 * `extern "Python"`). This file is cdef only -- read by native/build_ffi.py, never compiled:
 * cffi generates the C side of each function, so no libffi closure (executable memory made
 * at run time, which hardened systems refuse) is needed.
 */
/* cffi-begin */
/* The pyACL facade's host-callback trampoline (aiocann/acl/rt.py): passed to
 * aclrtLaunchCallback with a token as its userData. */
extern "Python" void aiocann_acl_callback(void *userData);
/* Its exception-info trampoline (aiocann/acl/rt.py): the function pyACL's
 * set_exception_info_callback registers with aclrtSetExceptionInfoCallback. */
extern "Python" void aiocann_acl_exception_callback(aclrtExceptionInfo *exceptionInfo);
/* issue 11: the allocator trampolines (aiocann/acl/rt.py), the functions pyACL's
 * allocator_set_*_func_to_desc put into a descriptor. */
extern "Python" void *aiocann_acl_allocator_alloc(aclrtAllocator allocator, size_t size);
extern "Python" void aiocann_acl_allocator_free(aclrtAllocator allocator, aclrtAllocatorBlock block);
extern "Python" void *aiocann_acl_allocator_alloc_advise(aclrtAllocator allocator, size_t size,
                                                          aclrtAllocatorAddr addr);
extern "Python" void *aiocann_acl_allocator_get_addr(aclrtAllocatorBlock block);
/* cffi-end */
