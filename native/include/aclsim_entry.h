/*
 * aiocann simulator: the entry stub of a C++ kernel binary, as the kernel compiler front-end
 * (aiocann.compiler) generates it. Not for users to include.
 *
 * For every kernel the front-end found (by its mangled name, see aclsim_frontend.h) the
 * generated code at the end of the translation unit names the kernel's address once:
 *
 *     using aclsim_sig_0 = aclsim_entry_detail::signature<decltype(&add_custom)>;
 *     ... {"add_custom", &aclsim_sig_0::entry<&add_custom>, aclsim_sig_0::count, ...}
 *
 * and everything else is deduced from that address by the templates below: the parameter
 * pack, each parameter's size (sizeof) and kind (pointer, floating point, integer), the entry
 * that unpacks a launch's args block (parameter i at byte offset 8*i, reference §10.3) and
 * calls the kernel, and the record of the signature that aiocann reads back from the binary
 * (section .aclsim.sig, no relocations: Python reads it without loading the binary). So the
 * front-end never parses a parameter type.
 */
#ifndef AIOCANN_ACLSIM_ENTRY_H_
#define AIOCANN_ACLSIM_ENTRY_H_

#include <exception>
#include <limits>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <type_traits>
#include <utility>

#include "aclsim_kernel.h"

/* One kernel's signature as aiocann reads it (aiocann/compiler.py, _SIGREC): fixed size, so
 * the section is an array of these. `index` is the kernel's position in aclsim_kernels. */
struct aclsim_sigrec {
    char magic[8]; /* "ACLSIG1" */
    uint32_t index;
    uint32_t count;
    uint8_t sizes[ACLSIM_MAX_KERNEL_PARAMS];
    char kinds[ACLSIM_MAX_KERNEL_PARAMS];
};

namespace aclsim_entry_detail {

template <class T> constexpr char kind()
{
    if constexpr (std::is_pointer<T>::value)
        return 'p';
    else if constexpr (std::is_floating_point<T>::value || std::is_same<T, _Float16>::value)
        return 'f';
    else if constexpr (std::numeric_limits<T>::is_specialized && !std::numeric_limits<T>::is_integer)
        return 'f'; /* a floating-point class type (bfloat16_t) */
    else
        return 'i';
}

/* A parameter's value from its 8-byte slot. The union makes room without default-constructing
 * the type (a class type may have no default constructor). */
template <class T> inline T load(const unsigned char *slot)
{
    union U {
        T value;
        unsigned char bytes[sizeof(T)];
        U() {}
    } u;
    memcpy(u.bytes, slot, sizeof(T));
    return u.value;
}

template <class F> struct signature;

template <class R, class... P> struct signature<R (*)(P...)> {
    static_assert(std::is_void<R>::value, "a kernel returns void");
    static_assert(sizeof...(P) <= ACLSIM_MAX_KERNEL_PARAMS, "a kernel takes at most 128 parameters");
    static_assert(((sizeof(P) <= 8) && ...),
                  "kernel parameters are pointers or scalars of at most 8 bytes: a parameter is larger");
    static_assert((std::is_trivially_copyable<P>::value && ...),
                  "kernel parameters are pointers or scalars: a parameter is not trivially copyable");

    static constexpr uint32_t count = sizeof...(P);
    static constexpr uint8_t sizes[sizeof...(P) + 1] = {static_cast<uint8_t>(sizeof(P))..., 0};
    static constexpr char kinds[sizeof...(P) + 1] = {kind<P>()..., 0};

    template <R (*K)(P...), size_t... I> static void call(const unsigned char *a, std::index_sequence<I...>)
    {
        (void)a;
        K(load<P>(a + 8 * I)...);
    }

    template <R (*K)(P...)> static void entry(const void *args, int64_t idx, int64_t num)
    {
        aclsim_block_idx = idx;
        aclsim_block_num = num;
#if defined(__cpp_exceptions)
        /* An exception the kernel lets escape would unwind into the simulator's C frames and
         * end the process (std::terminate): it ends the block instead, as a fault. The message
         * is copied out and the block failed after the handler, not from inside it -- jumping
         * out of a catch would leave the exception on the thread's caught-exceptions stack. */
        char what[320];
        what[0] = 0;
        try {
            call<K>(static_cast<const unsigned char *>(args), std::index_sequence_for<P...>{});
        } catch (const std::exception &e) {
            snprintf(what, sizeof what, "exception: the kernel threw an exception: %s", e.what());
        } catch (...) {
            snprintf(what, sizeof what, "exception: the kernel threw an exception (not a std::exception)");
        }
        if (what[0])
            aclsim_kernel_fail(what);
#else
        call<K>(static_cast<const unsigned char *>(args), std::index_sequence_for<P...>{});
#endif
    }

    static constexpr aclsim_sigrec record(uint32_t index)
    {
        aclsim_sigrec r{};
        const char magic[8] = "ACLSIG1";
        for (int i = 0; i < 8; i++)
            r.magic[i] = magic[i];
        r.index = index;
        r.count = count;
        for (uint32_t i = 0; i < count; i++) {
            r.sizes[i] = sizes[i];
            r.kinds[i] = kinds[i];
        }
        return r;
    }
};

} // namespace aclsim_entry_detail

#endif /* AIOCANN_ACLSIM_ENTRY_H_ */
