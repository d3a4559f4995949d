/*
 * Holds its stream for usec microseconds of device time without using a core's CPU (it
 * sleeps): the inference server's --delay-ms switch launches it, with one block, before each
 * batch to play a slow model in the tests of back-pressure and draining.
 */
#include <time.h>

#include "kernel_operator.h"

__global__ __aicore__ void delay_us(uint64_t usec)
{
    struct timespec ts = {(time_t)(usec / 1000000), (long)(usec % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}
