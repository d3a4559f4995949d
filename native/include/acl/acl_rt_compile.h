/*
 * aiocann: the runtime compiler's API (aclrtc*: compile Ascend C source into a device binary
 * at run time). Names, types and prototypes are those of CANN's acl/acl_rt_compile.h
 * (hicann/asc-devkit, tools/include/acl/acl_rt_compile.h); nothing here is copied from it. On
 * CANN these functions are exported by libacl_rtc.so, not by the runtime library: aiocann's
 * loader opens that library beside the runtime's when the runtime lacks them (the simulator
 * exports them itself).
 *
 * The real header declares aclError itself; this one takes it from acl_base.h (the same
 * typedef). The region between the cffi markers is part of the cffi cdef (native/build_ffi.py).
 */
#ifndef AIOCANN_ACL_RT_COMPILE_H_
#define AIOCANN_ACL_RT_COMPILE_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cffi-begin */
typedef void *aclrtcProg;

/* BEGIN GENERATED "rtc": written by native/gen_acl.py from native/acl_functions.py */
/* the runtime compiler: a program from source, compiled to a device binary */
aclError aclrtcCreateProg(aclrtcProg *prog, const char *src, const char *name, int numHeaders, const char **headers,
                          const char **includeNames);
aclError aclrtcCompileProg(aclrtcProg prog, int numOptions, const char **options);
aclError aclrtcAddNameExpr(aclrtcProg prog, const char *const nameExpression);
aclError aclrtcGetLoweredName(aclrtcProg prog, const char *nameExpression, const char **loweredName);
aclError aclrtcGetBinDataSize(aclrtcProg prog, size_t *binDataSizeRet);
aclError aclrtcGetBinData(aclrtcProg prog, char *binData);
aclError aclrtcGetCompileLogSize(aclrtcProg prog, size_t *logSizeRet);
aclError aclrtcGetCompileLog(aclrtcProg prog, char *log);
aclError aclrtcDestroyProg(aclrtcProg *prog);
/* END GENERATED "rtc" */
/* cffi-end */

#ifdef __cplusplus
}
#endif

#endif /* AIOCANN_ACL_RT_COMPILE_H_ */
