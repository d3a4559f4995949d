/*
 * aiocann simulator: the runtime side of a <<<>>> launch in a host object (`python -m aiocann
 * cc -c`, an .asc executable). Not for users to include: the front-end's generated epilogue
 * includes it once, at the end of the translation unit, after defining
 *
 *   aclsim_host_kernels[]                   {host address of the kernel, its name in the binary}
 *   ACLSIM_EMBEDDED_BEGIN, ACLSIM_EMBEDDED_END  the kernel binary built from the same source,
 *                                           embedded in the object (.incbin)
 *
 * Everything here has internal linkage, so several host objects (each with its own embedded
 * binary) link into one program or library without clashing.
 *
 * The launch does what the real host stub does through the runtime: the embedded binary is
 * loaded once per device (aclrtBinaryLoadFromData binds it to the current context's device),
 * the kernel is looked up by name, the arguments go into an args handle in the caller's memory
 * and the launch is aclrtLaunchKernelWithConfig on the given stream; its code is the value of
 * the <<<>>> expression. A device reset unloads what was loaded on it: a stale handle (107017)
 * is reloaded once.
 */
#ifndef AIOCANN_ACLSIM_HOST_H_
#define AIOCANN_ACLSIM_HOST_H_

#include <mutex>
#include <stdlib.h>

#include "acl/acl.h"

#define ACLSIM_HOST_MAX_DEVICES 64

namespace {

struct aclsim_host_state {
    std::mutex lock;
    aclrtBinHandle binaries[ACLSIM_HOST_MAX_DEVICES];
};

aclsim_host_state &aclsim_host()
{
    static aclsim_host_state state; /* constructed on first use: safe from static initialisers */
    return state;
}

aclError aclsim_host_function(int32_t device, const char *name, bool reload, aclrtFuncHandle *out)
{
    aclsim_host_state &st = aclsim_host();
    std::lock_guard<std::mutex> guard(st.lock);
    aclrtBinHandle &bin = st.binaries[device];
    if (reload)
        bin = nullptr; /* the runtime already unloaded it with its device */
    if (!bin) {
        size_t size = (size_t)(ACLSIM_EMBEDDED_END - ACLSIM_EMBEDDED_BEGIN);
        aclError rc = aclrtBinaryLoadFromData(ACLSIM_EMBEDDED_BEGIN, size, nullptr, &bin);
        if (rc != ACL_SUCCESS) {
            bin = nullptr;
            return rc;
        }
    }
    return aclrtBinaryGetFunction(bin, name, out);
}

} // namespace

static int aclsim_host_launch(const void *kernel, uint32_t blocks, void *stream, const void *args, size_t args_size,
                              const uint8_t *sizes, uint32_t count)
{
    const char *name = nullptr;
    for (const auto &k : aclsim_host_kernels)
        if (k.address == kernel)
            name = k.name;
    if (!name)
        return ACL_ERROR_INVALID_PARAM; /* not a kernel of this translation unit */
    int32_t device = 0;
    aclError rc = aclrtGetDevice(&device);
    if (rc != ACL_SUCCESS)
        return rc;
    if (device < 0 || device >= ACLSIM_HOST_MAX_DEVICES)
        return ACL_ERROR_INVALID_PARAM;
    aclrtFuncHandle fn = nullptr;
    rc = aclsim_host_function(device, name, false, &fn);
    if (rc == ACL_ERROR_RT_INVALID_HANDLE)
        rc = aclsim_host_function(device, name, true, &fn);
    if (rc != ACL_SUCCESS)
        return rc;

    size_t handle_size = 0, buf_size = 0;
    if ((rc = aclrtKernelArgsGetHandleMemSize(fn, &handle_size)) != ACL_SUCCESS ||
        (rc = aclrtKernelArgsGetMemSize(fn, args_size ? args_size : 8, &buf_size)) != ACL_SUCCESS)
        return rc;
    /* The handle and the bytes live in the caller's memory only for the call: a launch copies
     * them (aclrtLaunchKernelWithConfig), so they are freed when it returns. */
    void *mem = aligned_alloc(64, (handle_size + buf_size + 63) / 64 * 64 + 64);
    if (!mem)
        return ACL_ERROR_BAD_ALLOC;
    aclrtArgsHandle handle = mem;
    void *buf = (char *)mem + (handle_size + 63) / 64 * 64;
    rc = aclrtKernelArgsInitByUserMem(fn, handle, buf, buf_size);
    const unsigned char *slot = static_cast<const unsigned char *>(args);
    for (uint32_t i = 0; rc == ACL_SUCCESS && i < count; i++) {
        aclrtParamHandle param;
        rc = aclrtKernelArgsAppend(handle, const_cast<unsigned char *>(slot + 8 * i), sizes[i], &param);
    }
    if (rc == ACL_SUCCESS)
        rc = aclrtKernelArgsFinalize(handle);
    if (rc == ACL_SUCCESS)
        rc = aclrtLaunchKernelWithConfig(fn, blocks, stream, nullptr, handle, nullptr);
    free(mem);
    return rc;
}

#endif /* AIOCANN_ACLSIM_HOST_H_ */
