/*
 * Matrix-vector product y = A x over float32: A is [rows, cols] (row-major), x is [cols], y is
 * [rows]. The rows are split across the launch's blocks (a contiguous range each), so every
 * y[r] is written by exactly one block and no block reads another's output. The sizes come in
 * a tiling block through a placeholder, as Ascend C operators receive their tiling data.
 */
#include "kernel_operator.h"

typedef struct {
    uint32_t rows;
    uint32_t cols;
} MatVecTiling;

__global__ __aicore__ void matvec(GM_ADDR a, GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    const MatVecTiling *t = (const MatVecTiling *)tiling;
    int64_t idx = GetBlockIdx(), num = GetBlockNum();
    uint64_t per = (t->rows + num - 1) / num;
    uint64_t begin = idx * per, end = begin + per;
    if (end > t->rows)
        end = t->rows;
    const uint64_t cols = t->cols;
    const float *v = (const float *)x;
    float *out = (float *)y;
    for (uint64_t r = begin; r < end; r++) {
        const float *row = (const float *)a + r * cols;
        /* Four partial sums: independent chains the compiler can vectorise, and a shorter
         * rounding path than one running sum. */
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        uint64_t c = 0;
        for (; c + 4 <= cols; c += 4) {
            s0 += row[c] * v[c];
            s1 += row[c + 1] * v[c + 1];
            s2 += row[c + 2] * v[c + 2];
            s3 += row[c + 3] * v[c + 3];
        }
        for (; c < cols; c++)
            s0 += row[c] * v[c];
        out[r] = (s0 + s1) + (s2 + s3);
    }
}
