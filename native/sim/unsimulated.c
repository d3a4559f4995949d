/*
 * aiocann simulator: runtime functions declared with their real prototypes that the simulator
 * does not simulate yet (issue 23) -- labels and label switches, model building by stream
 * binding (aclmdlRIBuildBegin ... aclmdlRIEndTask, condition handles and tasks, capture into a
 * built model, the JSON dump of a model), and stream switch and activation (tasks of such
 * models). A program that calls them links against the toolkit and learns at run time:
 * each checks its arguments as the real ACL layer does (NULLs 100000) and then returns
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000) with a recent-error message that names what is not
 * simulated. These are gaps of the simulator, listed as such in docs/fidelity.md -- not the
 * real runtime's behaviour.
 */
#include "sim.h"

#define NOT_YET(what) \
    sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the simulator does not simulate %s yet", what)
#define LABELS "labels (model-building stream control)"
#define BUILD "model building by stream binding (aclmdlRIBuildBegin)"

SIM_API aclError aclrtCreateLabel(aclrtLabel *label)
{
    SIM_CHECK_NOT_NULL(label);
    return NOT_YET(LABELS);
}
SIM_API aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream)
{
    (void)stream;
    SIM_CHECK_NOT_NULL(label);
    return NOT_YET(LABELS);
}
SIM_API aclError aclrtDestroyLabel(aclrtLabel label)
{
    SIM_CHECK_NOT_NULL(label);
    return NOT_YET(LABELS);
}
SIM_API aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList)
{
    (void)num;
    SIM_CHECK_NOT_NULL(labels);
    SIM_CHECK_NOT_NULL(labelList);
    return NOT_YET(LABELS);
}
SIM_API aclError aclrtDestroyLabelList(aclrtLabelList labelList)
{
    SIM_CHECK_NOT_NULL(labelList);
    return NOT_YET(LABELS);
}
SIM_API aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList, aclrtStream stream)
{
    (void)maxValue;
    (void)stream;
    SIM_CHECK_NOT_NULL(ptr);
    SIM_CHECK_NOT_NULL(labelList);
    return NOT_YET(LABELS);
}

SIM_API aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag)
{
    (void)flag;
    SIM_CHECK_NOT_NULL(modelRI);
    return NOT_YET(BUILD);
}
SIM_API aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve)
{
    (void)reserve;
    SIM_CHECK_NOT_NULL(modelRI);
    return NOT_YET(BUILD);
}
SIM_API aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
    (void)flag;
    SIM_CHECK_NOT_NULL(modelRI);
    SIM_CHECK_NOT_NULL(stream);
    return NOT_YET(BUILD);
}
SIM_API aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
    SIM_CHECK_NOT_NULL(modelRI);
    SIM_CHECK_NOT_NULL(stream);
    return NOT_YET(BUILD);
}
SIM_API aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream)
{
    SIM_CHECK_NOT_NULL(modelRI);
    SIM_CHECK_NOT_NULL(stream);
    return NOT_YET(BUILD);
}
SIM_API aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue, aclmdlRICondHandleFlag flag,
                                          aclmdlRICondHandle *handle)
{
    (void)defaultLaunchValue;
    (void)flag;
    SIM_CHECK_NOT_NULL(modelRI);
    SIM_CHECK_NOT_NULL(handle);
    return NOT_YET(BUILD);
}
SIM_API aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr)
{
    SIM_CHECK_NOT_NULL(handle);
    SIM_CHECK_NOT_NULL(ptr);
    return NOT_YET(BUILD);
}
SIM_API aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags)
{
    (void)stream;
    (void)flags;
    SIM_CHECK_NOT_NULL(params.handle);
    return NOT_YET(BUILD);
}
SIM_API aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI, aclmdlRICaptureMode mode)
{
    (void)stream;
    (void)mode;
    SIM_CHECK_NOT_NULL(modelRI);
    return NOT_YET(BUILD);
}
SIM_API aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags)
{
    (void)flags;
    SIM_CHECK_NOT_NULL(modelRI);
    SIM_CHECK_NOT_NULL(path);
    return NOT_YET("the JSON dump of a model");
}

SIM_API aclError aclrtSwitchStream(void *leftValue, aclrtCondition cond, void *rightValue,
                                   aclrtCompareDataType dataType, aclrtStream trueStream, aclrtStream falseStream,
                                   aclrtStream stream)
{
    (void)cond;
    (void)dataType;
    SIM_CHECK_NOT_NULL(leftValue);
    SIM_CHECK_NOT_NULL(rightValue);
    SIM_CHECK_NOT_NULL(trueStream);
    SIM_CHECK_NOT_NULL(stream);
    if (falseStream)
        return sim_fail(ACL_ERROR_INVALID_PARAM, "falseStream is a reserved parameter and must be NULL");
    return NOT_YET("stream switch tasks (models built by stream binding)");
}
SIM_API aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream)
{
    SIM_CHECK_NOT_NULL(activeStream);
    SIM_CHECK_NOT_NULL(stream);
    return NOT_YET("stream activation tasks (models built by stream binding)");
}
