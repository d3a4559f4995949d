// The operator library's aclnnAdd and aclnnMul as a CANN program calls them: the results
// (broadcast, strided views, float16, integers, promotion), the codes of bad calls, an executor
// used once or made repeatable, a launch captured into a model and replayed, a fault, and a
// second aclInit. Prints "[SUCCESS] ..." and exits 0 when every check holds. Run by
// tests/toolkit/test_toolkit.py.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"

#define ERROR_LOG(fmt, ...) std::fprintf(stdout, "[ERROR]  " fmt "\n", ##__VA_ARGS__)
#define CHECK_EQ(got, want)                                                                                  \
    do {                                                                                                     \
        long long g_ = static_cast<long long>(got), w_ = static_cast<long long>(want);                      \
        if (g_ != w_) {                                                                                      \
            ERROR_LOG("line %d: %s is %lld, expected %lld (%s)", __LINE__, #got, g_, w_,                     \
                      aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");                                     \
            return 1;                                                                                        \
        }                                                                                                    \
    } while (0)
#define CHECK(call) CHECK_EQ((call), 0)
#define CHECK_TRUE(cond)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            ERROR_LOG("line %d: %s", __LINE__, #cond);                                                       \
            return 1;                                                                                        \
        }                                                                                                    \
    } while (0)

namespace {
aclrtStream g_stream;

template <class T> void* Upload(const std::vector<T>& host)
{
    void* dev = nullptr;
    aclrtMalloc(&dev, host.size() * sizeof(T) + 32, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(dev, host.size() * sizeof(T), host.data(), host.size() * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE);
    return dev;
}

template <class T> std::vector<T> Download(const void* dev, size_t n)
{
    std::vector<T> host(n);
    aclrtSynchronizeStream(g_stream);
    aclrtMemcpy(host.data(), n * sizeof(T), dev, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST);
    return host;
}

aclTensor* Tensor(std::vector<int64_t> shape, aclDataType dt, void* data, const int64_t* strides = nullptr,
                  int64_t offset = 0)
{
    return aclCreateTensor(shape.data(), shape.size(), dt, strides, offset, ACL_FORMAT_ND, shape.data(), shape.size(),
                           data);
}

// out = a + alpha * b, launched on g_stream.
int Add(const aclTensor* a, const aclTensor* b, const aclScalar* alpha, aclTensor* out)
{
    uint64_t ws = 1;
    aclOpExecutor* ex = nullptr;
    int rc = aclnnAddGetWorkspaceSize(a, b, alpha, out, &ws, &ex);
    if (rc)
        return rc;
    if (ws != 0)
        return -1;
    return aclnnAdd(nullptr, 0, ex, g_stream);
}

int Results()
{
    // Broadcast: [2,3] + 2 * [3].
    void* a = Upload(std::vector<float>{1, 2, 3, 4, 5, 6});
    void* b = Upload(std::vector<float>{10, 20, 30});
    void* o = Upload(std::vector<float>(6, 0));
    float two = 2;
    aclScalar* alpha = aclCreateScalar(&two, ACL_FLOAT);
    aclTensor *ta = Tensor({2, 3}, ACL_FLOAT, a), *tb = Tensor({3}, ACL_FLOAT, b), *to = Tensor({2, 3}, ACL_FLOAT, o);
    CHECK(Add(ta, tb, alpha, to));
    std::vector<float> got = Download<float>(o, 6), want{21, 42, 63, 24, 45, 66};
    CHECK_TRUE(got == want);
    // A strided view: a's transpose ([3,2], strides {1,3}) times a [3,1] column.
    void* col = Upload(std::vector<float>{1, 10, 100});
    int64_t tstrides[2] = {1, 3};
    aclTensor *tt = Tensor({3, 2}, ACL_FLOAT, a, tstrides), *tc = Tensor({3, 1}, ACL_FLOAT, col);
    aclTensor* to2 = Tensor({3, 2}, ACL_FLOAT, o);
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    CHECK(aclnnMulGetWorkspaceSize(tt, tc, to2, &ws, &ex));
    CHECK(aclnnMul(nullptr, 0, ex, g_stream));
    got = Download<float>(o, 6);
    want = {1, 4, 20, 50, 300, 600};
    CHECK_TRUE(got == want);
    // float16 in and out: 0.1 + 0.2 rounded once to float16.
    std::vector<aclFloat16> h{aclFloatToFloat16(0.1f), aclFloatToFloat16(0.2f)};
    void* hd = Upload(h);
    void* ho = Upload(std::vector<aclFloat16>(1));
    aclTensor *th0 = Tensor({1}, ACL_FLOAT16, hd), *th1 = Tensor({1}, ACL_FLOAT16, hd, nullptr, 1);
    aclTensor* tho = Tensor({1}, ACL_FLOAT16, ho);
    float one = 1;
    aclScalar* alpha1 = aclCreateScalar(&one, ACL_FLOAT);
    CHECK(Add(th0, th1, alpha1, tho));
    aclFloat16 hr = Download<aclFloat16>(ho, 1)[0];
    float exact = aclFloat16ToFloat(h[0]) + aclFloat16ToFloat(h[1]);
    CHECK_EQ(hr, aclFloatToFloat16(exact));
    // Integers wrap; an int32 alpha; int32 + float promotes to float.
    void* ia = Upload(std::vector<int32_t>{2147483647, -5});
    void* io = Upload(std::vector<int32_t>(2));
    int32_t three = 3;
    aclScalar* alpha3 = aclCreateScalar(&three, ACL_INT32);
    aclTensor *ti = Tensor({2}, ACL_INT32, ia), *tio = Tensor({2}, ACL_INT32, io);
    CHECK(Add(ti, ti, alpha3, tio));
    std::vector<int32_t> gi = Download<int32_t>(io, 2);
    CHECK_EQ(gi[0], static_cast<int32_t>(2147483647u * 4u));
    CHECK_EQ(gi[1], -20);
    aclTensor *tf = Tensor({2}, ACL_FLOAT, o), *tb2 = Tensor({2}, ACL_FLOAT, b);
    CHECK(Add(ti, tb2, alpha1, tf)); // int32 + float (10, 20): float
    got = Download<float>(o, 2);
    CHECK_TRUE(got[0] == 2147483647.0f + 10 && got[1] == 15);
    // A 0-d tensor broadcasts to any shape; bfloat16 rounds to nearest even.
    void* s0 = Upload(std::vector<float>{0.5f});
    aclTensor *t0 = Tensor({}, ACL_FLOAT, s0), *tb3 = Tensor({3}, ACL_FLOAT, b), *to3 = Tensor({3}, ACL_FLOAT, o);
    CHECK(Add(t0, tb3, alpha1, to3));
    got = Download<float>(o, 3);
    CHECK_TRUE((got == std::vector<float>{10.5f, 20.5f, 30.5f}));
    std::vector<uint16_t> bf{0x3f80, 0x3f81}; // 1.0 and 1.0078125
    void* bd = Upload(bf);
    aclTensor *tbf0 = Tensor({1}, ACL_BF16, bd), *tbf1 = Tensor({1}, ACL_BF16, bd, nullptr, 1);
    CHECK(aclnnMulGetWorkspaceSize(tbf1, tbf1, tbf0, &ws, &ex)); // 1.0078125^2 = 1.01568... -> 0x3f82
    CHECK(aclnnMul(nullptr, 0, ex, g_stream));
    CHECK_EQ(Download<uint16_t>(bd, 1)[0], 0x3f82);
    for (aclTensor* t : {t0, tb3, to3, tbf0, tbf1})
        CHECK(aclDestroyTensor(t));
    CHECK(aclrtFree(s0));
    CHECK(aclrtFree(bd));
    // In place: a += 1 * a.
    uint64_t ws2 = 0;
    CHECK(aclnnInplaceAddGetWorkspaceSize(ta, ta, alpha1, &ws2, &ex));
    CHECK(aclnnInplaceAdd(nullptr, 0, ex, g_stream));
    got = Download<float>(a, 6);
    want = {2, 4, 6, 8, 10, 12};
    CHECK_TRUE(got == want);
    for (aclTensor* t : {ta, tb, to, tt, tc, to2, th0, th1, tho, ti, tio, tf, tb2})
        CHECK(aclDestroyTensor(t));
    for (aclScalar* s : {alpha, alpha1, alpha3})
        CHECK(aclDestroyScalar(s));
    for (void* p : {a, b, o, col, hd, ho, ia, io})
        CHECK(aclrtFree(p));
    return 0;
}

int BadCalls()
{
    void* a = Upload(std::vector<float>(6));
    void* i = Upload(std::vector<int32_t>(6));
    float one = 1;
    aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
    aclTensor *t6 = Tensor({6}, ACL_FLOAT, a), *t4 = Tensor({4}, ACL_FLOAT, a), *ti = Tensor({6}, ACL_INT32, i);
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    CHECK_EQ(aclnnAddGetWorkspaceSize(nullptr, t6, alpha, t6, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_EQ(aclnnAddGetWorkspaceSize(t6, t6, nullptr, t6, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_EQ(aclnnAddGetWorkspaceSize(t6, t6, alpha, t6, &ws, nullptr), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_EQ(aclnnAddGetWorkspaceSize(t6, t4, alpha, t6, &ws, &ex), ACLNN_ERR_PARAM_INVALID); // no broadcast
    CHECK_EQ(aclnnAddGetWorkspaceSize(t4, t4, alpha, t6, &ws, &ex), ACLNN_ERR_PARAM_INVALID); // out's shape
    CHECK_EQ(aclnnAddGetWorkspaceSize(t6, t6, alpha, ti, &ws, &ex), ACLNN_ERR_PARAM_INVALID); // float -> int32
    float half = 0.5f;
    aclScalar* frac = aclCreateScalar(&half, ACL_FLOAT);
    CHECK_EQ(aclnnAddGetWorkspaceSize(ti, ti, frac, ti, &ws, &ex), ACLNN_ERR_PARAM_INVALID); // 0.5 on integers
    CHECK_EQ(aclnnAdd(nullptr, 0, nullptr, g_stream), ACLNN_ERR_PARAM_NULLPTR);
    // An executor is used once ...
    CHECK(aclnnMulGetWorkspaceSize(t6, t6, t6, &ws, &ex));
    CHECK(aclnnMul(nullptr, 0, ex, g_stream));
    // ... unless made repeatable, until destroyed.
    CHECK(aclnnAddGetWorkspaceSize(t6, t6, alpha, t6, &ws, &ex));
    CHECK(aclSetAclOpExecutorRepeatable(ex));
    CHECK(aclnnAdd(nullptr, 0, ex, g_stream));
    CHECK(aclnnAdd(nullptr, 0, ex, g_stream));
    CHECK(aclDestroyAclOpExecutor(ex));
    // A destroyed tensor is refused; so is a bad type at creation.
    aclTensor* gone = Tensor({6}, ACL_FLOAT, a);
    CHECK(aclDestroyTensor(gone));
    CHECK_TRUE(Tensor({6}, ACL_STRING, a) == nullptr);
    int64_t big[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_TRUE(aclCreateTensor(big, 9, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, big, 9, a) == nullptr);
    CHECK_TRUE(aclCreateScalar(nullptr, ACL_FLOAT) == nullptr);
    // A stream that is not one: the runtime refuses the launch.
    CHECK(aclnnAddGetWorkspaceSize(t6, t6, alpha, t6, &ws, &ex));
    CHECK_EQ(aclnnAdd(nullptr, 0, ex, reinterpret_cast<aclrtStream>(0x10)), ACLNN_ERR_RUNTIME_ERROR);
    CHECK(aclrtSynchronizeStream(g_stream));
    for (aclTensor* t : {t6, t4, ti})
        CHECK(aclDestroyTensor(t));
    CHECK(aclDestroyScalar(alpha));
    CHECK(aclDestroyScalar(frac));
    CHECK(aclrtFree(a));
    CHECK(aclrtFree(i));
    return 0;
}

// x += 1 * x captured once and replayed three times: 1 -> 8.
int Captured()
{
    void* x = Upload(std::vector<float>{1, 1, 1, 1});
    float one = 1;
    aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
    aclTensor* t = Tensor({4}, ACL_FLOAT, x);
    aclrtStream cap = nullptr;
    CHECK(aclrtCreateStream(&cap));
    CHECK(aclmdlRICaptureBegin(cap, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    CHECK(aclnnInplaceAddGetWorkspaceSize(t, t, alpha, &ws, &ex));
    CHECK(aclnnInplaceAdd(nullptr, 0, ex, cap));
    aclmdlRI model = nullptr;
    CHECK(aclmdlRICaptureEnd(cap, &model));
    CHECK_TRUE(Download<float>(x, 4)[0] == 1); // captured, not run
    for (int r = 0; r < 3; r++)
        CHECK(aclmdlRIExecuteAsync(model, g_stream));
    std::vector<float> got = Download<float>(x, 4);
    CHECK_TRUE(got == std::vector<float>(4, 8));
    CHECK(aclmdlRIDestroy(model));
    CHECK(aclrtDestroyStream(cap));
    CHECK(aclDestroyTensor(t));
    CHECK(aclDestroyScalar(alpha));
    CHECK(aclrtFree(x));
    return 0;
}

// A tensor on an address that is not device memory: the kernel faults, the launch fails.
int Fault()
{
    float one = 1;
    aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
    aclTensor* t = Tensor({4}, ACL_FLOAT, reinterpret_cast<void*>(0x1000));
    CHECK(Add(t, t, alpha, t));
    CHECK_EQ(aclrtSynchronizeStream(g_stream), ACL_ERROR_RT_AICORE_EXCEPTION);
    CHECK(aclDestroyTensor(t));
    CHECK(aclDestroyScalar(alpha));
    return 0;
}

int Session(bool fault)
{
    CHECK(aclInit(nullptr));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&g_stream));
    int rc = Results();
    if (!rc)
        rc = BadCalls();
    if (!rc)
        rc = Captured();
    if (!rc && fault)
        rc = Fault();
    aclrtDestroyStreamForce(g_stream);
    aclrtResetDeviceForce(0);
    aclFinalize();
    return rc;
}
} // namespace

int main()
{
    // Twice: the second session's first launch finds the first's kernel binary gone.
    if (Session(true) || Session(false))
        return 1;
    std::printf("[SUCCESS] aclnnAdd and aclnnMul compute, refuse and replay as documented\n");
    return 0;
}
