/* pr_clock: the monotonic clock and the clock-offset estimate both
 * programs use (docs/design.md §3.5).
 *
 * Durations and deadlines are measured on CLOCK_MONOTONIC in nanoseconds
 * (docs/dev.md §1). Hosts align their monotonic clocks NTP style: a PING
 * carries the sender's clock t1, the PONG echoes t1 and adds the peer's
 * clock t2, the sender reads t4 on arrival; with rtt = t4 - t1 the peer's
 * clock is ahead by t2 - (t1 + rtt/2). The sample with the lowest rtt so
 * far is kept (the tightest bound on the error, rtt/2). Thread-safe.
 */
#ifndef PR_CLOCK_H
#define PR_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* CLOCK_MONOTONIC now, in nanoseconds. */
uint64_t pr_clock_now_ns(void);

/* The best PING/PONG sample so far. Plain data; zero it to start. */
struct pr_clock_sync {
    uint64_t rtt_ns;   /* lowest round trip seen, >= 1; 0 = no sample yet */
    int64_t offset_ns; /* peer clock - our clock at that sample */
    uint64_t samples;  /* PONGs accepted (rtt_ns not improved included) */
};

/* Take one PONG: ping_ns is the t1 it echoes (our clock), peer_ns the
 * peer's clock t2, now_ns our clock on arrival t4. A PONG claiming a PING
 * from the future (t1 > t4: forged or from another clock) is dropped and
 * false returned; otherwise true, and the estimate is replaced when this
 * round trip is the lowest so far. */
bool pr_clock_sync_pong(struct pr_clock_sync *s, uint64_t ping_ns, uint64_t peer_ns,
                        uint64_t now_ns);

#endif
