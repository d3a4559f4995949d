/*
 * aiocann native helpers: fast paths. The hot sequences of the async layer as single C calls,
 * so a launch costs one crossing of the Python/C boundary: the launch (or copy) and the
 * completion callback behind it are enqueued together.
 */
#include "aiocann_native.h"

#include "acl_table.h"

aclError aiocann_launch(aiocann_cq *cq, aclrtFuncHandle func, uint32_t num_blocks, aclrtStream stream,
                        aclrtLaunchKernelCfg *cfg, aclrtArgsHandle args, uint64_t token, int *launched)
{
    *launched = 0;
    aclError rc = aiocann_bind_context(aiocann_cq_context(cq));
    if (!rc)
        rc = aclrtLaunchKernelWithConfig(func, num_blocks, stream, cfg, args, NULL);
    if (rc)
        return rc;
    *launched = 1;
    return aiocann_cq_enqueue(cq, stream, token);
}

aclError aiocann_memcpy(aiocann_cq *cq, void *dst, size_t dest_max, const void *src, size_t count,
                        aclrtMemcpyKind kind, aclrtStream stream, uint64_t token, int *launched)
{
    *launched = 0;
    aclError rc = aiocann_bind_context(aiocann_cq_context(cq));
    if (!rc)
        rc = aclrtMemcpyAsync(dst, dest_max, src, count, kind, stream);
    if (rc)
        return rc;
    *launched = 1;
    return aiocann_cq_enqueue(cq, stream, token);
}
