/*
 * Spare records handed from the thread that finishes them to the thread that makes them.
 *
 * The runtime's hot records are made on one thread and finished on another: a stream's tasks
 * (made by the submitting thread, finished by a stream worker), non-blocking callback reports
 * (made by the worker, run by the report thread), aiocann's pending completions (made by the
 * event loop, finished by the report thread). With malloc and free each is a cross-thread free:
 * the finishing thread hands the chunk back to the maker's arena under the arena's lock, and the
 * maker, whose own thread cache is never refilled by frees of its own, takes that lock for every
 * malloc -- the two threads meet on the arena lock at every record, and a burst spends a quarter
 * of a stream worker's instructions in the allocator (issue 25, counted with callgrind).
 *
 * Instead the finishing thread pushes records -- one, or a chain of them -- onto one lock-free
 * stack, and a making thread that has no spare left takes the whole stack at once into a list
 * of its own (an exchange: pushes only add and the one pop takes all, so there is no ABA).
 * `kept` counts the records on the stack or in a thread's list and not yet handed out again;
 * beyond the pool's `max` a finished record is freed instead, which bounds the memory kept
 * after a burst. A thread's list is freed when the thread exits.
 *
 * A pool is a static object of one file, with its thread-local list beside it:
 *     static spare_pool g_tasks = SPARE_POOL(sim_task, next, 4096);
 *     static __thread spare_list t_tasks;
 * Records are malloc'ed blocks whose `link` member is the chain's next pointer; what a record
 * holds is its owner's to release before it is given back. Header-only: the simulator and the
 * aiocann extension are separate libraries, and each has its own pools.
 */
#ifndef AIOCANN_SPARES_H
#define AIOCANN_SPARES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

typedef struct spare_pool {
    _Alignas(64) _Atomic(void *) head; /* a cache line of its own: finishers push, makers take */
    atomic_uint kept;
    unsigned max;
    size_t link; /* offsetof the record's next pointer */
    atomic_int key_state; /* 0: no key yet, 1: being made, 2: made */
    pthread_key_t key;    /* a thread's spare_list, freed by spare_thread_exit */
} spare_pool;

/* A making thread's own spares (__thread): `handed` of them were handed out since it took them,
 * counted off `kept` once per list rather than once per record. */
typedef struct spare_list {
    void *head;
    unsigned handed;
    spare_pool *pool; /* set when the thread first takes from the pool */
} spare_list;

#define SPARE_POOL(type, member, most) {.max = (most), .link = offsetof(type, member)}

static inline void **spare_next(const spare_pool *p, void *rec) { return (void **)((char *)rec + p->link); }

/* Thread exit: the thread's spares are freed, and no longer counted as kept. */
static inline void spare_thread_exit(void *arg)
{
    spare_list *l = arg;
    unsigned n = l->handed;
    for (void *r = l->head, *next; r; r = next, n++) {
        next = *spare_next(l->pool, r);
        free(r);
    }
    l->head = NULL;
    l->handed = 0;
    atomic_fetch_sub_explicit(&l->pool->kept, n, memory_order_relaxed);
}

/* The pool's thread-exit key, made once (pthread_once takes no argument to say which pool). */
static inline void spare_make_key(spare_pool *p)
{
    int none = 0;
    if (atomic_compare_exchange_strong(&p->key_state, &none, 1)) {
        (void)pthread_key_create(&p->key, spare_thread_exit);
        atomic_store(&p->key_state, 2);
    }
    while (atomic_load(&p->key_state) != 2)
        ; /* another thread is making it: a moment, once per pool and process */
}

/* A spare record for the making thread, or NULL (the caller mallocs). */
static inline void *spare_take(spare_pool *p, spare_list *l)
{
    if (!l->head) {
        if (!atomic_load_explicit(&p->head, memory_order_relaxed))
            return NULL;
        if (!l->pool) { /* the first take: the thread's list is freed when it exits */
            spare_make_key(p);
            l->pool = p;
            (void)pthread_setspecific(p->key, l);
        }
        l->head = atomic_exchange_explicit(&p->head, NULL, memory_order_acquire);
        if (!l->head)
            return NULL;
    }
    void *r = l->head;
    l->head = *spare_next(p, r);
    l->handed++;
    if (!l->head) { /* the last of the list: one update of the count per list */
        atomic_fetch_sub_explicit(&p->kept, l->handed, memory_order_relaxed);
        l->handed = 0;
    }
    return r;
}

/* Any thread: a chain of n finished records, first..last linked through the pool's link, is
 * kept for a maker -- or freed, when the pool keeps enough. */
static inline void spare_give_chain(spare_pool *p, void *first, void *last, unsigned n)
{
    if (atomic_load_explicit(&p->kept, memory_order_relaxed) >= p->max) {
        for (void *r = first, *next; n--; r = next) {
            next = *spare_next(p, r);
            free(r);
        }
        return;
    }
    atomic_fetch_add_explicit(&p->kept, n, memory_order_relaxed);
    void **tail_next = spare_next(p, last);
    *tail_next = atomic_load_explicit(&p->head, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&p->head, tail_next, first, memory_order_release,
                                                  memory_order_relaxed))
        ;
}

static inline void spare_give(spare_pool *p, void *rec) { spare_give_chain(p, rec, rec, 1); }

#endif
