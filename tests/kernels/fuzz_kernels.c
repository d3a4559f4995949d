/*
 * Kernels for the kernel-args fuzz test (tests/sim/test_fuzz_kernel_args.py): they report the raw
 * args block a launch delivered, so the test can compare it byte for byte with its model.
 *
 * A kernel sees its parameters by value (the generated entry unpacks parameter i from byte
 * offset 8*i), never the block's address. So dumpN(p0..pN-1) writes the first 8*N bytes of the
 * block -- its N parameters -- and, to see the rest, derives the block's base address from a
 * placeholder among them: a placeholder slot holds D + dataOffset, D being where the runtime
 * copied the block. Which slot that is, its dataOffset, and how many bytes to copy from D are
 * set beforehand by dump_setup on the same stream (kept in statics: the launches of one stream
 * run in order, and the kernels of a binary share its statics).
 *
 * Output: out[0, 8*N) = the parameters; out[DUMP_BLOCK_AT, +size) = the block from D, if a base
 * slot was given.
 */
#include <string.h>

#include "kernel_operator.h"

#define DUMP_BLOCK_AT 1024

static uint8_t *g_out;
static int64_t g_base_slot = -1;
static uint64_t g_base_offset;
static uint64_t g_size;

/* Where the next dump goes: base_slot < 0 dumps the parameters only. */
__global__ __aicore__ void dump_setup(GM_ADDR out, int64_t base_slot, uint64_t base_offset, uint64_t size)
{
    if (GetBlockIdx() != 0)
        return;
    g_out = out;
    g_base_slot = base_slot;
    g_base_offset = base_offset;
    g_size = size;
}

static void dump(const uint64_t *p, int64_t n)
{
    if (GetBlockIdx() != 0 || !g_out)
        return;
    memcpy(g_out, p, (size_t)n * 8);
    if (g_base_slot >= 0 && g_base_slot < n) {
        const uint8_t *base = (const uint8_t *)(uintptr_t)(p[g_base_slot] - g_base_offset);
        memcpy(g_out + DUMP_BLOCK_AT, base, g_size);
    }
}

__global__ __aicore__ void dump1(uint64_t a)
{
    uint64_t p[] = {a};
    dump(p, 1);
}

__global__ __aicore__ void dump2(uint64_t a, uint64_t b)
{
    uint64_t p[] = {a, b};
    dump(p, 2);
}

__global__ __aicore__ void dump4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t p[] = {a, b, c, d};
    dump(p, 4);
}

__global__ __aicore__ void dump8(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f, uint64_t g,
                                 uint64_t h)
{
    uint64_t p[] = {a, b, c, d, e, f, g, h};
    dump(p, 8);
}
