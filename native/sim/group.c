/*
 * aiocann simulator: device groups (aclrtSetGroup, aclrtGetGroupCount, aclrtCreateGroupInfo,
 * aclrtDestroyGroupInfo, aclrtGetAllGroupInfo, aclrtGetGroupInfoDetail).
 *
 * Groups split a device's compute (AI cores, AI CPUs, SDMA, streams) into named groups on the
 * chips whose firmware has them (RT_FEATURE_DEVICE_GROUP: the 310P "dc", adc, 610 lite, ...).
 * Which chip the simulator stands for is the chip description's (aclsim_chip.h). The A2/A3
 * feature set (src/runtime/config/910_B_93/dev_info_reg.cc) and the 910A's (config/cloud) have
 * no groups, so the real runtime answers every group query there with
 * RT_ERROR_FEATURE_NOT_SUPPORT (ApiImpl::SetGroup, GetGroupCount, GetGroupInfo in
 * src/runtime/api/impl/api_impl_standard_soc.cc), which is 207000. The 310P's (config/dc) has
 * them, configured by its driver; the simulator does not simulate them and answers the same
 * (simulator choice), saying so. Always after the ACL layer's own checks
 * (src/acl/aclrt_impl/group.cpp):
 *   - aclrtSetGroup: 207000.
 *   - aclrtGetGroupCount: NULL count 100000, else 207000.
 *   - aclrtCreateGroupInfo: NULL (its group count query fails).
 *   - aclrtDestroyGroupInfo: NULL 100000. It would delete[] the array aclrtCreateGroupInfo
 *     made; no such array can exist here, so any other pointer is refused with 100000
 *     (simulator choice: the real call would free a pointer it never allocated).
 *   - aclrtGetAllGroupInfo: NULL 100000, else 207000.
 *   - aclrtGetGroupInfoDetail: NULL groupInfo, attrValue or paramRetSize 100000, else 207000
 *     (the group count query comes before the index and attribute checks).
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "sim.h"
#include "aclsim_chip.h"

static aclError no_groups(const char *func)
{
    const aclsimChip *chip = aclsimGetChip();
    if (!chip)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT; /* AIOCANN_SIM_SOC_NAME is wrong; the message says so */
    if (chip->features & ACLSIM_CHIP_DEVICE_GROUP)
        return sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "the simulator does not simulate the device groups of %s", chip->soc_name);
    return sim_fail_(func, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "device groups are not supported on %s (its feature set has no RT_FEATURE_DEVICE_GROUP)",
                     chip->soc_name);
}

SIM_API aclError aclrtSetGroup(int32_t groupId)
{
    SIM_CHECK_PROCESS();
    (void)groupId;
    return no_groups(__func__);
}

SIM_API aclError aclrtGetGroupCount(uint32_t *count)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(count);
    return no_groups(__func__);
}

SIM_API aclrtGroupInfo *aclrtCreateGroupInfo(void)
{
    if (atomic_load_explicit(&g_sim_forked, memory_order_relaxed)) {
        sim_forked_error(__func__);
        return NULL;
    }
    no_groups(__func__);
    return NULL;
}

SIM_API aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(groupInfo);
    return sim_fail(ACL_ERROR_INVALID_PARAM, "groupInfo %p did not come from aclrtCreateGroupInfo (which makes none here)",
                    (void *)groupInfo);
}

SIM_API aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(groupInfo);
    return no_groups(__func__);
}

SIM_API aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex, aclrtGroupAttr attr,
                                         void *attrValue, size_t valueLen, size_t *paramRetSize)
{
    SIM_CHECK_PROCESS();
    SIM_CHECK_NOT_NULL(groupInfo);
    SIM_CHECK_NOT_NULL(attrValue);
    SIM_CHECK_NOT_NULL(paramRetSize);
    (void)groupIndex;
    (void)attr;
    (void)valueLen;
    return no_groups(__func__);
}
