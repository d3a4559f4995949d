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
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "sim.h"

#define HANDLE_MARKER 0xACull
#define SLOT_BITS 24
#define GEN_BITS 28
#define SLOT_MASK ((1ull << SLOT_BITS) - 1)
#define GEN_MASK ((1ull << GEN_BITS) - 1)
#define CHUNK_BITS 10
#define CHUNK_SLOTS (1u << CHUNK_BITS)
#define MAX_CHUNKS ((SLOT_MASK + 1) >> CHUNK_BITS)

/* Lookups run on every launch, from the submitting thread, the report thread and the stream
 * workers, so they take no global lock: slots live in chunks that never move once allocated,
 * and each slot has its own tiny spin lock, held for a handful of instructions, which is what
 * makes "read the object pointer and take a reference" atomic with respect to a close (a
 * lookup can never take a reference to an object whose last reference is being dropped). */
typedef struct slot {
    atomic_flag busy;
    uint32_t gen;      /* guarded by busy */
    sim_obj *obj;      /* guarded by busy; NULL when free */
    uint32_t next_free; /* guarded by g_lock */
} slot;

static pthread_mutex_t g_lock = SIM_MUTEX_INITIALIZER; /* opening and closing: the free list */
static _Atomic(slot *) g_chunks[MAX_CHUNKS];
static atomic_uint g_nslots;
static uint32_t g_free_head = UINT32_MAX;

static inline slot *slot_at(uint32_t idx)
{
    slot *chunk = atomic_load_explicit(&g_chunks[idx >> CHUNK_BITS], memory_order_acquire);
    return &chunk[idx & (CHUNK_SLOTS - 1)];
}

static inline void slot_lock(slot *s)
{
    for (unsigned i = 1; atomic_flag_test_and_set_explicit(&s->busy, memory_order_acquire); i++)
        if (i % 128 == 0)
            sched_yield(); /* the holder was preempted inside its few instructions */
}

static inline void slot_unlock(slot *s) { atomic_flag_clear_explicit(&s->busy, memory_order_release); }

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
        g_free_head = slot_at(idx)->next_free;
    } else {
        idx = atomic_load_explicit(&g_nslots, memory_order_relaxed);
        if (idx > SLOT_MASK) {
            pthread_mutex_unlock(&g_lock);
            return NULL;
        }
        if ((idx & (CHUNK_SLOTS - 1)) == 0) {
            slot *chunk = calloc(CHUNK_SLOTS, sizeof *chunk); /* zero: flags clear, gen 0, free */
            if (!chunk) {
                pthread_mutex_unlock(&g_lock);
                return NULL;
            }
            atomic_store_explicit(&g_chunks[idx >> CHUNK_BITS], chunk, memory_order_release);
        }
        atomic_store_explicit(&g_nslots, idx + 1, memory_order_release);
    }
    slot *s = slot_at(idx);
    slot_lock(s);
    s->gen = (s->gen + 1) & GEN_MASK;
    if (s->gen == 0)
        s->gen = 1;
    s->obj = o;
    o->handle = encode(o->kind, s->gen, idx);
    slot_unlock(s);
    pthread_mutex_unlock(&g_lock);
    return o->handle;
}

/* The slot a handle names, locked, if it currently holds a live object of kind k; else NULL. */
static slot *lookup_lock(const void *h, sim_kind k)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    if ((v >> 56) != HANDLE_MARKER || ((v >> 52) & 0xF) != (uint64_t)k)
        return NULL;
    uint32_t idx = (uint32_t)(v & SLOT_MASK);
    uint32_t gen = (uint32_t)((v >> SLOT_BITS) & GEN_MASK);
    if (idx >= atomic_load_explicit(&g_nslots, memory_order_acquire))
        return NULL;
    slot *s = slot_at(idx);
    slot_lock(s);
    /* Generations are per slot, so the kind bits of a handle are not enough: an integer with
     * another kind's bits but this slot's index and generation must not reach this object. */
    if (s->obj == NULL || s->gen != gen || s->obj->kind != k) {
        slot_unlock(s);
        return NULL;
    }
    return s;
}

sim_obj *sim_handle_get(const void *h, sim_kind k)
{
    slot *s = lookup_lock(h, k);
    if (!s)
        return NULL;
    sim_obj *o = s->obj;
    sim_obj_get(o);
    slot_unlock(s);
    return o;
}

sim_obj *sim_handle_close(const void *h, sim_kind k)
{
    pthread_mutex_lock(&g_lock);
    slot *s = lookup_lock(h, k);
    sim_obj *o = NULL;
    if (s) {
        o = s->obj;
        s->obj = NULL;
        slot_unlock(s);
        uint64_t v = (uint64_t)(uintptr_t)h;
        s->next_free = g_free_head;
        g_free_head = (uint32_t)(v & SLOT_MASK);
    }
    pthread_mutex_unlock(&g_lock);
    return o;
}

uint32_t sim_handle_slot(const void *h) { return (uint32_t)((uint64_t)(uintptr_t)h & SLOT_MASK); }

const char *sim_kind_name(sim_kind k)
{
    switch (k) {
    case SIM_KIND_CONTEXT: return "context";
    case SIM_KIND_STREAM: return "stream";
    case SIM_KIND_EVENT: return "event";
    case SIM_KIND_BINARY: return "binary";
    case SIM_KIND_FUNCTION: return "function";
    case SIM_KIND_BINARY_DESC: return "binary descriptor";
    case SIM_KIND_MODEL: return "model";
    case SIM_KIND_TASKGRP: return "task group";
    case SIM_KIND_LABEL: return "label"; /* issue 23, label.c */
    case SIM_KIND_LABEL_LIST: return "label list";
    case SIM_KIND_COND: return "condition handle";
    case SIM_KIND_PHYS: return "physical memory handle";  /* issue 11, memory family */
    case SIM_KIND_ALLOCATOR: return "allocator descriptor";
    case SIM_KIND_NOTIFY: return "notify";
    }
    return "handle";
}
