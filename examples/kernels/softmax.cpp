/*
 * Row-wise softmax in Ascend C: the examples' softmax_rows (softmax.c) written as a kernel for
 * the NPU is, and built unmodified by aiocann's kernel compiler (aiocann.compiler.build_kernel,
 * `python -m aiocann cc`). y[r, :] = exp(x[r, :] - max) / sum over a float32 [rows, cols]
 * matrix; the rows are split across the launch's blocks (a contiguous range each), each row
 * handled by one block in three passes (max, exponentials and their sum, scale). y may alias x.
 * The sizes come in a tiling block through a placeholder parameter, as Ascend C operators get
 * their tiling data.
 *
 * The pipeline (examples/pipeline.py) and the inference server (examples/inference.py, behind
 * examples/server.py) launch this one; softmax.c is the same kernel in plain C.
 */
#include <cmath>
#include <cstdint>

#include "kernel_operator.h"

namespace {

struct SoftmaxTiling {
    uint32_t rows;
    uint32_t cols;
};

template <typename T> __aicore__ inline T RowMax(const __gm__ T *in, uint64_t cols)
{
    T m = in[0];
    for (uint64_t c = 1; c < cols; c++)
        m = in[c] > m ? in[c] : m;
    return m;
}

template <typename T> __aicore__ inline void SoftmaxRow(const __gm__ T *in, __gm__ T *out, uint64_t cols)
{
    if (cols == 0)
        return;
    const T m = RowMax(in, cols);
    double sum = 0.0; /* cols terms in [0, 1]: a float sum would lose the small ones */
    for (uint64_t c = 0; c < cols; c++) {
        const T e = std::exp(in[c] - m);
        out[c] = e;
        sum += e;
    }
    const T inv = static_cast<T>(1.0 / sum);
    for (uint64_t c = 0; c < cols; c++)
        out[c] *= inv;
}

} // namespace

extern "C" __global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    const auto *t = reinterpret_cast<const __gm__ SoftmaxTiling *>(tiling);
    const uint64_t idx = AscendC::GetBlockIdx(), num = AscendC::GetBlockNum();
    const uint64_t per = (t->rows + num - 1) / num;
    const uint64_t begin = idx * per;
    const uint64_t end = begin + per < t->rows ? begin + per : t->rows;
    const uint64_t cols = t->cols;
    const auto *in = reinterpret_cast<const __gm__ float *>(x);
    auto *out = reinterpret_cast<__gm__ float *>(y);
    for (uint64_t r = begin; r < end; r++)
        SoftmaxRow(in + r * cols, out + r * cols, cols);
}
