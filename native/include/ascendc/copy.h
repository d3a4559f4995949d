/*
 * aiocann's Ascend C layer, part 3: data movement between global memory and the unified buffer
 * (DataCopy, DataCopyPad), and the operand checks every UB-touching API shares.
 *
 * Rules (asc-devkit docs, "DataCopy（GM与UB连续数据搬运）", "...高维切分数据搬运",
 * "DataCopyPad（GMToUB/UBToGM非对齐数据搬运）", 通用说明和约束):
 *   a UB address is 32-byte aligned, a GM address aligned to sizeof(T) (DataCopyPad: any);
 *   DataCopy(dst, src, count): count * sizeof(T) not a multiple of 32 is silently rounded DOWN
 *     to one (the device moves whole 32-byte blocks) -- reproduced, not refused;
 *   DataCopyParams: blockCount <= 4095; blockCount or blockLen 0 is a no-op;
 *   DataCopyExtParams: blockCount <= 4095, blockLen <= 2097151 bytes and a multiple of
 *     sizeof(T); left/right padding at most 32 bytes each;
 *   the UB side stays inside its tensor's buffer (simulator choice: the device only faults
 *     outside the UB; inside it, running past the buffer corrupts a neighbour silently).
 */
#ifndef AIOCANN_ASCENDC_COPY_H_
#define AIOCANN_ASCENDC_COPY_H_

#include "ascendc/tensor.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace AscendC {
namespace aclsim {

/* A UB operand of `op` touching `bytes` bytes from its start: it has a buffer, starts 32-byte
 * aligned and stays inside its buffer. One compare and branch each, per call. */
template <typename T> inline void CheckUb(const char *op, const char *role, const LocalTensor<T> &t, uint64_t bytes)
{
    if (!t.addr_)
        Fail("operand range", "%s: %s is a LocalTensor with no buffer (not from AllocTensor or TBuf::Get)", op, role);
    if ((uintptr_t)t.addr_ & 31u)
        Fail("UB alignment", "%s: %s starts at UB offset %llu, not a multiple of 32 bytes", op, role,
             (unsigned long long)UbOffset(t.addr_));
    if (bytes > (uint64_t)(t.end_ - (const uint8_t *)t.addr_))
        Fail("operand range", "%s: %s needs %llu bytes from UB offset %llu but its buffer ends at UB offset %llu", op, role,
             (unsigned long long)bytes, (unsigned long long)UbOffset(t.addr_), (unsigned long long)UbOffset(t.end_));
}

template <typename T> inline void CheckGm(const char *op, const char *role, const GlobalTensor<T> &g, size_t align)
{
    if (!g.address_)
        Fail("operand range", "%s: %s is a GlobalTensor with no buffer (SetGlobalBuffer first)", op, role);
    if (align > 1 && ((uintptr_t)g.address_ % align))
        Fail("GM alignment", "%s: %s at %p is not aligned to %zu bytes (sizeof the element type)", op, role,
             (const void *)g.address_, align);
}

/* UB -> GM moves: the device's MTE3 writes global memory by DMA, around the AI core's caches.
 * The host's closest equivalent for a large move is non-temporal stores: the destination's
 * cache lines are not read first (a third less memory traffic for a copy-out) and the
 * unified buffer's lines stay in the cache. Small moves, and hosts without SSE2, use memcpy. */
inline void CopyOut(void *dst, const void *src, uint64_t bytes)
{
#if defined(__SSE2__)
    if (bytes >= 8192) {
        uint8_t *d = (uint8_t *)dst;
        const uint8_t *s = (const uint8_t *)src;
        uint64_t head = (16 - ((uintptr_t)d & 15)) & 15;
        memcpy(d, s, head);
        d += head;
        s += head;
        bytes -= head;
        uint64_t body = bytes & ~(uint64_t)63;
        for (uint64_t i = 0; i < body; i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
            __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
            _mm_stream_si128((__m128i *)(d + i), a);
            _mm_stream_si128((__m128i *)(d + i + 16), b);
            _mm_stream_si128((__m128i *)(d + i + 32), c);
            _mm_stream_si128((__m128i *)(d + i + 48), e);
        }
        _mm_sfence(); /* the streamed stores are visible before the next instruction's reads */
        memcpy(d + body, s + body, bytes - body);
        return;
    }
#endif
    memcpy(dst, src, bytes);
}

inline void CheckCount(const char *op, int64_t count)
{
    if (count < 0)
        Fail("operand range", "%s: count %lld is negative", op, (long long)count);
}

} // namespace aclsim

/* ------------------------------------------------------------------ DataCopy, count form */

template <typename T> inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const uint32_t count)
{
    uint64_t bytes = ((uint64_t)count * sizeof(T)) & ~(uint64_t)31; /* rounded down to 32 bytes */
    aclsim::CheckUb("DataCopy(GM->UB)", "dst", dst, bytes);
    aclsim::CheckGm("DataCopy(GM->UB)", "src", src, sizeof(T));
    memcpy((void *)dst.addr_, (const void *)src.address_, bytes);
}

template <typename T> inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count)
{
    uint64_t bytes = ((uint64_t)count * sizeof(T)) & ~(uint64_t)31;
    aclsim::CheckUb("DataCopy(UB->GM)", "src", src, bytes);
    aclsim::CheckGm("DataCopy(UB->GM)", "dst", dst, sizeof(T));
    aclsim::CopyOut((void *)dst.address_, (const void *)src.addr_, bytes);
}

template <typename T> inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count)
{
    uint64_t bytes = ((uint64_t)count * sizeof(T)) & ~(uint64_t)31;
    aclsim::CheckUb("DataCopy(UB->UB)", "dst", dst, bytes);
    aclsim::CheckUb("DataCopy(UB->UB)", "src", src, bytes);
    memmove((void *)dst.addr_, (const void *)src.addr_, bytes);
}

/* ------------------------------------------------------------------ DataCopy, block form */

namespace aclsim {

inline bool CheckParams(const char *op, const DataCopyParams &p)
{
    if (p.blockCount > 4095)
        Fail("DataCopy params", "%s: blockCount %u is out of range [0, 4095]", op, p.blockCount);
    return p.blockCount != 0 && p.blockLen != 0; /* either 0: a no-op on A2/A3 */
}

/* Moves blockCount blocks of blockLen * 32 bytes, skipping srcGap/dstGap data blocks after
 * each. The UB side's extent is checked once for the whole transfer. */
inline void BlockCopy(uint8_t *dst, const uint8_t *src, const DataCopyParams &p)
{
    uint64_t len = (uint64_t)p.blockLen * 32;
    for (uint32_t b = 0; b < p.blockCount; b++)
        memcpy(dst + b * (len + (uint64_t)p.dstStride * 32), src + b * (len + (uint64_t)p.srcStride * 32), len);
}

inline uint64_t BlockExtent(const DataCopyParams &p, uint16_t gap)
{
    return (uint64_t)p.blockCount * p.blockLen * 32 + (uint64_t)(p.blockCount - 1) * gap * 32;
}

} // namespace aclsim

template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &params)
{
    if (!aclsim::CheckParams("DataCopy(GM->UB)", params))
        return;
    aclsim::CheckUb("DataCopy(GM->UB)", "dst", dst, aclsim::BlockExtent(params, params.dstStride));
    aclsim::CheckGm("DataCopy(GM->UB)", "src", src, sizeof(T));
    aclsim::BlockCopy((uint8_t *)dst.addr_, (const uint8_t *)src.address_, params);
}

template <typename T>
inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &params)
{
    if (!aclsim::CheckParams("DataCopy(UB->GM)", params))
        return;
    aclsim::CheckUb("DataCopy(UB->GM)", "src", src, aclsim::BlockExtent(params, params.srcStride));
    aclsim::CheckGm("DataCopy(UB->GM)", "dst", dst, sizeof(T));
    aclsim::BlockCopy((uint8_t *)dst.address_, (const uint8_t *)src.addr_, params);
}

template <typename T>
inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &params)
{
    if (!aclsim::CheckParams("DataCopy(UB->UB)", params))
        return;
    aclsim::CheckUb("DataCopy(UB->UB)", "dst", dst, aclsim::BlockExtent(params, params.dstStride));
    aclsim::CheckUb("DataCopy(UB->UB)", "src", src, aclsim::BlockExtent(params, params.srcStride));
    aclsim::BlockCopy((uint8_t *)dst.addr_, (const uint8_t *)src.addr_, params);
}

/* ------------------------------------------------------------------ DataCopyPad */

namespace aclsim {

template <typename T> inline bool CheckPadParams(const char *op, const DataCopyExtParams &p, uint32_t left, uint32_t right)
{
    if (p.blockCount > 4095)
        Fail("DataCopyPad params", "%s: blockCount %u is out of range [0, 4095]", op, p.blockCount);
    if (p.blockLen > 2097151)
        Fail("DataCopyPad params", "%s: blockLen %u bytes is out of range [0, 2097151]", op, p.blockLen);
    if (p.blockLen % sizeof(T))
        Fail("DataCopyPad params", "%s: blockLen %u bytes is not a multiple of the element size %zu", op, p.blockLen,
             sizeof(T));
    if (left * sizeof(T) > 32 || right * sizeof(T) > 32)
        Fail("DataCopyPad params", "%s: leftPadding %u / rightPadding %u elements exceed 32 bytes", op, left, right);
    return p.blockCount != 0 && p.blockLen != 0;
}

inline uint64_t Up32(uint64_t n) { return (n + 31) & ~(uint64_t)31; }

/* GM -> UB: each block lands as [leftPadding][blockLen bytes][rightPadding][dummy up to 32
 * bytes]; the next starts dstStride data blocks later. The padding is paddingValue when isPad;
 * with no padding asked for, the dummy elements repeat the block's first element; otherwise
 * (isPad false) the device leaves undefined values: the UB keeps what it held. */
template <typename T>
inline void PadIn(uint8_t *dst, const uint8_t *src, const DataCopyExtParams &p, bool isPad, uint32_t left,
                  uint32_t right, T value)
{
    uint64_t span = Up32((uint64_t)left * sizeof(T) + p.blockLen + (uint64_t)right * sizeof(T));
    for (uint32_t b = 0; b < p.blockCount; b++) {
        uint8_t *d = dst + b * (span + (uint64_t)p.dstStride * 32);
        const uint8_t *s = src + b * ((uint64_t)p.blockLen + p.srcStride);
        memcpy(d + (uint64_t)left * sizeof(T), s, p.blockLen);
        T *elems = (T *)(void *)d;
        uint64_t n = span / sizeof(T), data_end = left + p.blockLen / sizeof(T);
        if (left == 0 && right == 0) {
            T first;
            memcpy(&first, s, sizeof(T));
            for (uint64_t i = data_end; i < n; i++)
                elems[i] = first;
        } else if (isPad) {
            for (uint64_t i = 0; i < left; i++)
                elems[i] = value;
            for (uint64_t i = data_end; i < n; i++)
                elems[i] = value;
        }
    }
}

} // namespace aclsim

/* SetPadValue: the padding DataCopyPad uses when isPad is false (SetPadValue(ISASI)); until
 * it is called, such padding is left as the UB held it (the device's undefined values). */
template <typename T> inline void SetPadValue(T paddingValue)
{
    aclsim::t_pad_bits = 0;
    memcpy(&aclsim::t_pad_bits, &paddingValue, sizeof(T) < 8 ? sizeof(T) : 8);
    aclsim::t_pad_set = true;
}

template <typename T>
inline void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyExtParams &params,
                        const DataCopyPadExtParams<T> &pad)
{
    const char *op = "DataCopyPad(GM->UB)";
    if (!aclsim::CheckPadParams<T>(op, params, pad.leftPadding, pad.rightPadding))
        return;
    uint64_t span = aclsim::Up32((uint64_t)pad.leftPadding * sizeof(T) + params.blockLen +
                                 (uint64_t)pad.rightPadding * sizeof(T));
    aclsim::CheckUb(op, "dst", dst, params.blockCount * span + (uint64_t)(params.blockCount - 1) * params.dstStride * 32);
    aclsim::CheckGm(op, "src", src, 1);
    T value = pad.paddingValue;
    bool fill = pad.isPad;
    if (!fill && aclsim::t_pad_set) { /* the value SetPadValue gave */
        memcpy(&value, &aclsim::t_pad_bits, sizeof(T) < 8 ? sizeof(T) : 8);
        fill = true;
    }
    aclsim::PadIn<T>((uint8_t *)dst.addr_, (const uint8_t *)src.address_, params, fill, pad.leftPadding,
                     pad.rightPadding, value);
}

template <typename T>
inline void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &params,
                        const DataCopyPadParams &pad)
{
    /* The older form: blockLen in bytes, strides as in DataCopyExtParams. */
    DataCopyExtParams ext(params.blockCount, params.blockLen, params.srcStride, params.dstStride, 0);
    T value;
    memset(&value, 0, sizeof value);
    memcpy(&value, &pad.paddingValue, sizeof(T) < 8 ? sizeof(T) : 8);
    DataCopyPad(dst, src, ext, DataCopyPadExtParams<T>(pad.isPad, pad.leftPadding, pad.rightPadding, value));
}

/* UB -> GM: each block's blockLen bytes (its UB copy padded to 32 bytes) go to GM, the next
 * GM block dstStride bytes after the end of this one. */
template <typename T>
inline void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyExtParams &params)
{
    const char *op = "DataCopyPad(UB->GM)";
    if (!aclsim::CheckPadParams<T>(op, params, 0, 0))
        return;
    uint64_t span = aclsim::Up32(params.blockLen);
    aclsim::CheckUb(op, "src", src,
                    (uint64_t)(params.blockCount - 1) * (span + (uint64_t)params.srcStride * 32) + params.blockLen);
    aclsim::CheckGm(op, "dst", dst, 1);
    for (uint32_t b = 0; b < params.blockCount; b++)
        memcpy((uint8_t *)dst.address_ + b * ((uint64_t)params.blockLen + params.dstStride),
               (const uint8_t *)src.addr_ + b * (span + (uint64_t)params.srcStride * 32), params.blockLen);
}

template <typename T>
inline void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &params)
{
    DataCopyPad(dst, src, DataCopyExtParams(params.blockCount, params.blockLen, params.srcStride, params.dstStride, 0));
}

} // namespace AscendC

#endif /* AIOCANN_ASCENDC_COPY_H_ */
