/*
 * Row softmax over a [rows, cols] float matrix, one row at a time, rows split across blocks:
 * y = exp(x - max(x)) / sum(exp(x - max(x))), with ReduceMax, Adds, Exp, ReduceSum and Muls by
 * the reciprocal. cols is a multiple of 8 (a row is whole 32-byte blocks). Also a half variant
 * that computes in float after a Cast, and casts the result back with CAST_RINT.
 */
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols)
{
    uint32_t per = (rows + GetBlockNum() - 1) / GetBlockNum();
    uint32_t first = per * GetBlockIdx();
    if (first >= rows)
        return;
    uint32_t last = first + per < rows ? first + per : rows;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x, (uint64_t)rows * cols);
    yGm.SetGlobalBuffer((__gm__ float *)y, (uint64_t)rows * cols);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> in;
    TQue<TPosition::VECOUT, 1> out;
    TBuf<TPosition::VECCALC> work, red;
    pipe.InitBuffer(in, 2, cols * sizeof(float));
    pipe.InitBuffer(out, 2, cols * sizeof(float));
    pipe.InitBuffer(work, cols * sizeof(float));
    pipe.InitBuffer(red, 64);
    for (uint32_t r = first; r < last; r++) {
        LocalTensor<float> xl = in.AllocTensor<float>();
        DataCopy(xl, xGm[(uint64_t)r * cols], cols);
        in.EnQue(xl);
        xl = in.DeQue<float>();
        LocalTensor<float> tmp = work.Get<float>();
        LocalTensor<float> acc = red.Get<float>();
        ReduceMax(acc, xl, tmp, cols);
        float m = acc.GetValue(0);
        LocalTensor<float> yl = out.AllocTensor<float>();
        Adds(yl, xl, -m, cols);
        Exp(yl, yl, cols);
        ReduceSum(acc, yl, tmp, cols);
        float s = acc.GetValue(0);
        Muls(yl, yl, 1.0f / s, cols);
        in.FreeTensor(xl);
        out.EnQue(yl);
        yl = out.DeQue<float>();
        DataCopy(yGm[(uint64_t)r * cols], yl, cols);
        out.FreeTensor(yl);
    }
}

extern "C" __global__ __aicore__ void softmax_rows_half(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols)
{
    uint32_t per = (rows + GetBlockNum() - 1) / GetBlockNum();
    uint32_t first = per * GetBlockIdx();
    if (first >= rows)
        return;
    uint32_t last = first + per < rows ? first + per : rows;
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half *)x, (uint64_t)rows * cols);
    yGm.SetGlobalBuffer((__gm__ half *)y, (uint64_t)rows * cols);
    TPipe pipe;
    TBuf<TPosition::VECCALC> hx, fx, tmp, red;
    pipe.InitBuffer(hx, cols * sizeof(half));
    pipe.InitBuffer(fx, cols * sizeof(float));
    pipe.InitBuffer(tmp, cols * sizeof(float));
    pipe.InitBuffer(red, 64);
    for (uint32_t r = first; r < last; r++) {
        LocalTensor<half> h = hx.Get<half>();
        LocalTensor<float> f = fx.Get<float>(), t = tmp.Get<float>(), acc = red.Get<float>();
        DataCopy(h, xGm[(uint64_t)r * cols], cols);
        Cast(f, h, RoundMode::CAST_NONE, cols);
        ReduceMax(acc, f, t, cols);
        Adds(f, f, -acc.GetValue(0), cols);
        Exp(f, f, cols);
        ReduceSum(acc, f, t, cols);
        Muls(f, f, 1.0f / acc.GetValue(0), cols);
        Cast(h, f, RoundMode::CAST_RINT, cols);
        DataCopy(yGm[(uint64_t)r * cols], h, cols);
    }
}
