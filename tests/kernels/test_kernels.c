/*
 * Kernels the test-suite uses to observe the simulator: argument passing, ordering, timing and
 * contained faults. Built with aiocann.compiler.build_kernel (see tests/conftest.py).
 */
#include <assert.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel_operator.h"

/* Writes every scalar it received, then both placeholder data blocks (8 bytes each), to out:
 * out = a(1) b(2) c(4) d(8) e(4) f(8) | 8 bytes from ph1 | 8 bytes from ph2, packed. */
__global__ __aicore__ void probe(uint8_t a, int16_t b, uint32_t c, int64_t d, float e, double f, GM_ADDR ph1,
                                 GM_ADDR ph2, GM_ADDR out)
{
    if (GetBlockIdx() != 0)
        return;
    uint8_t *o = out;
    memcpy(o, &a, 1);
    memcpy(o + 1, &b, 2);
    memcpy(o + 3, &c, 4);
    memcpy(o + 7, &d, 8);
    memcpy(o + 15, &e, 4);
    memcpy(o + 19, &f, 8);
    memcpy(o + 27, ph1, 8);
    memcpy(o + 35, ph2, 8);
}

/* Sleeps usec (off the CPU), then writes block_idx + 1 at out[block_idx] (int32). */
__global__ __aicore__ void wait_us(GM_ADDR out, uint64_t usec)
{
    struct timespec ts = {(time_t)(usec / 1000000), (long)(usec % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
    ((int32_t *)out)[GetBlockIdx()] = (int32_t)GetBlockIdx() + 1;
}

/* Busy-waits usec on the core, then writes block_idx + 1 at out[block_idx]. */
__global__ __aicore__ void spin_us(GM_ADDR out, uint64_t usec)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000u + (uint64_t)((t.tv_nsec - t0.tv_nsec) / 1000) < usec);
    ((int32_t *)out)[GetBlockIdx()] = (int32_t)GetBlockIdx() + 1;
}

/* A gate: holds its stream until the int32 at flag is nonzero (another stream sets it), so a
 * test can keep work queued behind it for as long as it needs -- an ordering, not a duration.
 * Launch it with a LaunchConfig timeout, so a test that fails before opening it does not hang. */
__global__ __aicore__ void wait_flag(GM_ADDR flag)
{
    struct timespec pause = {0, 200000};
    while (__atomic_load_n((int32_t *)flag, __ATOMIC_ACQUIRE) == 0)
        nanosleep(&pause, NULL);
}

/* out[index] = value (int32), from block 0. */
__global__ __aicore__ void write_value(GM_ADDR out, uint32_t index, int32_t value)
{
    if (GetBlockIdx() == 0)
        ((int32_t *)out)[index] = value;
}

/* out[index] += value (int32), from block 0: counts how often it ran (stream capture replays). */
__global__ __aicore__ void add_value(GM_ADDR out, uint32_t index, int32_t value)
{
    if (GetBlockIdx() == 0)
        ((int32_t *)out)[index] += value;
}

/* out[i] = out[i] * 2 + 1 over n int32 elements, blocks striding: order-sensitive. */
__global__ __aicore__ void affine(GM_ADDR out, uint32_t n)
{
    int32_t *o = (int32_t *)out;
    for (uint32_t i = (uint32_t)GetBlockIdx(); i < n; i += (uint32_t)GetBlockNum())
        o[i] = o[i] * 2 + 1;
}

/* Writes one byte at buf + offset: out of bounds when offset is past the allocation. */
__global__ __aicore__ void poke(GM_ADDR buf, uint64_t offset)
{
    if (GetBlockIdx() == 0)
        ((volatile uint8_t *)buf)[offset] = 1;
}

/* Writes one byte at buf + *offset after zeroing *offset: of several runs after *offset was set
 * out of bounds, exactly the first faults (a graph replayed twice fails only its first replay). */
__global__ __aicore__ void poke_once(GM_ADDR buf, GM_ADDR offset)
{
    if (GetBlockIdx() == 0) {
        uint32_t o = *(volatile uint32_t *)offset;
        *(volatile uint32_t *)offset = 0;
        ((volatile uint8_t *)buf)[o] = 1;
    }
}

/* out[0] = 100 / divisor: SIGFPE when divisor is 0. */
__global__ __aicore__ void divide(GM_ADDR out, int32_t divisor)
{
    volatile int32_t d = divisor;
    ((int32_t *)out)[0] = 100 / d;
}

/* An illegal instruction. */
__global__ __aicore__ void trap(GM_ADDR unused)
{
    (void)unused;
    __builtin_trap();
}

/* Keeps kb KiB (at least 1) on its stack, a page at a time written, then writes 1 + block_idx at
 * out[block_idx]: what a kernel may hold in local arrays, and what happens past that. */
__global__ __aicore__ void stack_use(GM_ADDR out, uint64_t kb)
{
    volatile char locals[kb * 1024];
    for (uint64_t i = 0; i < kb * 1024; i += 4096)
        locals[i] = 1;
    ((int32_t *)out)[GetBlockIdx()] = (int32_t)GetBlockIdx() + locals[0];
}

/* assert(value > 0), abort() when value is -1, then out[0] = value: the C library's failures in a
 * plain C kernel. */
__global__ __aicore__ void check_positive(GM_ADDR out, int32_t value)
{
    if (value == -1)
        abort();
    assert(value > 0);
    ((int32_t *)out)[0] = value;
}

/* Sends signal sig to its own thread: a fault no memory access caused, so it has no address. */
__global__ __aicore__ void raise_signal(GM_ADDR unused, int32_t sig)
{
    (void)unused;
    raise(sig);
}

/* Does nothing: for launch-rate measurements. */
__global__ __aicore__ void empty(GM_ADDR unused) { (void)unused; }
