/*
 * aiocann simulator: the load probe, aclsim-load-probe PATH.
 *
 * The dynamic loader trusts the file it maps: a corrupted kernel binary (a flipped byte in its
 * dynamic section, hash table or relocations) makes dlopen() fault, or makes ld.so end the
 * process itself ("Inconsistency detected by ld.so", exit 127). The simulator must answer such
 * a binary with an error, not die with it, so before it dlopen()s a binary in the caller's
 * process (binary.c) it runs this program, which loads the binary the same way and makes the
 * same lookups and reads of what it exports (kernel_table.h), then unloads it as
 * aclrtBinaryUnLoad will. This program finishing -- exit 0, whatever dlopen or the checks
 * answered: the simulator then repeats the load and reports its errors itself -- says the load
 * is safe; dying says it is not.
 *
 * It is a program of its own (installed beside libascendcl.so) rather than a fork() of the
 * caller: a child forked from a multi-threaded process may not call dlopen (another thread may
 * hold the loader's or the allocator's locks), and posix_spawn of an executable has no such
 * limit.
 */
#define _GNU_SOURCE
#define ACLSIM_BUILDING_SIMULATOR 1 /* the simulator's side of aclsim_kernel.h: no kernel slot here */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

#include "kernel_table.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: aclsim-load-probe KERNEL_BINARY\n");
        return 2;
    }
    void *dl = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (dl) {
        sim_kernel_exports exports;
        /* The simulator calls the setter with its table; it only stores the pointer, so NULL
         * stands in for it (a corrupted setter faults all the same). */
        if (sim_kernel_exports_read(dl, &exports) == SIM_TABLE_OK && exports.rt_set)
            exports.rt_set(NULL);
        dlclose(dl); /* as aclrtBinaryUnLoad will: a corrupted destructor list faults here too */
    }
    _exit(0);
}
