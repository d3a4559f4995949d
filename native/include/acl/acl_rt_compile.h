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
 * The region between the cffi markers is part of the cffi cdef (native/build_ffi.py).
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

/* The codes aclrtc returns (CANN's documentation names them; its header does not define them). Outside the cffi
 * region: aiocann.errors.ERROR_CODES holds the runtime headers' codes only. */
#define ACL_ERROR_RTC_INVALID_PROG 176000
#define ACL_ERROR_RTC_INVALID_INPUT 176001
#define ACL_ERROR_RTC_INVALID_OPTION 176002
#define ACL_ERROR_RTC_COMPILATION 176003
#define ACL_ERROR_RTC_LINKING 176004
#define ACL_ERROR_RTC_NO_NAME_EXPR_AFTER_COMPILATION 176005
#define ACL_ERROR_RTC_NO_LOWERED_NAMES_BEFORE_COMPILATION 176006
#define ACL_ERROR_RTC_NAME_EXPR_NOT_VALID 176007
#define ACL_ERROR_RTC_PROG_CREATION_FAILURE 276000
#define ACL_ERROR_RTC_OUT_OF_MEMORY 276001
#define ACL_ERROR_RTC_FAILURE 576000

/* cffi-begin */
typedef void *aclrtcProg;


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
aclError aclrtcDestroyProg(aclrtcProg *prog);
aclError aclrtcGetBinData(aclrtcProg prog, char *binData);
aclError aclrtcGetBinDataSize(aclrtcProg prog, size_t *binDataSizeRet);
/* The log's size includes its terminating NUL. */
aclError aclrtcGetCompileLogSize(aclrtcProg prog, size_t *logSizeRet);
aclError aclrtcGetCompileLog(aclrtcProg prog, char *log);
/* cffi-end */

#ifdef __cplusplus
}
#endif

#endif /* AIOCANN_ACL_RT_COMPILE_H_ */
