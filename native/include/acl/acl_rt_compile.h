/*
 * aiocann: runtime compilation of Ascend C kernels (aclrtc), as CANN ships it in
 * acl/acl_rt_compile.h and libacl_rtc.so. Prototypes and codes follow the CANN documentation
 * ("aclrtc" API and "RTC错误码") and hicann/asc-devkit's behaviour; nothing here is copied.
 *
 * On CANN, aclrtcCompileProg runs bisheng. In the simulator (native/sim/rtc.c) it runs aiocann's
 * kernel compiler, `python -m aiocann cc`, as a child process; the binary it gives
 * (aclrtcGetBinData) loads with aclrtBinaryLoadFromData. The interpreter is $AIOCANN_PYTHON,
 * else the one whose site-packages holds the simulator, else the one that built it.
 *
 * On CANN these functions are exported by libacl_rtc.so, not by the runtime library: aiocann's
 * loader opens that library beside the runtime's when the runtime lacks them (the simulator
 * exports them itself). The region between the cffi markers is part of the cffi cdef
 * (native/build_ffi.py); its prototypes are generated from native/acl_functions.py.
 */
#ifndef AIOCANN_ACL_RT_COMPILE_H_
#define AIOCANN_ACL_RT_COMPILE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef AIOCANN_ACL_BASE_H_
typedef int aclError; /* as acl_base.h: the header stands alone, as CANN's does */
#endif

/* cffi-begin */
typedef void *aclrtcProg;

/* BEGIN GENERATED "rtc": written by native/gen_acl.py from native/acl_functions.py */
/* the runtime compiler: a program from source, compiled to a device binary */
/* A program from source text. name is its file name in diagnostics ("" -> "default_program";
 * a name ending in .aicpu is an AI CPU program, which cannot be compiled). numHeaders must be
 * 0 and headers, includeNames NULL. */
aclError aclrtcCreateProg(aclrtcProg *prog, const char *src, const char *name, int numHeaders, const char **headers,
                          const char **includeNames);
/* Compiles with the given compiler options (-I, -D, -O, -std, --npu-arch=dav-2201 ...). On a
 * compile error it returns ACL_ERROR_RTC_COMPILATION and the log holds the diagnostics. */
aclError aclrtcCompileProg(aclrtcProg prog, int numOptions, const char **options);
/* Before aclrtcCompileProg: a name expression ("&ns::kernel<float>") to compile and lower. */
aclError aclrtcAddNameExpr(aclrtcProg prog, const char *const nameExpression);
/* After it: the mangled name of a name expression, valid until aclrtcDestroyProg. */
aclError aclrtcGetLoweredName(aclrtcProg prog, const char *nameExpression, const char **loweredName);
aclError aclrtcGetBinDataSize(aclrtcProg prog, size_t *binDataSizeRet);
aclError aclrtcGetBinData(aclrtcProg prog, char *binData);
/* The log's size includes its terminating NUL. */
aclError aclrtcGetCompileLogSize(aclrtcProg prog, size_t *logSizeRet);
aclError aclrtcGetCompileLog(aclrtcProg prog, char *log);
aclError aclrtcDestroyProg(aclrtcProg *prog);
/* END GENERATED "rtc" */
/* cffi-end */

#ifdef __cplusplus
}
#endif

#endif /* AIOCANN_ACL_RT_COMPILE_H_ */
