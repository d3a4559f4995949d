/*
 * aiocann simulator: runtime functions declared with their real prototypes that the simulator
 * does not simulate yet (issue 23): IPC events. (Labels, model building by stream binding,
 * stream switch and activation, condition tasks are model_build.c's, label.c's,
 * stream_switch.c's and cond.c's.) A program that calls them links against the toolkit and
 * learns at run time: each checks its arguments as the real ACL layer does (NULLs 100000) and
 * then returns ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000) with a recent-error message that names
 * what is not simulated. These are gaps of the simulator, listed as such in docs/fidelity.md -- not the
 * real runtime's behaviour.
 */
#include "sim.h"

#define NOT_YET(what) \
    sim_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the simulator does not simulate %s yet", what)
#define IPC_EVENTS "IPC events (events shared between processes)"

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
