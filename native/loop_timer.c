/*
 * aiocann native helpers: the loop timer -- a timerfd that makes an event loop wake at the due
 * time of its next timer, to the nanosecond, after aiocann woke it (aiocann/_flavour.py,
 * LoopTimer).
 *
 * Why it exists: asyncio sleeps in epoll_wait, whose timeout is whole milliseconds, and rounds
 * the time to its next timer *up* (selectors.EpollSelector.select), so as not to wake early and
 * spin. On an idle loop that costs nothing: the loop went to sleep a whole number of
 * milliseconds before the timer. But every completion the device delivers wakes the loop at
 * some arbitrary moment; when it goes back to sleep 0.3 ms before a timer, it sleeps 1 ms, and
 * the timer runs 0.7 ms late. A server whose loop is woken thousands of times a second by
 * completions has every timeout, sleep and heartbeat late by up to a millisecond (issue 25's
 * P3). A timerfd armed at the timer's absolute time has no such rounding: the loop watches it
 * as one more readable fd, and wakes when it fires.
 *
 * The clock is CLOCK_MONOTONIC: the clock of time.monotonic(), which is asyncio's loop.time().
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "aiocann_native.h"

int aiocann_timer_open(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }

int aiocann_timer_arm(int fd, double when)
{
    /* Rounded up to the nanosecond: the loop runs a timer once its clock has reached the time,
     * so an expiry a fraction of a nanosecond early would wake it for nothing. An all-zero
     * it_value would disarm the timer; a time that has passed fires at once. */
    if (!(when > 0) || !isfinite(when))
        when = 1e-9;
    double sec = floor(when);
    long nsec = (long)ceil((when - sec) * 1e9);
    if (nsec >= 1000000000L) {
        sec += 1;
        nsec -= 1000000000L;
    }
    struct itimerspec its = {.it_value = {.tv_sec = (time_t)sec, .tv_nsec = nsec}};
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
        its.it_value.tv_nsec = 1;
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

void aiocann_timer_clear(int fd)
{
    uint64_t expirations;
    ssize_t r = read(fd, &expirations, sizeof expirations); /* EAGAIN if it has not fired */
    (void)r;
}
