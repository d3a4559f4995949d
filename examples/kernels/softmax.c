/*
 * Row-wise softmax over a float32 [rows, cols] matrix: y[r, :] = exp(x[r, :] - max) / sum.
 * The rows are split across the launch's blocks (a contiguous range each); every row is
 * handled by one block in three passes (max, exponentials and their sum, scale), so a block
 * never needs another block's data. Subtracting the row's maximum first keeps exp() from
 * overflowing: every exponent is <= 0, and the largest term is exactly 1, so the sum is >= 1.
 * y may alias x (in-place softmax). The sizes come in a tiling block through a placeholder.
 *
 * expf() is libm's: every Python process has libm loaded, so the simulator resolves it when it
 * loads the binary (a plain C host program would link with -lm).
 */
#include <math.h>

#include "kernel_operator.h"

typedef struct {
    uint32_t rows;
    uint32_t cols;
} SoftmaxTiling;

__global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    const SoftmaxTiling *t = (const SoftmaxTiling *)tiling;
    int64_t idx = GetBlockIdx(), num = GetBlockNum();
    uint64_t per = (t->rows + num - 1) / num;
    uint64_t begin = idx * per, end = begin + per;
    if (end > t->rows)
        end = t->rows;
    const uint64_t cols = t->cols;
    for (uint64_t r = begin; r < end; r++) {
        const float *in = (const float *)x + r * cols;
        float *out = (float *)y + r * cols;
        if (cols == 0)
            continue;
        float m = in[0];
        for (uint64_t c = 1; c < cols; c++)
            m = in[c] > m ? in[c] : m;
        /* The sum in double: cols terms in [0, 1], so float would lose the small ones. */
        double sum = 0.0;
        for (uint64_t c = 0; c < cols; c++) {
            float e = expf(in[c] - m);
            out[c] = e;
            sum += e;
        }
        float inv = (float)(1.0 / sum);
        for (uint64_t c = 0; c < cols; c++)
            out[c] *= inv;
    }
}
