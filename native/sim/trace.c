/*
 * aiocann simulator: the timeline trace (aclsim_ext.h).
 *
 * Recording is off unless aclsimTraceStart was called: the hot paths (a stream worker's task,
 * an AI core's block) then cost one relaxed atomic load. When on, records go to a bounded
 * ring under a mutex; a full ring drops new records and counts them, so tracing never blocks
 * the device or grows without bound.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static atomic_bool g_on;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static aclsimTraceRecord *g_ring;
static size_t g_cap, g_head, g_count;
static uint64_t g_dropped;

bool sim_trace_on(void) { return atomic_load_explicit(&g_on, memory_order_relaxed); }

void sim_trace_add(const aclsimTraceRecord *r)
{
    pthread_mutex_lock(&g_lock);
    if (g_ring && g_count < g_cap) {
        g_ring[(g_head + g_count) % g_cap] = *r;
        g_count++;
    } else {
        g_dropped++;
    }
    pthread_mutex_unlock(&g_lock);
}

SIM_API int aclsimTraceStart(size_t capacity)
{
    aclsimTraceRecord *ring = calloc(capacity ? capacity : 1, sizeof *ring);
    if (!ring)
        return -1;
    pthread_mutex_lock(&g_lock);
    free(g_ring);
    g_ring = ring;
    g_cap = capacity ? capacity : 1;
    g_head = g_count = 0;
    g_dropped = 0;
    atomic_store(&g_on, true);
    pthread_mutex_unlock(&g_lock);
    return 0;
}

SIM_API uint64_t aclsimTraceStop(void)
{
    pthread_mutex_lock(&g_lock);
    atomic_store(&g_on, false);
    uint64_t d = g_dropped;
    pthread_mutex_unlock(&g_lock);
    return d;
}

SIM_API size_t aclsimTraceDrain(aclsimTraceRecord *out, size_t max)
{
    pthread_mutex_lock(&g_lock);
    size_t n = g_count < max ? g_count : max;
    for (size_t i = 0; i < n; i++)
        out[i] = g_ring[(g_head + i) % g_cap];
    g_head = g_cap ? (g_head + n) % g_cap : 0;
    g_count -= n;
    if (!atomic_load(&g_on) && g_count == 0) {
        free(g_ring);
        g_ring = NULL;
        g_cap = g_head = 0;
    }
    pthread_mutex_unlock(&g_lock);
    return n;
}
