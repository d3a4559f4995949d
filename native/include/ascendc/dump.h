/*
 * aiocann's Ascend C layer, part 5: DumpTensor, the debug print of a tensor's elements.
 *
 * The device prints a header and the elements (asc-devkit docs, DumpTensor):
 *   DumpTensor: desc=<desc>, addr=0x<offset>, data_type=<type>, position=<UB|GM>, dump_size=<n>
 *   [v0,v1,...]                       (with a ShapeInfo: nested rows, "-" for missing data)
 * Written as one piece through the simulator's print, like printf. At most 30 KiB per call: a
 * larger dump is not printed, as on the device.
 */
#ifndef AIOCANN_ASCENDC_DUMP_H_
#define AIOCANN_ASCENDC_DUMP_H_

#include "ascendc/copy.h"

namespace AscendC {

struct ShapeInfo {
    uint8_t shapeDim = 0;
    uint8_t originalShapeDim = 0;
    uint32_t shape[8] = {};
    uint32_t originalShape[8] = {};
    ShapeInfo() = default;
    ShapeInfo(uint8_t dim, const uint32_t *dims) : shapeDim(dim > 8 ? 8 : dim), originalShapeDim(shapeDim)
    {
        for (uint8_t i = 0; i < shapeDim; i++)
            shape[i] = originalShape[i] = dims[i];
    }
};

namespace aclsim {

template <typename T> constexpr const char *TypeName()
{
    if constexpr (std::is_same_v<T, half>)
        return "float16";
    else if constexpr (std::is_same_v<T, float>)
        return "float32";
    else if constexpr (std::is_same_v<T, bfloat16_t>)
        return "bfloat16";
    else if constexpr (std::is_same_v<T, int8_t>)
        return "int8";
    else if constexpr (std::is_same_v<T, uint8_t>)
        return "uint8";
    else if constexpr (std::is_same_v<T, int16_t>)
        return "int16";
    else if constexpr (std::is_same_v<T, uint16_t>)
        return "uint16";
    else if constexpr (std::is_same_v<T, int32_t>)
        return "int32";
    else if constexpr (std::is_same_v<T, uint32_t>)
        return "uint32";
    else if constexpr (std::is_same_v<T, int64_t>)
        return "int64";
    else if constexpr (std::is_same_v<T, uint64_t>)
        return "uint64";
    else
        return "unknown";
}

struct DumpText {
    char buf[30 * 1024];
    size_t len = 0;
    bool full = false;
    __attribute__((format(printf, 2, 3))) void Add(const char *fmt, ...)
    {
        va_list ap;
        va_start(ap, fmt);
        int n = full ? 0 : vsnprintf(buf + len, sizeof buf - len, fmt, ap);
        va_end(ap);
        if (n < 0 || len + (size_t)n >= sizeof buf)
            full = true;
        else
            len += (size_t)n;
    }
};

template <typename T> inline void AddValue(DumpText &t, T v)
{
    if constexpr (kOneOf<T, half, float, bfloat16_t, double>)
        t.Add("%f", (double)(float)v);
    else if constexpr (std::is_signed_v<T>)
        t.Add("%lld", (long long)v);
    else
        t.Add("%llu", (unsigned long long)v);
}

/* Elements [0, n) of data as nested rows of `shape` (one bracket level per dimension). */
template <typename T>
inline void AddShaped(DumpText &t, const T *data, uint32_t n, const uint32_t *shape, uint8_t dims, uint64_t &at)
{
    t.Add("[");
    for (uint32_t i = 0; i < shape[0]; i++) {
        if (i)
            t.Add(dims > 1 ? ",\n" : ",");
        if (dims > 1) {
            AddShaped(t, data, n, shape + 1, (uint8_t)(dims - 1), at);
        } else if (at < n) {
            AddValue(t, data[at++]);
        } else {
            t.Add("-");
            at++;
        }
    }
    t.Add("]");
}

template <typename T>
inline void Dump(const char *where, uint64_t addr, const T *data, uint32_t desc, uint32_t n, const ShapeInfo *shape)
{
    DumpText t;
    t.Add("DumpTensor: desc=%u, addr=0x%llx, data_type=%s, position=%s, dump_size=%u\n", desc, (unsigned long long)addr,
          TypeName<T>(), where, n);
    if (shape && shape->shapeDim) {
        uint64_t size = 1;
        for (uint8_t i = 0; i < shape->shapeDim; i++)
            size *= shape->shape[i];
        if (size != n) {
            t.Add("shape is [");
            for (uint8_t i = 0; i < shape->shapeDim; i++)
                t.Add(i ? ", %u" : "%u", shape->shape[i]);
            t.Add("], dumpSize is %u, %s\n", n, size < n ? "dumpSize is greater than shapeSize." : "data is not enough.");
        }
        uint64_t at = 0;
        AddShaped(t, data, n, shape->shape, shape->shapeDim, at);
    } else {
        t.Add("[");
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                t.Add(",");
            AddValue(t, data[i]);
        }
        t.Add("]");
    }
    t.Add("\n");
    if (t.full)
        return; /* past the per-call limit: not printed, as on the device */
    const aclsim_kernel_rt *rt = Rt();
    if (rt && rt->print)
        rt->print(t.buf, t.len);
}

} // namespace aclsim

template <typename T> inline void DumpTensor(const LocalTensor<T> &tensor, uint32_t desc, uint32_t dumpSize)
{
    aclsim::CheckUb("DumpTensor", "tensor", tensor, (uint64_t)dumpSize * sizeof(T));
    aclsim::Dump("UB", aclsim::UbOffset(tensor.addr_), tensor.addr_, desc, dumpSize, nullptr);
}
template <typename T>
inline void DumpTensor(const LocalTensor<T> &tensor, uint32_t desc, uint32_t dumpSize, const ShapeInfo &shapeInfo)
{
    aclsim::CheckUb("DumpTensor", "tensor", tensor, (uint64_t)dumpSize * sizeof(T));
    aclsim::Dump("UB", aclsim::UbOffset(tensor.addr_), tensor.addr_, desc, dumpSize, &shapeInfo);
}
template <typename T> inline void DumpTensor(const GlobalTensor<T> &tensor, uint32_t desc, uint32_t dumpSize)
{
    aclsim::CheckGm("DumpTensor", "tensor", tensor, 1);
    aclsim::Dump("GM", (uint64_t)(uintptr_t)tensor.address_, tensor.address_, desc, dumpSize, nullptr);
}
template <typename T>
inline void DumpTensor(const GlobalTensor<T> &tensor, uint32_t desc, uint32_t dumpSize, const ShapeInfo &shapeInfo)
{
    aclsim::CheckGm("DumpTensor", "tensor", tensor, 1);
    aclsim::Dump("GM", (uint64_t)(uintptr_t)tensor.address_, tensor.address_, desc, dumpSize, &shapeInfo);
}

} // namespace AscendC

#endif /* AIOCANN_ASCENDC_DUMP_H_ */
