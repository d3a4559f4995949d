/*
 * aiocann's Ascend C layer, part 4: the vector unit (tier 1) -- element-wise arithmetic,
 * scalar forms, Duplicate, Cast, the reductions, Compare and Select.
 *
 * Each instruction has the documented forms (asc-devkit docs, SIMD计算说明):
 *   count:  the first `count` elements, contiguous (the device's counter mode);
 *   mask:   `repeatTime` repeats of 256 bytes (8 data blocks of 32 bytes); in each, the lanes
 *           whose mask bit is set (uint64_t mask[2], bit l of mask[l/64] for lane l; or a
 *           continuous mask: the first `mask` lanes, clamped to the lanes of a repeat) are
 *           computed; lane l of a repeat r is element
 *              (r * repStride + (l / E) * blkStride) * E + l % E      (E = 32 / sizeof(T))
 *           of each operand, strides in 32-byte blocks. Masked-off lanes of dst keep their value.
 * Rules checked per call (never per element): repeatTime in [0, 255] (the parameter is 8 bits on
 * the device; the simulator takes a wider one so that a larger value fails instead of wrapping),
 * every UB operand 32-byte aligned and inside its buffer; count or repeatTime 0 is a no-op.
 *
 * Arithmetic happens in the element type: a half operation is computed in float and rounded to
 * half once (what numpy's float16 does); transcendental functions are the host's libm in float,
 * rounded to the element type. ReduceSum adds the lanes of each repeat as a binary tree of
 * adjacent pairs and then the repeats' sums the same way (the documented order), rounding each
 * addition to the element type; ReduceMax/ReduceMin return the smallest index of the extreme.
 */
#ifndef AIOCANN_ASCENDC_VECTOR_H_
#define AIOCANN_ASCENDC_VECTOR_H_

#include "ascendc/copy.h"

namespace AscendC {
namespace aclsim {

template <typename T> constexpr uint32_t kEpb = 32u / (uint32_t)sizeof(T);  /* elements per block */
template <typename T> constexpr uint32_t kEpr = 256u / (uint32_t)sizeof(T); /* elements per repeat */
/* Lanes of a repeat of an instruction on two element types (Cast, Axpy): the wider type's. */
template <typename T, typename U>
constexpr uint32_t kCastLanes = 256u / (uint32_t)(sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U));

template <typename T, typename... U> constexpr bool kOneOf = (std::is_same_v<T, U> || ...);
/* What the dav-2201 vector unit takes (asc-devkit docs, each instruction's 数据类型): other
 * parts are not held to these lists. */
template <typename T> constexpr bool kArith = __NPU_ARCH__ != 2201 || kOneOf<T, int16_t, half, int32_t, float>;
template <typename T> constexpr bool kFloat = __NPU_ARCH__ != 2201 || kOneOf<T, half, float>;
template <typename T> constexpr bool kBits = __NPU_ARCH__ != 2201 || kOneOf<T, int16_t, uint16_t>;
template <typename T> constexpr bool kShift = __NPU_ARCH__ != 2201 || kOneOf<T, int16_t, uint16_t, int32_t, uint32_t>;

struct Mask {
    uint64_t bits[2];
    int32_t highest; /* highest lane set, -1 if none */
};

inline Mask MakeMask(uint64_t lo, uint64_t hi, uint32_t lanes)
{
    Mask m{{lo, lanes > 64 ? hi : 0}, -1};
    if (lanes < 64)
        m.bits[0] &= (1ull << lanes) - 1;
    if (m.bits[1])
        m.highest = 127 - __builtin_clzll(m.bits[1]);
    else if (m.bits[0])
        m.highest = 63 - __builtin_clzll(m.bits[0]);
    return m;
}
inline Mask MaskOf(const uint64_t mask[], uint32_t lanes) { return MakeMask(mask[0], mask[1], lanes); }
/* A continuous mask above the lanes of a repeat counts as all of them (掩码: "mask超出范围按照
 * 对应数据类型下mask最大值计算"). */
inline Mask MaskOf(uint64_t n, uint32_t lanes)
{
    if (n > lanes)
        n = lanes;
    uint64_t lo = n >= 64 ? ~0ull : ((1ull << n) - 1), hi = n > 64 ? (n >= 128 ? ~0ull : ((1ull << (n - 64)) - 1)) : 0;
    return MakeMask(lo, hi, lanes);
}
inline bool LaneOn(const Mask &m, uint32_t l) { return (m.bits[l >> 6] >> (l & 63)) & 1u; }

inline void CheckRepeat(const char *op, int64_t repeat)
{
    if (repeat < 0 || repeat > 255)
        Fail("repeat count", "%s: repeatTime %lld; the vector unit runs at most 255 repeats of 256 bytes", op,
             (long long)repeat);
}

/* The vector unit's mask register and mode (SetMaskNorm/SetMaskCount, SetVectorMask,
 * ResetMask). Per core, so per thread. Normal mode: the register is each repeat's lane mask.
 * Counter mode: its low word is the number of elements, and the repeats follow from it. */

/* What a mask-form instruction runs: `repeat` repeats, lanes `full` in each but the last,
 * `last` in the last. */
struct Plan {
    Mask full, last;
    int64_t repeat;
    int32_t highest;
};

inline const Mask &MaskAt(const Plan &pl, uint32_t r) { return (int64_t)r + 1 == pl.repeat ? pl.last : pl.full; }

inline Plan MakePlan(const Mask &full, const Mask &last, int64_t repeat)
{
    return Plan{full, last, repeat, full.highest > last.highest ? full.highest : last.highest};
}

/* The mask and repeats of a mask-form instruction (掩码): with isSetMask the instruction's own
 * mask argument -- in normal mode written to the register, in counter mode (SetMaskCount) the
 * element count, its repeats computed and repeatTime ignored; without, the register's. */
template <bool isSetMask>
inline Plan PlanOf(const char *op, uint64_t lo, uint64_t hi, bool continuous, uint32_t lanes, int64_t repeat)
{
    MaskReg &reg = t_mask;
    if (isSetMask && !reg.counter) {
        CheckRepeat(op, repeat);
        Mask m = continuous ? MaskOf(lo, lanes) : MakeMask(lo, hi, lanes);
        reg.lo = m.bits[0];
        reg.hi = m.bits[1];
        return MakePlan(m, m, repeat);
    }
    if (isSetMask) {
        reg.lo = lo;
        reg.hi = 0;
    }
    if (reg.counter) {
        uint64_t n = reg.lo;
        if (n == 0)
            return MakePlan(Mask{{0, 0}, -1}, Mask{{0, 0}, -1}, 0);
        int64_t reps = (int64_t)((n + lanes - 1) / lanes);
        return MakePlan(MaskOf((uint64_t)lanes, lanes), MaskOf(n - (uint64_t)(reps - 1) * lanes, lanes), reps);
    }
    CheckRepeat(op, repeat);
    Mask m = MakeMask(reg.lo, reg.hi, lanes);
    return MakePlan(m, m, repeat);
}
template <bool isSetMask> inline Plan PlanOf(const char *op, const uint64_t mask[], uint32_t lanes, int64_t repeat)
{
    return PlanOf<isSetMask>(op, mask[0], mask[1], false, lanes, repeat);
}
template <bool isSetMask> inline Plan PlanOf(const char *op, uint64_t mask, uint32_t lanes, int64_t repeat)
{
    return PlanOf<isSetMask>(op, mask, 0, true, lanes, repeat);
}

/* The count forms: with isSetMask the count given, after which the register is back to its
 * default (the instruction sets the counter mode itself and restores the normal mode and a full
 * mask: 掩码, 接口内设置Mask); without, the counter mode's count from the register. */
template <bool isSetMask> inline int64_t CountOf(const char *op, int64_t count)
{
    if (isSetMask) {
        t_mask = MaskReg{};
        return count;
    }
    if (!t_mask.counter)
        Fail("mask mode", "%s: the count form with isSetMask=false reads the counter mode's count: call SetMaskCount "
             "and SetVectorMask first", op);
    return (int64_t)t_mask.lo;
}

/* Bytes an operand with elements of `es` bytes spans over `repeat` repeats up to lane `hl`. */
inline uint64_t Span(uint32_t es, int64_t repeat, uint32_t blk, uint32_t rep, int32_t hl)
{
    uint32_t epb = 32u / es;
    return ((uint64_t)(repeat - 1) * rep + (uint64_t)((uint32_t)hl / epb) * blk) * 32 + 32;
}

template <typename T> inline T &At(T *base, uint32_t r, uint32_t l, uint32_t blk, uint32_t rep)
{
    constexpr uint32_t E = kEpb<T>;
    return base[((uint64_t)r * rep + (uint64_t)(l / E) * blk) * E + l % E];
}

/* ------------------------------------------------------------------ element functions */

template <typename T> inline float F(T v) { return (float)v; }

/* The float overflow mode (issue 23; aclrtSetDeviceSatMode, aclrtFloatOverflowMode in the
 * runtime's docs): in the Inf/NaN mode (IEEE 754; the A2/A3 default) a floating-point result is
 * what IEEE arithmetic gives; in the saturation mode (the only one on 910A and 310P) a result that
 * is +-Inf becomes the largest finite value of its type and sign, and a NaN becomes 0. The mode
 * is the launching stream's (fixed when the stream was created). Only a non-finite result asks
 * the simulator which mode applies, so finite arithmetic costs one test. A binary run by a
 * simulator without the call (table version < 3) computes in IEEE. */
inline bool Saturating()
{
    const aclsim_kernel_rt *rt = Rt();
    return rt && rt->version >= 3 && rt->sat_mode && rt->sat_mode() == 0;
}

template <typename T> inline T MaxFinite(bool neg)
{
    if constexpr (std::is_same_v<T, half>) {
        return neg ? (half)-65504.0f : (half)65504.0f;
    } else if constexpr (std::is_same_v<T, bfloat16_t>) {
        T v;
        uint16_t b = neg ? 0xff7fu : 0x7f7fu; /* +-(2 - 2^-7) * 2^127 */
        memcpy(&v, &b, 2);
        return v;
    } else if constexpr (std::is_same_v<T, float>) {
        return neg ? -FLT_MAX : FLT_MAX;
    } else {
        return neg ? -DBL_MAX : DBL_MAX;
    }
}

/* r as the overflow mode leaves it (integers unchanged). */
template <typename T> inline T Fin(T r)
{
    if constexpr (kOneOf<T, half, float, bfloat16_t, double>) {
        double f = std::is_same_v<T, double> ? (double)r : (double)(float)r;
        if (__builtin_isfinite(f) || !Saturating())
            return r;
        return f != f ? (T)0.0f : MaxFinite<T>(f < 0);
    } else {
        return r;
    }
}

/* Whether an operation's float results obey the overflow mode (kSat): the loops below compute
 * every element as IEEE does and, only when the launching stream saturates, pass over the
 * results once more -- so the common (Inf/NaN-mode) loop stays branch-free and vectorised. */
template <class Op, class = void> struct SatOf : std::false_type {};
template <class Op> struct SatOf<Op, std::void_t<decltype(Op::kSat)>> : std::bool_constant<Op::kSat> {};
template <class Op, typename T> inline bool SaturatesHere()
{
    if constexpr (SatOf<Op>::value && kOneOf<T, half, float, bfloat16_t, double>)
        return Saturating();
    else
        return false;
}

struct OpAdd { static constexpr bool kSat = true; template <typename T> static T Do(T a, T b) { return (T)(a + b); } };
struct OpSub { static constexpr bool kSat = true; template <typename T> static T Do(T a, T b) { return (T)(a - b); } };
struct OpMul { static constexpr bool kSat = true; template <typename T> static T Do(T a, T b) { return (T)(a * b); } };
struct OpDiv { static constexpr bool kSat = true; template <typename T> static T Do(T a, T b) { return (T)(a / b); } };
struct OpMax { template <typename T> static T Do(T a, T b) { return a > b ? a : b; } };
struct OpMin { template <typename T> static T Do(T a, T b) { return a < b ? a : b; } };
struct OpAnd { template <typename T> static T Do(T a, T b) { return (T)(a & b); } };
struct OpOr { template <typename T> static T Do(T a, T b) { return (T)(a | b); } };
struct OpLeakyRelu { static constexpr bool kSat = true; template <typename T> static T Do(T a, T s) { return a >= (T)0 ? a : (T)(a * s); } };

struct OpExp { static constexpr bool kSat = true; template <typename T> static T Do(T a) { return (T)expf(F(a)); } };
struct OpLn { static constexpr bool kSat = true; template <typename T> static T Do(T a) { return (T)logf(F(a)); } };
struct OpSqrt { static constexpr bool kSat = true; template <typename T> static T Do(T a) { return (T)sqrtf(F(a)); } };
struct OpRsqrt { static constexpr bool kSat = true; template <typename T> static T Do(T a) { return (T)(1.0f / sqrtf(F(a))); } };
struct OpReciprocal { static constexpr bool kSat = true; template <typename T> static T Do(T a) { return (T)(1.0f / F(a)); } };
struct OpAbs { template <typename T> static T Do(T a) { return a < (T)0 ? (T)(-a) : a; } };
struct OpRelu { template <typename T> static T Do(T a) { return a > (T)0 ? a : (T)0; } };
struct OpNot { template <typename T> static T Do(T a) { return (T)~a; } };
struct OpShl { template <typename T> static T Do(T a, T n) { return (T)((std::make_unsigned_t<T>)a << n); } };
struct OpShr { template <typename T> static T Do(T a, T n) { return (T)(a >> n); } }; /* arithmetic for signed */

/* ------------------------------------------------------------------ drivers */

template <class Op, typename T>
inline void BinaryCount(const char *op, const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b,
                        int64_t count)
{
    CheckCount(op, count);
    if (count == 0)
        return;
    uint64_t bytes = (uint64_t)count * sizeof(T);
    CheckUb(op, "dst", dst, bytes);
    CheckUb(op, "src0", a, bytes);
    CheckUb(op, "src1", b, bytes);
    T *d = dst.addr_;
    const T *x = a.addr_, *y = b.addr_;
    for (int64_t i = 0; i < count; i++) /* vectorised by the compiler (-O2 and up) */
        d[i] = Op::Do(x[i], y[i]);
    if (SaturatesHere<Op, T>())
        for (int64_t i = 0; i < count; i++)
            d[i] = Fin(d[i]);
}

template <class Op, typename T>
inline void BinaryRepeat(const char *op, const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b,
                         const Plan &pl, const BinaryRepeatParams &p)
{
    int64_t repeat = pl.repeat;
    if (repeat == 0 || pl.highest < 0)
        return;
    CheckUb(op, "dst", dst, Span(sizeof(T), repeat, p.dstBlkStride, p.dstRepStride, pl.highest));
    CheckUb(op, "src0", a, Span(sizeof(T), repeat, p.src0BlkStride, p.src0RepStride, pl.highest));
    CheckUb(op, "src1", b, Span(sizeof(T), repeat, p.src1BlkStride, p.src1RepStride, pl.highest));
    const bool sat = SaturatesHere<Op, T>();
    for (uint32_t r = 0; r < (uint32_t)repeat; r++)
        for (uint32_t l = 0; l <= (uint32_t)pl.highest; l++)
            if (LaneOn(MaskAt(pl, r), l)) {
                T v = Op::Do(At(a.addr_, r, l, p.src0BlkStride, p.src0RepStride),
                             At(b.addr_, r, l, p.src1BlkStride, p.src1RepStride));
                At(dst.addr_, r, l, p.dstBlkStride, p.dstRepStride) = sat ? Fin(v) : v;
            }
}

template <class Op, typename T>
inline void UnaryCount(const char *op, const LocalTensor<T> &dst, const LocalTensor<T> &src, int64_t count)
{
    CheckCount(op, count);
    if (count == 0)
        return;
    uint64_t bytes = (uint64_t)count * sizeof(T);
    CheckUb(op, "dst", dst, bytes);
    CheckUb(op, "src", src, bytes);
    T *d = dst.addr_;
    const T *x = src.addr_;
    for (int64_t i = 0; i < count; i++)
        d[i] = Op::Do(x[i]);
    if (SaturatesHere<Op, T>())
        for (int64_t i = 0; i < count; i++)
            d[i] = Fin(d[i]);
}

template <class Op, typename T>
inline void UnaryRepeat(const char *op, const LocalTensor<T> &dst, const LocalTensor<T> &src, const Plan &pl,
                        const UnaryRepeatParams &p)
{
    int64_t repeat = pl.repeat;
    if (repeat == 0 || pl.highest < 0)
        return;
    CheckUb(op, "dst", dst, Span(sizeof(T), repeat, p.dstBlkStride, p.dstRepStride, pl.highest));
    CheckUb(op, "src", src, Span(sizeof(T), repeat, p.srcBlkStride, p.srcRepStride, pl.highest));
    const bool sat = SaturatesHere<Op, T>();
    for (uint32_t r = 0; r < (uint32_t)repeat; r++)
        for (uint32_t l = 0; l <= (uint32_t)pl.highest; l++)
            if (LaneOn(MaskAt(pl, r), l)) {
                T v = Op::Do(At(src.addr_, r, l, p.srcBlkStride, p.srcRepStride));
                At(dst.addr_, r, l, p.dstBlkStride, p.dstRepStride) = sat ? Fin(v) : v;
            }
}

template <class Op, typename T>
inline void ScalarCount(const char *op, const LocalTensor<T> &dst, const LocalTensor<T> &src, T s, int64_t count)
{
    CheckCount(op, count);
    if (count == 0)
        return;
    uint64_t bytes = (uint64_t)count * sizeof(T);
    CheckUb(op, "dst", dst, bytes);
    CheckUb(op, "src", src, bytes);
    T *d = dst.addr_;
    const T *x = src.addr_;
    for (int64_t i = 0; i < count; i++)
        d[i] = Op::Do(x[i], s);
    if (SaturatesHere<Op, T>())
        for (int64_t i = 0; i < count; i++)
            d[i] = Fin(d[i]);
}

template <class Op, typename T>
inline void ScalarRepeat(const char *op, const LocalTensor<T> &dst, const LocalTensor<T> &src, T s, const Plan &pl,
                         const UnaryRepeatParams &p)
{
    int64_t repeat = pl.repeat;
    if (repeat == 0 || pl.highest < 0)
        return;
    CheckUb(op, "dst", dst, Span(sizeof(T), repeat, p.dstBlkStride, p.dstRepStride, pl.highest));
    CheckUb(op, "src", src, Span(sizeof(T), repeat, p.srcBlkStride, p.srcRepStride, pl.highest));
    const bool sat = SaturatesHere<Op, T>();
    for (uint32_t r = 0; r < (uint32_t)repeat; r++)
        for (uint32_t l = 0; l <= (uint32_t)pl.highest; l++)
            if (LaneOn(MaskAt(pl, r), l)) {
                T v = Op::Do(At(src.addr_, r, l, p.srcBlkStride, p.srcRepStride), s);
                At(dst.addr_, r, l, p.dstBlkStride, p.dstRepStride) = sat ? Fin(v) : v;
            }
}

} // namespace aclsim

/* ------------------------------------------------------------------ the mask register */

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

/* The instructions' isSetMask=false forms read the mask register these set (掩码: 接口外设置
 * Mask). SetVectorMask's (maskHigh, maskLow) are the lane bits in normal mode, maskLow the
 * element count in counter mode; its `len` form is a continuous mask of len lanes in normal
 * mode, the element count in counter mode. */
inline void SetMaskCount() { aclsim::t_mask.counter = true; }
inline void SetMaskNorm() { aclsim::t_mask.counter = false; }
inline void ResetMask()
{
    aclsim::t_mask.lo = ~0ull;
    aclsim::t_mask.hi = ~0ull;
}
template <typename T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow)
{
    aclsim::t_mask.lo = maskLow;
    aclsim::t_mask.hi = mode == MaskMode::COUNTER ? 0 : maskHigh;
}
template <typename T, MaskMode mode = MaskMode::NORMAL> inline void SetVectorMask(int32_t len)
{
    if (mode == MaskMode::COUNTER || aclsim::t_mask.counter) {
        aclsim::t_mask.lo = len < 0 ? 0 : (uint64_t)len;
        aclsim::t_mask.hi = 0;
        return;
    }
    aclsim::Mask m = aclsim::MaskOf((uint64_t)(len < 0 ? 0 : len), aclsim::kEpr<T>);
    aclsim::t_mask.lo = m.bits[0];
    aclsim::t_mask.hi = m.bits[1];
}

/* ------------------------------------------------------------------ the instructions */

#define ACLSIM_BINARY(NAME, OP, TRAIT, TYPES)                                                                          \
    template <typename T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,                \
                     const int32_t &count)                                                                             \
    {                                                                                                                  \
        static_assert(aclsim::TRAIT<T>, #NAME " on dav-2201 takes " TYPES);                                            \
        aclsim::BinaryCount<aclsim::OP>(#NAME, dst, src0, src1, aclsim::CountOf<isSetMask>(#NAME, count));                                                \
    }                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,                \
                     const uint64_t mask[], const int32_t repeatTime, const BinaryRepeatParams &repeatParams)          \
    {                                                                                                                  \
        static_assert(aclsim::TRAIT<T>, #NAME " on dav-2201 takes " TYPES);                                            \
        aclsim::BinaryRepeat<aclsim::OP>(#NAME, dst, src0, src1,                                                   \
            aclsim::PlanOf<isSetMask>(#NAME, mask, aclsim::kEpr<T>, repeatTime), repeatParams);                                                                \
    }                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint64_t mask, \
                     const int32_t repeatTime, const BinaryRepeatParams &repeatParams)                                 \
    {                                                                                                                  \
        static_assert(aclsim::TRAIT<T>, #NAME " on dav-2201 takes " TYPES);                                            \
        aclsim::BinaryRepeat<aclsim::OP>(#NAME, dst, src0, src1,                                                   \
            aclsim::PlanOf<isSetMask>(#NAME, mask, aclsim::kEpr<T>, repeatTime), repeatParams);                                                                \
    }

ACLSIM_BINARY(Add, OpAdd, kArith, "int16_t, half, int32_t or float")
ACLSIM_BINARY(Sub, OpSub, kArith, "int16_t, half, int32_t or float")
ACLSIM_BINARY(Mul, OpMul, kArith, "int16_t, half, int32_t or float")
ACLSIM_BINARY(Max, OpMax, kArith, "int16_t, half, int32_t or float")
ACLSIM_BINARY(Min, OpMin, kArith, "int16_t, half, int32_t or float")
ACLSIM_BINARY(Div, OpDiv, kFloat, "half or float")
ACLSIM_BINARY(And, OpAnd, kBits, "int16_t or uint16_t")
ACLSIM_BINARY(Or, OpOr, kBits, "int16_t or uint16_t")
#undef ACLSIM_BINARY

#define ACLSIM_UNARY(NAME, OP, TRAIT, TYPES)                                                                           \
    template <typename T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count)                       \
    {                                                                                                                  \
        static_assert(aclsim::TRAIT<T>, #NAME " on dav-2201 takes " TYPES);                                            \
        aclsim::UnaryCount<aclsim::OP>(#NAME, dst, src, aclsim::CountOf<isSetMask>(#NAME, count));                                                        \
    }                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],                      \
                     const int32_t repeatTime, const UnaryRepeatParams &repeatParams)                                  \
    {                                                                                                                  \
        static_assert(aclsim::TRAIT<T>, #NAME " on dav-2201 takes " TYPES);                                            \
        aclsim::UnaryRepeat<aclsim::OP>(#NAME, dst, src, aclsim::PlanOf<isSetMask>(#NAME, mask, aclsim::kEpr<T>, repeatTime), \
                                        repeatParams);                                                                 \
    }                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask, const int32_t repeatTime,    \
                     const UnaryRepeatParams &repeatParams)                                                            \
    {                                                                                                                  \
        static_assert(aclsim::TRAIT<T>, #NAME " on dav-2201 takes " TYPES);                                            \
        aclsim::UnaryRepeat<aclsim::OP>(#NAME, dst, src, aclsim::PlanOf<isSetMask>(#NAME, mask, aclsim::kEpr<T>, repeatTime), \
                                        repeatParams);                                                                 \
    }

ACLSIM_UNARY(Exp, OpExp, kFloat, "half or float")
ACLSIM_UNARY(Ln, OpLn, kFloat, "half or float")
ACLSIM_UNARY(Sqrt, OpSqrt, kFloat, "half or float")
ACLSIM_UNARY(Rsqrt, OpRsqrt, kFloat, "half or float")
ACLSIM_UNARY(Reciprocal, OpReciprocal, kFloat, "half or float")
ACLSIM_UNARY(Abs, OpAbs, kFloat, "half or float")
ACLSIM_UNARY(Relu, OpRelu, kArith, "int16_t, half, int32_t or float")
ACLSIM_UNARY(Not, OpNot, kBits, "int16_t or uint16_t")
#undef ACLSIM_UNARY

/* Adds, Muls, Maxs, Mins, LeakyRelu: the scalar may be given in another arithmetic type (a
 * float literal for a half tensor); it is converted to the element type, as the device
 * takes it. */
#define ACLSIM_SCALAR_U(NAME, OP, TRAIT, TYPES)                                                                          \
    template <typename T, typename U, bool isSetMask = true>                                                           \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const U &scalarValue, const int32_t &count) \
    {                                                                                                                  \
        static_assert(aclsim::TRAIT<T>, #NAME " on dav-2201 takes " TYPES);                                            \
        aclsim::ScalarCount<aclsim::OP>(#NAME, dst, src, (T)scalarValue, aclsim::CountOf<isSetMask>(#NAME, count));                                       \
    }                                                                                                                  \
    template <typename T, typename U, bool isSetMask = true>                                                           \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const U &scalarValue, const uint64_t mask[], \
                     const int32_t repeatTime, const UnaryRepeatParams &repeatParams)                                  \
    {                                                                                                                  \
        static_assert(aclsim::TRAIT<T>, #NAME " on dav-2201 takes " TYPES);                                            \
        aclsim::ScalarRepeat<aclsim::OP>(#NAME, dst, src, (T)scalarValue,                                          \
            aclsim::PlanOf<isSetMask>(#NAME, mask, aclsim::kEpr<T>, repeatTime), repeatParams);                                                    \
    }                                                                                                                  \
    template <typename T, typename U, bool isSetMask = true>                                                           \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const U &scalarValue, uint64_t mask,        \
                     const int32_t repeatTime, const UnaryRepeatParams &repeatParams)                                  \
    {                                                                                                                  \
        static_assert(aclsim::TRAIT<T>, #NAME " on dav-2201 takes " TYPES);                                            \
        aclsim::ScalarRepeat<aclsim::OP>(#NAME, dst, src, (T)scalarValue,                                          \
            aclsim::PlanOf<isSetMask>(#NAME, mask, aclsim::kEpr<T>, repeatTime), repeatParams);                                                    \
    }

#define ACLSIM_SCALAR(NAME, OP, TRAIT, TYPES)                                                                          \
    template <typename T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const int32_t &count) \
    {                                                                                                                  \
        static_assert(aclsim::TRAIT<T>, #NAME " on dav-2201 takes " TYPES);                                            \
        aclsim::ScalarCount<aclsim::OP>(#NAME, dst, src, scalarValue, aclsim::CountOf<isSetMask>(#NAME, count));       \
    }                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const uint64_t mask[], \
                     const int32_t repeatTime, const UnaryRepeatParams &repeatParams)                                  \
    {                                                                                                                  \
        static_assert(aclsim::TRAIT<T>, #NAME " on dav-2201 takes " TYPES);                                            \
        aclsim::ScalarRepeat<aclsim::OP>(#NAME, dst, src, scalarValue,                                                 \
            aclsim::PlanOf<isSetMask>(#NAME, mask, aclsim::kEpr<T>, repeatTime), repeatParams);                        \
    }                                                                                                                  \
    template <typename T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, uint64_t mask,        \
                     const int32_t repeatTime, const UnaryRepeatParams &repeatParams)                                  \
    {                                                                                                                  \
        static_assert(aclsim::TRAIT<T>, #NAME " on dav-2201 takes " TYPES);                                            \
        aclsim::ScalarRepeat<aclsim::OP>(#NAME, dst, src, scalarValue,                                                 \
            aclsim::PlanOf<isSetMask>(#NAME, mask, aclsim::kEpr<T>, repeatTime), repeatParams);                        \
    }                                                                                                                  \
    ACLSIM_SCALAR_U(NAME, OP, TRAIT, TYPES)

ACLSIM_SCALAR(Adds, OpAdd, kArith, "int16_t, half, int32_t or float")
ACLSIM_SCALAR(Muls, OpMul, kArith, "int16_t, half, int32_t or float")
ACLSIM_SCALAR(Maxs, OpMax, kArith, "int16_t, half, int32_t or float")
ACLSIM_SCALAR(Mins, OpMin, kArith, "int16_t, half, int32_t or float")
ACLSIM_SCALAR(LeakyRelu, OpLeakyRelu, kFloat, "half or float")
ACLSIM_SCALAR(ShiftLeft, OpShl, kShift, "16- or 32-bit integers")
ACLSIM_SCALAR(ShiftRight, OpShr, kShift, "16- or 32-bit integers")
#undef ACLSIM_SCALAR
#undef ACLSIM_SCALAR_U

/* ------------------------------------------------------------------ whole-tensor operators */

namespace aclsim {
template <class Op, typename T> struct TensorExpr {
    const LocalTensor<T> &a, &b;
    const char *name;
    void Into(const LocalTensor<T> &dst) const { BinaryCount<Op>(name, dst, a, b, CountOf<true>(name, dst.GetSize())); }
};
} // namespace aclsim

template <typename T> inline aclsim::TensorExpr<aclsim::OpAdd, T> operator+(const LocalTensor<T> &a, const LocalTensor<T> &b)
{
    return {a, b, "operator+"};
}
template <typename T> inline aclsim::TensorExpr<aclsim::OpSub, T> operator-(const LocalTensor<T> &a, const LocalTensor<T> &b)
{
    return {a, b, "operator-"};
}
template <typename T> inline aclsim::TensorExpr<aclsim::OpMul, T> operator*(const LocalTensor<T> &a, const LocalTensor<T> &b)
{
    return {a, b, "operator*"};
}
template <typename T> inline aclsim::TensorExpr<aclsim::OpDiv, T> operator/(const LocalTensor<T> &a, const LocalTensor<T> &b)
{
    return {a, b, "operator/"};
}

/* ------------------------------------------------------------------ CreateVecIndex, Copy */

/* dst[i] = firstValue + i for the first count elements. */
template <typename T> inline void CreateVecIndex(LocalTensor<T> dst, const T &firstValue, uint32_t count)
{
    if (count == 0)
        return;
    aclsim::CheckUb("CreateVecIndex", "dst", dst, (uint64_t)count * sizeof(T));
    for (uint32_t i = 0; i < count; i++)
        dst.addr_[i] = (T)(firstValue + (T)i);
}

/* UB -> UB copy in the mask form: strides in data blocks within a repeat (dstStride,
 * srcStride) and between repeats (dstRepeatSize, srcRepeatSize). */
struct CopyRepeatParams {
    uint16_t dstStride = 1, srcStride = 1, dstRepeatSize = 8, srcRepeatSize = 8;
    CopyRepeatParams() = default;
    CopyRepeatParams(uint16_t ds, uint16_t ss, uint16_t dr, uint16_t sr)
        : dstStride(ds), srcStride(ss), dstRepeatSize(dr), srcRepeatSize(sr)
    {
    }
};

namespace aclsim {
template <typename T> inline void CopyRepeat(const LocalTensor<T> &dst, const LocalTensor<T> &src, const Plan &pl, const CopyRepeatParams &p)
{
    int64_t repeat = pl.repeat;
    if (repeat == 0 || pl.highest < 0)
        return;
    CheckUb("Copy", "dst", dst, Span(sizeof(T), repeat, p.dstStride, p.dstRepeatSize, pl.highest));
    CheckUb("Copy", "src", src, Span(sizeof(T), repeat, p.srcStride, p.srcRepeatSize, pl.highest));
    for (uint32_t r = 0; r < (uint32_t)repeat; r++)
        for (uint32_t l = 0; l <= (uint32_t)pl.highest; l++)
            if (LaneOn(MaskAt(pl, r), l))
                At(dst.addr_, r, l, p.dstStride, p.dstRepeatSize) = At(src.addr_, r, l, p.srcStride, p.srcRepeatSize);
}
} // namespace aclsim

template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const int32_t repeatTime,
                 const CopyRepeatParams &repeatParams)
{
    aclsim::CopyRepeat(dst, src, aclsim::PlanOf<isSetMask>("Copy", mask, aclsim::kEpr<T>, repeatTime), repeatParams);
}
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask, const int32_t repeatTime,
                 const CopyRepeatParams &repeatParams)
{
    aclsim::CopyRepeat(dst, src, aclsim::PlanOf<isSetMask>("Copy", mask, aclsim::kEpr<T>, repeatTime), repeatParams);
}

/* Brcb: each repeat takes 8 elements of src and fills one data block of dst with each (a
 * dstBlkStride of 0 counts as 1, as the documented reference does). */
struct BrcbRepeatParams {
    uint16_t dstBlkStride = 1, dstRepStride = 8;
    BrcbRepeatParams() = default;
    BrcbRepeatParams(uint16_t blk, uint16_t rep) : dstBlkStride(blk), dstRepStride(rep) {}
};

template <typename T>
inline void Brcb(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,
                 const BrcbRepeatParams &repeatParams)
{
    aclsim::CheckRepeat("Brcb", repeatTime);
    if (repeatTime == 0)
        return;
    constexpr uint32_t E = aclsim::kEpb<T>;
    uint32_t blk = repeatParams.dstBlkStride ? repeatParams.dstBlkStride : 1, rep = repeatParams.dstRepStride;
    aclsim::CheckUb("Brcb", "src", src, (uint64_t)repeatTime * 8 * sizeof(T));
    aclsim::CheckUb("Brcb", "dst", dst, ((uint64_t)(repeatTime - 1) * rep + 7ull * blk) * 32 + 32);
    for (uint32_t i = 0; i < (uint32_t)repeatTime; i++)
        for (uint32_t j = 0; j < 8; j++) {
            T v = src.addr_[i * 8 + j];
            T *d = dst.addr_ + ((uint64_t)i * rep + (uint64_t)j * blk) * E;
            for (uint32_t e = 0; e < E; e++)
                d[e] = v;
        }
}

/* ------------------------------------------------------------------ Axpy */

/* dst = scalar * src + dst, element-wise; src may be half with a float dst. Computed in float
 * (a multiply and an add, each rounded to float), then rounded to dst's type. */
template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U &scalarValue, const int32_t &count_)
{
    int64_t count = aclsim::CountOf<isSetMask>("Axpy", count_);
    aclsim::CheckCount("Axpy", count);
    if (count == 0)
        return;
    aclsim::CheckUb("Axpy", "dst", dst, (uint64_t)count * sizeof(T));
    aclsim::CheckUb("Axpy", "src", src, (uint64_t)count * sizeof(U));
    float a = (float)(U)scalarValue;
    T *d = dst.addr_;
    const U *x = src.addr_;
    for (int64_t i = 0; i < count; i++)
        d[i] = aclsim::Fin((T)(a * (float)x[i] + (float)d[i]));
}

namespace aclsim {
template <typename T, typename U>
inline void AxpyRepeat(const LocalTensor<T> &dst, const LocalTensor<U> &src, float a, const Plan &pl,
                       const UnaryRepeatParams &p)
{
    int64_t repeat = pl.repeat;
    if (repeat == 0 || pl.highest < 0)
        return;
    CheckUb("Axpy", "dst", dst, Span(sizeof(T), repeat, p.dstBlkStride, p.dstRepStride, pl.highest));
    CheckUb("Axpy", "src", src, Span(sizeof(U), repeat, p.srcBlkStride, p.srcRepStride, pl.highest));
    for (uint32_t r = 0; r < (uint32_t)repeat; r++)
        for (uint32_t l = 0; l <= (uint32_t)pl.highest; l++)
            if (LaneOn(MaskAt(pl, r), l)) {
                T &d = At(dst.addr_, r, l, p.dstBlkStride, p.dstRepStride);
                d = Fin((T)(a * (float)At(src.addr_, r, l, p.srcBlkStride, p.srcRepStride) + (float)d));
            }
}
} // namespace aclsim

template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U &scalarValue, const uint64_t mask[],
                 const int32_t repeatTime, const UnaryRepeatParams &repeatParams)
{
    aclsim::AxpyRepeat(dst, src, (float)(U)scalarValue,
                       aclsim::PlanOf<isSetMask>("Axpy", mask, aclsim::kCastLanes<T, U>, repeatTime), repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U &scalarValue, uint64_t mask,
                 const int32_t repeatTime, const UnaryRepeatParams &repeatParams)
{
    aclsim::AxpyRepeat(dst, src, (float)(U)scalarValue,
                       aclsim::PlanOf<isSetMask>("Axpy", mask, aclsim::kCastLanes<T, U>, repeatTime), repeatParams);
}

/* ------------------------------------------------------------------ Duplicate */

template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, const int32_t &count);
template <typename T, typename U, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const U &scalarValue, const int32_t &count)
{
    int64_t n = aclsim::CountOf<isSetMask>("Duplicate", count);
    aclsim::CheckCount("Duplicate", n);
    if (n == 0)
        return;
    aclsim::CheckUb("Duplicate", "dst", dst, (uint64_t)n * sizeof(T));
    T v = (T)scalarValue, *d = dst.addr_;
    for (int64_t i = 0; i < n; i++)
        d[i] = v;
}

namespace aclsim {
template <typename T>
inline void DuplicateRepeat(const LocalTensor<T> &dst, T v, const Plan &pl, uint32_t blk, uint32_t rep)
{
    int64_t repeat = pl.repeat;
    if (repeat == 0 || pl.highest < 0)
        return;
    CheckUb("Duplicate", "dst", dst, Span(sizeof(T), repeat, blk, rep, pl.highest));
    for (uint32_t r = 0; r < (uint32_t)repeat; r++)
        for (uint32_t l = 0; l <= (uint32_t)pl.highest; l++)
            if (LaneOn(MaskAt(pl, r), l))
                At(dst.addr_, r, l, blk, rep) = v;
}
} // namespace aclsim

/* The forms with the scalar in the element type (explicit `Duplicate<T, isSetMask>`). */
template <typename T, bool isSetMask>
inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, const int32_t &count)
{
    Duplicate<T, T, isSetMask>(dst, scalarValue, count);
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, const uint64_t mask[], const int32_t repeatTime,
                      const uint16_t dstBlockStride, const uint16_t dstRepeatStride)
{
    aclsim::DuplicateRepeat(dst, scalarValue, aclsim::PlanOf<isSetMask>("Duplicate", mask, aclsim::kEpr<T>, repeatTime),
                            dstBlockStride, dstRepeatStride);
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, uint64_t mask, const int32_t repeatTime,
                      const uint16_t dstBlockStride, const uint16_t dstRepeatStride)
{
    aclsim::DuplicateRepeat(dst, scalarValue, aclsim::PlanOf<isSetMask>("Duplicate", mask, aclsim::kEpr<T>, repeatTime),
                            dstBlockStride, dstRepeatStride);
}
template <typename T, typename U, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const U &scalarValue, const uint64_t mask[], const int32_t repeatTime,
                      const uint16_t dstBlockStride, const uint16_t dstRepeatStride)
{
    aclsim::DuplicateRepeat(dst, (T)scalarValue, aclsim::PlanOf<isSetMask>("Duplicate", mask, aclsim::kEpr<T>, repeatTime),
                            dstBlockStride, dstRepeatStride);
}
template <typename T, typename U, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T> &dst, const U &scalarValue, uint64_t mask, const int32_t repeatTime,
                      const uint16_t dstBlockStride, const uint16_t dstRepeatStride)
{
    aclsim::DuplicateRepeat(dst, (T)scalarValue, aclsim::PlanOf<isSetMask>("Duplicate", mask, aclsim::kEpr<T>, repeatTime),
                            dstBlockStride, dstRepeatStride);
}

/* ------------------------------------------------------------------ Cast */

namespace aclsim {

template <typename T> constexpr bool kFloatLike = kOneOf<T, half, float, double, bfloat16_t>;

template <typename T> inline uint16_t Bits16(T v)
{
    uint16_t b;
    memcpy(&b, &v, 2);
    return b;
}
template <typename T> inline T From16(uint16_t b)
{
    T v;
    memcpy(&v, &b, 2);
    return v;
}

/* The neighbour of r (a 16-bit float, half or bfloat16_t) on x's side. */
template <typename T> inline T Step16(T r, double x)
{
    uint16_t b = Bits16(r);
    bool neg = b & 0x8000u;
    bool up = x > (double)(float)r;
    if ((b & 0x7fffu) == 0)
        return From16<T>(up ? 0x0001u : 0x8001u);
    return From16<T>((uint16_t)((up != neg) ? b + 1 : b - 1));
}

template <typename D> inline D NearestEven(double x)
{
    if constexpr (std::is_same_v<D, bfloat16_t>)
        return bfloat16_t((float)x);
    else
        return (D)x;
}

template <typename D> inline D Neighbour(D r, double x)
{
    if constexpr (std::is_same_v<D, float>)
        return nextafterf(r, x > (double)r ? INFINITY : -INFINITY);
    else if constexpr (std::is_same_v<D, double>)
        return nextafter(r, x > r ? INFINITY : -INFINITY);
    else
        return Step16<D>(r, x);
}

/* x rounded to the float type D by `mode` (精度转换规则): RINT/NONE nearest-even, FLOOR,
 * CEIL, TRUNC (toward zero), ROUND (nearest, ties away from zero), ODD (to the neighbour with
 * an odd last bit). x is exact (every source type the chip casts from fits a double). */
template <typename D> inline D ToFloat(double x, RoundMode mode)
{
    D r = NearestEven<D>(x);
    double rv = (double)(float)r;
    if constexpr (std::is_same_v<D, double>)
        rv = r;
    if (rv == x || x != x || mode == RoundMode::CAST_RINT || mode == RoundMode::CAST_NONE)
        return r;
    D n = Neighbour<D>(r, x);
    double nv = std::is_same_v<D, double> ? (double)n : (double)(float)n;
    D lo = rv < nv ? r : n, hi = rv < nv ? n : r;
    switch (mode) {
    case RoundMode::CAST_FLOOR: return lo;
    case RoundMode::CAST_CEIL: return hi;
    case RoundMode::CAST_TRUNC: return x > 0 ? lo : hi;
    case RoundMode::CAST_ROUND: {
        double dl = x - (rv < nv ? rv : nv), dh = (rv < nv ? nv : rv) - x;
        return dl == dh ? (x > 0 ? hi : lo) : r;
    }
    case RoundMode::CAST_ODD: {
        if constexpr (std::is_same_v<D, float>) {
            uint32_t b;
            memcpy(&b, &lo, 4);
            return (b & 1u) ? lo : hi;
        } else if constexpr (std::is_same_v<D, double>) {
            return r;
        } else {
            return (Bits16(lo) & 1u) ? lo : hi;
        }
    }
    default: return r;
    }
}

/* To an integer type: rounded by `mode`, saturated to the type's range, NaN -> 0. */
template <typename D> inline D ToInt(double x, RoundMode mode)
{
    if (x != x)
        return 0;
    double v;
    switch (mode) {
    case RoundMode::CAST_FLOOR: v = floor(x); break;
    case RoundMode::CAST_CEIL: v = ceil(x); break;
    case RoundMode::CAST_TRUNC: v = trunc(x); break;
    case RoundMode::CAST_ROUND: v = round(x); break;
    default: v = nearbyint(x); break;
    }
    constexpr double lo = (double)std::numeric_limits<D>::min(), hi = (double)std::numeric_limits<D>::max();
    return v <= lo ? std::numeric_limits<D>::min() : v >= hi ? std::numeric_limits<D>::max() : (D)v;
}

template <typename D, typename S> inline D CastOne(S v, RoundMode mode)
{
    double x;
    if constexpr (kFloatLike<S>)
        x = (double)(float)v;
    else
        x = (double)v;
    if constexpr (std::is_same_v<S, double>)
        x = v;
    if constexpr (kFloatLike<D>)
        return Fin(ToFloat<D>(x, mode)); /* an overflow (or an Inf/NaN source) as the mode says */
    else if constexpr (kFloatLike<S>)
        return ToInt<D>(x, mode);
    else
        return (D)v; /* integer to integer: the value, as the device's narrowing casts */
}

} // namespace aclsim

template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode, const uint32_t count_)
{
    uint32_t count = (uint32_t)aclsim::CountOf<isSetMask>("Cast", count_);
    if (count == 0)
        return;
    aclsim::CheckUb("Cast", "dst", dst, (uint64_t)count * sizeof(T));
    aclsim::CheckUb("Cast", "src", src, (uint64_t)count * sizeof(U));
    T *d = dst.addr_;
    const U *s = src.addr_;
    RoundMode mode = roundMode;
    for (uint32_t i = 0; i < count; i++)
        d[i] = aclsim::CastOne<T, U>(s[i], mode);
}

namespace aclsim {
/* The repeat form: a repeat has 256 / max(sizeof T, sizeof U) lanes (the wider type's), each
 * operand addressed with its own data-block size. */
template <typename T, typename U>
inline void CastRepeat(const LocalTensor<T> &dst, const LocalTensor<U> &src, RoundMode mode, const Plan &pl,
                       const UnaryRepeatParams &p)
{
    int64_t repeat = pl.repeat;
    if (repeat == 0 || pl.highest < 0)
        return;
    CheckUb("Cast", "dst", dst, Span(sizeof(T), repeat, p.dstBlkStride, p.dstRepStride, pl.highest));
    CheckUb("Cast", "src", src, Span(sizeof(U), repeat, p.srcBlkStride, p.srcRepStride, pl.highest));
    for (uint32_t r = 0; r < (uint32_t)repeat; r++)
        for (uint32_t l = 0; l <= (uint32_t)pl.highest; l++)
            if (LaneOn(MaskAt(pl, r), l))
                At(dst.addr_, r, l, p.dstBlkStride, p.dstRepStride) =
                    CastOne<T, U>(At(src.addr_, r, l, p.srcBlkStride, p.srcRepStride), mode);
}
} // namespace aclsim

template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode, const uint64_t mask[],
                 const int32_t repeatTime, const UnaryRepeatParams &repeatParams)
{
    aclsim::CastRepeat(dst, src, roundMode, aclsim::PlanOf<isSetMask>("Cast", mask, aclsim::kCastLanes<T, U>, repeatTime),
                       repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode, uint64_t mask,
                 const int32_t repeatTime, const UnaryRepeatParams &repeatParams)
{
    aclsim::CastRepeat(dst, src, roundMode, aclsim::PlanOf<isSetMask>("Cast", mask, aclsim::kCastLanes<T, U>, repeatTime),
                       repeatParams);
}

/* ------------------------------------------------------------------ reductions */

namespace aclsim {

enum ReduceKind { RED_SUM, RED_MAX, RED_MIN };

/* Sums n (<= elements per repeat, a power of two) values as the vector unit does: adjacent
 * pairs, then pairs of those, ... each addition rounded to T. v is overwritten. */
template <typename T> inline T TreeSum(T *v, uint32_t n)
{
    for (uint32_t w = n / 2; w >= 1; w /= 2)
        for (uint32_t i = 0; i < w; i++)
            v[i] = Fin((T)(v[2 * i] + v[2 * i + 1]));
    return v[0];
}

/* The reduction of `repeat` repeats of src (lane l of repeat r at r * repStride blocks + l,
 * lanes of mask m; the count form passes a full mask and the last repeat's own). Writes
 * [value] or [value, index] to dst. */
template <typename T>
inline void Reduce(const char *op, ReduceKind kind, const LocalTensor<T> &dst, const LocalTensor<T> &src,
                   const LocalTensor<T> &tmp, int64_t repeat, uint32_t repStride, const Mask &full, const Mask &last,
                   bool calIndex, bool checkTmp)
{
    constexpr uint32_t E = kEpr<T>, B = kEpb<T>;
    if (repeat < 0 || repeat > 0x7fffffff)
        Fail("repeat count", "%s: repeatTime %lld out of range", op, (long long)repeat);
    if (repeat == 0 || (full.highest < 0 && last.highest < 0))
        return;
    int32_t hl = full.highest > last.highest ? full.highest : last.highest;
    CheckUb(op, "src", src, ((uint64_t)(repeat - 1) * repStride) * 32 + (uint64_t)(hl + 1) * sizeof(T));
    if (!dst.addr_ || ((uintptr_t)dst.addr_ % sizeof(T)))
        Fail("UB alignment", "%s: dst at UB offset %llu is not aligned to its element size", op,
             (unsigned long long)UbOffset(dst.addr_));
    uint64_t out = (kind != RED_SUM && calIndex) ? 2 : 1;
    if ((const uint8_t *)(dst.addr_ + out) > dst.end_)
        Fail("operand range", "%s: dst needs %llu elements at UB offset %llu, past the end of its buffer", op,
             (unsigned long long)out, (unsigned long long)UbOffset(dst.addr_));
    if (checkTmp) {
        /* sharedTmpBuffer: the first round's results, rounded up to a data block (关键特性说明). */
        uint64_t need = (uint64_t)repeat * (kind == RED_SUM ? 1 : 2);
        need = (need + B - 1) / B * B;
        CheckUb(op, "sharedTmpBuffer", tmp, need * sizeof(T));
    }
    const T *s = src.addr_;
    if (kind == RED_SUM) {
        /* Round one: each repeat's tree; then the repeats' sums, E at a time, the same way, until
         * one is left. Done as a stream of levels (E values each) so that any repeat count
         * needs only a few levels on the stack: level k holds round k+1's inputs in order. */
        constexpr int kLevels = 8; /* E^8 repeats: more than an int32 count */
        T level[kLevels][E];
        uint32_t fill[kLevels] = {};
        T lanes[E];
        auto push = [&](int k, T v) {
            for (;;) {
                level[k][fill[k]++] = v;
                if (fill[k] < E)
                    return;
                v = TreeSum(level[k], E);
                fill[k] = 0;
                k++;
            }
        };
        for (uint64_t r = 0; r < (uint64_t)repeat; r++) {
            const Mask &m = r + 1 == (uint64_t)repeat ? last : full;
            for (uint32_t l = 0; l < E; l++)
                lanes[l] = LaneOn(m, l) ? s[r * repStride * B + l] : (T)0;
            push(0, TreeSum(lanes, E));
        }
        /* The partly filled levels, lowest first: each is one more (zero-padded) group of its
         * round, feeding the next; the top level's single value is the result. */
        T result = (T)0;
        for (int k = 0; k < kLevels; k++) {
            if (fill[k] == 0)
                continue;
            bool higher = false;
            for (int j = k + 1; j < kLevels; j++)
                higher = higher || fill[j] != 0;
            if (!higher && fill[k] == 1) {
                result = level[k][0];
                break;
            }
            for (uint32_t l = fill[k]; l < E; l++)
                level[k][l] = (T)0;
            T v = TreeSum(level[k], E);
            fill[k] = 0;
            if (k + 1 < kLevels)
                level[k + 1][fill[k + 1]++] = v;
        }
        dst.addr_[0] = result;
        return;
    }
    bool have = false;
    T best = (T)0;
    uint64_t at = 0;
    for (uint64_t r = 0; r < (uint64_t)repeat; r++) {
        const Mask &m = r + 1 == (uint64_t)repeat ? last : full;
        for (uint32_t l = 0; l < E; l++) {
            if (!LaneOn(m, l))
                continue;
            T v = s[r * repStride * B + l];
            if (!have || (kind == RED_MAX ? v > best : v < best)) {
                best = v;
                at = r * E + l;
                have = true;
            }
        }
    }
    dst.addr_[0] = best;
    if (calIndex) {
        /* The index is stored in the value's type, as its bits (ReduceRepeat 关键特性说明). */
        if constexpr (sizeof(T) == 2) {
            uint16_t i16 = (uint16_t)at;
            memcpy(&dst.addr_[1], &i16, 2);
        } else {
            uint32_t i32 = (uint32_t)at;
            memcpy(&dst.addr_[1], &i32, sizeof(i32) < sizeof(T) ? sizeof(i32) : sizeof(T));
        }
    }
}

template <typename T>
inline void ReduceCount(const char *op, ReduceKind kind, const LocalTensor<T> &dst, const LocalTensor<T> &src,
                        const LocalTensor<T> &tmp, int64_t count, bool calIndex)
{
    constexpr uint32_t E = kEpr<T>;
    CheckCount(op, count);
    if (count == 0)
        return;
    int64_t repeat = (count + E - 1) / E;
    uint64_t tail = (uint64_t)(count - (repeat - 1) * E);
    /* Counter mode with 256 to 1024 bytes folds the repeats with vector adds and needs no
     * temporary buffer (ReduceSum 关键特性说明); larger counts need the first round's room. */
    bool checkTmp = (uint64_t)count * sizeof(T) > 1024;
    Reduce(op, kind, dst, src, tmp, repeat, 8, MaskOf((uint64_t)E, E), MaskOf(tail, E), calIndex, checkTmp);
}

} // namespace aclsim

template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const int32_t count)
{
    static_assert(aclsim::kFloat<T>, "ReduceSum on dav-2201 takes half or float");
    aclsim::ReduceCount("ReduceSum", aclsim::RED_SUM, dst, src, sharedTmpBuffer, count, false);
}
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride)
{
    aclsim::Mask m = aclsim::MaskOf(mask, aclsim::kEpr<T>);
    aclsim::Reduce("ReduceSum", aclsim::RED_SUM, dst, src, sharedTmpBuffer, repeatTime, (uint32_t)srcRepStride, m, m,
                   false, true);
}
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                      const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride)
{
    aclsim::Mask m = aclsim::MaskOf((uint64_t)(mask < 0 ? 0 : mask), aclsim::kEpr<T>);
    aclsim::Reduce("ReduceSum", aclsim::RED_SUM, dst, src, sharedTmpBuffer, repeatTime, (uint32_t)srcRepStride, m, m,
                   false, true);
}

#define ACLSIM_REDUCE_EXTREME(NAME, KIND)                                                                              \
    template <typename T>                                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,      \
                     const int32_t count, bool calIndex = 0)                                                           \
    {                                                                                                                  \
        static_assert(aclsim::kFloat<T>, #NAME " on dav-2201 takes half or float");                                    \
        aclsim::ReduceCount(#NAME, aclsim::KIND, dst, src, sharedTmpBuffer, count, calIndex);                          \
    }                                                                                                                  \
    template <typename T>                                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,      \
                     const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0)   \
    {                                                                                                                  \
        aclsim::Mask m = aclsim::MaskOf(mask, aclsim::kEpr<T>);                                                        \
        aclsim::Reduce(#NAME, aclsim::KIND, dst, src, sharedTmpBuffer, repeatTime, (uint32_t)srcRepStride, m, m,       \
                       calIndex, true);                                                                                \
    }                                                                                                                  \
    template <typename T>                                                                                              \
    inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,      \
                     const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = 0)     \
    {                                                                                                                  \
        aclsim::Mask m = aclsim::MaskOf((uint64_t)(mask < 0 ? 0 : mask), aclsim::kEpr<T>);                             \
        aclsim::Reduce(#NAME, aclsim::KIND, dst, src, sharedTmpBuffer, repeatTime, (uint32_t)srcRepStride, m, m,       \
                       calIndex, true);                                                                                \
    }

ACLSIM_REDUCE_EXTREME(ReduceMax, RED_MAX)
ACLSIM_REDUCE_EXTREME(ReduceMin, RED_MIN)
#undef ACLSIM_REDUCE_EXTREME

/* ------------------------------------------------------------------ per-block and per-repeat reductions */

enum class ReduceType : uint8_t { SUM = 0, MAX, MIN };

namespace aclsim {

template <typename T> inline T Extreme(ReduceType t)
{
    if (t == ReduceType::MAX)
        return std::numeric_limits<T>::has_infinity ? (T)-INFINITY : std::numeric_limits<T>::lowest();
    if (t == ReduceType::MIN)
        return std::numeric_limits<T>::has_infinity ? (T)INFINITY : std::numeric_limits<T>::max();
    return (T)0;
}

template <typename T> inline T Combine(ReduceType t, T a, T b)
{
    return t == ReduceType::SUM ? Fin((T)(a + b)) : t == ReduceType::MAX ? (a > b ? a : b) : (a < b ? a : b);
}

/* The tree of adjacent pairs for sums; max and min do not depend on the order. Lanes off the
 * mask hold the operation's identity (0, -inf, +inf). */
template <typename T> inline T TreeReduce(ReduceType t, T *v, uint32_t n)
{
    for (uint32_t w = n / 2; w >= 1; w /= 2)
        for (uint32_t i = 0; i < w; i++)
            v[i] = Combine(t, v[2 * i], v[2 * i + 1]);
    return v[0];
}

template <typename T> inline void StoreIndex(T *at, uint32_t index)
{
    if constexpr (sizeof(T) == 2) {
        uint16_t i16 = (uint16_t)index;
        memcpy(at, &i16, 2);
    } else {
        memcpy(at, &index, sizeof(T) < 4 ? sizeof(T) : 4);
    }
}

} // namespace aclsim

/* ReduceDataBlock: each of a repeat's 8 data blocks reduced to one element; a repeat's 8 results
 * are written together, repeats dstRepStride such groups apart. A block with no lane on the mask
 * gives the identity (0, -inf, +inf). */
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true, typename M>
inline void ReduceDataBlockImpl(const LocalTensor<T> &dst, const LocalTensor<U> &src, const M &mask,
                                const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                                const int32_t srcRepStride)
{
    constexpr uint32_t E = aclsim::kEpb<U>, L = aclsim::kEpr<U>;
    const char *op = "ReduceDataBlock";
    aclsim::Plan pl = aclsim::PlanOf<isSetMask>(op, mask, L, repeatTime);
    if (pl.repeat == 0 || pl.highest < 0)
        return;
    aclsim::CheckUb(op, "src", src, aclsim::Span(sizeof(U), pl.repeat, (uint32_t)srcBlkStride, (uint32_t)srcRepStride, pl.highest));
    aclsim::CheckUb(op, "dst", dst, ((uint64_t)(pl.repeat - 1) * (uint32_t)dstRepStride + 1) * 8 * sizeof(T));
    for (uint32_t r = 0; r < (uint32_t)pl.repeat; r++) {
        const aclsim::Mask &m = aclsim::MaskAt(pl, r);
        for (uint32_t b = 0; b < 8; b++) {
            U lanes[E];
            for (uint32_t e = 0; e < E; e++) {
                uint32_t l = b * E + e;
                lanes[e] = aclsim::LaneOn(m, l) ? aclsim::At(src.addr_, r, l, (uint32_t)srcBlkStride, (uint32_t)srcRepStride)
                                                : aclsim::Extreme<U>(reduceType);
            }
            dst.addr_[(uint64_t)r * (uint32_t)dstRepStride * 8 + b] = (T)aclsim::TreeReduce(reduceType, lanes, E);
        }
    }
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
inline void ReduceDataBlock(const LocalTensor<T> &dst, const LocalTensor<U> &src, const uint64_t mask[],
                            const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                            const int32_t srcRepStride)
{
    ReduceDataBlockImpl<reduceType, T, U, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride);
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
inline void ReduceDataBlock(const LocalTensor<T> &dst, const LocalTensor<U> &src, const int32_t mask,
                            const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                            const int32_t srcRepStride)
{
    ReduceDataBlockImpl<reduceType, T, U, isSetMask>(dst, src, (uint64_t)(mask < 0 ? 0 : mask), repeatTime, dstRepStride,
                                                     srcBlkStride, srcRepStride);
}

/* ReduceRepeat: each repeat reduced to one value -- SUM by the tree, MAX/MIN with the lane
 * index of the first extreme -- written as `order` says ([value, index], [index, value],
 * [value] or [index]; the index as the value type's bits, or a uint32 for ORDER_ONLY_INDEX),
 * repeats dstRepStride results apart. */
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true, typename M>
inline void ReduceRepeatImpl(const LocalTensor<T> &dst, const LocalTensor<U> &src, const M &mask, const int32_t repeatTime,
                             const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                             ReduceOrder order)
{
    constexpr uint32_t L = aclsim::kEpr<U>;
    const char *op = "ReduceRepeat";
    aclsim::Plan pl = aclsim::PlanOf<isSetMask>(op, mask, L, repeatTime);
    if (pl.repeat == 0 || pl.highest < 0)
        return;
    if (reduceType == ReduceType::SUM)
        order = ReduceOrder::ORDER_ONLY_VALUE;
    bool both = order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE;
    uint64_t unit = order == ReduceOrder::ORDER_ONLY_INDEX ? 4 : (both ? 2 : 1) * sizeof(T); /* bytes per result */
    aclsim::CheckUb(op, "src", src, aclsim::Span(sizeof(U), pl.repeat, (uint32_t)srcBlkStride, (uint32_t)srcRepStride, pl.highest));
    if (!dst.addr_ || ((uintptr_t)dst.addr_ % sizeof(T)))
        aclsim::Fail("UB alignment", "%s: dst at UB offset %llu is not aligned to its element size", op,
                     (unsigned long long)aclsim::UbOffset(dst.addr_));
    if ((const uint8_t *)dst.addr_ + ((uint64_t)(pl.repeat - 1) * (uint32_t)dstRepStride + 1) * unit > dst.end_)
        aclsim::Fail("operand range", "%s: dst needs %lld results at UB offset %llu, past the end of its buffer", op,
                     (long long)pl.repeat, (unsigned long long)aclsim::UbOffset(dst.addr_));
    for (uint32_t r = 0; r < (uint32_t)pl.repeat; r++) {
        const aclsim::Mask &m = aclsim::MaskAt(pl, r);
        U lanes[L];
        uint32_t at = 0;
        bool have = false;
        U best = aclsim::Extreme<U>(reduceType);
        for (uint32_t l = 0; l < L; l++) {
            bool on = aclsim::LaneOn(m, l);
            U v = on ? aclsim::At(src.addr_, r, l, (uint32_t)srcBlkStride, (uint32_t)srcRepStride) : aclsim::Extreme<U>(reduceType);
            lanes[l] = v;
            if (on && reduceType != ReduceType::SUM &&
                (!have || (reduceType == ReduceType::MAX ? v > best : v < best))) {
                best = v;
                at = l;
                have = true;
            }
        }
        T value = (T)(reduceType == ReduceType::SUM ? aclsim::TreeReduce(reduceType, lanes, L) : best);
        uint8_t *out = (uint8_t *)(void *)dst.addr_ + (uint64_t)r * (uint32_t)dstRepStride * unit;
        switch (order) {
        case ReduceOrder::ORDER_VALUE_INDEX:
            memcpy(out, &value, sizeof(T));
            aclsim::StoreIndex((T *)(void *)(out + sizeof(T)), at);
            break;
        case ReduceOrder::ORDER_INDEX_VALUE:
            aclsim::StoreIndex((T *)(void *)out, at);
            memcpy(out + sizeof(T), &value, sizeof(T));
            break;
        case ReduceOrder::ORDER_ONLY_VALUE: memcpy(out, &value, sizeof(T)); break;
        default: memcpy(out, &at, 4); break;
        }
    }
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
inline void ReduceRepeat(const LocalTensor<T> &dst, const LocalTensor<U> &src, const uint64_t mask[], const int32_t repeatTime,
                         const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                         ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX)
{
    ReduceRepeatImpl<reduceType, T, U, isSetMask>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order);
}
template <ReduceType reduceType, typename T, typename U, bool isSetMask = true>
inline void ReduceRepeat(const LocalTensor<T> &dst, const LocalTensor<U> &src, const int32_t mask, const int32_t repeatTime,
                         const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                         ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX)
{
    ReduceRepeatImpl<reduceType, T, U, isSetMask>(dst, src, (uint64_t)(mask < 0 ? 0 : mask), repeatTime, dstRepStride,
                                                  srcBlkStride, srcRepStride, order);
}

/* ------------------------------------------------------------------ Compare, Select */

namespace aclsim {

template <typename T> inline bool Cmp(T a, T b, CMPMODE mode)
{
    switch (mode) {
    case CMPMODE::LT: return a < b;
    case CMPMODE::GT: return a > b;
    case CMPMODE::EQ: return a == b;
    case CMPMODE::LE: return a <= b;
    case CMPMODE::GE: return a >= b;
    default: return a != b;
    }
}

inline void SetBit(uint8_t *bits, uint64_t i, bool on)
{
    uint8_t bit = (uint8_t)(1u << (i & 7));
    bits[i >> 3] = on ? (uint8_t)(bits[i >> 3] | bit) : (uint8_t)(bits[i >> 3] & ~bit);
}
inline bool GetBit(const uint8_t *bits, uint64_t i) { return (bits[i >> 3] >> (i & 7)) & 1u; }

} // namespace aclsim

/* dst gets one bit per element (bit i%8 of byte i/8, little-endian), 1 where the comparison
 * holds. The count form compares whole repeats only: a count whose bytes are not a multiple
 * of 256 is rounded down to one (Compare 参数说明: "未对齐部分元素不参与计算"). */
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
                    uint32_t count)
{
    constexpr uint32_t E = aclsim::kEpr<T>;
    uint64_t n = count - count % E;
    if (n == 0)
        return;
    aclsim::CheckUb("Compare", "dst", dst, (n + 7) / 8);
    aclsim::CheckUb("Compare", "src0", src0, n * sizeof(T));
    aclsim::CheckUb("Compare", "src1", src1, n * sizeof(T));
    uint8_t *bits = (uint8_t *)(void *)dst.addr_;
    for (uint64_t i = 0; i < n; i++)
        aclsim::SetBit(bits, i, aclsim::Cmp(src0.addr_[i], src1.addr_[i], cmpMode));
}

namespace aclsim {
/* The repeat form: on dav-2201 the mask is a reserved parameter with no effect (every lane of
 * a repeat is compared); elsewhere it selects lanes. Repeat r's bits follow repeat r-1's. */
template <typename T, typename U>
inline void CompareRepeat(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                          CMPMODE mode, Mask m, int64_t repeat, const BinaryRepeatParams &p)
{
    constexpr uint32_t E = kEpr<T>;
    CheckRepeat("Compare", repeat);
    if (__NPU_ARCH__ == 2201)
        m = MaskOf((uint64_t)E, E);
    if (repeat == 0 || m.highest < 0)
        return;
    CheckUb("Compare", "dst", dst, (uint64_t)repeat * E / 8);
    CheckUb("Compare", "src0", src0, Span(sizeof(T), repeat, p.src0BlkStride, p.src0RepStride, m.highest));
    CheckUb("Compare", "src1", src1, Span(sizeof(T), repeat, p.src1BlkStride, p.src1RepStride, m.highest));
    uint8_t *bits = (uint8_t *)(void *)dst.addr_;
    for (uint32_t r = 0; r < (uint32_t)repeat; r++)
        for (uint32_t l = 0; l < E; l++)
            if (LaneOn(m, l))
                SetBit(bits, (uint64_t)r * E + l,
                       Cmp(At(src0.addr_, r, l, p.src0BlkStride, p.src0RepStride),
                           At(src1.addr_, r, l, p.src1BlkStride, p.src1RepStride), mode));
}
} // namespace aclsim

template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
                    const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams &repeatParams)
{
    aclsim::CompareRepeat(dst, src0, src1, cmpMode, aclsim::MaskOf(mask, aclsim::kEpr<T>), repeatTime, repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
                    const uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams &repeatParams)
{
    aclsim::CompareRepeat(dst, src0, src1, cmpMode, aclsim::MaskOf(mask, aclsim::kEpr<T>), repeatTime, repeatParams);
}

/* Compares: src0 against a scalar, as Compare (the count form compares whole repeats). */
template <typename T, typename U, bool isSetMask = true>
inline void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode,
                     uint32_t count)
{
    constexpr uint32_t E = aclsim::kEpr<T>;
    uint64_t n = count - count % E;
    if (n == 0)
        return;
    aclsim::CheckUb("Compares", "dst", dst, (n + 7) / 8);
    aclsim::CheckUb("Compares", "src0", src0, n * sizeof(T));
    uint8_t *bits = (uint8_t *)(void *)dst.addr_;
    for (uint64_t i = 0; i < n; i++)
        aclsim::SetBit(bits, i, aclsim::Cmp(src0.addr_[i], src1Scalar, cmpMode));
}

namespace aclsim {
template <typename T, typename U>
inline void ComparesRepeat(const LocalTensor<U> &dst, const LocalTensor<T> &src0, T scalar, CMPMODE mode, Mask m,
                           int64_t repeat, const UnaryRepeatParams &p)
{
    constexpr uint32_t E = kEpr<T>;
    CheckRepeat("Compares", repeat);
    if (repeat == 0 || m.highest < 0)
        return;
    CheckUb("Compares", "dst", dst, (uint64_t)repeat * E / 8);
    CheckUb("Compares", "src0", src0, Span(sizeof(T), repeat, p.srcBlkStride, p.srcRepStride, m.highest));
    uint8_t *bits = (uint8_t *)(void *)dst.addr_;
    for (uint32_t r = 0; r < (uint32_t)repeat; r++)
        for (uint32_t l = 0; l <= (uint32_t)m.highest; l++)
            if (LaneOn(m, l))
                SetBit(bits, (uint64_t)r * E + l, Cmp(At(src0.addr_, r, l, p.srcBlkStride, p.srcRepStride), scalar, mode));
}
} // namespace aclsim

template <typename T, typename U, bool isSetMask = true>
inline void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode,
                     const uint64_t mask[], uint8_t repeatTime, const UnaryRepeatParams &repeatParams)
{
    aclsim::ComparesRepeat(dst, src0, src1Scalar, cmpMode, aclsim::MaskOf(mask, aclsim::kEpr<T>), repeatTime,
                           repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compares(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode,
                     const uint64_t mask, uint8_t repeatTime, const UnaryRepeatParams &repeatParams)
{
    aclsim::ComparesRepeat(dst, src0, src1Scalar, cmpMode, aclsim::MaskOf(mask, aclsim::kEpr<T>), repeatTime,
                           repeatParams);
}

namespace aclsim {

/* Select: where selMask's bit is 1 take src0, else src1 (a tensor, or in mode 1 a scalar). In
 * mode 0 every repeat reuses the first 256/sizeof(T) bits; in modes 1 and 2 the repeats
 * consume the bits one after another. The repeat form's mask filters the result: masked-off
 * lanes of dst keep their value. */
template <typename T, typename U, bool Scalar>
inline void SelectImpl(const LocalTensor<T> &dst, const LocalTensor<U> &sel, const LocalTensor<T> &src0,
                       const LocalTensor<T> *src1, T scalar, SELMODE mode, bool counted, int64_t count, Mask m,
                       int64_t repeat, const BinaryRepeatParams &p)
{
    constexpr uint32_t E = kEpr<T>;
    const char *op = "Select";
    if (Scalar != (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE))
        Fail("Select mode", "Select: mode %d with a %s second source", (int)mode, Scalar ? "scalar" : "tensor");
    if (counted) {
        CheckCount(op, count);
        if (count == 0)
            return;
        uint64_t bytes = (uint64_t)count * sizeof(T);
        CheckUb(op, "dst", dst, bytes);
        CheckUb(op, "src0", src0, bytes);
        if (!Scalar)
            CheckUb(op, "src1", *src1, bytes);
        CheckUb(op, "selMask", sel, mode == SELMODE::VSEL_CMPMASK_SPR ? E / 8 : ((uint64_t)count + 7) / 8);
        const uint8_t *bits = (const uint8_t *)(const void *)sel.addr_;
        for (int64_t i = 0; i < count; i++) {
            uint64_t b = mode == SELMODE::VSEL_CMPMASK_SPR ? (uint64_t)i % E : (uint64_t)i;
            dst.addr_[i] = GetBit(bits, b) ? src0.addr_[i] : (Scalar ? scalar : src1->addr_[i]);
        }
        return;
    }
    CheckRepeat(op, repeat);
    if (repeat == 0 || m.highest < 0)
        return;
    CheckUb(op, "dst", dst, Span(sizeof(T), repeat, p.dstBlkStride, p.dstRepStride, m.highest));
    CheckUb(op, "src0", src0, Span(sizeof(T), repeat, p.src0BlkStride, p.src0RepStride, m.highest));
    if (!Scalar)
        CheckUb(op, "src1", *src1, Span(sizeof(T), repeat, p.src1BlkStride, p.src1RepStride, m.highest));
    CheckUb(op, "selMask", sel, mode == SELMODE::VSEL_CMPMASK_SPR ? E / 8 : (uint64_t)repeat * E / 8);
    const uint8_t *bits = (const uint8_t *)(const void *)sel.addr_;
    for (uint32_t r = 0; r < (uint32_t)repeat; r++)
        for (uint32_t l = 0; l <= (uint32_t)m.highest; l++) {
            if (!LaneOn(m, l))
                continue;
            uint64_t b = mode == SELMODE::VSEL_CMPMASK_SPR ? l : (uint64_t)r * E + l;
            T a = At(src0.addr_, r, l, p.src0BlkStride, p.src0RepStride);
            T c = Scalar ? scalar : At(src1->addr_, r, l, p.src1BlkStride, p.src1RepStride);
            At(dst.addr_, r, l, p.dstBlkStride, p.dstRepStride) = GetBit(bits, b) ? a : c;
        }
}

} // namespace aclsim

template <typename T, typename U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                   const LocalTensor<T> &src1, SELMODE selMode, uint32_t count)
{
    aclsim::SelectImpl<T, U, false>(dst, selMask, src0, &src1, T(0), selMode, true, count, aclsim::Mask{{0, 0}, -1}, 0, {});
}
template <typename T, typename U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1,
                   SELMODE selMode, uint32_t count)
{
    aclsim::SelectImpl<T, U, true>(dst, selMask, src0, nullptr, src1, selMode, true, count, aclsim::Mask{{0, 0}, -1}, 0, {});
}
template <typename T, typename U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                   const LocalTensor<T> &src1, SELMODE selMode, const uint64_t mask[], uint8_t repeatTime,
                   const BinaryRepeatParams &repeatParams)
{
    aclsim::SelectImpl<T, U, false>(dst, selMask, src0, &src1, T(0), selMode, false, 0,
                                    aclsim::MaskOf(mask, aclsim::kEpr<T>), repeatTime, repeatParams);
}
template <typename T, typename U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
                   const LocalTensor<T> &src1, SELMODE selMode, uint64_t mask, uint8_t repeatTime,
                   const BinaryRepeatParams &repeatParams)
{
    aclsim::SelectImpl<T, U, false>(dst, selMask, src0, &src1, T(0), selMode, false, 0,
                                    aclsim::MaskOf(mask, aclsim::kEpr<T>), repeatTime, repeatParams);
}
template <typename T, typename U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1,
                   SELMODE selMode, const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams &repeatParams)
{
    aclsim::SelectImpl<T, U, true>(dst, selMask, src0, nullptr, src1, selMode, false, 0,
                                   aclsim::MaskOf(mask, aclsim::kEpr<T>), repeatTime, repeatParams);
}
template <typename T, typename U>
inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1,
                   SELMODE selMode, uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams &repeatParams)
{
    aclsim::SelectImpl<T, U, true>(dst, selMask, src0, nullptr, src1, selMode, false, 0,
                                   aclsim::MaskOf(mask, aclsim::kEpr<T>), repeatTime, repeatParams);
}

} // namespace AscendC

#endif /* AIOCANN_ASCENDC_VECTOR_H_ */
