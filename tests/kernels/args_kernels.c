/*
 * Kernels for the kernel-args tests (tests/sim/test_kernel_args.py): they report what the kernel
 * received, so a test can compare it with the args layout it built. Built with
 * aiocann.sim.build_kernel (the args_kernels_path fixture of tests/acl_util.py).
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
