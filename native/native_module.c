/*
 * aiocann native helpers: the body of the cffi extension module aiocann._native.
 * native/build_ffi.py passes this file to cffi's set_source; the helpers themselves are
 * compiled from loader.c, completion_queue.c and fastpath.c. Including acl_table.h makes every
 * ACL function cffi exposes (aiocann._native.lib.aclrtMalloc, ...) call through the loaded
 * runtime's function table.
 */
#include "aiocann_native.h"

#include "acl_table.h"

/* cffi's generated wrappers follow; they are not held to our warning flags. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
