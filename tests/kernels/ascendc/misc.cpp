/*
 * Tier 0: printf from every block, the block_idx / block_num variables, trap(), dcci and the
 * sync no-ops, bfloat16_t storage, __NPU_ARCH__.
 */
#include <cassert>
#include <cstdlib>
#include <stdexcept>

#include "kernel_operator.h"

extern "C" __global__ __aicore__ void hello(uint32_t value)
{
    AscendC::printf("Hello World\n");
    AscendC::printf("value %u from block %d of %d, half %f\nsecond line\n", value, block_idx, block_num,
                    (half)1.5f);
}

/* x[block_idx] += 1, as example/kernel_func/easy_OP.cpp, with its 3510-only dcci. */
extern "C" __global__ __aicore__ void easy_op(__gm__ uint32_t *x)
{
    int32_t idx = block_idx;
    x[idx] += 1;
    x[block_num + block_idx] = (uint32_t)block_num;
#if __NPU_ARCH__ == 3510
    dcci(reinterpret_cast<__gm__ int64_t *>(x), cache_line_t::ENTIRE_DATA_CACHE, dcci_dst_t::CACHELINE_OUT);
#endif
    dcci(x, cache_line_t::SINGLE_CACHE_LINE, dcci_dst_t::CACHELINE_OUT);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(AscendC::EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(AscendC::EVENT_ID0);
}

/* The block given traps; the others write their index. */
extern "C" __global__ __aicore__ void trap_block(__gm__ int32_t *out, int32_t which)
{
    if (block_idx == which)
        trap();
    out[block_idx] = (int32_t)block_idx;
}

extern "C" __global__ __aicore__ void builtin_trap(uint32_t unused) { (void)unused; __builtin_trap(); }

/* The C library's assert and abort, and a C++ exception let out of the kernel, in the block
 * given (how: 0 assert, 1 abort, 2 std::out_of_range, 3 an int); the others write their index. */
extern "C" __global__ __aicore__ void host_failures(__gm__ int32_t *out, int32_t which, int32_t how)
{
    if (block_idx == which) {
        if (how == 0)
            assert(block_idx != which);
        if (how == 1)
            abort();
        if (how == 2)
            throw std::out_of_range("index 7 past 3");
        throw 42;
    }
    out[block_idx] = (int32_t)block_idx;
}

/* bfloat16 storage: float -> bf16 (nearest-even) -> float, and the arch the kernel was built for. */
extern "C" __global__ __aicore__ void bf16_round(__gm__ float *in, __gm__ uint16_t *bits, __gm__ float *back,
                                                 __gm__ uint32_t *arch, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        bfloat16_t b = in[i];
        bits[i] = b.bits;
        back[i] = (float)b;
    }
    arch[0] = __NPU_ARCH__;
    arch[1] = AscendC::GetUBSizeInBytes();
    arch[2] = AscendC::GetRuntimeUBSize();
}

/* The newer style of the asc-devkit add sample: tensors from LocalMemAllocator, the pipes
 * ordered by SetFlag/WaitFlag instead of queues, a template tile length. */
template <uint32_t tileLength> static void AllocatorAdd(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total)
{
    uint32_t per = total / AscendC::GetBlockNum();
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + per * AscendC::GetBlockIdx(), per);
    yGm.SetGlobalBuffer((__gm__ float *)y + per * AscendC::GetBlockIdx(), per);
    zGm.SetGlobalBuffer((__gm__ float *)z + per * AscendC::GetBlockIdx(), per);
    AscendC::LocalMemAllocator<AscendC::Hardware::UB> ub;
    AscendC::LocalTensor<float> a = ub.Alloc<float, tileLength>();
    AscendC::LocalTensor<float> b = ub.Alloc<float, tileLength>();
    AscendC::LocalTensor<float> c = ub.Alloc<float>(tileLength);
    ascendc_assert(ub.GetCurAddr() == 3 * tileLength * sizeof(float), "allocator at %u\n", ub.GetCurAddr());
    AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID0);
    for (uint32_t i = 0; i < per / tileLength; i++) {
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID0);
        AscendC::DataCopy(a, xGm[i * tileLength], tileLength);
        AscendC::DataCopy(b, yGm[i * tileLength], tileLength);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::Add(c, a, b, tileLength);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID0);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::DataCopy(zGm[i * tileLength], c, tileLength);
    }
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID0);
}

extern "C" __global__ __aicore__ void allocator_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total)
{
    AllocatorAdd<256>(x, y, z, total);
}

/* ascendc_assert with a message: block 1 fails. */
extern "C" __global__ __aicore__ void assert_block(int32_t which)
{
    ascendc_assert(block_idx != which, "block %d says no\n", (int32_t)block_idx);
}

/* GetTPipePtr() is the block's TPipe; its event IDs order nothing on the host. */
extern "C" __global__ __aicore__ void pipe_ptr(__gm__ int32_t *out)
{
    AscendC::TPipe pipe;
    event_t e = AscendC::GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_MTE3);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(e);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(e);
    out[block_idx] = AscendC::GetTPipePtr() == &pipe ? 1 : 0;
}

/* DumpTensor of 8 halves plain and of 12 ints as a (3, 4) and a (4, 4) shape. */
extern "C" __global__ __aicore__ void dump(__gm__ int32_t *ints)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> b;
    pipe.InitBuffer(b, 64);
    AscendC::LocalTensor<half> h = b.Get<half>();
    for (uint32_t i = 0; i < 8; i++)
        h.SetValue(i, (half)(i * 0.5f));
    AscendC::DumpTensor(h, 7, 8);
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(ints, 12);
    uint32_t s34[] = {3, 4}, s44[] = {4, 4};
    AscendC::DumpTensor(g, 8, 12, AscendC::ShapeInfo(2, s34));
    AscendC::DumpTensor(g, 9, 12, AscendC::ShapeInfo(2, s44));
}

/* SyncAll: each block writes its index, waits for the others, then reads its neighbour's --
 * twice, so the barrier is reused. */
extern "C" __global__ __aicore__ void sync_all(__gm__ int32_t *slots, __gm__ int32_t *out)
{
    int64_t idx = AscendC::GetBlockIdx(), num = AscendC::GetBlockNum();
    for (int32_t round = 0; round < 2; round++) {
        slots[idx] = (int32_t)(idx + 100 * round);
        AscendC::SyncAll();
        out[round * num + idx] = slots[(idx + 1) % num];
        AscendC::SyncAll();
    }
}

/* One block fails before the barrier; the others wait at it and must end too. */
extern "C" __global__ __aicore__ void sync_all_one_fails(int32_t which)
{
    if (block_idx == which)
        trap();
    AscendC::SyncAll();
}

/* The static-tensor style (a LocalTensor at a UB address, no TPipe), GM writes around the data
 * cache made visible to the other blocks, the system counter, DivCeil. */
extern "C" __global__ __aicore__ void static_tensor(__gm__ float *x, __gm__ int32_t *flags, __gm__ int64_t *cycles)
{
    AscendC::LocalTensor<float> t(AscendC::TPosition::VECCALC, 256, 64);
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(x + 64 * block_idx);
    AscendC::DataCopy(t, g, 64);
    AscendC::Muls(t, t, 2.0f, 64);
    AscendC::DataCopy(g, t, 64);
    int64_t c0 = AscendC::GetSystemCycle();
    AscendC::WriteGmByPassDCache<int32_t>(flags + block_idx, (int32_t)AscendC::DivCeil(block_idx + 1, 2));
    AscendC::DataSyncBarrier<AscendC::MemDsbT::DDR>();
    AscendC::SyncAll();
    int32_t sum = 0;
    for (int64_t b = 0; b < block_num; b++)
        sum += AscendC::ReadGmByPassDCache(flags + b);
    flags[block_num + block_idx] = sum;
    cycles[block_idx] = AscendC::GetSystemCycle() - c0;
}
