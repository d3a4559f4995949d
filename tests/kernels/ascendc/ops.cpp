/*
 * The vector instructions one at a time, for the tests to compare with numpy: each kernel
 * copies its inputs into the unified buffer, runs one instruction in the form the test asks for,
 * and copies the result back. One block; the counts fit one buffer.
 */
#include "kernel_operator.h"

using namespace AscendC;

namespace {

constexpr uint32_t kCap = 16384; /* bytes per operand buffer */

template <typename T> struct Bench {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ba, bb, bo;
    LocalTensor<T> a, b, o;
    GlobalTensor<T> ga, gb, go;
    uint32_t n;
    Bench(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t count) : n(count)
    {
        pipe.InitBuffer(ba, kCap);
        pipe.InitBuffer(bb, kCap);
        pipe.InitBuffer(bo, kCap);
        a = ba.Get<T>();
        b = bb.Get<T>();
        o = bo.Get<T>();
        ga.SetGlobalBuffer((__gm__ T *)x);
        gb.SetGlobalBuffer((__gm__ T *)y);
        go.SetGlobalBuffer((__gm__ T *)out);
        DataCopy(a, ga, kCap / sizeof(T));
        DataCopy(b, gb, kCap / sizeof(T));
        DataCopy(o, go, kCap / sizeof(T)); /* the output's old values: masked lanes keep them */
    }
    ~Bench() { DataCopy(go, o, kCap / sizeof(T)); }
};

template <typename T> void CountOp(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t op, uint32_t n)
{
    Bench<T> t(x, y, out, n);
    int32_t c = (int32_t)n;
    switch (op) {
    case 0: Add(t.o, t.a, t.b, c); break;
    case 1: Sub(t.o, t.a, t.b, c); break;
    case 2: Mul(t.o, t.a, t.b, c); break;
    case 3: Div(t.o, t.a, t.b, c); break;
    case 4: Max(t.o, t.a, t.b, c); break;
    case 5: Min(t.o, t.a, t.b, c); break;
    case 6: Adds(t.o, t.a, 2.5f, c); break;
    case 7: Muls(t.o, t.a, -1.5f, c); break;
    case 8: Maxs(t.o, t.a, 0.25f, c); break;
    case 9: Mins(t.o, t.a, 0.25f, c); break;
    case 10: Exp(t.o, t.a, c); break;
    case 11: Ln(t.o, t.a, c); break;
    case 12: Abs(t.o, t.a, c); break;
    case 13: Sqrt(t.o, t.a, c); break;
    case 14: Rsqrt(t.o, t.a, c); break;
    case 15: Reciprocal(t.o, t.a, c); break;
    case 16: Relu(t.o, t.a, c); break;
    case 17: LeakyRelu(t.o, t.a, 0.1f, c); break;
    case 18: Duplicate(t.o, 3.0f, c); break;
    case 19: { /* the whole-tensor operator: dst's size elements */
        LocalTensor<T> d = t.o;
        d.SetSize(n);
        d = t.a + t.b;
        break;
    }
    case 20: {
        LocalTensor<T> d = t.o;
        d.SetSize(n);
        d = t.a * t.b;
        break;
    }
    default: trap();
    }
}

/* The mask forms: op 0 Add (binary), 1 Exp (unary), 2 Muls (scalar), 3 Duplicate; `cont`
 * picks the continuous mask (lo is the lane count) over the bitwise one. */
template <typename T>
void MaskOp(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t op, uint32_t cont, uint64_t lo, uint64_t hi, uint32_t repeat,
            uint32_t dstBlk, uint32_t srcBlk, uint32_t dstRep, uint32_t srcRep)
{
    Bench<T> t(x, y, out, 0);
    uint64_t mask[2] = {lo, hi};
    BinaryRepeatParams bp((uint16_t)dstBlk, (uint16_t)srcBlk, (uint16_t)srcBlk, (uint16_t)dstRep, (uint16_t)srcRep,
                          (uint16_t)srcRep);
    UnaryRepeatParams up((uint16_t)dstBlk, (uint16_t)srcBlk, (uint16_t)dstRep, (uint16_t)srcRep);
    int32_t r = (int32_t)repeat;
    switch (op) {
    case 0: cont ? Add(t.o, t.a, t.b, lo, r, bp) : Add(t.o, t.a, t.b, mask, r, bp); break;
    case 1: cont ? Exp(t.o, t.a, lo, r, up) : Exp(t.o, t.a, mask, r, up); break;
    case 2: cont ? Muls(t.o, t.a, 3.0f, lo, r, up) : Muls(t.o, t.a, 3.0f, mask, r, up); break;
    case 3:
        cont ? Duplicate(t.o, 7.0f, lo, r, (uint16_t)dstBlk, (uint16_t)dstRep)
             : Duplicate(t.o, 7.0f, mask, r, (uint16_t)dstBlk, (uint16_t)dstRep);
        break;
    default: trap();
    }
}

} // namespace

extern "C" __global__ __aicore__ void count_f32(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t op, uint32_t n)
{
    CountOp<float>(x, y, out, op, n);
}
extern "C" __global__ __aicore__ void count_f16(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t op, uint32_t n)
{
    CountOp<half>(x, y, out, op, n);
}
extern "C" __global__ __aicore__ void count_i32(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t op, uint32_t n)
{
    Bench<int32_t> t(x, y, out, n);
    int32_t c = (int32_t)n;
    switch (op) {
    case 0: Add(t.o, t.a, t.b, c); break;
    case 1: Sub(t.o, t.a, t.b, c); break;
    case 2: Mul(t.o, t.a, t.b, c); break;
    case 4: Max(t.o, t.a, t.b, c); break;
    case 5: Min(t.o, t.a, t.b, c); break;
    case 6: Adds(t.o, t.a, 7, c); break;
    default: trap();
    }
}

extern "C" __global__ __aicore__ void mask_f32(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t op, uint32_t cont,
                                               uint64_t lo, uint64_t hi, uint32_t repeat, uint32_t dstBlk,
                                               uint32_t srcBlk, uint32_t dstRep, uint32_t srcRep)
{
    MaskOp<float>(x, y, out, op, cont, lo, hi, repeat, dstBlk, srcBlk, dstRep, srcRep);
}
extern "C" __global__ __aicore__ void mask_f16(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t op, uint32_t cont,
                                               uint64_t lo, uint64_t hi, uint32_t repeat, uint32_t dstBlk,
                                               uint32_t srcBlk, uint32_t dstRep, uint32_t srcRep)
{
    MaskOp<half>(x, y, out, op, cont, lo, hi, repeat, dstBlk, srcBlk, dstRep, srcRep);
}

/* kind 0 sum, 1 max (with index), 2 min (with index); count form, or the mask form when
 * repeat > 0 (a continuous mask of `mask` lanes, srcRepStride `rep`). out[0] value, out[1]
 * the index's bits. */
template <typename T> void ReduceOp(GM_ADDR x, GM_ADDR out, uint32_t kind, uint32_t n, uint32_t mask, uint32_t repeat, uint32_t rep)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, bt, bo;
    pipe.InitBuffer(bx, 65536);
    pipe.InitBuffer(bt, 4096);
    pipe.InitBuffer(bo, 32);
    LocalTensor<T> s = bx.Get<T>(), tmp = bt.Get<T>(), o = bo.Get<T>();
    GlobalTensor<T> gx, go;
    gx.SetGlobalBuffer((__gm__ T *)x);
    go.SetGlobalBuffer((__gm__ T *)out);
    DataCopy(s, gx, 65536 / sizeof(T));
    Duplicate(o, 0.0f, 32 / sizeof(T));
    if (repeat == 0) {
        if (kind == 0)
            ReduceSum(o, s, tmp, (int32_t)n);
        else if (kind == 1)
            ReduceMax(o, s, tmp, (int32_t)n, true);
        else
            ReduceMin(o, s, tmp, (int32_t)n, true);
    } else {
        if (kind == 0)
            ReduceSum(o, s, tmp, (int32_t)mask, (int32_t)repeat, (int32_t)rep);
        else if (kind == 1)
            ReduceMax(o, s, tmp, (int32_t)mask, (int32_t)repeat, (int32_t)rep, true);
        else
            ReduceMin(o, s, tmp, (int32_t)mask, (int32_t)repeat, (int32_t)rep, true);
    }
    DataCopy(go, o, 32 / sizeof(T));
}

extern "C" __global__ __aicore__ void reduce_f32(GM_ADDR x, GM_ADDR out, uint32_t kind, uint32_t n, uint32_t mask,
                                                 uint32_t repeat, uint32_t rep)
{
    ReduceOp<float>(x, out, kind, n, mask, repeat, rep);
}
extern "C" __global__ __aicore__ void reduce_f16(GM_ADDR x, GM_ADDR out, uint32_t kind, uint32_t n, uint32_t mask,
                                                 uint32_t repeat, uint32_t rep)
{
    ReduceOp<half>(x, out, kind, n, mask, repeat, rep);
}

/* Cast of n elements with round mode `mode` (RoundMode's value). which: 0 float->half,
 * 1 half->float, 2 float->int32, 3 float->bfloat16, 4 half->int32, 5 int32->float. */
extern "C" __global__ __aicore__ void cast_op(GM_ADDR x, GM_ADDR out, uint32_t which, uint32_t mode, uint32_t n)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bi, bo;
    pipe.InitBuffer(bi, 16384);
    pipe.InitBuffer(bo, 16384);
    GlobalTensor<uint8_t> gx, go;
    gx.SetGlobalBuffer((__gm__ uint8_t *)x);
    go.SetGlobalBuffer((__gm__ uint8_t *)out);
    LocalTensor<uint8_t> in = bi.Get<uint8_t>(), o = bo.Get<uint8_t>();
    DataCopy(in, gx, 16384);
    RoundMode m = (RoundMode)mode;
    switch (which) {
    case 0: Cast(o.ReinterpretCast<half>(), in.ReinterpretCast<float>(), m, n); break;
    case 1: Cast(o.ReinterpretCast<float>(), in.ReinterpretCast<half>(), m, n); break;
    case 2: Cast(o.ReinterpretCast<int32_t>(), in.ReinterpretCast<float>(), m, n); break;
    case 3: Cast(o.ReinterpretCast<bfloat16_t>(), in.ReinterpretCast<float>(), m, n); break;
    case 4: Cast(o.ReinterpretCast<int32_t>(), in.ReinterpretCast<half>(), m, n); break;
    case 5: Cast(o.ReinterpretCast<float>(), in.ReinterpretCast<int32_t>(), m, n); break;
    default: trap();
    }
    DataCopy(go, o, 16384);
}

/* Compare a and b (mode = CMPMODE's value) into bits, then Select(a where bit, else b) into
 * out (selMode 2, tensor-tensor), or a where bit else `scalar` when tensorScalar. */
extern "C" __global__ __aicore__ void cmp_sel(GM_ADDR x, GM_ADDR y, GM_ADDR out, GM_ADDR bitsOut, uint32_t mode,
                                              uint32_t n, uint32_t tensorScalar, float scalar)
{
    Bench<float> t(x, y, out, n);
    TBuf<TPosition::VECCALC> bm;
    t.pipe.InitBuffer(bm, 1024);
    LocalTensor<uint8_t> bits = bm.Get<uint8_t>();
    Duplicate(bits.ReinterpretCast<uint16_t>(), (uint16_t)0, 512);
    Compare(bits, t.a, t.b, (CMPMODE)mode, n);
    if (tensorScalar)
        Select(t.o, bits, t.a, scalar, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);
    else
        Select(t.o, bits, t.a, t.b, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
    GlobalTensor<uint8_t> gb;
    gb.SetGlobalBuffer((__gm__ uint8_t *)bitsOut);
    DataCopy(gb, bits, 1024);
}

/* DataCopyPad GM -> UB of int16 data, then the whole UB region back to out (which the test
 * pre-fills, so what DataCopyPad left alone shows). Then, if ub2gm, DataCopyPad UB -> GM of the
 * same blocks into out2. */
extern "C" __global__ __aicore__ void pad_copy(GM_ADDR x, GM_ADDR out, GM_ADDR out2, uint32_t blockCount,
                                               uint32_t blockLen, uint32_t srcStride, uint32_t dstStride,
                                               uint32_t left, uint32_t right, uint32_t isPad, int32_t value)
{
    TPipe pipe;
    TBuf<TPosition::VECIN> b;
    pipe.InitBuffer(b, 8192);
    LocalTensor<int16_t> u = b.Get<int16_t>();
    GlobalTensor<int16_t> gx, go, go2;
    gx.SetGlobalBuffer((__gm__ int16_t *)x);
    go.SetGlobalBuffer((__gm__ int16_t *)out);
    go2.SetGlobalBuffer((__gm__ int16_t *)out2);
    DataCopy(u, go, 4096);
    DataCopyExtParams cp((uint16_t)blockCount, blockLen, srcStride, dstStride, 0);
    DataCopyPadExtParams<int16_t> pp(isPad != 0, (uint8_t)left, (uint8_t)right, (int16_t)value);
    DataCopyPad(u, gx, cp, pp);
    DataCopy(go, u, 4096);
    /* Back out: each UB block holds left + data + right (rounded to 32 bytes); copy the data. */
    if (left == 0 && right == 0) {
        DataCopyExtParams back((uint16_t)blockCount, blockLen, dstStride, srcStride, 0);
        DataCopyPad(go2, u, back);
    }
}

/* DataCopy with a count whose bytes are not a multiple of 32: moved rounded down. */
extern "C" __global__ __aicore__ void copy_round(GM_ADDR x, GM_ADDR out, uint32_t count)
{
    TPipe pipe;
    TBuf<TPosition::VECIN> b;
    pipe.InitBuffer(b, 4096);
    LocalTensor<float> u = b.Get<float>();
    GlobalTensor<float> gx, go;
    gx.SetGlobalBuffer((__gm__ float *)x);
    go.SetGlobalBuffer((__gm__ float *)out);
    Duplicate(u, -1.0f, 1024);
    DataCopy(u, gx, count);
    DataCopy(go, u, 1024);
}

/* The block form: blockCount blocks of blockLen data blocks, gaps in data blocks. */
extern "C" __global__ __aicore__ void copy_blocks(GM_ADDR x, GM_ADDR out, uint32_t count, uint32_t len, uint32_t srcGap,
                                                  uint32_t dstGap)
{
    TPipe pipe;
    TBuf<TPosition::VECIN> b;
    pipe.InitBuffer(b, 8192);
    LocalTensor<float> u = b.Get<float>();
    GlobalTensor<float> gx, go;
    gx.SetGlobalBuffer((__gm__ float *)x);
    go.SetGlobalBuffer((__gm__ float *)out);
    Duplicate(u, -1.0f, 2048);
    DataCopyParams p((uint16_t)count, (uint16_t)len, (uint16_t)srcGap, (uint16_t)dstGap);
    DataCopy(u, gx, p);
    DataCopy(go, u, 2048);
}

/* Compares of a with a scalar into bits; Axpy: out = 1.5 * a + out (float), and with a half
 * source into a float destination. */
extern "C" __global__ __aicore__ void compares_axpy(GM_ADDR x, GM_ADDR y, GM_ADDR out, GM_ADDR bitsOut, uint32_t mode,
                                                    uint32_t n, GM_ADDR halfIn, GM_ADDR mixedOut)
{
    Bench<float> t(x, y, out, n);
    TBuf<TPosition::VECCALC> bm, hb, mb;
    t.pipe.InitBuffer(bm, 1024);
    t.pipe.InitBuffer(hb, 4096);
    t.pipe.InitBuffer(mb, 8192);
    LocalTensor<uint8_t> bits = bm.Get<uint8_t>();
    Duplicate(bits.ReinterpretCast<uint16_t>(), (uint16_t)0, 512);
    Compares(bits, t.a, 0.5f, (CMPMODE)mode, n);
    Axpy(t.o, t.a, 1.5f, (int32_t)n);
    LocalTensor<half> h = hb.Get<half>();
    LocalTensor<float> m = mb.Get<float>();
    GlobalTensor<half> gh;
    GlobalTensor<float> gm;
    gh.SetGlobalBuffer((__gm__ half *)halfIn);
    gm.SetGlobalBuffer((__gm__ float *)mixedOut);
    DataCopy(h, gh, 2048);
    Duplicate(m, 1.0f, 2048);
    Axpy(m, h, (half)2.0f, (int32_t)n);
    DataCopy(gm, m, 2048);
    GlobalTensor<uint8_t> gb;
    gb.SetGlobalBuffer((__gm__ uint8_t *)bitsOut);
    DataCopy(gb, bits, 1024);
}

/* The mask register (掩码): case 0, counter mode with the instruction's mask (its low word the
 * element count, repeats computed, strides honoured); 1, counter mode set outside
 * (SetVectorMask, isSetMask=false); 2, normal mode set outside, bitwise; 3, a count-form
 * instruction leaves the register at its default (full) for a later isSetMask=false one;
 * 4, the count form with isSetMask=false in counter mode. Results: out = a + 1 on the lanes
 * computed. */
extern "C" __global__ __aicore__ void mask_register(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t which, uint64_t lo,
                                                    uint64_t hi, uint32_t dstBlk, uint32_t dstRep)
{
    Bench<float> t(x, y, out, 0);
    UnaryRepeatParams p((uint16_t)dstBlk, (uint16_t)dstBlk, (uint16_t)dstRep, (uint16_t)dstRep);
    switch (which) {
    case 0: {
        SetMaskCount();
        uint64_t mask[2] = {lo, 0};
        Adds(t.o, t.a, 1.0f, mask, 1, p);
        SetMaskNorm();
        ResetMask();
        break;
    }
    case 1:
        SetMaskCount();
        SetVectorMask<float, MaskMode::COUNTER>(0, lo);
        Adds<float, false>(t.o, t.a, 1.0f, MASK_PLACEHOLDER, 1, p);
        SetMaskNorm();
        ResetMask();
        break;
    case 2:
        SetMaskNorm();
        SetVectorMask<float>(hi, lo);
        Adds<float, false>(t.o, t.a, 1.0f, MASK_PLACEHOLDER, 3, p);
        ResetMask();
        break;
    case 3:
        SetVectorMask<float>(0, 1); /* one lane ... */
        Adds(t.b, t.b, 0.0f, 64);   /* ... until a count-form instruction resets the register */
        Adds<float, false>(t.o, t.a, 1.0f, MASK_PLACEHOLDER, 2, p);
        break;
    case 4:
        SetMaskCount();
        SetVectorMask<float>((int32_t)lo);
        Adds<float, false>(t.o, t.a, 1.0f, 1);
        SetMaskNorm();
        ResetMask();
        break;
    default: trap();
    }
}

/* ReduceDataBlock and ReduceRepeat (kind 0 sum, 1 max, 2 min) over `repeat` repeats of x with a
 * continuous mask of `mask` lanes; order for ReduceRepeat (ReduceOrder's value). */
template <ReduceType K>
static void BlockAndRepeat(LocalTensor<float> &s, LocalTensor<float> &d1, LocalTensor<float> &d2, int32_t mask,
                           int32_t repeat, int32_t srcRep, uint32_t order)
{
    ReduceDataBlock<K>(d1, s, mask, repeat, 1, 1, srcRep);
    ReduceRepeat<K>(d2, s, mask, repeat, 1, 1, srcRep, (ReduceOrder)order);
}

extern "C" __global__ __aicore__ void reduce_blocks(GM_ADDR x, GM_ADDR blocksOut, GM_ADDR repeatsOut, uint32_t kind,
                                                    uint32_t mask, uint32_t repeat, uint32_t srcRep, uint32_t order)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, b1, b2;
    pipe.InitBuffer(bx, 32768);
    pipe.InitBuffer(b1, 4096);
    pipe.InitBuffer(b2, 4096);
    LocalTensor<float> s = bx.Get<float>(), d1 = b1.Get<float>(), d2 = b2.Get<float>();
    GlobalTensor<float> gx, g1, g2;
    gx.SetGlobalBuffer((__gm__ float *)x);
    g1.SetGlobalBuffer((__gm__ float *)blocksOut);
    g2.SetGlobalBuffer((__gm__ float *)repeatsOut);
    DataCopy(s, gx, 8192);
    Duplicate(d1, 0.0f, 1024);
    Duplicate(d2, 0.0f, 1024);
    if (kind == 0)
        BlockAndRepeat<ReduceType::SUM>(s, d1, d2, (int32_t)mask, (int32_t)repeat, (int32_t)srcRep, order);
    else if (kind == 1)
        BlockAndRepeat<ReduceType::MAX>(s, d1, d2, (int32_t)mask, (int32_t)repeat, (int32_t)srcRep, order);
    else
        BlockAndRepeat<ReduceType::MIN>(s, d1, d2, (int32_t)mask, (int32_t)repeat, (int32_t)srcRep, order);
    DataCopy(g1, d1, 1024);
    DataCopy(g2, d2, 1024);
}

/* int16 bit operations (count form): op 0 And, 1 Or, 2 Not, 3 ShiftLeft by 3, 4 ShiftRight by 2;
 * 5 CreateVecIndex from -5; 6 Copy in the mask form (a continuous mask of 100 lanes, 2 repeats,
 * source blocks 2 apart). */
extern "C" __global__ __aicore__ void bits_i16(GM_ADDR x, GM_ADDR y, GM_ADDR out, uint32_t op, uint32_t n)
{
    Bench<int16_t> t(x, y, out, n);
    int32_t c = (int32_t)n;
    switch (op) {
    case 0: And(t.o, t.a, t.b, c); break;
    case 1: Or(t.o, t.a, t.b, c); break;
    case 2: Not(t.o, t.a, c); break;
    case 3: ShiftLeft(t.o, t.a, (int16_t)3, c); break;
    case 4: ShiftRight(t.o, t.a, (int16_t)2, c); break;
    case 5: CreateVecIndex(t.o, (int16_t)-5, n); break;
    case 6: Copy(t.o, t.a, (uint64_t)100, 2, CopyRepeatParams(1, 2, 8, 16)); break;
    case 7: Brcb(t.o, t.a, 3, BrcbRepeatParams(2, 20)); break;
    default: trap();
    }
}

/* SetPadValue: DataCopyPad with isPad false pads with the value set (here -3), 2 blocks of
 * 10 int16 with 2 elements of right padding each. */
extern "C" __global__ __aicore__ void pad_value(GM_ADDR x, GM_ADDR out)
{
    TPipe pipe;
    TBuf<TPosition::VECIN> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<int16_t> u = b.Get<int16_t>();
    GlobalTensor<int16_t> gx, go;
    gx.SetGlobalBuffer((__gm__ int16_t *)x);
    go.SetGlobalBuffer((__gm__ int16_t *)out);
    Duplicate(u, (int16_t)99, 512);
    SetPadValue((int16_t)-3);
    DataCopyPad(u, gx, DataCopyExtParams(2, 20, 0, 0, 0), DataCopyPadExtParams<int16_t>(false, 0, 2, 0));
    DataCopy(go, u, 512);
}
