/*
 * aiocann toolkit: what libnnopbase.so (aclnn_meta.c: tensors, scalars, executors) and
 * libopapi.so (aclnn_ops.c: the operators) share. Not installed: the structs are opaque to
 * programs, as CANN's are.
 */
#ifndef AIOCANN_TOOLKIT_ACLNN_INTERNAL_H_
#define AIOCANN_TOOLKIT_ACLNN_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aclnn/acl_meta.h"

#define ACLNN_MAX_DIMS 8

struct aclTensor {
    uint32_t magic; /* ACLNN_TENSOR_MAGIC while alive: a destroyed or foreign pointer is refused */
    aclDataType dtype;
    aclFormat format;
    uint64_t ndim, storage_ndim;
    int64_t dims[ACLNN_MAX_DIMS], strides[ACLNN_MAX_DIMS], storage_dims[ACLNN_MAX_DIMS];
    int64_t offset; /* elements */
    void *data;
};

struct aclScalar {
    uint32_t magic;
    aclDataType dtype;
    double f;    /* the value as a double ... */
    int64_t i;   /* ... and as an integer (truncated) */
    bool is_int; /* an integer or bool dtype */
};

struct aclIntArray {
    uint32_t magic;
    uint64_t size;
    int64_t values[];
};

#define ACLNN_TENSOR_MAGIC 0x544e4e41u   /* "ANNT" */
#define ACLNN_SCALAR_MAGIC 0x534e4e41u   /* "ANNS" */
#define ACLNN_ARRAY_MAGIC 0x414e4e41u    /* "ANNA" */
#define ACLNN_EXECUTOR_MAGIC 0x454e4e41u /* "ANNE" */

/* The element-wise kernel's parameters (its placeholder: the kernel reads it from the launch's
 * args, so a captured launch replays with its own copy). Addresses are of element 0 of each
 * view; strides are in elements, 0 along a broadcast dimension. */
typedef struct aclnn_ew_tiling {
    uint32_t op; /* ACLNN_OP_* */
    uint8_t ta, tb, tout, tcompute; /* aclnn_kind of each operand and of the arithmetic */
    uint32_t ndim;
    uint32_t contiguous; /* every view dense and of out's shape: element i is at i everywhere */
    int64_t numel;
    double alpha_f;
    int64_t alpha_i;
    int64_t shape[ACLNN_MAX_DIMS];
    int64_t sa[ACLNN_MAX_DIMS], sb[ACLNN_MAX_DIMS], so[ACLNN_MAX_DIMS];
} aclnn_ew_tiling;

enum { ACLNN_OP_ADD = 1, ACLNN_OP_MUL = 2 };

/* The element types the operators take (the kernel's own codes, independent of aclDataType). */
enum {
    ACLNN_K_NONE = 0,
    ACLNN_K_BOOL,
    ACLNN_K_U8,
    ACLNN_K_I8,
    ACLNN_K_I16,
    ACLNN_K_I32,
    ACLNN_K_I64,
    ACLNN_K_F16,
    ACLNN_K_BF16,
    ACLNN_K_F32,
    ACLNN_K_F64,
};

/* The size of an element of kind k (ACLNN_K_*). */
static inline size_t aclnn_kind_size(int k)
{
    static const size_t sizes[] = {0, 1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
    return sizes[k];
}

struct aclOpExecutor {
    uint32_t magic;
    bool repeatable;
    void *a, *b, *out;   /* element 0 of each view */
    aclnn_ew_tiling tiling;
};

/* libnnopbase.so's, for libopapi.so: the live object or NULL. */
__attribute__((visibility("default"))) const aclTensor *aclnn_tensor(const aclTensor *t);
__attribute__((visibility("default"))) const aclScalar *aclnn_scalar(const aclScalar *s);
__attribute__((visibility("default"))) aclOpExecutor *aclnn_executor_new(void);
__attribute__((visibility("default"))) aclOpExecutor *aclnn_executor(aclOpExecutor *e);
__attribute__((visibility("default"))) int aclnn_kind(aclDataType dt);
__attribute__((visibility("default"))) void aclnn_log(const char *func, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* AIOCANN_TOOLKIT_ACLNN_INTERNAL_H_ */
