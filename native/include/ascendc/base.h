/*
 * aiocann's Ascend C layer, part 1: the scalar tier (tier 0) and what every other part uses.
 *
 * Written for aiocann from the public Ascend C API documentation (hicann/asc-devkit
 * docs/zh/api); no line comes from CANN's headers. Included by kernel_operator.h in C++ only.
 *
 * Where the simulator stands in for the chip: a kernel binary calls the simulator through the
 * table in its slot (aclsim_kernel.h, aclsim_kernel_rt): Fail() ends the block as an AI-core
 * exception naming the rule the kernel broke, printf() prints whole lines, the unified buffer
 * comes from the simulator (one per AI core). Every rule check is a compare and a branch per
 * API call (never per element), and is always on.
 */
#ifndef AIOCANN_ASCENDC_BASE_H_
#define AIOCANN_ASCENDC_BASE_H_

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <limits>
#include <type_traits>

#include "aclsim_chip.h"
#include "aclsim_kernel.h"

/* __NPU_ARCH__: the front-end passes the simulated chip's (aclsimGetChip()->npu_arch); a
 * build that does not gets the default chip's, the 910B's 2201 (dav-2201). */
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif

#define __vector__
#define __cube__
#define __ubuf__
#define __inline__ inline

/* Storage types of the chip's 16-bit floats. g++ 12 has _Float16 arithmetic on x86-64 (each
 * operation computed in float and rounded to half, as numpy's float16 does); bfloat16_t is a
 * storage type that converts through float (GCC 12 has no __bf16 arithmetic). */
using half = _Float16;
using float16_t = _Float16;

struct bfloat16_t {
    uint16_t bits;
    bfloat16_t() = default;
    /* float -> bfloat16: round to nearest, ties to even; a NaN stays a (quiet) NaN. */
    bfloat16_t(float f)
    {
        uint32_t u;
        memcpy(&u, &f, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u)
            bits = (uint16_t)((u >> 16) | 0x40u);
        else
            bits = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
    bfloat16_t(double d) : bfloat16_t((float)d) {}
    bfloat16_t(int i) : bfloat16_t((float)i) {}
    operator float() const
    {
        uint32_t u = (uint32_t)bits << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    static bfloat16_t FromBits(uint16_t b)
    {
        bfloat16_t v;
        v.bits = b;
        return v;
    }
};

/* dcci and the other cache controls: the host's caches are coherent, so they are no-ops. */
enum class cache_line_t : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE = 1 };
enum class dcci_dst_t : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB = 1, CACHELINE_OUT = 2, CACHELINE_ATOMIC = 3 };
template <typename T, typename... Rest> inline void dcci(T *, Rest...) {}

/* The pipes and event IDs are the device compiler's own names, at global scope. */
enum pipe_t : uint8_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_FIX, PIPE_V2 };
using event_t = int32_t;
enum TEventID : int32_t {
    EVENT_ID0 = 0,
    EVENT_ID1,
    EVENT_ID2,
    EVENT_ID3,
    EVENT_ID4,
    EVENT_ID5,
    EVENT_ID6,
    EVENT_ID7,
};

namespace AscendC {

/* ------------------------------------------------------------------ the simulator's table */
namespace aclsim {

inline const aclsim_kernel_rt *Rt() { return aclsim_kernel_rt_slot; }

/* Ends the running block as an AI-core exception (507015): the launch's message reads
 * "kernel <name>, block <i> of <n>: <rule>: <detail>". Outside the simulator (no table) the
 * kernel traps. */
[[noreturn]] inline void FailText(const char *what) { aclsim_kernel_fail(what); }

[[noreturn]] __attribute__((format(printf, 2, 3))) inline void Fail(const char *rule, const char *fmt, ...)
{
    char what[320];
    int n = snprintf(what, sizeof what, "%s: ", rule);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof what)
        vsnprintf(what + n, sizeof what - (size_t)n, fmt, ap);
    va_end(ap);
    FailText(what);
}

inline const aclsimChip *Chip()
{
    const aclsim_kernel_rt *rt = Rt();
    const aclsimChip *c = rt && rt->chip ? rt->chip() : nullptr;
    if (!c)
        Fail("simulator", "the kernel runs outside the simulator (no chip description)");
    return c;
}

/* The unified buffer of the core running this block, set by TPipe (UbBase() is where UB
 * offsets count from, for messages and GetPhyAddr). */
inline thread_local uint8_t *t_ub_base = nullptr;
inline thread_local uint64_t t_ub_size = 0;

/* This core's unified buffer, for tensors placed by address (the static-tensor style, no
 * TPipe): the simulator's buffer of the calling thread. */
inline uint8_t *UbBase()
{
    if (!t_ub_base) {
        const aclsim_kernel_rt *rt = Rt();
        t_ub_base = rt && rt->ub ? (uint8_t *)rt->ub() : nullptr;
        if (!t_ub_base)
            Fail("simulator", "no unified buffer for this core");
        t_ub_size = Chip()->ub_size;
    }
    return t_ub_base;
}

inline uint64_t UbOffset(const void *p)
{
    return t_ub_base ? (uint64_t)((const uint8_t *)p - t_ub_base) : (uint64_t)(uintptr_t)p;
}

/* The core's registers an instruction reads besides its operands: the vector unit's mask
 * register and mode (vector.h: SetVectorMask, SetMaskCount) and DataCopyPad's padding value
 * (copy.h: SetPadValue). Per core, so per thread; back to their defaults when a block sets up
 * its unified buffer (TPipe, LocalMemAllocator), as a kernel's start does on the device. */
struct MaskReg {
    uint64_t lo = ~0ull, hi = ~0ull;
    bool counter = false;
};
inline thread_local MaskReg t_mask;
inline thread_local uint64_t t_pad_bits = 0;
inline thread_local bool t_pad_set = false;

inline void ResetCoreRegisters()
{
    t_mask = MaskReg{};
    t_pad_set = false;
    t_pad_bits = 0;
}

/* Tensors allocated at once on one TPosition (the chip's event IDs): 4 on the 910A (arch
 * 1001), 8 on the later parts (asc-devkit docs, TQue/AllocTensor). */
inline uint32_t MaxAllocPerPosition() { return Chip()->npu_arch < 2000 ? 4u : 8u; }

/* What printf passes for each argument: half and bfloat16_t as double (varargs cannot carry
 * them), the block_idx/block_num variables as their value, the rest as they are. */
template <typename A> inline auto PrintArg(const A &a)
{
    using D = std::decay_t<A>;
    if constexpr (std::is_same_v<D, half> || std::is_same_v<D, bfloat16_t>)
        return (double)(float)a;
    else if constexpr (std::is_class_v<D> && std::is_convertible_v<D, int64_t>)
        return (int64_t)a;
    else
        return a;
}

} // namespace aclsim

/* ------------------------------------------------------------------ printf, trap */

/* AscendC::printf: the device prints each line of a block's output with the block's prefix,
 * "[AIV Block <idx>/<num>] " (asc-devkit docs, Utils-API printf). The call is formatted here
 * (at most 4 KiB, like the device's per-call limit it truncates) and handed to the simulator
 * as one piece, so lines of concurrent blocks never interleave. */
template <typename... Args> inline void printf(const char *fmt, Args &&...args)
{
    char body[4096];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat"
    int n = snprintf(body, sizeof body, fmt, aclsim::PrintArg(args)...);
#pragma GCC diagnostic pop
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof body ? (size_t)n : sizeof body - 1;
    char prefix[48];
    int plen = snprintf(prefix, sizeof prefix, "[AIV Block %lld/%lld] ", (long long)::GetBlockIdx(),
                        (long long)::GetBlockNum());
    char out[4096 + 64 * 48];
    size_t o = 0;
    bool start = true;
    for (size_t i = 0; i < len && o + (size_t)plen + 2 < sizeof out; i++) {
        if (start) {
            memcpy(out + o, prefix, (size_t)plen);
            o += (size_t)plen;
            start = false;
        }
        out[o++] = body[i];
        if (body[i] == '\n')
            start = true;
    }
    const aclsim_kernel_rt *rt = aclsim::Rt();
    if (rt && rt->print)
        rt->print(out, o);
    else
        fwrite(out, 1, o, stdout);
}

/* trap(): the kernel stops its block; on the device the launch fails with an AI-core
 * exception, as here (asc-devkit docs, Trap). */
[[noreturn]] inline void Trap() { aclsim::Fail("trap", "the kernel called trap()"); }

/* ------------------------------------------------------------------ system variables */

inline int64_t GetSubBlockIdx() { return 0; }
inline int64_t GetSubBlockNum() { return 1; }
inline int64_t GetTaskRatio() { return 1; }
inline void InitSocState() {}
constexpr uint32_t GetDataBlockSizeInBytes() { return 32; }
/* The UB size of the part the kernel is compiled for (__NPU_ARCH__): 192 KiB on dav-2201,
 * 256 KiB on the 910A (1001) and 310P (2002), 248 KiB on dav-3510. */
constexpr uint32_t GetUBSizeInBytes()
{
    return __NPU_ARCH__ == 2201 ? 192u * 1024u : __NPU_ARCH__ == 3510 ? 248u * 1024u : 256u * 1024u;
}
inline uint32_t GetRuntimeUBSize() { return (uint32_t)aclsim::Chip()->ub_size; }
constexpr uint32_t GetVecLen() { return 256; }

/* ------------------------------------------------------------------ positions, events */

enum class TPosition : uint8_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM = SPM,
    TSCM,
    C2PIPE2GM,
    C2PIPE2LOCAL,
    MAX,
};
using QuePosition = TPosition; /* the older name */

inline const char *PositionName(TPosition p)
{
    switch (p) {
    case TPosition::GM: return "GM";
    case TPosition::A1: return "A1";
    case TPosition::A2: return "A2";
    case TPosition::B1: return "B1";
    case TPosition::B2: return "B2";
    case TPosition::C1: return "C1";
    case TPosition::C2: return "C2";
    case TPosition::CO1: return "CO1";
    case TPosition::CO2: return "CO2";
    case TPosition::VECIN: return "VECIN";
    case TPosition::VECOUT: return "VECOUT";
    case TPosition::VECCALC: return "VECCALC";
    default: return "another position";
    }
}

enum class HardEvent : uint8_t {
    MTE2_MTE1,
    MTE1_MTE2,
    MTE1_M,
    M_MTE1,
    MTE2_V,
    V_MTE2,
    MTE3_V,
    V_MTE3,
    M_V,
    V_M,
    V_V,
    MTE3_MTE1,
    MTE1_MTE3,
    MTE1_V,
    MTE2_M,
    M_MTE2,
    V_MTE1,
    M_FIX,
    FIX_M,
    MTE3_MTE2,
    MTE2_MTE3,
    S_V,
    V_S,
    S_MTE2,
    MTE2_S,
    S_MTE3,
    MTE3_S,
    MTE2_FIX,
    FIX_MTE2,
    FIX_S,
    M_S,
    FIX_MTE3,
    MTE1_FIX,
    FIX_MTE1,
    FIX_FIX,
    MAX,
};

using ::event_t;
using ::pipe_t;
using ::TEventID;
using ::EVENT_ID0;
using ::EVENT_ID1;
using ::EVENT_ID2;
using ::EVENT_ID3;
using ::EVENT_ID4;
using ::EVENT_ID5;
using ::EVENT_ID6;
using ::EVENT_ID7;

/* Within one core the pipes (MTE2, V, MTE3, S) run concurrently on the device and in program
 * order here, so every dependency the flags express already holds: no-ops. */
template <HardEvent e> inline void SetFlag(int32_t) {}
template <HardEvent e> inline void WaitFlag(int32_t) {}
template <pipe_t p = PIPE_ALL> inline void PipeBarrier() {}
/* DataSyncBarrier<MemDsbT>: the host's stores are ordered by a full fence (what a later
 * access on another core needs to see them). */
enum class MemDsbT : uint8_t { ALL = 0, DDR, UB, SEQ };
template <MemDsbT m = MemDsbT::ALL> inline void DataSyncBarrier() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* GM accesses around the data cache: on the host a volatile access with a full fence, so other
 * cores (threads) see the write and the read sees theirs. */
template <typename T> inline void WriteGmByPassDCache(__gm__ T *addr, T value)
{
    *(volatile T *)addr = value;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
template <typename T> inline T ReadGmByPassDCache(__gm__ T *addr)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return *(volatile T *)addr;
}

/* Integer helpers of the samples: a / b rounded up. */
template <typename T, typename U> constexpr auto DivCeil(T a, U b) { return (a + b - 1) / b; }
template <typename T, typename U> constexpr auto CeilDivision(T a, U b) { return (a + b - 1) / b; }

/* The system counter: 50 MHz on the 910B/A3 (GetSystemCycle: time = cycles / 50 us), 1 GHz on
 * dav-3510; here from the host's monotonic clock at that rate. */
inline int64_t GetSystemCycle()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return __NPU_ARCH__ == 3510 ? ns : ns / 20;
}
template <typename T, cache_line_t c = cache_line_t::SINGLE_CACHE_LINE, dcci_dst_t d = dcci_dst_t::CACHELINE_OUT,
          typename G>
inline void DataCacheCleanAndInvalid(const G &)
{
}

/* ------------------------------------------------------------------ parameter structs */

/* One repeat of a vector instruction reads 8 data blocks of 32 bytes: 256 bytes (128 half
 * or 64 float elements). Strides count 32-byte blocks: *BlkStride between the blocks of one
 * repeat (default 1), *RepStride between repeats (default 8). Wider fields than some CANN
 * releases use, so braced initialisers of any of them compile. */
struct BinaryRepeatParams {
    uint16_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
    uint16_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false;
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint16_t db, uint16_t s0b, uint16_t s1b, uint16_t dr, uint16_t s0r, uint16_t s1r)
        : dstBlkStride(db), src0BlkStride(s0b), src1BlkStride(s1b), dstRepStride(dr), src0RepStride(s0r), src1RepStride(s1r)
    {
    }
};

struct UnaryRepeatParams {
    uint16_t dstBlkStride = 1, srcBlkStride = 1;
    uint16_t dstRepStride = 8, srcRepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false;
    UnaryRepeatParams() = default;
    UnaryRepeatParams(uint16_t db, uint16_t sb, uint16_t dr, uint16_t sr)
        : dstBlkStride(db), srcBlkStride(sb), dstRepStride(dr), srcRepStride(sr)
    {
    }
};

/* DataCopy's block form: blockCount blocks of blockLen 32-byte data blocks, with gaps (in data
 * blocks) between the end of one block and the start of the next. srcGap/dstGap are the
 * newer names of srcStride/dstStride. */
struct DataCopyParams {
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;
    union {
        uint16_t srcStride = 0;
        uint16_t srcGap;
    };
    union {
        uint16_t dstStride = 0;
        uint16_t dstGap;
    };
    DataCopyParams() = default;
    DataCopyParams(uint16_t count, uint16_t len, uint16_t src, uint16_t dst)
        : blockCount(count), blockLen(len), srcStride(src), dstStride(dst)
    {
    }
};

/* DataCopyPad: blockLen in bytes; the GM side's stride in bytes, the UB side's in 32-byte
 * blocks. */
struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t count, uint32_t len, uint32_t src, uint32_t dst, uint32_t r = 0)
        : blockCount(count), blockLen(len), srcStride(src), dstStride(dst), rsv(r)
    {
    }
};

template <typename T> struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = T(0);
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool pad, uint8_t left, uint8_t right, T value)
        : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value)
    {
    }
};

/* The older DataCopyPad parameters (padding value as raw bits). */
struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
    DataCopyPadParams() = default;
    DataCopyPadParams(bool pad, uint8_t left, uint8_t right, uint64_t value)
        : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value)
    {
    }
};

enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD, CAST_HYBRID };
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

constexpr uint64_t MASK_PLACEHOLDER = 0;

} // namespace AscendC

/* ascendc_assert(expr[, fmt, args...]): a false condition prints the message (as printf,
 * with the block's prefix) and ends the launch as an AI-core exception, as the device's
 * assert does. */
namespace AscendC {
namespace aclsim {
template <typename... Args>
[[noreturn]] inline void AssertFail(const char *expr, const char *file, int line, const char *fmt = nullptr, Args &&...args)
{
    if (fmt)
        AscendC::printf(fmt, static_cast<Args &&>(args)...);
    Fail("assert", "%s:%d: ascendc_assert(%s) failed", file, line, expr);
}
} // namespace aclsim
} // namespace AscendC
#define ascendc_assert(expr, ...)                                                                                      \
    ((expr) ? (void)0 : AscendC::aclsim::AssertFail(#expr, __FILE__, __LINE__, ##__VA_ARGS__))

/* trap() and __trap() at global scope, where device code calls them (the front-end rewrites
 * asm("trap") into trap()). */
[[noreturn]] inline void trap() { AscendC::Trap(); }
[[noreturn]] inline void __trap() { AscendC::Trap(); }

/* block_idx / block_num: on the device, variables holding the block's index and the launch's
 * block count. Here objects that read the thread-locals the entry stub sets, so they convert
 * to int64_t wherever a variable would (`int idx = block_idx;`, `x[block_idx]`). */
struct aclsim_block_idx_var {
    operator int64_t() const { return aclsim_block_idx; }
};
struct aclsim_block_num_var {
    operator int64_t() const { return aclsim_block_num; }
};
constexpr aclsim_block_idx_var block_idx{};
constexpr aclsim_block_num_var block_num{};

/* ------------------------------------------------------------------ tiling */

/* BEGIN_TILING_DATA_DEF ... END_TILING_DATA_DEF defines a plain struct, the layout both the
 * host (set_<field>, SaveToBuffer, GetDataSize) and the kernel (GET_TILING_DATA) use.
 * REGISTER_TILING_DATA_CLASS(op, Name) makes Name the default GET_TILING_DATA fills;
 * REGISTER_TILING_DEFAULT(Struct) does the same for a standard C++ struct, in the kernel's
 * scope. GET_TILING_DATA copies sizeof(struct) bytes from the tiling pointer. */
#define BEGIN_TILING_DATA_DEF(name) struct name {
#define TILING_DATA_FIELD_DEF(type, field)                                                                             \
    type field;                                                                                                        \
    void set_##field(type v) { field = v; }                                                                            \
    type get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_ARR(type, count, field)                                                                  \
    type field[count];                                                                                                 \
    void set_##field(const type *v) { memcpy(field, v, sizeof field); }                                                \
    const type *get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_STRUCT(type, field) type field;
#define END_TILING_DATA_DEF                                                                                            \
    void SaveToBuffer(void *buf, size_t capacity) const                                                                \
    {                                                                                                                  \
        memcpy(buf, this, sizeof(*this) < capacity ? sizeof(*this) : capacity);                                        \
    }                                                                                                                  \
    size_t GetDataSize() const { return sizeof(*this); }                                                               \
    }
#define REGISTER_TILING_DATA_CLASS(op, name) using aclsim_tiling_default_t = name;
#define REGISTER_TILING_DEFAULT(type) using aclsim_tiling_default_t = type
#define REGISTER_TILING_FOR_TILINGKEY(key, type)
#define REGISTER_NONE_TILING
#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling)                                                                 \
    type var;                                                                                                          \
    memcpy(&var, (const void *)(tiling), sizeof(type))
#define GET_TILING_DATA(var, tiling) GET_TILING_DATA_WITH_STRUCT(aclsim_tiling_default_t, var, tiling)
#define GET_TILING_DATA_PTR_WITH_STRUCT(type, var, tiling) const type *var = (const type *)(tiling)
#define GET_TILING_DATA_MEMBER(type, member, var, tiling)                                                              \
    decltype(type::member) var;                                                                                        \
    memcpy(&var, (const uint8_t *)(tiling) + offsetof(type, member), sizeof var)
/* A binary holds one tiling-key variant, chosen when it is built (-DTILING_KEY_VAR=<key>, as
 * the device compiler builds one kernel per key); 0 unless given. */
#ifndef TILING_KEY_VAR
#define TILING_KEY_VAR 0
#endif
#define TILING_KEY_IS(key) ((uint64_t)(TILING_KEY_VAR) == (uint64_t)(key))
#define TILING_KEY_LIST(...) (false)
#define KERNEL_TASK_TYPE_DEFAULT(type)
#define KERNEL_TASK_TYPE(key, type)

#endif /* AIOCANN_ASCENDC_BASE_H_ */
