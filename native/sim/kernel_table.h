/*
 * aiocann simulator: what the simulator reads of a loaded kernel binary (aclsim_kernel.h) --
 * the symbols it looks up and the kernel table -- and the checks it makes of them.
 *
 * Shared by the simulator (binary.c), which then uses them, and by its load probe
 * (load_probe/load_probe.c), which makes the same lookups and reads in a child process first:
 * a corrupted binary whose symbol hash table or kernel table sends them astray faults there,
 * not in the caller's process. So every lookup and every byte the simulator later reads of the
 * table -- the names (aclrtBinaryGetFunction compares them), the parameter sizes -- happens
 * here once.
 */
#ifndef AIOCANN_SIM_KERNEL_TABLE_H_
#define AIOCANN_SIM_KERNEL_TABLE_H_

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "aclsim_kernel.h"

/* Bounds no binary that aiocann's compiler builds comes near; a walk past them is a table
 * without its terminating entry, or with a name that does not end. */
#define SIM_KERNEL_TABLE_MAX 65536u
#define SIM_KERNEL_NAME_MAX 65536u

typedef enum {
    SIM_TABLE_OK,
    SIM_TABLE_MISSING,   /* no aclsim_kernel_abi or aclsim_kernels: not a simulator kernel binary */
    SIM_TABLE_ABI,       /* abi is another kernel ABI version */
    SIM_TABLE_MALFORMED, /* entry `count` is malformed (or the table has no end) */
} sim_table_verdict;

typedef uint32_t (*sim_take_status_fn)(void);

typedef struct {
    const aclsim_kernel_desc *kernels;
    uint32_t count; /* entries of kernels */
    uint32_t abi;
    aclsim_kernel_rt_set_fn rt_set; /* aclsim_kernel_rt_set, or NULL: a binary built before kernel_operator.h had it */
    sim_take_status_fn take_status; /* aclsim_kernel_take_status, or NULL: one built before blocks reported a status */
} sim_kernel_exports;

/* dlsym's answer as the function it names: ISO C has no cast from a data pointer to a function
 * pointer, so through a union, as dlsym's own documentation has it. */
#define SIM_DLSYM_FN(type, dl, name) (((union { void *p; type fn; }){.p = dlsym((dl), (name))}).fn)

static inline sim_table_verdict sim_kernel_exports_read(void *dl, sim_kernel_exports *out)
{
    const uint32_t *abi = (const uint32_t *)dlsym(dl, "aclsim_kernel_abi");
    const aclsim_kernel_desc *table = (const aclsim_kernel_desc *)dlsym(dl, "aclsim_kernels");
    memset(out, 0, sizeof *out);
    out->rt_set = SIM_DLSYM_FN(aclsim_kernel_rt_set_fn, dl, "aclsim_kernel_rt_set");
    out->take_status = SIM_DLSYM_FN(sim_take_status_fn, dl, "aclsim_kernel_take_status");
    if (!abi || !table)
        return SIM_TABLE_MISSING;
    out->abi = *abi;
    if (out->abi != ACLSIM_KERNEL_ABI_VERSION)
        return SIM_TABLE_ABI;
    uint32_t n = 0;
    for (; table[n].name; n++) {
        const aclsim_kernel_desc *k = &table[n];
        bool ok = n < SIM_KERNEL_TABLE_MAX && k->entry && k->num_params <= ACLSIM_MAX_KERNEL_PARAMS &&
                  (k->num_params == 0 || (k->param_sizes && k->param_kinds)) &&
                  strnlen(k->name, SIM_KERNEL_NAME_MAX) < SIM_KERNEL_NAME_MAX;
        for (uint32_t i = 0; ok && i < k->num_params; i++)
            ok = k->param_sizes[i] >= 1 && k->param_sizes[i] <= 8;
        if (!ok) {
            out->count = n;
            return SIM_TABLE_MALFORMED;
        }
    }
    out->kernels = table;
    out->count = n;
    return SIM_TABLE_OK;
}

#endif
