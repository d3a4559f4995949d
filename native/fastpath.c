/*
 * aiocann native helpers: fast paths. The hot sequences of the async layer as single C calls,
 * so a launch costs one crossing of the Python/C boundary: the launch (or copy) and the
 * completion callback behind it are enqueued together.
 */
#include "aiocann_native.h"

#include "acl_table.h"

aclError aiocann_launch(aiocann_cq_stream *qs, aclrtFuncHandle func, uint32_t num_blocks, aclrtLaunchKernelCfg *cfg,
                        aclrtArgsHandle args, uint64_t token, int *launched)
{
    *launched = 0;
    aclError rc = aiocann_bind_context(aiocann_cq_stream_context(qs));
    if (!rc)
        rc = aclrtLaunchKernelWithConfig(func, num_blocks, aiocann_cq_stream_handle(qs), cfg, args, NULL);
    if (rc)
        return rc;
    *launched = 1;
    return aiocann_cq_enqueue(qs, token, 1);
}

aclError aiocann_memcpy(aiocann_cq_stream *qs, void *dst, size_t dest_max, const void *src, size_t count,
                        aclrtMemcpyKind kind, uint64_t token, int *launched)
{
    *launched = 0;
    aclError rc = aiocann_bind_context(aiocann_cq_stream_context(qs));
    if (!rc)
        rc = aclrtMemcpyAsync(dst, dest_max, src, count, kind, aiocann_cq_stream_handle(qs));
    if (rc)
        return rc;
    *launched = 1;
    return aiocann_cq_enqueue(qs, token, 1);
}

aclError aiocann_replay(aiocann_cq_stream *qs, aclmdlRI model, aiocann_cq_model *m, uint64_t token, int *launched)
{
    *launched = 0;
    aclError rc = aiocann_bind_context(aiocann_cq_stream_context(qs));
    if (!rc)
        rc = aclmdlRIExecuteAsync(model, aiocann_cq_stream_handle(qs));
    if (rc)
        return rc;
    *launched = 1;
    return aiocann_cq_enqueue_replay(qs, token, m);
}
