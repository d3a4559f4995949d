/*
 * aiocann simulator: the one description of the simulated chip (issue 21, item 3).
 *
 * Every part of the simulator that depends on which Ascend part it stands for reads this
 * record: the device queries (aclrtGetSocName, ACL_DEV_ATTR_NPU_ARCH, memory sizes), the
 * completion ordering (STARS or HWTS engines), the feature set (saturation mode), the Ascend C
 * layer (the unified-buffer size and the per-core memories a kernel may use, __NPU_ARCH__) and
 * the toolkit (SOC_VERSION). The part is chosen once per process by AIOCANN_SIM_SOC_NAME
 * (default Ascend910B1); an unknown name makes aclInit fail with a message listing the known
 * ones. Simulator-only: the real runtime has no such record (it reads the driver and its
 * platform configuration files), so nothing in the async core may need it. Python reads it
 * through aiocann.sim.chip() (the region between the cffi markers is part of the cffi cdef,
 * native/build_ffi.py; a real CANN library lacks the export and chip() returns None).
 */
#ifndef AIOCANN_ACLSIM_CHIP_H_
#define AIOCANN_ACLSIM_CHIP_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cffi-begin */
/* How the chip's task scheduler reports completions and failures. STARS (910B/A2, A3) runs the
 * exception-info callbacks before it resumes the stream's queue, so a later host callback runs
 * after them; HWTS (910A, 310P) has no such barrier in the runtime's source. */
typedef enum aclsimEngine {
    ACLSIM_ENGINE_STARS = 0,
    ACLSIM_ENGINE_HWTS = 1,
} aclsimEngine;

/* Feature bits (aclsimChip.features). */
#define ACLSIM_CHIP_SATURATION_MODE 0x1 /* aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION) */
#define ACLSIM_CHIP_INF_NAN_MODE 0x2    /* aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN) */
#define ACLSIM_CHIP_DEVICE_GROUP 0x4    /* RT_FEATURE_DEVICE_GROUP: the chip's firmware has device groups */
#define ACLSIM_CHIP_IPC_EVENT 0x8       /* RT_FEATURE_IPC_EVENT: events shared between processes */

typedef struct aclsimChip {
    const char *soc_name;     /* aclrtGetSocName(): "Ascend910B1" */
    const char *soc_version;  /* the toolkit's SOC_VERSION family: "Ascend910B" */
    uint32_t npu_arch;        /* __NPU_ARCH__ and ACL_DEV_ATTR_NPU_ARCH: 2201 */
    const char *arch_name;    /* bisheng's --npu-arch: "dav-2201" */
    aclsimEngine engine;
    uint32_t aicore_num;      /* cube (AI) cores the part has */
    uint32_t vector_core_num; /* vector cores the part has */
    uint64_t ub_size;         /* unified buffer per core, bytes */
    uint64_t l1_size;
    uint64_t l0a_size;
    uint64_t l0b_size;
    uint64_t l0c_size;
    uint64_t hbm_size;        /* the part's device memory, bytes (the simulated size is AIOCANN_SIM_MEMORY) */
    uint32_t features;        /* ACLSIM_CHIP_* bits */
} aclsimChip;

/* BEGIN GENERATED "chip": written by native/gen_acl.py from native/acl_functions.py */
/* The chip this process simulates (never NULL once the name is valid; NULL and a recent error
 * message if AIOCANN_SIM_SOC_NAME names no known part). Works before aclInit. */
const aclsimChip *aclsimGetChip(void);
/* END GENERATED "chip" */
/* cffi-end */

/* The known parts, for listings: the i-th record, or NULL past the end. (Not in the cffi
 * region: the extension calls only what the function table of acl_table.h holds.) */
const aclsimChip *aclsimChipAt(uint32_t i);

#ifdef __cplusplus
}
#endif

#endif /* AIOCANN_ACLSIM_CHIP_H_ */
