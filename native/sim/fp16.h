/*
 * aiocann simulator: float16 and bfloat16 <-> float, as the device's vector unit converts --
 * round to nearest, ties to even; overflow to infinity; NaN stays a quiet NaN. One definition
 * for every C file that computes on 16-bit floats: the built-in tasks (reduce.c, random.c) and
 * the toolkit's operator library (native/toolkit/aclnn_ops.c). Header-only (static inline), so
 * each library has its own copy and none exports it.
 */
#ifndef AIOCANN_SIM_FP16_H_
#define AIOCANN_SIM_FP16_H_

#include <stdint.h>
#include <string.h>

static inline float sim_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1F, man = h & 0x3FF, bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (man << 13);
    } else if (exp) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man) { /* subnormal: normalise */
        int e = -1;
        do {
            man <<= 1;
            e++;
        } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3FF) << 13);
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint16_t sim_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t exp = (x >> 23) & 0xFF, man = x & 0x7FFFFF;
    if (exp == 0xFF)
        return (uint16_t)(sign | 0x7C00 | (man ? 0x200 : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 0x1F)
        return (uint16_t)(sign | 0x7C00);
    if (e <= 0) { /* subnormal or zero, rounded to nearest even */
        if (e < -10)
            return sign;
        man |= 0x800000;
        uint32_t shift = (uint32_t)(14 - e), half = 1u << (shift - 1);
        uint32_t m = man >> shift, rest = man & ((1u << shift) - 1);
        if (rest > half || (rest == half && (m & 1)))
            m++;
        return (uint16_t)(sign | m);
    }
    uint32_t m = man >> 13, rest = man & 0x1FFF;
    uint16_t h = (uint16_t)(sign | ((uint32_t)e << 10) | m);
    if (rest > 0x1000 || (rest == 0x1000 && (m & 1)))
        h++; /* a carry into the exponent is the right result, up to infinity */
    return h;
}

static inline float sim_bf16_to_float(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static inline uint16_t sim_float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7FFFFFFF) > 0x7F800000)
        return (uint16_t)((x >> 16) | 0x40); /* NaN stays a (quiet) NaN */
    x += 0x7FFF + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

#endif /* AIOCANN_SIM_FP16_H_ */
