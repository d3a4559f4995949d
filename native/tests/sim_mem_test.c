/*
 * aiocann simulator: C tests of the memory family of issue 11 -- virtual memory, shareable
 * handles and IPC keys across two processes, host registration, stream value write/wait,
 * copies by descriptor, reduce -- linked against the standalone libascendcl.so as an ACL
 * program would be, and built with ThreadSanitizer and AddressSanitizer by the test-suite
 * (tests/sim/test_sim_mem_c.py).
 *
 *   sim_mem_test KERNEL_SO           (vector_add.c built by aiocann.compiler.build_kernel)
 *   sim_mem_test --peer MODE ARG...  (the second process of the cross-process tests: started by
 *                                     the first, from the same executable)
 * Exit status 0 when every check passed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"

extern char **environ;

#include "check.h"
#define OK(expr) CHECK_RC(expr, ACL_SUCCESS)

#define MIB ((size_t)1 << 20)

static aclrtPhysicalMemProp device_prop(aclrtMemAttr attr)
{
    aclrtPhysicalMemProp p;
    memset(&p, 0, sizeof p);
    p.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    p.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    p.memAttr = attr;
    p.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = 0;
    return p;
}

/* ------------------------------------------------------------------ a second process ----- */

static char g_self[4096];

/* Starts this executable as a peer; its stdin is a pipe (returned in *to) it reads a go-ahead
 * byte from when the test needs to act between its start and its import. */
static pid_t spawn_peer(const char *mode, const char *arg, const char *expect, int *to)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    char *argv[] = {g_self, "--peer", (char *)mode, (char *)arg, (char *)expect, NULL};
    pid_t pid = -1;
    if (posix_spawn(&pid, g_self, &fa, NULL, argv, environ) != 0)
        pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    close(fds[0]);
    *to = fds[1];
    return pid;
}

static int reap(pid_t pid)
{
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static const char k_pattern[] = "written by the peer";

/* The peer: imports what arg names, expects `expect` from the import; on success reads the
 * exporter's data ("exporter data"), writes k_pattern over it and closes the import. */
static int peer_main(const char *mode, const char *arg, const char *expect)
{
    char go;
    if (read(0, &go, 1) != 1)
        return 3;
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    aclError want = (aclError)atoi(expect), rc;
    void *ptr = NULL, *va = NULL;
    aclrtDrvMemHandle h = NULL;
    if (strcmp(mode, "ipc") == 0) {
        rc = aclrtIpcMemImportByKey(&ptr, arg, 0);
    } else {
        rc = aclrtMemImportFromShareableHandle(strtoull(arg, NULL, 10), 0, &h);
        if (!rc) {
            OK(aclrtReserveMemAddress(&va, 2 * MIB, 0, NULL, 0));
            OK(aclrtMapMem(va, 2 * MIB, 0, h, 0));
            ptr = va;
        }
    }
    CHECK_RC(rc, want);
    if (!rc) {
        char buf[32] = {0};
        OK(aclrtMemcpy(buf, sizeof buf, ptr, 14, ACL_MEMCPY_DEVICE_TO_HOST));
        CHECK(memcmp(buf, "exporter data", 14) == 0);
        OK(aclrtMemcpy(ptr, 32, k_pattern, sizeof k_pattern, ACL_MEMCPY_HOST_TO_DEVICE));
        if (h) {
            OK(aclrtUnmapMem(va));
            OK(aclrtReleaseMemAddress(va));
            OK(aclrtFreePhysical(h));
        } else {
            OK(aclrtIpcMemClose(arg));
        }
    }
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    return g_failures ? 1 : 0;
}

/* Runs a peer that imports arg; `allow` first puts the peer on the whitelist through fn. */
static void run_peer(const char *mode, const char *arg, aclError expect, aclError (*allow)(const char *, int32_t))
{
    char want[16];
    snprintf(want, sizeof want, "%d", expect);
    int to = -1;
    pid_t pid = spawn_peer(mode, arg, want, &to);
    CHECK(pid > 0);
    if (pid <= 0)
        return;
    if (allow)
        OK(allow(arg, (int32_t)pid));
    CHECK(write(to, "g", 1) == 1);
    close(to);
    CHECK(reap(pid) == 0);
}

static aclError allow_ipc(const char *key, int32_t pid) { return aclrtIpcMemSetImportPid(key, &pid, 1); }

static aclError allow_vmm(const char *handle, int32_t pid)
{
    return aclrtMemSetPidToShareableHandle(strtoull(handle, NULL, 10), &pid, 1);
}

/* ------------------------------------------------------------------ the tests ------------ */

typedef struct {
    uint32_t total;
    uint32_t pad;
} add_tiling;

/* z = x + y over n floats with vector_add's add_custom; returns synchronize's code. */
static aclError vector_add(aclrtFuncHandle fn, aclrtStream s, void *x, void *y, void *z, uint32_t n)
{
    aclrtArgsHandle args;
    aclrtParamHandle p;
    OK(aclrtKernelArgsInit(fn, &args));
    OK(aclrtKernelArgsAppend(args, &x, sizeof x, &p));
    OK(aclrtKernelArgsAppend(args, &y, sizeof y, &p));
    OK(aclrtKernelArgsAppend(args, &z, sizeof z, &p));
    void *tiling = NULL;
    OK(aclrtKernelArgsAppendPlaceHolder(args, &p));
    OK(aclrtKernelArgsGetPlaceHolderBuffer(args, p, sizeof(add_tiling), &tiling));
    if (tiling)
        *(add_tiling *)tiling = (add_tiling){n, 0};
    OK(aclrtKernelArgsFinalize(args));
    OK(aclrtLaunchKernelWithConfig(fn, 4, s, NULL, args, NULL));
    return aclrtSynchronizeStream(s);
}

static void test_virtual_memory(aclrtFuncHandle fn, aclrtStream s)
{
    aclrtPhysicalMemProp prop = device_prop(ACL_MEM_NORMAL);
    size_t gran = 0;
    OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &gran));
    CHECK(gran == 2 * MIB);
    aclrtPhysicalMemProp big = device_prop(ACL_MEM_HUGE1G);
    OK(aclrtMemGetAllocationGranularity(&big, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &gran));
    CHECK(gran == 1024 * MIB);
    aclrtPhysicalMemProp ddr = device_prop(ACL_DDR_MEM_NORMAL); /* host-only attribute on the device */
    CHECK_RC(aclrtMemGetAllocationGranularity(&ddr, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &gran),
             ACL_ERROR_INVALID_PARAM);

    /* Three pages of address space, two of them backed: x and y mapped, z's page not yet. */
    void *va = NULL;
    OK(aclrtReserveMemAddress(&va, 6 * MIB, 0, NULL, 0));
    CHECK(va && (uintptr_t)va % (2 * MIB) == 0);
    aclrtDrvMemHandle hx, hy, hz;
    OK(aclrtMallocPhysical(&hx, 2 * MIB, &prop, 0));
    OK(aclrtMallocPhysical(&hy, 2 * MIB, &prop, 0));
    OK(aclrtMallocPhysical(&hz, 2 * MIB, &prop, 0));
    char *x = va, *y = x + 2 * MIB, *z = y + 2 * MIB;
    OK(aclrtMapMem(x, 2 * MIB, 0, hx, 0));
    OK(aclrtMapMem(y, 2 * MIB, 0, hy, 0));
    CHECK_RC(aclrtMapMem(y, 2 * MIB, 0, hz, 0), ACL_ERROR_RT_PARAM_INVALID);      /* taken */
    CHECK_RC(aclrtMapMem(z, 2 * MIB, 4096, hz, 0), ACL_ERROR_RT_PARAM_INVALID);   /* offset */
    CHECK_RC(aclrtMapMem(z, 4 * MIB, 0, hz, 0), ACL_ERROR_RT_PARAM_INVALID);      /* size */
    CHECK_RC(aclrtMapMem(z + 4096, 2 * MIB, 0, hz, 0), ACL_ERROR_RT_PARAM_INVALID); /* alignment */
    CHECK_RC(aclrtMapMem(z, 2 * MIB, 0, hz, 1), ACL_ERROR_INVALID_PARAM);         /* flags */

    enum { N = 1024 };
    float hxv[N], hyv[N], out[N];
    for (int i = 0; i < N; i++) {
        hxv[i] = (float)i;
        hyv[i] = 2.0f * (float)i;
    }
    OK(aclrtMemcpy(x, 2 * MIB, hxv, sizeof hxv, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMemcpy(y, 2 * MIB, hyv, sizeof hyv, ACL_MEMCPY_DEFAULT)); /* the direction from the addresses */
    aclrtPtrAttributes attr;
    OK(aclrtPointerGetAttributes(y + 100, &attr));
    CHECK(attr.location.type == ACL_MEM_LOCATION_TYPE_DEVICE && attr.location.id == 0);
    CHECK_RC(aclrtPointerGetAttributes(z, &attr), ACL_ERROR_RT_PARAM_INVALID); /* reserved, unmapped */

    /* A kernel writing z's unmapped page faults like any out-of-bounds access, and is contained. */
    CHECK_RC(vector_add(fn, s, x, y, z, N), ACL_ERROR_RT_AICORE_EXCEPTION);
    OK(aclrtMapMem(z, 2 * MIB, 0, hz, 0));
    OK(vector_add(fn, s, x, y, z, N));
    OK(aclrtMemcpy(out, sizeof out, z, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(out[0] == 0.0f && out[N - 1] == 3.0f * (N - 1));

    /* Physical memory counts against the device; freeing a mapped handle keeps the memory
     * until the last mapping goes. */
    size_t free_before, free_after, total;
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_before, &total));
    OK(aclrtFreePhysical(hz));
    OK(aclrtMemcpy(out, sizeof out, z, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(out[1] == 3.0f);
    CHECK_RC(aclrtFreePhysical(hz), ACL_ERROR_RT_INVALID_HANDLE);
    CHECK_RC(aclrtReleaseMemAddress(va), ACL_ERROR_RT_PARAM_INVALID); /* still mapped */
    OK(aclrtUnmapMem(z));
    OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_after, &total));
    CHECK(free_after == free_before + 2 * MIB);
    CHECK_RC(aclrtUnmapMem(z), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtUnmapMem(x));
    OK(aclrtUnmapMem(y));
    OK(aclrtReleaseMemAddress(va));
    OK(aclrtFreePhysical(hx));
    OK(aclrtFreePhysical(hy));
}

/* Many threads reserving, mapping, copying through and unmapping at once: the registry's
 * locking under the sanitizers. */
static void *vmm_churn(void *arg)
{
    (void)arg;
    OK(aclrtSetDevice(0));
    aclrtPhysicalMemProp prop = device_prop(ACL_MEM_HUGE);
    for (int i = 0; i < 8; i++) {
        void *va;
        aclrtDrvMemHandle h;
        OK(aclrtReserveMemAddress(&va, 2 * MIB, 0, NULL, 0));
        OK(aclrtMallocPhysical(&h, 2 * MIB, &prop, 0));
        OK(aclrtMapMem(va, 2 * MIB, 0, h, 0));
        uint64_t v = (uint64_t)i, back = 0;
        OK(aclrtMemcpy(va, 8, &v, 8, ACL_MEMCPY_HOST_TO_DEVICE));
        OK(aclrtMemcpy(&back, 8, va, 8, ACL_MEMCPY_DEVICE_TO_HOST));
        CHECK(back == v);
        OK(aclrtUnmapMem(va));
        OK(aclrtFreePhysical(h));
        OK(aclrtReleaseMemAddress(va));
    }
    OK(aclrtResetDevice(0));
    return NULL;
}

static void test_vmm_threads(void)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, vmm_churn, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
}

static void test_cross_process(void)
{
    /* IPC: aclrtMalloc memory shared by key; the whitelist is enforced on import. */
    void *dev;
    OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy(dev, 4096, "exporter data", 14, ACL_MEMCPY_HOST_TO_DEVICE));
    char key[65] = {0};
    OK(aclrtIpcMemGetExportKey(dev, 4096, key, sizeof key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT));
    run_peer("ipc", key, ACL_ERROR_RT_NO_PERMISSION, NULL); /* not on the whitelist */
    run_peer("ipc", key, ACL_SUCCESS, allow_ipc);
    char buf[32] = {0};
    OK(aclrtMemcpy(buf, sizeof buf, dev, sizeof k_pattern, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(strcmp(buf, k_pattern) == 0); /* the peer wrote into this process's memory */
    OK(aclrtIpcMemClose(key));
    run_peer("ipc", key, ACL_ERROR_RT_PARAM_INVALID, NULL); /* closed: gone */
    OK(aclrtFree(dev));

    /* Virtual memory: a physical handle's shareable handle, with its whitelist. */
    aclrtPhysicalMemProp prop = device_prop(ACL_MEM_NORMAL);
    aclrtDrvMemHandle h;
    void *va;
    uint64_t shareable = 0;
    OK(aclrtMallocPhysical(&h, 2 * MIB, &prop, 0));
    OK(aclrtReserveMemAddress(&va, 2 * MIB, 0, NULL, 0));
    OK(aclrtMapMem(va, 2 * MIB, 0, h, 0));
    OK(aclrtMemcpy(va, 2 * MIB, "exporter data", 14, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &shareable));
    CHECK_RC(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &shareable), ACL_ERROR_RT_PARAM_INVALID);
    aclrtDrvMemHandle self;
    CHECK_RC(aclrtMemImportFromShareableHandle(shareable, 0, &self), ACL_ERROR_RT_PARAM_INVALID); /* same process */
    char text[24];
    snprintf(text, sizeof text, "%llu", (unsigned long long)shareable);
    run_peer("vmm", text, ACL_ERROR_RT_NO_PERMISSION, NULL);
    run_peer("vmm", text, ACL_SUCCESS, allow_vmm);
    memset(buf, 0, sizeof buf);
    OK(aclrtMemcpy(buf, sizeof buf, va, sizeof k_pattern, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(strcmp(buf, k_pattern) == 0);
    OK(aclrtUnmapMem(va));
    OK(aclrtReleaseMemAddress(va));
    OK(aclrtFreePhysical(h));
    run_peer("vmm", text, ACL_ERROR_RT_PARAM_INVALID, NULL); /* freed: its shareable handle went with it */
}

static void test_value_wait(void)
{
    aclrtStream waiter, writer;
    OK(aclrtCreateStream(&waiter));
    OK(aclrtCreateStream(&writer));
    void *flag, *dst;
    OK(aclrtMalloc(&flag, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&dst, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(flag, 64, 0, 64));
    OK(aclrtMemset(dst, 64, 0, 64));
    /* The waiter holds a memset until the writer's value arrives. */
    OK(aclrtValueWait(flag, 5, 0 /* GEQ */, waiter));
    OK(aclrtMemsetAsync(dst, 64, 7, 64, waiter));
    CHECK_RC(aclrtSynchronizeStreamWithTimeout(waiter, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    unsigned char b = 0;
    OK(aclrtMemcpy(&b, 1, dst, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(b == 0);
    OK(aclrtValueWrite(flag, 4, 0, writer)); /* not enough */
    OK(aclrtSynchronizeStream(writer));
    CHECK_RC(aclrtSynchronizeStreamWithTimeout(waiter, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    OK(aclrtValueWrite(flag, 5, 0, writer));
    OK(aclrtSynchronizeStream(waiter));
    OK(aclrtMemcpy(&b, 1, dst, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(b == 7);
    /* A wait nothing will satisfy ends with its stream. */
    OK(aclrtValueWait(flag, 99, 1 /* EQ */, waiter));
    OK(aclrtMemsetAsync(dst, 64, 9, 64, waiter));
    OK(aclrtDestroyStream(waiter));
    OK(aclrtMemcpy(&b, 1, dst, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(b == 7); /* what was queued behind the wait was discarded */
    CHECK_RC(aclrtValueWait(flag, 1, 4, writer), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_RC(aclrtValueWrite(flag, 1, 1, writer), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_RC(aclrtValueWrite(&b, 1, 0, writer), ACL_ERROR_RT_PARAM_INVALID); /* host memory */
    OK(aclrtDestroyStream(writer));
    OK(aclrtFree(flag));
    OK(aclrtFree(dst));
}

static void test_host_register_desc_reduce(aclrtStream s)
{
    float *host = malloc(4096);
    void *dev_host = NULL;
    OK(aclrtHostRegister(host, 4096, ACL_HOST_REGISTER_MAPPED, &dev_host));
    CHECK(dev_host == host);
    CHECK_RC(aclrtHostRegisterV2(host + 16, 64, ACL_HOST_REG_PINNED), ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    aclrtPtrAttributes attr;
    OK(aclrtPointerGetAttributes(host, &attr));
    CHECK(attr.location.type == ACL_MEM_LOCATION_TYPE_HOST);
    float *dev;
    OK(aclrtMalloc((void **)&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < 1024; i++)
        host[i] = (float)i;
    OK(aclrtMemcpyAsync(dev, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE, s)); /* registered: truly async */
    OK(aclrtReduceAsync(dev, dev, 4096, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, NULL)); /* dev += dev */
    OK(aclrtSynchronizeStream(s));
    OK(aclrtMemcpy(host, 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(host[3] == 6.0f && host[1023] == 2046.0f);
    OK(aclrtHostUnregister(host));
    CHECK_RC(aclrtHostUnregister(host), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    free(host);

    /* A copy by descriptor reads the descriptor when it runs. */
    size_t size = 0;
    OK(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, &size));
    CHECK(size == 32);
    void *desc, *a, *b;
    OK(aclrtMalloc(&desc, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy(a, 64, "descriptor", 11, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, 11, NULL));
    OK(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    OK(aclrtSynchronizeStream(s));
    char text[16] = {0};
    OK(aclrtMemcpy(text, sizeof text, b, 11, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(strcmp(text, "descriptor") == 0);
    OK(aclrtFree(desc));
    OK(aclrtFree(a));
    OK(aclrtFree(b));
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--peer") == 0)
        return peer_main(argv[2], argv[3], argv[4]);
    if (argc != 2) {
        fprintf(stderr, "usage: %s KERNEL_SO\n", argv[0]);
        return 2;
    }
    ssize_t n = readlink("/proc/self/exe", g_self, sizeof g_self - 1);
    if (n <= 0)
        return 2;
    g_self[n] = '\0';
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    aclrtStream s;
    OK(aclrtCreateStream(&s));
    aclrtBinHandle bin;
    aclrtFuncHandle fn;
    OK(aclrtBinaryLoadFromFile(argv[1], NULL, &bin));
    OK(aclrtBinaryGetFunction(bin, "add_custom", &fn));
    test_virtual_memory(fn, s);
    test_vmm_threads();
    test_cross_process();
    test_value_wait();
    test_host_register_desc_reduce(s);
    OK(aclrtDestroyStream(s));
    OK(aclrtBinaryUnLoad(bin));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    if (g_failures)
        fprintf(stderr, "%d check(s) failed\n", g_failures);
    else
        printf("sim_mem_test: all checks passed\n");
    return g_failures ? 1 : 0;
}
