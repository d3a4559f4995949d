/*
 * aiocann simulator: contained faults.
 *
 * Kernel blocks and copies run on the simulator's worker threads "under a guard": a
 * sigsetjmp recovery point plus process-wide handlers for SIGSEGV, SIGBUS, SIGFPE and SIGILL.
 * A fault inside a guarded call (an out-of-bounds access caught by a guard page, a division by
 * zero, __builtin_trap) jumps back to the recovery point, and the worker reports the failure
 * on the task's stream (507015 for kernels) instead of the process dying. A fault anywhere else
 * is passed to the handler that was installed before ours (Python's faulthandler, or the
 * default action), so the simulator never hides a crash of the host program.
 *
 * Kernel timeouts use the same recovery point: the watchdog sends the timeout signal to the
 * core thread, and the handler jumps out only if the thread's guard was asked to stop.
 *
 * The handler finds the faulting thread's guard in a lock-free table keyed by pthread_self(),
 * not in a thread-local: in a dlopen()ed library a thread-local may be allocated lazily by
 * __tls_get_addr (malloc), which a signal handler must not risk -- a fault inside malloc on a
 * thread that never used the simulator would then deadlock instead of crashing. Each worker has an alternate signal stack, so a kernel that overflows its stack is contained
 * too. Whatever a kernel held when it faulted (a lock taken inside libc, say) is not
 * released; simulator kernels, like device kernels, must not call into the host's libraries.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim.h"

struct sim_guard {
    sigjmp_buf jb;
    volatile sig_atomic_t active;
    atomic_int interrupt; /* set by the watchdog thread: atomic (lock-free, so signal-safe) */
    volatile int sig;
    void *volatile addr;
    volatile sig_atomic_t has_addr, sent;
    void *altstack;
    size_t altstack_len;
    char what[320]; /* the kernel's message when it ended its block itself (sim_fault_raise) */
};

/* Guards of the worker threads: slot i is live while tids[i] != 0. Written by the threads
 * themselves at start and exit, read by the signal handler. */
#define GUARD_SLOTS 8192
static _Atomic(uintptr_t) g_tids[GUARD_SLOTS];
static sim_guard *g_guards[GUARD_SLOTS];
static atomic_int g_high; /* slots [0, g_high) have been used */

static sim_guard *current_guard(void)
{
    uintptr_t self = (uintptr_t)pthread_self();
    int high = atomic_load_explicit(&g_high, memory_order_acquire);
    for (int i = 0; i < high; i++)
        if (atomic_load_explicit(&g_tids[i], memory_order_acquire) == self)
            return g_guards[i];
    return NULL;
}

static void register_guard(sim_guard *g)
{
    uintptr_t self = (uintptr_t)pthread_self();
    for (int i = 0; i < GUARD_SLOTS; i++) {
        uintptr_t expected = 0;
        /* Claim a free slot with a placeholder, publish the guard, then the real tid. */
        if (atomic_compare_exchange_strong(&g_tids[i], &expected, (uintptr_t)1)) {
            g_guards[i] = g;
            atomic_store_explicit(&g_tids[i], self, memory_order_release);
            int high = atomic_load(&g_high);
            while (high < i + 1 && !atomic_compare_exchange_weak(&g_high, &high, i + 1))
                ;
            return;
        }
    }
    /* Table full: this thread runs unguarded (a fault then ends the process, as without us). */
}

static void unregister_guard(void)
{
    uintptr_t self = (uintptr_t)pthread_self();
    int high = atomic_load(&g_high);
    for (int i = 0; i < high; i++) {
        if (atomic_load(&g_tids[i]) == self) {
            g_guards[i] = NULL;
            atomic_store_explicit(&g_tids[i], 0, memory_order_release);
            return;
        }
    }
}

static const int k_fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction g_previous[NSIG];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

int sim_fault_timeout_signal(void) { return SIGRTMAX - 3; }

static void chain(int sig, siginfo_t *si, void *uc)
{
    struct sigaction *old = &g_previous[sig];
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_sigaction) {
            old->sa_sigaction(sig, si, uc);
            return;
        }
    } else if (old->sa_handler == SIG_IGN) {
        return;
    } else if (old->sa_handler != SIG_DFL && old->sa_handler != NULL) {
        old->sa_handler(sig);
        return;
    }
    /* Default action: restore it and re-deliver, so the process ends with the real signal. */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    sim_guard *g = current_guard();
    if (sig == sim_fault_timeout_signal()) {
        if (g && g->active && atomic_load_explicit(&g->interrupt, memory_order_relaxed)) {
            g->active = 0;
            g->sig = sig;
            g->addr = NULL;
            g->has_addr = g->sent = 0;
            siglongjmp(g->jb, 1);
        }
        return; /* a late timeout request for a call that already returned */
    }
    if (g && g->active) {
        g->active = 0;
        g->sig = sig;
        /* si_addr is the faulting address only when the kernel generated the signal for a
         * fault (si_code > 0). A signal sent by raise, kill, tgkill or sigqueue (si_code <= 0:
         * SI_USER, SI_TKILL, SI_QUEUE, ...) carries the sender's pid and uid in the same bytes,
         * and SI_KERNEL (an x86 general-protection fault, e.g. a non-canonical address) leaves
         * it 0; reporting either as an address would mislead. */
        bool cpu = si && si->si_code > 0 && si->si_code != SI_KERNEL;
        g->addr = cpu ? si->si_addr : NULL;
        g->has_addr = cpu;
        g->sent = si && si->si_code <= 0;
        siglongjmp(g->jb, 1);
    }
    chain(sig, si, uc);
}

static void install_once(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof k_fault_signals / sizeof k_fault_signals[0]; i++)
        sigaction(k_fault_signals[i], &sa, &g_previous[k_fault_signals[i]]);
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigaction(sim_fault_timeout_signal(), &sa, &g_previous[sim_fault_timeout_signal()]);
}

void sim_fault_install(void) { pthread_once(&g_once, install_once); }

sim_guard *sim_fault_thread_init(void)
{
    sim_guard *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    size_t len = 64 * 1024;
    void *stack = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack != MAP_FAILED) {
        stack_t ss = {.ss_sp = stack, .ss_size = len, .ss_flags = 0};
        if (sigaltstack(&ss, NULL) == 0) {
            g->altstack = stack;
            g->altstack_len = len;
        } else {
            munmap(stack, len);
        }
    }
    register_guard(g);
    return g;
}

void sim_fault_thread_fini(sim_guard *g)
{
    if (!g)
        return;
    unregister_guard();
    if (g->altstack) {
        stack_t ss = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
        sigaltstack(&ss, NULL);
        munmap(g->altstack, g->altstack_len);
    }
    free(g);
}

sim_fault sim_guarded_call(sim_guard *g, sim_guarded_fn fn, void *arg)
{
    sim_fault r = {.sig = 0};
    atomic_store_explicit(&g->interrupt, 0, memory_order_relaxed);
    g->sig = 0;
    /* No signal mask saved: that would be a system call per block. Jumping out of the handler
     * leaves the caught signal blocked, so the fault path unblocks them itself. */
    if (sigsetjmp(g->jb, 0) == 0) {
        g->active = 1;
        fn(arg);
        g->active = 0;
    } else {
        sigset_t set;
        sigemptyset(&set);
        for (size_t i = 0; i < sizeof k_fault_signals / sizeof k_fault_signals[0]; i++)
            sigaddset(&set, k_fault_signals[i]);
        sigaddset(&set, sim_fault_timeout_signal());
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        r.sig = g->sig;
        r.addr = g->addr;
        r.has_addr = g->has_addr;
        r.sent = g->sent;
        r.what = g->sig == SIM_FAULT_KERNEL_RULE ? g->what : NULL;
    }
    return r;
}

/* Not a signal: the kernel asked to end its block (an Ascend C rule it broke, trap()). It runs
 * on the block's thread inside the guarded call, so the same recovery point takes it back to
 * the worker, which reports the block as an AI-core exception with the message. */
void sim_fault_raise(const char *what)
{
    sim_guard *g = current_guard();
    if (!g || !g->active) {
        fprintf(stderr, "aiocann simulator: a kernel failed outside a launch: %s\n", what);
        abort();
    }
    snprintf(g->what, sizeof g->what, "%s", what);
    g->active = 0;
    g->sig = SIM_FAULT_KERNEL_RULE;
    g->addr = NULL;
    g->has_addr = g->sent = 0;
    siglongjmp(g->jb, 1);
}

void sim_fault_interrupt(sim_guard *g, pthread_t t)
{
    atomic_store_explicit(&g->interrupt, 1, memory_order_relaxed);
    pthread_kill(t, sim_fault_timeout_signal());
}

/* Guards of threads that call the API (sim_guarded_read): made on first use, without an
 * alternate stack (the thread's own, or Python's faulthandler's, stays in place), dropped
 * when the thread exits. */
static __thread sim_guard *t_caller_guard;
static pthread_key_t g_caller_key;
static pthread_once_t g_caller_once = PTHREAD_ONCE_INIT;

static void caller_guard_exit(void *g)
{
    unregister_guard();
    free(g);
}

static void make_caller_key(void) { pthread_key_create(&g_caller_key, caller_guard_exit); }

static sim_guard *caller_guard(void)
{
    if (!t_caller_guard) {
        sim_fault_install();
        pthread_once(&g_caller_once, make_caller_key);
        sim_guard *g = calloc(1, sizeof *g);
        if (!g)
            return NULL;
        register_guard(g);
        pthread_setspecific(g_caller_key, g);
        t_caller_guard = g;
    }
    return t_caller_guard;
}

typedef struct read_call {
    void *dst;
    const void *src;
    size_t len;
} read_call;

static void do_read(void *arg)
{
    read_call *r = arg;
    memcpy(r->dst, r->src, r->len);
}

bool sim_guarded_read(void *dst, const void *src, size_t len)
{
    sim_guard *g = caller_guard();
    if (!g)
        return sim_host_mapped(src, len) && (memcpy(dst, src, len), true);
    read_call r = {dst, src, len};
    return sim_guarded_call(g, do_read, &r).sig == 0;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    }
    return "a signal";
}

const char *sim_fault_text(sim_fault f, char *buf, size_t len)
{
    if (f.sig == SIM_FAULT_KERNEL_RULE)
        snprintf(buf, len, "%s", f.what ? f.what : "the kernel ended its block");
    else if (f.has_addr)
        snprintf(buf, len, "%s at address %p", sim_fault_describe(f.sig), f.addr);
    else if (f.sent)
        snprintf(buf, len, "%s sent by raise, kill or sigqueue, not by a fault: no address", signal_name(f.sig));
    else
        snprintf(buf, len, "%s with no address (a general-protection fault, e.g. a non-canonical address)",
                 sim_fault_describe(f.sig));
    return buf;
}

const char *sim_fault_describe(int sig)
{
    if (sig == sim_fault_timeout_signal())
        return "timeout";
    switch (sig) {
    case SIGSEGV: return "invalid memory access (SIGSEGV)";
    case SIGBUS: return "bus error (SIGBUS)";
    case SIGFPE: return "arithmetic exception (SIGFPE)";
    case SIGILL: return "illegal instruction (SIGILL)";
    }
    return "fault";
}
