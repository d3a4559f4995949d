/*
 * aiocann toolkit: libnnopbase.so -- the operator library's tensors, scalars, integer arrays and
 * executors (aclnn/acl_meta.h), host objects only: no runtime call is made here.
 *
 * Every object carries a magic word, cleared when it is destroyed, so that a destroyed object,
 * a pointer of another kind or NULL passed back is refused with a code instead of being read
 * (a program that destroys twice gets ACLNN_ERR_PARAM_INVALID, not a double free -- as far as
 * the memory was not reused meanwhile).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aclnn_internal.h"

#define API __attribute__((visibility("default")))

API void aclnn_log(const char *func, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[ERROR] %s: %s\n", func, msg);
}

API int aclnn_kind(aclDataType dt)
{
    switch (dt) {
    case ACL_BOOL: return ACLNN_K_BOOL;
    case ACL_UINT8: return ACLNN_K_U8;
    case ACL_INT8: return ACLNN_K_I8;
    case ACL_INT16: return ACLNN_K_I16;
    case ACL_INT32: return ACLNN_K_I32;
    case ACL_INT64: return ACLNN_K_I64;
    case ACL_FLOAT16: return ACLNN_K_F16;
    case ACL_BF16: return ACLNN_K_BF16;
    case ACL_FLOAT: return ACLNN_K_F32;
    case ACL_DOUBLE: return ACLNN_K_F64;
    default: return ACLNN_K_NONE;
    }
}

/* The size of an element of dt, 0 for a type this library does not describe. */
static size_t dtype_size(aclDataType dt)
{
    int k = aclnn_kind(dt);
    if (k != ACLNN_K_NONE)
        return aclnn_kind_size(k);
    switch (dt) { /* described (a tensor may hold them), though no operator here computes them */
    case ACL_UINT16: return 2;
    case ACL_UINT32: return 4;
    case ACL_UINT64: return 8;
    case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 0;
    }
}

API aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                               const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                               uint64_t storageDimsNum, void *tensorData)
{
    const char *why = NULL;
    if (viewDimsNum > ACLNN_MAX_DIMS || storageDimsNum > ACLNN_MAX_DIMS)
        why = "more than 8 dimensions";
    else if ((viewDimsNum && !viewDims) || (storageDimsNum && !storageDims))
        why = "dims is NULL but its count is not 0";
    else if (dtype_size(dataType) == 0)
        why = "an unknown data type";
    else if (offset < 0)
        why = "a negative offset";
    for (uint64_t i = 0; !why && i < viewDimsNum; i++)
        if (viewDims[i] < 0 || (stride && stride[i] < 0))
            why = "a negative dimension or stride";
    for (uint64_t i = 0; !why && i < storageDimsNum; i++)
        if (storageDims[i] < 0)
            why = "a negative storage dimension";
    if (why) {
        aclnn_log(__func__, "%s", why);
        return NULL;
    }
    aclTensor *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->magic = ACLNN_TENSOR_MAGIC;
    t->dtype = dataType;
    t->format = format;
    t->ndim = viewDimsNum;
    t->storage_ndim = storageDimsNum;
    int64_t step = 1;
    for (uint64_t k = viewDimsNum; k-- > 0;) { /* contiguous strides unless given */
        t->dims[k] = viewDims[k];
        t->strides[k] = stride ? stride[k] : step;
        step *= viewDims[k] ? viewDims[k] : 1;
    }
    if (storageDimsNum)
        memcpy(t->storage_dims, storageDims, storageDimsNum * sizeof *storageDims);
    t->offset = offset;
    t->data = tensorData;
    return t;
}

API const aclTensor *aclnn_tensor(const aclTensor *t) { return t && t->magic == ACLNN_TENSOR_MAGIC ? t : NULL; }

/* Frees an object of this library (each struct begins with its magic word): NULL is fine, as
 * free(NULL) -- CANN's samples destroy what they may not have made --, an object of another kind
 * or one destroyed already is refused. */
static aclnnStatus destroy(const void *obj, uint32_t magic)
{
    if (!obj)
        return ACLNN_SUCCESS;
    uint32_t *word = (uint32_t *)obj;
    if (*word != magic)
        return ACLNN_ERR_PARAM_INVALID;
    *word = 0;
    free(word);
    return ACLNN_SUCCESS;
}

API aclnnStatus aclDestroyTensor(const aclTensor *tensor) { return destroy(tensor, ACLNN_TENSOR_MAGIC); }

API aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
    if (!value) {
        aclnn_log(__func__, "value is NULL");
        return NULL;
    }
    double f;
    int64_t i;
    bool is_int = true;
    switch (dataType) {
    case ACL_BOOL: i = *(const uint8_t *)value != 0; f = (double)i; break;
    case ACL_UINT8: i = *(const uint8_t *)value; f = (double)i; break;
    case ACL_INT8: i = *(const int8_t *)value; f = (double)i; break;
    case ACL_INT16: i = *(const int16_t *)value; f = (double)i; break;
    case ACL_UINT16: i = *(const uint16_t *)value; f = (double)i; break;
    case ACL_INT32: i = *(const int32_t *)value; f = (double)i; break;
    case ACL_UINT32: i = *(const uint32_t *)value; f = (double)i; break;
    case ACL_INT64: i = *(const int64_t *)value; f = (double)i; break;
    case ACL_UINT64: i = (int64_t) * (const uint64_t *)value; f = (double)*(const uint64_t *)value; break;
    case ACL_FLOAT: f = *(const float *)value; is_int = false; break;
    case ACL_DOUBLE: f = *(const double *)value; is_int = false; break;
    case ACL_FLOAT16: f = aclFloat16ToFloat(*(const aclFloat16 *)value); is_int = false; break;
    case ACL_BF16: {
        uint32_t bits = (uint32_t) * (const uint16_t *)value << 16;
        float v;
        memcpy(&v, &bits, sizeof v);
        f = v;
        is_int = false;
        break;
    }
    default: aclnn_log(__func__, "data type %d is not a scalar type", (int)dataType); return NULL;
    }
    if (!is_int)
        i = isfinite(f) && fabs(f) < 9.2e18 ? (int64_t)f : 0;
    aclScalar *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->magic = ACLNN_SCALAR_MAGIC;
    s->dtype = dataType;
    s->f = f;
    s->i = i;
    s->is_int = is_int;
    return s;
}

API const aclScalar *aclnn_scalar(const aclScalar *s) { return s && s->magic == ACLNN_SCALAR_MAGIC ? s : NULL; }

API aclnnStatus aclDestroyScalar(const aclScalar *scalar) { return destroy(scalar, ACLNN_SCALAR_MAGIC); }

API aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
    if (size && !value)
        return NULL;
    if (size > (1u << 28))
        return NULL;
    aclIntArray *a = malloc(sizeof *a + size * sizeof *value);
    if (!a)
        return NULL;
    a->magic = ACLNN_ARRAY_MAGIC;
    a->size = size;
    if (size)
        memcpy(a->values, value, size * sizeof *value);
    return a;
}

API aclnnStatus aclDestroyIntArray(const aclIntArray *array) { return destroy(array, ACLNN_ARRAY_MAGIC); }

/* The queries: a NULL output or tensor is 161001, a destroyed tensor 161002. */
#define TENSOR_QUERY(t, out)                                                                                           \
    do {                                                                                                               \
        if (!(t) || !(out))                                                                                            \
            return ACLNN_ERR_PARAM_NULLPTR;                                                                            \
        if (!aclnn_tensor(t))                                                                                          \
            return ACLNN_ERR_PARAM_INVALID;                                                                            \
    } while (0)

API aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum)
{
    TENSOR_QUERY(tensor, viewDims && viewDimsNum);
    *viewDims = (int64_t *)tensor->dims;
    *viewDimsNum = tensor->ndim;
    return ACLNN_SUCCESS;
}

API aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum)
{
    TENSOR_QUERY(tensor, storageDims && storageDimsNum);
    *storageDims = (int64_t *)tensor->storage_dims;
    *storageDimsNum = tensor->storage_ndim;
    return ACLNN_SUCCESS;
}

API aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum)
{
    TENSOR_QUERY(tensor, stridesValue && stridesNum);
    *stridesValue = (int64_t *)tensor->strides;
    *stridesNum = tensor->ndim;
    return ACLNN_SUCCESS;
}

API aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset)
{
    TENSOR_QUERY(tensor, offset);
    *offset = tensor->offset;
    return ACLNN_SUCCESS;
}

API aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format)
{
    TENSOR_QUERY(tensor, format);
    *format = tensor->format;
    return ACLNN_SUCCESS;
}

API aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType)
{
    TENSOR_QUERY(tensor, dataType);
    *dataType = tensor->dtype;
    return ACLNN_SUCCESS;
}

API aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr)
{
    TENSOR_QUERY(tensor, 1);
    tensor->data = addr;
    return ACLNN_SUCCESS;
}

API aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr)
{
    TENSOR_QUERY(tensor, addr);
    *addr = tensor->data;
    return ACLNN_SUCCESS;
}

API aclOpExecutor *aclnn_executor_new(void)
{
    aclOpExecutor *e = calloc(1, sizeof *e);
    if (e)
        e->magic = ACLNN_EXECUTOR_MAGIC;
    return e;
}

API aclOpExecutor *aclnn_executor(aclOpExecutor *e) { return e && e->magic == ACLNN_EXECUTOR_MAGIC ? e : NULL; }

API aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor)
{
    if (!executor)
        return ACLNN_ERR_PARAM_NULLPTR;
    if (!aclnn_executor(executor))
        return ACLNN_ERR_PARAM_INVALID;
    executor->repeatable = true;
    return ACLNN_SUCCESS;
}

API aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) { return destroy(executor, ACLNN_EXECUTOR_MAGIC); }
