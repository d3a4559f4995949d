/*
 * aiocann simulator: runtime functions declared with their real prototypes that the simulator
 * does not simulate yet (issue 23) -- condition handles and tasks of captured models and the
 * capture into a model they make (aclmdlRICondHandle*, aclmdlRIAddCondTask,
 * aclmdlRICaptureToModelRIBegin), and IPC events. (Labels, model building by stream binding,
 * stream switch and activation are model_build.c's, label.c's and stream_switch.c's.) A
 * program that calls them links against the toolkit and learns at run time: each checks its arguments as the real ACL layer does (NULLs 100000) and then returns
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000) with a recent-error message that names what is not
 * simulated. These are gaps of the simulator, listed as such in docs/fidelity.md -- not the
 * real runtime's behaviour.
 */
#include "sim.h"

#define NOT_YET(what) \
    sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the simulator does not simulate %s yet", what)
#define COND "condition tasks of a captured model (aclmdlRICondHandle*, aclmdlRIAddCondTask)"
#define IPC_EVENTS "IPC events (events shared between processes)"

SIM_API aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue, aclmdlRICondHandleFlag flag,
                                          aclmdlRICondHandle *handle)
{
    (void)defaultLaunchValue;
    (void)flag;
    SIM_CHECK_NOT_NULL(modelRI);
    SIM_CHECK_NOT_NULL(handle);
    return NOT_YET(COND);
}
SIM_API aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr)
{
    SIM_CHECK_NOT_NULL(handle);
    SIM_CHECK_NOT_NULL(ptr);
    return NOT_YET(COND);
}
SIM_API aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags)
{
    (void)stream;
    (void)flags;
    SIM_CHECK_NOT_NULL(params.handle);
    return NOT_YET(COND);
}
SIM_API aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI, aclmdlRICaptureMode mode)
{
    (void)stream;
    (void)mode;
    SIM_CHECK_NOT_NULL(modelRI);
    return NOT_YET(COND);
}
SIM_API aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)
{
    SIM_CHECK_NOT_NULL(handle);
    SIM_CHECK_NOT_NULL(event);
    return NOT_YET(IPC_EVENTS);
}
SIM_API aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)
{
    (void)handle;
    SIM_CHECK_NOT_NULL(event);
    return NOT_YET(IPC_EVENTS);
}
