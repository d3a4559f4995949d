/* Runtime calls made from a C library in a process where aiocann runs too. */
#include "acl/acl.h"

/* Allocates device memory on device `device` (the library's own aclrtSetDevice: counted by the
 * same runtime aiocann's device uses) and returns it; aiocann then frees it. */
int tk_alloc(int device, void **out)
{
    aclError rc = aclrtSetDevice(device);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrtMalloc(out, 4096, ACL_MEM_MALLOC_HUGE_FIRST);
}

/* Frees what aiocann allocated. */
int tk_free(void *p) { return aclrtFree(p); }

/* The device the calling thread set last, as the runtime of this library sees it. */
int tk_reset(int device) { return aclrtResetDevice(device); }
