/*
 * aiocann simulator: the futex watch -- parking for a wait on a word that another process may
 * write (issue 25, item 3): an IPC event's page (ipc_event.c) and an exported or imported
 * notify's flag (notify.c).
 *
 * A wait on something of this process parks its stream on that thing's wait queue, and whoever
 * ends the wait wakes it (executor.c). A word in shared memory is written by another process
 * too, and no wait queue here hears that write: only the kernel does, through the futex the
 * writer wakes. So until now such a wait blocked its worker in FUTEX_WAIT (a hand-off: one
 * host thread per waiting stream). Here, instead, a few watcher threads sleep in futex_waitv
 * (Linux 5.16) on every watched word at once, up to WATCH_PER_THREAD words each, and wake the
 * stream whose word moved; its wait runs again, checks, and finishes or parks again. A
 * thousand streams waiting on other processes cost ceil(1000 / 127) threads, not a thousand.
 *
 * The protocol, for a wait that found its word at `seen` and its wait not over: it has armed
 * its park (sim_park_arm) before that read, then calls sim_watch_add(s, word, seen) and returns
 * sim_park. The watcher's futex_waitv compares each word with its `seen` in the kernel, under
 * the futex's lock: a write before the call makes it return at once (EAGAIN), a write after it
 * wakes it (the writer calls FUTEX_WAKE on the word), so no write is missed between the wait's
 * read and the watcher's sleep. A watcher that returns wakes every stream whose word is no
 * longer its `seen` (and forgets it); the others stay watched. The watched list changes under
 * g_watch.lock; a watcher hears of a change through its own word `ctl` (the first of its
 * futexes, private), which the change bumps and wakes.
 *
 * A wait that runs again -- woken by its watcher, its deadline, an abort, a forced destroy or a
 * shutdown -- first takes its stream off the watch (sim_watch_remove), as a wait takes its stream
 * off a wait queue. A stream is watched on one word at most. Its word stays mapped while it is
 * watched: the waiting task holds the event or notify the word belongs to.
 *
 * Where the kernel has no futex_waitv or a seccomp filter refuses it (probed once; a watcher
 * whose call fails for good stops the watch, see watch_main), a watcher cannot start, or
 * MAX_WATCHERS are full, sim_watch_add says no and the wait blocks its worker as before.
 *
 * Locking: g_watch.lock is above the executor's lock only (a watcher wakes streams while it
 * holds it) and below none of the simulator's others: the waits call in without holding theirs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sim.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449 /* the same number on every architecture (the unified syscall table) */
#endif
#define WATCH_SIZE_U32 0x02 /* FUTEX2_SIZE_U32 (FUTEX_32 in 5.16's uapi) */
#define WATCH_PRIVATE 128   /* FUTEX2_PRIVATE, = FUTEX_PRIVATE_FLAG */
#define WATCH_PER_THREAD 127 /* FUTEX_WAITV_MAX (128), less the watcher's own word */
#define MAX_WATCHERS 64      /* 8128 watched waits; beyond that they block their worker */

/* struct futex_waitv of the uapi (linux/futex.h, 5.16), spelled out: older headers lack it. */
typedef struct {
    uint64_t val;
    uint64_t uaddr;
    uint32_t flags;
    uint32_t reserved;
} waitv;

typedef struct sim_watcher {
    _Atomic uint32_t ctl; /* bumped and woken when its list changes (g_watch.lock) */
    uint32_t n;
    struct {
        _Atomic uint32_t *word;
        uint32_t seen;
        sim_stream *s;
    } e[WATCH_PER_THREAD]; /* g_watch.lock */
} watcher;

static struct {
    pthread_mutex_t lock;
    watcher *w[MAX_WATCHERS];
    int n;
    int available; /* 0: not probed yet; 1: futex_waitv works; -1: it does not */
} g_watch = {.lock = PTHREAD_MUTEX_INITIALIZER};

static long futex_waitv(waitv *v, unsigned n)
{
    return syscall(SYS_futex_waitv, v, n, 0u, NULL, 0);
}

static void changed_locked(watcher *w)
{
    atomic_fetch_add(&w->ctl, 1);
    syscall(SYS_futex, (uint32_t *)&w->ctl, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Takes s off its watcher. g_watch.lock held. */
static void remove_locked(sim_stream *s)
{
    watcher *w = s->watcher;
    uint32_t i = s->watch_slot, last = --w->n;
    if (i != last) {
        w->e[i] = w->e[last];
        w->e[i].s->watch_slot = i;
    }
    s->watcher = NULL;
    changed_locked(w);
}

static void *watch_main(void *arg)
{
    watcher *w = arg;
    pthread_setname_np(pthread_self(), "aclsim-watch");
    waitv v[WATCH_PER_THREAD + 1];
    pthread_mutex_lock(&g_watch.lock);
    for (;;) {
        /* The list as it is now; a change after this bumps ctl, and the kernel sees ctl moved. */
        v[0] = (waitv){atomic_load(&w->ctl), (uint64_t)(uintptr_t)&w->ctl, WATCH_SIZE_U32 | WATCH_PRIVATE, 0};
        uint32_t n = w->n;
        for (uint32_t i = 0; i < n; i++)
            v[1 + i] = (waitv){w->e[i].seen, (uint64_t)(uintptr_t)w->e[i].word, WATCH_SIZE_U32, 0};
        pthread_mutex_unlock(&g_watch.lock);
        long r = futex_waitv(v, n + 1);
        int err = r < 0 ? errno : 0;
        pthread_mutex_lock(&g_watch.lock);
        /* Woken (r: the index), a word moved before the call (EAGAIN), a signal (EINTR): wake
         * whoever's word moved. Any other error -- a word the kernel cannot read (EFAULT, which
         * the waits' references rule out), a call a seccomp filter refuses at run time (EPERM)
         * -- would come back at once on every call: the watch stops taking waits, and wakes
         * every stream it holds, whose waits then block their workers instead. */
        bool broken = err && err != EAGAIN && err != EINTR;
        if (broken)
            g_watch.available = -1;
        for (uint32_t i = w->n; i-- > 0;) {
            if (broken || atomic_load(w->e[i].word) != w->e[i].seen) {
                sim_stream *s = w->e[i].s;
                remove_locked(s);
                sim_stream_wake(s);
            }
        }
        while (broken) { /* nothing is added to it any more: it sleeps for good */
            pthread_mutex_unlock(&g_watch.lock);
            syscall(SYS_futex, (uint32_t *)&w->ctl, FUTEX_WAIT_PRIVATE, atomic_load(&w->ctl), NULL, NULL, 0);
            pthread_mutex_lock(&g_watch.lock);
        }
    }
    return NULL; /* never: watchers stay, asleep, once started (as the pool's workers do) */
}

/* A watcher with room, started if need be; NULL if none can be. g_watch.lock held. */
static watcher *room_locked(void)
{
    for (int i = 0; i < g_watch.n; i++)
        if (g_watch.w[i]->n < WATCH_PER_THREAD)
            return g_watch.w[i];
    if (g_watch.n == MAX_WATCHERS)
        return NULL;
    watcher *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int err = pthread_create(&t, &attr, watch_main, w);
    pthread_attr_destroy(&attr);
    if (err) {
        free(w);
        return NULL;
    }
    g_watch.w[g_watch.n++] = w;
    return w;
}

bool sim_watch_add(sim_stream *s, _Atomic uint32_t *word, uint32_t seen)
{
    pthread_mutex_lock(&g_watch.lock);
    if (!g_watch.available) /* an empty vector: EINVAL where the call works; ENOSYS where the
                             * kernel lacks it, EPERM where a seccomp filter refuses it */
        g_watch.available = futex_waitv(NULL, 0) < 0 && errno == EINVAL ? 1 : -1;
    watcher *w = g_watch.available > 0 ? room_locked() : NULL;
    if (w) {
        if (s->watcher)
            remove_locked(s);
        uint32_t i = w->n++;
        w->e[i].word = word;
        w->e[i].seen = seen;
        w->e[i].s = s;
        s->watcher = w;
        s->watch_slot = i;
        changed_locked(w);
    }
    pthread_mutex_unlock(&g_watch.lock);
    return w != NULL;
}

void sim_watch_remove(sim_stream *s)
{
    pthread_mutex_lock(&g_watch.lock);
    if (s->watcher)
        remove_locked(s);
    pthread_mutex_unlock(&g_watch.lock);
}
