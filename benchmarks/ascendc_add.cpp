/*
 * The Ascend C vector add of benchmarks/bench_ascendc_add.py: float32, double-buffered through
 * TPipe/TQue (two buffers per queue, so on the device tile i+1's copy-in overlaps tile i's add),
 * the tiling (total length, tile length) read with GET_TILING_DATA from a placeholder block.
 */
#include "kernel_operator.h"

BEGIN_TILING_DATA_DEF(AddBenchTiling)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(AddBench, AddBenchTiling)

namespace {
constexpr int32_t BUFFER_NUM = 2;

class KernelAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t tile)
    {
        blockLength = total / AscendC::GetBlockNum();
        tileLength = tile;
        uint64_t start = (uint64_t)blockLength * AscendC::GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float *)x + start, blockLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + start, blockLength);
        zGm.SetGlobalBuffer((__gm__ float *)z + start, blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t done = 0; done < blockLength; done += tileLength) {
            uint32_t n = blockLength - done < tileLength ? blockLength - done : tileLength;
            AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
            AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
            AscendC::DataCopy(xLocal, xGm[done], n);
            AscendC::DataCopy(yLocal, yGm[done], n);
            inQueueX.EnQue(xLocal);
            inQueueY.EnQue(yLocal);
            xLocal = inQueueX.DeQue<float>();
            yLocal = inQueueY.DeQue<float>();
            AscendC::LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
            AscendC::Add(zLocal, xLocal, yLocal, n);
            outQueueZ.EnQue<float>(zLocal);
            inQueueX.FreeTensor(xLocal);
            inQueueY.FreeTensor(yLocal);
            zLocal = outQueueZ.DeQue<float>();
            AscendC::DataCopy(zGm[done], zLocal, n);
            outQueueZ.FreeTensor(zLocal);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueueX, inQueueY;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQueueZ;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    uint32_t blockLength = 0, tileLength = 0;
};
} // namespace

extern "C" __global__ __aicore__ void ascendc_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAdd op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.tileLength);
    op.Process();
}
