/*
 * aiocann simulator: the kernel header. A simulator kernel is C (or C++) compiled for the host
 * with this header, so it keeps its Ascend C signature:
 *
 *   #include "kernel_operator.h"
 *   extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
 *   {
 *       int64_t idx = GetBlockIdx(), num = GetBlockNum();
 *       ...
 *   }
 *
 * (`extern "C"` only in C++; a C kernel writes `__global__ __aicore__ void add_custom(...)`.)
 * Every block of a launch runs the function once on one of the device's AI-core threads;
 * GetBlockIdx() is the block's index in [0, GetBlockNum()). Build with aiocann.sim.build_kernel.
 *
 * In C++ the header also carries aiocann's Ascend C API (the headers in ascendc/: GlobalTensor, LocalTensor,
 * TPipe, TQue, TBuf, DataCopy, the vector instructions, printf, the tiling macros), written from
 * the public API documentation, with the hardware's rules checked on every call.
 */
#ifndef AIOCANN_KERNEL_OPERATOR_H_
#define AIOCANN_KERNEL_OPERATOR_H_

#include <stddef.h>
#include <stdint.h>

#include "aclsim_kernel.h"

#define __global__ __attribute__((visibility("default")))
#define __aicore__
#define __gm__
#define GM_ADDR __gm__ uint8_t *

#ifdef __cplusplus
extern "C" {
#endif

/* Set by the generated entry before each block runs; thread-local because the blocks of a
 * launch run concurrently on the AI-core threads. Defined in the generated entry stub. */
extern __thread int64_t aclsim_block_idx __attribute__((visibility("hidden")));
extern __thread int64_t aclsim_block_num __attribute__((visibility("hidden")));

static inline int64_t GetBlockIdx(void) { return aclsim_block_idx; }
static inline int64_t GetBlockNum(void) { return aclsim_block_num; }

/* On the device a floating-point result that overflows sets the AI core's overflow flag; the
 * runtime reports it for a launch when the stream's overflow switch is on
 * (aclrtSetStreamOverflowSwitch): the launch's synchronize returns ACL_ERROR_RT_AICORE_OVER_FLOW
 * and aclrtGetOverflowStatus reads the flag. Simulator kernels compute in host arithmetic, so
 * a kernel that detects its overflow says so here. Defined in the generated entry stub. */
extern __thread uint32_t aclsim_block_status __attribute__((visibility("hidden")));

static inline void aclsimKernelRaiseOverflow(void) { aclsim_block_status |= ACLSIM_BLOCK_STATUS_OVERFLOW; }

#ifdef __cplusplus
}

namespace AscendC {
using ::GetBlockIdx;
using ::GetBlockNum;
using ::aclsimKernelRaiseOverflow;
}

/* The Ascend C API (tiers 0 and 1), C++ only: see the headers' own comments. */
#include "ascendc/base.h"
#include "ascendc/tensor.h"
#include "ascendc/copy.h"
#include "ascendc/vector.h"
#include "ascendc/dump.h"
#endif

#endif /* AIOCANN_KERNEL_OPERATOR_H_ */
