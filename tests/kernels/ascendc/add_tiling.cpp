/*
 * Vector add whose tiling is a struct in global memory, read with GET_TILING_DATA: the struct
 * is defined with BEGIN_TILING_DATA_DEF ... END_TILING_DATA_DEF and registered as the default
 * (REGISTER_TILING_DATA_CLASS), as an operator project's host and kernel share it. The tile
 * length need not divide the block's share: the last tile of a block is shorter, and its
 * DataCopy length is kept a multiple of 32 bytes by the host's choice of lengths. A kernel built
 * with -DTILING_KEY_VAR=1 doubles the sum (TILING_KEY_IS).
 */
#include "kernel_operator.h"

BEGIN_TILING_DATA_DEF(AddTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AddTiling, AddTilingData)

using namespace AscendC;

extern "C" __global__ __aicore__ void add_tiling(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    uint32_t per = tilingData.totalLength / GetBlockNum();
    uint32_t tile = tilingData.tileLength;
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + per * GetBlockIdx(), per);
    yGm.SetGlobalBuffer((__gm__ float *)y + per * GetBlockIdx(), per);
    zGm.SetGlobalBuffer((__gm__ float *)z + per * GetBlockIdx(), per);
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inX, inY;
    TQue<TPosition::VECOUT, 1> outZ;
    pipe.InitBuffer(inX, 2, tile * sizeof(float));
    pipe.InitBuffer(inY, 2, tile * sizeof(float));
    pipe.InitBuffer(outZ, 2, tile * sizeof(float));
    for (uint32_t done = 0; done < per; done += tile) {
        uint32_t n = per - done < tile ? per - done : tile;
        LocalTensor<float> a = inX.AllocTensor<float>(), b = inY.AllocTensor<float>();
        DataCopy(a, xGm[done], n);
        DataCopy(b, yGm[done], n);
        inX.EnQue(a);
        inY.EnQue(b);
        a = inX.DeQue<float>();
        b = inY.DeQue<float>();
        LocalTensor<float> c = outZ.AllocTensor<float>();
        Add(c, a, b, n);
        if (TILING_KEY_IS(1))
            Muls(c, c, 2.0f, n);
        outZ.EnQue(c);
        inX.FreeTensor(a);
        inY.FreeTensor(b);
        c = outZ.DeQue<float>();
        DataCopy(zGm[done], c, n);
        outZ.FreeTensor(c);
    }
}
