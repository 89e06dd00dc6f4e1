/* Tests for pr_clock: the monotonic clock and the lowest-RTT PING/PONG
 * offset estimate both programs use. */
#include <stdint.h>
#include <time.h>

#include "pr_clock.h"
#include "pr_msg.h"
#include "testlib.h"

static void test_now(void)
{
    uint64_t a = pr_clock_now_ns();
    nanosleep(&(struct timespec){0, 2000000}, NULL);
    uint64_t b = pr_clock_now_ns();
    CHECK_MSG(b > a && b - a >= 2000000, "slept 2 ms, clock moved %llu ns",
              (unsigned long long)(b - a));
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ref = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    CHECK(ref >= b && ref - b < 1000000000u); /* the same clock, not CLOCK_REALTIME */
}

static void test_sync(void)
{
    struct pr_clock_sync s = {0};

    /* Peer 5 s ahead; sent at 1000, peer stamped at 5000001050, back at 1100. */
    CHECK(pr_clock_sync_pong(&s, 1000, 5000000000u + 1050, 1100));
    CHECK_EQ_U64(s.rtt_ns, 100);
    CHECK(s.offset_ns == 5000000000);
    CHECK_EQ_U64(s.samples, 1);
    /* A slower sample does not replace the estimate. */
    CHECK(pr_clock_sync_pong(&s, 2000, 5000000000u + 2900, 3000));
    CHECK_EQ_U64(s.rtt_ns, 100);
    CHECK(s.offset_ns == 5000000000);
    /* A faster one does, even when its offset differs. */
    CHECK(pr_clock_sync_pong(&s, 4000, 4000 + 10 - 7, 4020));
    CHECK_EQ_U64(s.rtt_ns, 20);
    CHECK(s.offset_ns == -7);
    CHECK_EQ_U64(s.samples, 3);
    /* A PONG for a PING from our future is dropped. */
    CHECK(!pr_clock_sync_pong(&s, 9000, 1, 8999));
    CHECK_EQ_U64(s.samples, 3);
    CHECK(s.offset_ns == -7);
    /* A zero round trip is kept as 1 so 0 still means "no sample". */
    struct pr_clock_sync z = {0};
    CHECK(pr_clock_sync_pong(&z, 500, 400, 500));
    CHECK_EQ_U64(z.rtt_ns, 1);
    CHECK(z.offset_ns == -100);
    /* A peer clock behind ours gives a negative offset. */
    struct pr_clock_sync behind = {0};
    CHECK(pr_clock_sync_pong(&behind, 10000000000u, 3000000050u, 10000000100u));
    CHECK(behind.offset_ns == -7000000000);
}

/* The whole exchange as both programs run it: PING out, the peer answers
 * with pr_msg_init_pong() on its clock, the pinger takes the PONG. */
static void test_round_trip(void)
{
    struct pr_msg ping, pong;
    struct pr_clock_sync s = {0};

    pr_msg_init(&ping, PR_MSG_PING, NULL, 0);
    ping.u.ping.id = 42;
    ping.u.ping.clock_ns = 1000000;
    pr_msg_init_pong(&pong, &ping.u.ping, 1000000 + 250 + 3000000000u); /* peer 3 s ahead */
    CHECK(pong.type == PR_MSG_PONG && pong.u.pong.id == 42);
    CHECK_EQ_U64(pong.u.pong.ping_clock_ns, 1000000);
    CHECK(pr_clock_sync_pong(&s, pong.u.pong.ping_clock_ns, pong.u.pong.peer_clock_ns,
                             1000000 + 500));
    CHECK_EQ_U64(s.rtt_ns, 500);
    CHECK(s.offset_ns == 3000000000);
}

int main(void)
{
    test_now();
    test_sync();
    test_round_trip();
    return TEST_END();
}
