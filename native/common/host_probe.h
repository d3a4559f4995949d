/*
 * aiocann: probing host memory without touching it. Compiled into both the simulator and the
 * extension (native/common), so a runtime given an address as an integer -- a kernel-args
 * handle, a parameter, a pyACL pointer -- can refuse a bad one with an error instead of
 * faulting on it.
 */
#ifndef AIOCANN_HOST_PROBE_H_
#define AIOCANN_HOST_PROBE_H_

#include <stddef.h>

/* 1 if every byte of [p, p + len) can be read (and, with `write`, written) by this process,
 * else 0 (also for len 0, a wrapping range, or the first page). Never faults. */
int aiocann_host_accessible(const void *p, size_t len, int write);

#endif /* AIOCANN_HOST_PROBE_H_ */
