// A C++ program as CANN's samples are written: streams with a configuration, host functions
// from several threads, random numbers, and the one-runtime property of the toolkit's
// libraries (every library name resolves each function to the same code). Prints
// "[SUCCESS] ..." and exits 0 when every check holds. Run by tests/toolkit/test_toolkit.py.
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "acl/acl.h"

#define INFO_LOG(fmt, ...) std::fprintf(stdout, "[INFO]  " fmt "\n", ##__VA_ARGS__)
#define ERROR_LOG(fmt, ...) std::fprintf(stdout, "[ERROR]  " fmt "\n", ##__VA_ARGS__)
#define CHECK_ERROR(call)                                                                          \
    do {                                                                                           \
        aclError ret_ = (call);                                                                    \
        if (ret_ != ACL_SUCCESS) {                                                                 \
            ERROR_LOG("%s failed at line %d: %d (%s)", #call, __LINE__, static_cast<int>(ret_),     \
                      aclGetRecentErrMsg() != nullptr ? aclGetRecentErrMsg() : "");                \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
#define CHECK_TRUE(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ERROR_LOG("check failed at line %d: %s", __LINE__, #cond);                             \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

namespace {
std::atomic<int> g_hostCalls{0};

void CountCall(void* args) { static_cast<std::atomic<int>*>(args)->fetch_add(1); }

int OneRuntime()
{
    // Each library name of lib64 is a filter of the one simulator: a function looked up
    // through any of them is the function this program linked.
    for (const char* name : {"libascendcl.so", "libacl_rt.so", "libacl_rt_impl.so", "libacl_rtc.so"}) {
        void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        CHECK_TRUE(lib != nullptr);
        CHECK_TRUE(dlsym(lib, "aclrtLaunchHostFunc") == reinterpret_cast<void*>(&aclrtLaunchHostFunc));
        CHECK_TRUE(dlsym(lib, "aclrtMalloc") == reinterpret_cast<void*>(&aclrtMalloc));
        dlclose(lib);
    }
    INFO_LOG("every toolkit library resolves to one runtime");
    return 0;
}
} // namespace

int main()
{
    if (OneRuntime() != 0) {
        return 1;
    }
    CHECK_ERROR(aclInit(nullptr));
    uint32_t count = 0;
    CHECK_ERROR(aclrtGetDeviceCount(&count));
    CHECK_TRUE(count >= 4);
    // A device other than 0, as the samples on a server use (a 910B server has 8).
    const int32_t deviceId = 3;
    CHECK_ERROR(aclrtSetDevice(deviceId));

    aclrtStreamConfigHandle* config = aclrtCreateStreamConfigHandle();
    CHECK_TRUE(config != nullptr);
    const uint32_t priority = 5;
    CHECK_ERROR(aclrtSetStreamConfigOpt(config, ACL_RT_STREAM_PRIORITY, &priority, sizeof(priority)));
    aclrtStream stream = nullptr;
    CHECK_ERROR(aclrtCreateStreamV2(&stream, config));
    uint32_t got = 0;
    CHECK_ERROR(aclrtStreamGetPriority(stream, &got));
    CHECK_TRUE(got == priority);
    CHECK_ERROR(aclrtDestroyStreamConfigHandle(config));

    // Host functions launched from four threads onto one stream: each runs once, in order
    // with the stream's other work, on the runtime's thread.
    std::vector<std::thread> threads;
    aclrtContext ctx = nullptr;
    CHECK_ERROR(aclrtGetCurrentContext(&ctx));
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&]() {
            if (aclrtSetCurrentContext(ctx) != ACL_SUCCESS) {
                failures++;
                return;
            }
            for (int i = 0; i < 25; ++i) {
                if (aclrtLaunchHostFunc(stream, CountCall, &g_hostCalls) != ACL_SUCCESS) {
                    failures++;
                }
            }
        });
    }
    for (auto& th : threads) {
        th.join();
    }
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    CHECK_TRUE(failures.load() == 0 && g_hostCalls.load() == 100);
    INFO_LOG("100 host functions ran on device %d", deviceId);

    // Random numbers: uniform floats in [1, 2).
    constexpr uint64_t kNum = 1024;
    void* out = nullptr;
    void* counter = nullptr;
    CHECK_ERROR(aclrtMalloc(&out, kNum * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&counter, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMemset(counter, 16, 0, 16));
    aclrtRandomNumTaskInfo task{};
    task.dataType = ACL_FLOAT;
    task.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
    const float lo = 1.0F;
    const float hi = 2.0F;
    std::memcpy(task.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.valueOrAddr, &lo, sizeof(lo));
    task.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.size = sizeof(lo);
    std::memcpy(task.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.valueOrAddr, &hi, sizeof(hi));
    task.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = sizeof(hi);
    const uint64_t seed = 2026;
    std::memcpy(task.randomSeed.valueOrAddr, &seed, sizeof(seed));
    task.randomSeed.size = sizeof(seed);
    std::memcpy(task.randomNum.valueOrAddr, &kNum, sizeof(kNum));
    task.randomNum.size = sizeof(kNum);
    task.randomCounterAddr = counter;
    task.randomResultAddr = out;
    CHECK_ERROR(aclrtRandomNumAsync(&task, stream, nullptr));
    CHECK_ERROR(aclrtSynchronizeStream(stream));
    std::vector<float> host(kNum);
    CHECK_ERROR(aclrtMemcpy(host.data(), kNum * sizeof(float), out, kNum * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST));
    double sum = 0;
    for (float v : host) {
        CHECK_TRUE(v >= 1.0F && v < 2.0F);
        sum += v;
    }
    CHECK_TRUE(sum / kNum > 1.45 && sum / kNum < 1.55);
    INFO_LOG("%llu uniform random numbers in [1, 2), mean %.3f", static_cast<unsigned long long>(kNum), sum / kNum);

    CHECK_ERROR(aclrtFree(out));
    CHECK_ERROR(aclrtFree(counter));
    CHECK_ERROR(aclrtDestroyStream(stream));
    CHECK_ERROR(aclrtResetDevice(deviceId));
    CHECK_ERROR(aclFinalize());
    std::printf("[SUCCESS] toolkit runtime functions from C++\n");
    return 0;
}
