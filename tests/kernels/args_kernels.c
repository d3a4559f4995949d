/*
 * Kernels for the kernel-args tests (tests/sim/test_kernel_args.py, and the argument builder's in
 * tests/core/test_async_launch.py): they report what the kernel received, so a test can compare
 * it with the args it built. Built with aiocann.compiler.build_kernel (the args_kernels_path
 * fixture of tests/conftest.py).
 */
#include <string.h>

#include "kernel_operator.h"

/* The raw values of two pointer parameters (placeholders): out[0] = ph1, out[1] = ph2. */
__global__ __aicore__ void pointers(GM_ADDR ph1, GM_ADDR ph2, GM_ADDR out)
{
    if (GetBlockIdx() != 0)
        return;
    uint64_t a = (uint64_t)(uintptr_t)ph1, b = (uint64_t)(uintptr_t)ph2;
    memcpy(out, &a, 8);
    memcpy(out + 8, &b, 8);
}

/* out[0] = value; out[1] = the 8 bytes the placeholder points at (int64). */
__global__ __aicore__ void stamp(GM_ADDR out, int64_t value, GM_ADDR ph)
{
    if (GetBlockIdx() != 0)
        return;
    memcpy(out, &value, 8);
    memcpy(out + 8, ph, 8);
}

/* The worked example of reference §10.7, without the system slot simulator kernels do not
 * have: a uint32 and two placeholders. The first 8 bytes of ph1's data say where to report:
 * value (4 bytes), ph2 - ph1 (8 bytes), then the first 10 bytes of ph2's data. */
__global__ __aicore__ void worked_example(uint32_t value, GM_ADDR ph1, GM_ADDR ph2)
{
    if (GetBlockIdx() != 0)
        return;
    uint8_t *out;
    memcpy(&out, ph1, 8);
    int64_t delta = ph2 - ph1;
    memcpy(out, &value, 4);
    memcpy(out + 4, &delta, 8);
    memcpy(out + 12, ph2, 10);
}

/* One parameter of every scalar width the async argument builder has (.i8() ... .f64()): each
 * value's bytes land in an 8-byte slot of out of its own, in parameter order. */
__global__ __aicore__ void scalars(GM_ADDR out, int8_t i8, uint8_t u8, int16_t i16, uint16_t u16, int32_t i32,
                                   uint32_t u32, int64_t i64, uint64_t u64, _Float16 f16, float f32, double f64)
{
    if (GetBlockIdx() != 0)
        return;
    memset(out, 0, 11 * 8);
    memcpy(out + 0 * 8, &i8, sizeof i8);
    memcpy(out + 1 * 8, &u8, sizeof u8);
    memcpy(out + 2 * 8, &i16, sizeof i16);
    memcpy(out + 3 * 8, &u16, sizeof u16);
    memcpy(out + 4 * 8, &i32, sizeof i32);
    memcpy(out + 5 * 8, &u32, sizeof u32);
    memcpy(out + 6 * 8, &i64, sizeof i64);
    memcpy(out + 7 * 8, &u64, sizeof u64);
    memcpy(out + 8 * 8, &f16, sizeof f16);
    memcpy(out + 9 * 8, &f32, sizeof f32);
    memcpy(out + 10 * 8, &f64, sizeof f64);
}
