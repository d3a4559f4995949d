/*
 * What the C test programs share: a failure count and the checks that add to it (a failed
 * check reports and goes on, so one run lists every failure). A program includes this once,
 * after <stdatomic.h>, <stdio.h> and the ACL header, and exits with g_failures != 0.
 */
#ifndef AIOCANN_TESTS_CHECK_H_
#define AIOCANN_TESTS_CHECK_H_

static atomic_int g_failures;

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);        \
            g_failures++;                                                                   \
        }                                                                                   \
    } while (0)
#define CHECK_RC(expr, want)                                                                \
    do {                                                                                    \
        aclError rc_ = (expr);                                                              \
        if (rc_ != (want)) {                                                                \
            const char *m_ = aclGetRecentErrMsg();                                          \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d (%s)\n", __FILE__, __LINE__, \
                    #expr, rc_, (want), m_ ? m_ : "no message");                            \
            g_failures++;                                                                   \
        }                                                                                   \
    } while (0)

#endif /* AIOCANN_TESTS_CHECK_H_ */
