/* clockshift: an LD_PRELOAD shim for the e2e tests: a process whose wall
 * clock is off. CLOCK_REALTIME (clock_gettime) reads
 * STAMPEDE_TEST_CLOCK_SHIFT_S seconds (signed) away from the host's;
 * every other clock, CLOCK_MONOTONIC included, is left as it is, as on a
 * host whose NTP is broken. pthread_cond_timedwait() deadlines on the wall
 * clock (computed from the shifted one) are moved back by the shift, as
 * the kernel would see them on such a host. test_tpcc.py starts agents
 * under it to check that the -t file is written in the coordinator's
 * clock. */
#include <stdlib.h>
#include <time.h>

#include <dlfcn.h>
#include <pthread.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);

static clock_gettime_fn real_clock_gettime; /* libc's, set once at load */
static timedwait_fn real_timedwait;         /* libc's pthread_cond_timedwait */
static long shift_s;                        /* STAMPEDE_TEST_CLOCK_SHIFT_S */

/* A wall-clock deadline (after 2001), not a monotonic one (the uptime). */
#define WALL_CLOCK_MIN_S 1000000000L

__attribute__((constructor)) static void clockshift_init(void)
{
    const char *s = getenv("STAMPEDE_TEST_CLOCK_SHIFT_S");
    /* POSIX's way from dlsym's void * to a function pointer */
    *(void **)(&real_clock_gettime) = dlsym(RTLD_NEXT, "clock_gettime");
    *(void **)(&real_timedwait) = dlsym(RTLD_NEXT, "pthread_cond_timedwait");
    shift_s = s ? strtol(s, NULL, 10) : 0;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (real_clock_gettime == NULL)
        clockshift_init(); /* called before the constructors ran */
    int rc = real_clock_gettime(id, ts);
    if (rc == 0 && id == CLOCK_REALTIME)
        ts->tv_sec += shift_s;
    return rc;
}

int pthread_cond_timedwait(pthread_cond_t *cv, pthread_mutex_t *mu, const struct timespec *at)
{
    if (real_timedwait == NULL)
        clockshift_init();
    struct timespec host = *at;
    if (host.tv_sec > WALL_CLOCK_MIN_S)
        host.tv_sec -= shift_s;
    return real_timedwait(cv, mu, &host);
}
