/*
 * aiocann simulator: the simulated chip (aclsim_chip.h). One table of the parts the simulator
 * can stand for; AIOCANN_SIM_SOC_NAME picks one per process (default Ascend910B1).
 *
 * Figures are the parts' published ones: core counts and HBM from the Atlas product sheets,
 * the per-core memories from the Ascend C documentation's hardware tables (910B: UB 192 KiB,
 * L1 512 KiB, L0A/L0B 64 KiB, L0C 128 KiB; reference/ascend-c.md §3), __NPU_ARCH__ from the
 * asc-devkit sources' arch checks (2201 for A2/A3, 1001 for 910A, 2002 for 310P). The engine
 * kind follows hicann/runtime: STARS engines for 910B/A3 (src/runtime/.../stars_engine.cc),
 * HWTS for the older parts (config/cloud and config/dc dev_info_reg.cc: engineType "HWTS").
 * Overflow modes (DevProperties.supportOverflowMode): every part has saturation, the A2/A3 parts
 * also the INF/NAN mode (config/910_B_93/dev_info_reg.cc; config/cloud, config/dc: saturation
 * only). Device groups (RT_FEATURE_DEVICE_GROUP) only on the 310P (config/dc). IPC events
 * (RT_FEATURE_IPC_EVENT) on the A2/A3 parts (config/910_B_93; config/cloud and dc lack it).
 */
#include "sim.h"

#include "aclsim_chip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIB(n) ((uint64_t)(n) << 10)
#define GIB(n) ((uint64_t)(n) << 30)
#define SAT_BOTH (ACLSIM_CHIP_SATURATION_MODE | ACLSIM_CHIP_INF_NAN_MODE)
#define A2_A3 (SAT_BOTH | ACLSIM_CHIP_IPC_EVENT)

static const aclsimChip g_chips[] = {
    {"Ascend910B1", "Ascend910B", 2201, "dav-2201", ACLSIM_ENGINE_STARS, 24, 48, KIB(192), KIB(512) - 128, KIB(64), KIB(64), KIB(128), GIB(64), A2_A3},
    {"Ascend910B2", "Ascend910B", 2201, "dav-2201", ACLSIM_ENGINE_STARS, 24, 48, KIB(192), KIB(512) - 128, KIB(64), KIB(64), KIB(128), GIB(64), A2_A3},
    {"Ascend910B3", "Ascend910B", 2201, "dav-2201", ACLSIM_ENGINE_STARS, 20, 40, KIB(192), KIB(512) - 128, KIB(64), KIB(64), KIB(128), GIB(64), A2_A3},
    {"Ascend910B4", "Ascend910B", 2201, "dav-2201", ACLSIM_ENGINE_STARS, 20, 40, KIB(192), KIB(512) - 128, KIB(64), KIB(64), KIB(128), GIB(32), A2_A3},
    {"Ascend910_9391", "Ascend910_93", 2201, "dav-2201", ACLSIM_ENGINE_STARS, 24, 48, KIB(192), KIB(512) - 128, KIB(64), KIB(64), KIB(128), GIB(64), A2_A3},
    {"Ascend910A", "Ascend910", 1001, "dav-1001", ACLSIM_ENGINE_HWTS, 32, 0, KIB(256), KIB(1024), KIB(64), KIB(64), KIB(256), GIB(32), ACLSIM_CHIP_SATURATION_MODE},
    {"Ascend310P3", "Ascend310P", 2002, "dav-2002", ACLSIM_ENGINE_HWTS, 8, 7, KIB(256), KIB(1024), KIB(64), KIB(64), KIB(256), GIB(24), ACLSIM_CHIP_SATURATION_MODE | ACLSIM_CHIP_DEVICE_GROUP},
};

#define N_CHIPS (sizeof g_chips / sizeof g_chips[0])

static const aclsimChip *g_chip;
static pthread_once_t g_chip_once = PTHREAD_ONCE_INIT;

static void pick_chip(void)
{
    const char *v = getenv("AIOCANN_SIM_SOC_NAME");
    if (!v || !*v)
        v = "Ascend910B1";
    for (size_t i = 0; i < N_CHIPS; i++)
        if (strcmp(g_chips[i].soc_name, v) == 0)
            g_chip = &g_chips[i];
}

SIM_API const aclsimChip *aclsimGetChip(void)
{
    pthread_once(&g_chip_once, pick_chip);
    if (!g_chip) {
        char known[256] = "";
        size_t off = 0;
        for (size_t i = 0; i < N_CHIPS && off < sizeof known; i++)
            off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", i ? ", " : "", g_chips[i].soc_name);
        sim_fail(ACL_ERROR_INVALID_PARAM, "AIOCANN_SIM_SOC_NAME=%s names no simulated part (known: %s)",
                 getenv("AIOCANN_SIM_SOC_NAME"), known);
    }
    return g_chip;
}

SIM_API const aclsimChip *aclsimChipAt(uint32_t i)
{
    return i < N_CHIPS ? &g_chips[i] : NULL;
}
