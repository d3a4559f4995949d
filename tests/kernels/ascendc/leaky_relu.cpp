/*
 * Leaky ReLU two ways over half data: y = max(x, alpha * x) with Muls and Max (alpha < 1), and
 * the LeakyRelu instruction itself; a third kernel clamps with Maxs/Mins. One tile per block
 * (the element count per block fits the unified buffer), a TBuf for the scratch tensor.
 */
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void leaky_relu(GM_ADDR x, GM_ADDR y, float alpha, uint32_t perBlock)
{
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half *)x + perBlock * GetBlockIdx(), perBlock);
    yGm.SetGlobalBuffer((__gm__ half *)y + perBlock * GetBlockIdx(), perBlock);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> in;
    TQue<TPosition::VECOUT, 1> out;
    TBuf<TPosition::VECCALC> scratch;
    pipe.InitBuffer(in, 1, perBlock * sizeof(half));
    pipe.InitBuffer(out, 1, perBlock * sizeof(half));
    pipe.InitBuffer(scratch, perBlock * sizeof(half));
    LocalTensor<half> xl = in.AllocTensor<half>();
    DataCopy(xl, xGm, perBlock);
    in.EnQue(xl);
    xl = in.DeQue<half>();
    LocalTensor<half> scaled = scratch.Get<half>();
    LocalTensor<half> yl = out.AllocTensor<half>();
    Muls(scaled, xl, (half)alpha, perBlock);
    Max(yl, xl, scaled, perBlock);
    out.EnQue(yl);
    in.FreeTensor(xl);
    yl = out.DeQue<half>();
    DataCopy(yGm, yl, perBlock);
    out.FreeTensor(yl);
}

extern "C" __global__ __aicore__ void leaky_relu_op(GM_ADDR x, GM_ADDR y, float alpha, uint32_t perBlock)
{
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half *)x + perBlock * GetBlockIdx(), perBlock);
    yGm.SetGlobalBuffer((__gm__ half *)y + perBlock * GetBlockIdx(), perBlock);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, perBlock * sizeof(half));
    LocalTensor<half> t = buf.Get<half>();
    DataCopy(t, xGm, perBlock);
    LeakyRelu(t, t, (half)alpha, perBlock);
    DataCopy(yGm, t, perBlock);
}

extern "C" __global__ __aicore__ void clamp(GM_ADDR x, GM_ADDR y, float lo, float hi, uint32_t perBlock)
{
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + perBlock * GetBlockIdx(), perBlock);
    yGm.SetGlobalBuffer((__gm__ float *)y + perBlock * GetBlockIdx(), perBlock);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, perBlock * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    DataCopy(t, xGm, perBlock);
    Maxs(t, t, lo, perBlock);
    Mins(t, t, hi, perBlock);
    DataCopy(yGm, t, perBlock);
}
