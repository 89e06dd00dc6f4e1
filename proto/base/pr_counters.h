/* pr_counters: the per-interval and whole-run counters an agent reports.
 *
 * Plain data. Classification is sysbench 1.0.20's (docs/design.md
 * §13.1, Counting): every successful statement counts exactly once as read, write or
 * other; a failed statement counts as an error (ignorable) and, when it
 * caused a reconnect, as a reconnect; transactions count completed events
 * once however many restarts they took. Rate-mode fields are 0 in closed
 * loop. Adding two of these is field-wise addition (pr_counters_add).
 */
#ifndef PR_COUNTERS_H
#define PR_COUNTERS_H

#include <stdint.h>

#define PR_COUNTERS_FIELDS(X)                                                                      \
    X(transactions) /* completed events */                                                         \
    X(reads)        /* statements returning a result set */                                        \
    X(writes)       /* non-read statements with affected rows > 0 */                               \
    X(other)        /* other successful statements (BEGIN, COMMIT, 0-row DML) */                   \
    X(errors)       /* ignored errors (event restarted) */                                         \
    X(reconnects)   /* reconnections after a lost connection */                                    \
    X(ev_started)   /* rate mode: events begun */                                                  \
    X(ev_queued)    /* rate mode: events that waited for a free connection */                      \
    X(ev_late)      /* rate mode: events started after their intended time + 1 ms */               \
    X(ev_dropped)   /* rate mode: arrivals never started before the run ended */                   \
    X(unfinished)   /* events cut off by an immediate stop (--forced-shutdown, the stop            \
                       grace running out): begun, never completed */

/* Counters added later, optional on the wire (an agent that does not send
 * them reports 0): how events ended, as the generator interface says
 * (agent/engine/ag_family.h, enum ag_step). transactions counts both the
 * committed and the rolled_back events; failed ones count in errors too. */
#define PR_COUNTERS_OPT_FIELDS(X)                                                                  \
    X(rolled_back) /* events that rolled back on purpose (TPC-C's 1% of New-Orders) */             \
    X(failed)      /* events the family gave up (retries exhausted, a fatal result) */

struct pr_counters {
#define PR__COUNTER_FIELD(name) uint64_t name;
    PR_COUNTERS_FIELDS(PR__COUNTER_FIELD)
    PR_COUNTERS_OPT_FIELDS(PR__COUNTER_FIELD)
#undef PR__COUNTER_FIELD
};

/* dst += src, field by field. */
static inline void pr_counters_add(struct pr_counters *dst, const struct pr_counters *src)
{
#define PR__COUNTER_ADD(name) dst->name += src->name;
    PR_COUNTERS_FIELDS(PR__COUNTER_ADD)
    PR_COUNTERS_OPT_FIELDS(PR__COUNTER_ADD)
#undef PR__COUNTER_ADD
}

/* Statements executed successfully: read + write + other (sysbench "queries"). */
static inline uint64_t pr_counters_queries(const struct pr_counters *c)
{
    return c->reads + c->writes + c->other;
}

#endif
