/*
 * Double-buffered vector add in the style of the public Ascend C samples: each block copies
 * tiles of x and y into the unified buffer through VECIN queues, adds them, and copies the sum
 * out through a VECOUT queue; BUFFER_NUM = 2 buffers per queue let tile i+1's copy-in overlap
 * tile i's add on the device. The tiling arrives as placeholder pointers (total length, tile
 * count), as in hicann/runtime example/kernel_func/add_custom_tiling.cpp. Two element types:
 * add_custom (half) and add_custom_f32 (float).
 */
#include "kernel_operator.h"

namespace {
constexpr int32_t BUFFER_NUM = 2;

template <typename T> class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileNum)
    {
        blockLength = totalLength / AscendC::GetBlockNum();
        this->tileNum = tileNum;
        tileLength = blockLength / tileNum / BUFFER_NUM;
        uint64_t start = (uint64_t)blockLength * AscendC::GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ T *)x + start, blockLength);
        yGm.SetGlobalBuffer((__gm__ T *)y + start, blockLength);
        zGm.SetGlobalBuffer((__gm__ T *)z + start, blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        int32_t loopCount = tileNum * BUFFER_NUM;
        for (int32_t i = 0; i < loopCount; i++) {
            CopyIn(i);
            Compute(i);
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t progress)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.template AllocTensor<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.template AllocTensor<T>();
        AscendC::DataCopy(xLocal, xGm[progress * tileLength], tileLength);
        AscendC::DataCopy(yLocal, yGm[progress * tileLength], tileLength);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(int32_t)
    {
        AscendC::LocalTensor<T> xLocal = inQueueX.template DeQue<T>();
        AscendC::LocalTensor<T> yLocal = inQueueY.template DeQue<T>();
        AscendC::LocalTensor<T> zLocal = outQueueZ.template AllocTensor<T>();
        AscendC::Add(zLocal, xLocal, yLocal, tileLength);
        outQueueZ.EnQue(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(int32_t progress)
    {
        AscendC::LocalTensor<T> zLocal = outQueueZ.template DeQue<T>();
        AscendC::DataCopy(zGm[progress * tileLength], zLocal, tileLength);
        outQueueZ.FreeTensor(zLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::GlobalTensor<T> xGm, yGm, zGm;
    uint32_t blockLength = 0, tileNum = 0, tileLength = 0;
};
} // namespace

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, __gm__ int32_t *tilingLength,
                                                 __gm__ int32_t *tilingNum)
{
    KernelAdd<half> op;
    op.Init(x, y, z, *tilingLength, *tilingNum);
    op.Process();
}

extern "C" __global__ __aicore__ void add_custom_f32(GM_ADDR x, GM_ADDR y, GM_ADDR z, __gm__ int32_t *tilingLength,
                                                     __gm__ int32_t *tilingNum)
{
    KernelAdd<float> op;
    op.Init(x, y, z, *tilingLength, *tilingNum);
    op.Process();
}
