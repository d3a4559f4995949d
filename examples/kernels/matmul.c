/*
 * Small matrix product with an optional bias: C = A B (+ bias), float32, row-major.
 * A is [m, k], B is [k, n], C is [m, n], bias is [n] or a null pointer (no bias): a dense
 * layer computes X W^T + b by passing W^T as B. The rows of C are split across the launch's
 * blocks (a contiguous range each), so every element of C has exactly one writer. Each row is
 * accumulated in i-k-j order: the inner loop walks a row of B and a row of C contiguously.
 * The sizes come in a tiling block through a placeholder.
 */
#include "kernel_operator.h"

typedef struct {
    uint32_t m;
    uint32_t n;
    uint32_t k;
    uint32_t reserved;
} MatMulTiling;

__global__ __aicore__ void matmul(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR tiling)
{
    const MatMulTiling *t = (const MatMulTiling *)tiling;
    int64_t idx = GetBlockIdx(), num = GetBlockNum();
    uint64_t per = (t->m + num - 1) / num;
    uint64_t begin = idx * per, end = begin + per;
    if (end > t->m)
        end = t->m;
    const uint64_t n = t->n, k = t->k;
    const float *A = (const float *)a, *B = (const float *)b, *bv = (const float *)bias;
    float *C = (float *)c;
    for (uint64_t i = begin; i < end; i++) {
        float *row = C + i * n;
        for (uint64_t j = 0; j < n; j++)
            row[j] = bv ? bv[j] : 0.0f;
        for (uint64_t p = 0; p < k; p++) {
            const float aip = A[i * k + p];
            const float *brow = B + p * n;
            for (uint64_t j = 0; j < n; j++)
                row[j] += aip * brow[j];
        }
    }
}
