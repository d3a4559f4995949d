/*
 * Vector add, the seed kernel: z = x + y over float32, split across the launch's blocks.
 * The element count comes in a tiling block passed through a placeholder parameter, as
 * Ascend C operators receive their tiling data.
 */
#include "kernel_operator.h"

typedef struct {
    uint32_t total; /* number of elements */
    uint32_t reserved;
} AddTiling;

__global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
    const AddTiling *t = (const AddTiling *)tiling;
    int64_t idx = GetBlockIdx(), num = GetBlockNum();
    uint64_t per = (t->total + num - 1) / num;
    uint64_t begin = idx * per, end = begin + per;
    if (end > t->total)
        end = t->total;
    const float *a = (const float *)x, *b = (const float *)y;
    float *c = (float *)z;
    for (uint64_t i = begin; i < end; i++)
        c[i] = a[i] + b[i];
}
