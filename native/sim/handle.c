/*
 * aiocann simulator: the handle table.
 *
 * Handles given to callers are not pointers: a handle encodes (kind, generation, slot) as
 *     0xAC << 56 | kind << 52 | generation << 24 | slot
 * A lookup checks the marker, the kind and the slot's current generation before touching
 * any object, so a stale handle (closed, or from before aclFinalize), a handle of another kind
 * (an event passed as a stream) or an arbitrary integer is rejected with 107017 and can never
 * crash the process. Generations are never reused within 2^28 closes of one slot.
 *
 * Lifetime: the table owns one reference per open handle. sim_handle_get returns an extra
 * reference for the duration of the call (so a concurrent close cannot free the object under
 * it); tasks in flight keep their own references, which is how destroy-while-pending works.
 */
#include <stdlib.h>

#include "sim.h"

#define HANDLE_MARKER 0xACull
#define SLOT_BITS 24
#define GEN_BITS 28
#define SLOT_MASK ((1ull << SLOT_BITS) - 1)
#define GEN_MASK ((1ull << GEN_BITS) - 1)

typedef struct slot {
    sim_obj *obj;
    uint32_t gen;
    uint32_t next_free;
} slot;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *g_slots;
static uint32_t g_nslots, g_cap;
static uint32_t g_free_head = UINT32_MAX;

void sim_obj_init(sim_obj *o, sim_kind kind, void (*destroy)(sim_obj *))
{
    atomic_init(&o->refs, 1);
    o->kind = kind;
    o->handle = NULL;
    o->destroy = destroy;
}

void sim_obj_get(sim_obj *o) { atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed); }

void sim_obj_put(sim_obj *o)
{
    if (o && atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1)
        o->destroy(o);
}

static void *encode(sim_kind kind, uint32_t gen, uint32_t idx)
{
    uint64_t v = (HANDLE_MARKER << 56) | ((uint64_t)kind << 52) | ((uint64_t)(gen & GEN_MASK) << SLOT_BITS) |
                 (uint64_t)idx;
    return (void *)(uintptr_t)v;
}

void *sim_handle_open(sim_obj *o)
{
    pthread_mutex_lock(&g_lock);
    uint32_t idx;
    if (g_free_head != UINT32_MAX) {
        idx = g_free_head;
        g_free_head = g_slots[idx].next_free;
    } else {
        if (g_nslots == g_cap) {
            uint32_t cap = g_cap ? g_cap * 2 : 256;
            if (cap > SLOT_MASK + 1) {
                pthread_mutex_unlock(&g_lock);
                return NULL;
            }
            slot *ns = realloc(g_slots, cap * sizeof *ns);
            if (!ns) {
                pthread_mutex_unlock(&g_lock);
                return NULL;
            }
            g_slots = ns;
            g_cap = cap;
        }
        idx = g_nslots++;
        g_slots[idx].gen = 0;
    }
    slot *s = &g_slots[idx];
    s->gen = (s->gen + 1) & GEN_MASK;
    if (s->gen == 0)
        s->gen = 1;
    s->obj = o;
    o->handle = encode(o->kind, s->gen, idx);
    pthread_mutex_unlock(&g_lock);
    return o->handle;
}

static slot *lookup_locked(const void *h, sim_kind k)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    if ((v >> 56) != HANDLE_MARKER || ((v >> 52) & 0xF) != (uint64_t)k)
        return NULL;
    uint32_t idx = (uint32_t)(v & SLOT_MASK);
    uint32_t gen = (uint32_t)((v >> SLOT_BITS) & GEN_MASK);
    if (idx >= g_nslots || g_slots[idx].obj == NULL || g_slots[idx].gen != gen)
        return NULL;
    /* Generations are per slot, so the kind bits of a handle are not enough: an integer with
     * another kind's bits but this slot's index and generation must not reach this object. */
    if (g_slots[idx].obj->kind != k)
        return NULL;
    return &g_slots[idx];
}

sim_obj *sim_handle_get(const void *h, sim_kind k)
{
    pthread_mutex_lock(&g_lock);
    slot *s = lookup_locked(h, k);
    sim_obj *o = s ? s->obj : NULL;
    if (o)
        sim_obj_get(o);
    pthread_mutex_unlock(&g_lock);
    return o;
}

sim_obj *sim_handle_close(const void *h, sim_kind k)
{
    pthread_mutex_lock(&g_lock);
    slot *s = lookup_locked(h, k);
    sim_obj *o = NULL;
    if (s) {
        o = s->obj;
        s->obj = NULL;
        s->next_free = g_free_head;
        g_free_head = (uint32_t)(s - g_slots);
    }
    pthread_mutex_unlock(&g_lock);
    return o;
}

const char *sim_kind_name(sim_kind k)
{
    switch (k) {
    case SIM_KIND_CONTEXT: return "context";
    case SIM_KIND_STREAM: return "stream";
    case SIM_KIND_EVENT: return "event";
    case SIM_KIND_BINARY: return "binary";
    case SIM_KIND_FUNCTION: return "function";
    }
    return "handle";
}
