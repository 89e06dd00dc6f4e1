/* pr_clock: monotonic time and PING/PONG offsets. See pr_clock.h. */
#include "pr_clock.h"

#include <time.h>

uint64_t pr_clock_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool pr_clock_sync_pong(struct pr_clock_sync *s, uint64_t ping_ns, uint64_t peer_ns,
                        uint64_t now_ns)
{
    if (ping_ns > now_ns)
        return false;
    uint64_t rtt = now_ns - ping_ns;
    s->samples++;
    if (s->rtt_ns == 0 || rtt < s->rtt_ns) {
        s->rtt_ns = rtt ? rtt : 1;
        s->offset_ns = (int64_t)(peer_ns - (ping_ns + rtt / 2));
    }
    return true;
}
