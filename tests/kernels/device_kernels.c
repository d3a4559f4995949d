/*
 * Kernels the tests of issue 11's device share use (tests/acl/test_acl_rt_device.py,
 * native/tests/sim_test.c): an overflowing kernel and one that measures how many of its blocks
 * run at once. Built with aiocann.compiler.build_kernel.
 */
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "kernel_operator.h"

/* out[block] = block + 1 (int32); block 0 reports a floating-point overflow when raise is
 * nonzero, as a kernel whose result saturated would. */
__global__ __aicore__ void overflow(GM_ADDR out, int32_t raise)
{
    if (raise && GetBlockIdx() == 0)
        aclsimKernelRaiseOverflow();
    ((int32_t *)out)[GetBlockIdx()] = (int32_t)GetBlockIdx() + 1;
}

/* Each block counts itself running in counters[0] (uint32), raises counters[1] to the largest
 * count it saw, sleeps usec, and leaves: counters[1] ends as the most blocks that ran at once. */
__global__ __aicore__ void concurrency(GM_ADDR counters, uint64_t usec)
{
    uint32_t *running = (uint32_t *)counters, *most = running + 1;
    uint32_t now = __atomic_add_fetch(running, 1, __ATOMIC_SEQ_CST);
    uint32_t seen = __atomic_load_n(most, __ATOMIC_SEQ_CST);
    while (now > seen && !__atomic_compare_exchange_n(most, &seen, now, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        ;
    struct timespec ts = {(time_t)(usec / 1000000), (long)(usec % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
    __atomic_sub_fetch(running, 1, __ATOMIC_SEQ_CST);
}
