/*
 * aiocann simulator: what the kernel compiler front-end (aiocann.compiler, bisheng's role)
 * puts in front of every Ascend C source it compiles, right after kernel_operator.h. Not for
 * users to include: the front-end passes it with -include.
 *
 * Three jobs, chosen by what the front-end is building (one macro each):
 *
 * ACLSIM_FRONTEND_DISCOVER  the first, scouting compile. A kernel is a __global__ function;
 *     here __global__ also marks it with *protected* visibility, which nothing else in a
 *     translation unit has, so the front-end reads the kernels -- their mangled names, every
 *     template instantiation the source makes -- from the object's symbol table, as the real
 *     toolchain finds them, without parsing C++.
 * ACLSIM_FRONTEND_KERNEL    the kernel binary (a shared object the simulator loads). Host code
 *     in the same file (wrappers that launch with <<<>>>, an .asc file's main) is compiled but
 *     never runs there; its launches compile to a stub that fails, so the kernel binary refers
 *     to no runtime function.
 * ACLSIM_FRONTEND_HOST      the host object of `python -m aiocann cc -c` and of an .asc
 *     executable: each <<<>>> launch goes through the runtime, loading the kernel binary
 *     embedded in the object (aclsim_host.h, included by the generated epilogue).
 *
 * The front-end rewrites `kernel<<<blocks, l2ctrl, stream>>>(args...)` into
 * `aclsim_launch(&kernel, blocks, l2ctrl, stream, args...)`: the kernel's address gives the
 * parameter types (the arguments convert to them as in a call) and, through the epilogue's
 * table, the kernel's name in the binary. The expression's value is the launch's aclError.
 */
#ifndef AIOCANN_ACLSIM_FRONTEND_H_
#define AIOCANN_ACLSIM_FRONTEND_H_

#ifdef ACLSIM_FRONTEND_DISCOVER
#undef __global__
#define __global__ __attribute__((visibility("protected")))
#endif

#ifdef __cplusplus
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* What a <<<>>> launch hands to the runtime side: the kernel's host address, the packed args
 * (parameter i at byte offset 8*i, as the entry stub unpacks them) and their sizes. Defined by
 * aclsim_host.h in a host object; in a kernel binary or a scouting compile, a stub. Internal
 * linkage: every host object has its own, bound to its own embedded binary. */
static int aclsim_host_launch(const void *kernel, uint32_t blocks, void *stream, const void *args, size_t args_size,
                              const uint8_t *sizes, uint32_t count) __attribute__((unused));

template <class... P>
static inline int aclsim_launch_packed(const void *kernel, uint32_t blocks, void *stream, P... params)
{
    static_assert(((sizeof(P) <= 8) && ...), "a kernel parameter is larger than 8 bytes");
    alignas(8) unsigned char args[8 * sizeof...(P) + 8] = {0};
    const uint8_t sizes[sizeof...(P) + 1] = {static_cast<uint8_t>(sizeof(P))..., 0};
    size_t off = 0;
    ((memcpy(args + off, &params, sizeof(P)), off += 8), ...);
    return aclsim_host_launch(kernel, blocks, stream, args, 8 * sizeof...(P), sizes, sizeof...(P));
}

/* kernel<<<blocks, l2ctrl, stream>>>(args...). l2ctrl is reserved (nullptr) on the device. */
template <class... P, class... A>
static inline int aclsim_launch(void (*kernel)(P...), uint32_t blocks, const void *l2ctrl, void *stream, A &&...args)
{
    static_assert(sizeof...(P) == sizeof...(A),
                  "the <<<>>> launch passes another number of arguments than the kernel takes");
    (void)l2ctrl;
    /* P... given explicitly: each argument converts to its parameter implicitly, as in a call. */
    return aclsim_launch_packed<P...>(reinterpret_cast<const void *>(kernel), blocks, stream,
                                      static_cast<A &&>(args)...);
}

#ifndef ACLSIM_FRONTEND_HOST
static int aclsim_host_launch(const void *, uint32_t, void *, const void *, size_t, const uint8_t *, uint32_t)
{
    return 200001; /* ACL_ERROR_API_NOT_SUPPORT: a kernel binary's host code never launches */
}
#endif
#endif /* __cplusplus */

#endif /* AIOCANN_ACLSIM_FRONTEND_H_ */
