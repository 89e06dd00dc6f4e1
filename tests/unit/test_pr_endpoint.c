/* Tests for pr_endpoint: the one loopback rule for --plaintext, with the
 * hostile spellings a prefix or a resolver would let through. */
#include <stdbool.h>
#include <stdio.h>

#include "pr_endpoint.h"
#include "testlib.h"

static void test_local(void)
{
    static const char *const yes[] = {
        "ipc:///tmp/stampede/coord.sock", "ipc://@abstract",   "inproc://x",
        "tcp://127.0.0.1:5570",           "tcp://127.0.0.2:1", "tcp://127.255.255.254:65535",
        "tcp://127.1.2.3:5570",           "tcp://[::1]:5570",  "tcp://[0:0:0:0:0:0:0:1]:5570",
    };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        CHECK_MSG(pr_endpoint_is_local(yes[i]), "%s should be local", yes[i]);
}

static void test_hostile(void)
{
    static const char *const no[] = {
        "tcp://127.evil.example:5570", /* the case: a DNS name */
        "tcp://127.0.0.1.evil:5570",   /* a name that starts like an address */
        "tcp://127.0.0.1.nip.io:5570",
        "tcp://localhost:5570", /* a name: resolution is configuration */
        "tcp://LOCALHOST:5570",
        "tcp://localhost.:5570",
        "tcp://0177.0.0.1:5570", /* octal in inet_aton, not a dotted quad */
        "tcp://0x7f.0.0.1:5570",
        "tcp://127.1:5570",       /* short forms inet_aton would take */
        "tcp://2130706433:5570",  /* 127.0.0.1 as one number */
        "tcp://127.0.0.01:5570",  /* leading zero */
        "tcp://127.0.0.256:5570", /* octet out of range */
        "tcp://127.0.0.1.:5570",
        "tcp://127..0.1:5570",
        "tcp://127.0.0:5570",
        "tcp://127.0.0.1.2:5570",
        "tcp://127.0.0.1 :5570",
        "tcp:// 127.0.0.1:5570",
        "tcp://128.0.0.1:5570",
        "tcp://10.0.0.5:5570",
        "tcp://0.0.0.0:5570",
        "tcp://*:5570",
        "tcp://127.0.0.1:5570x", /* junk after the port */
        "tcp://127.0.0.1:",
        "tcp://127.0.0.1:0",
        "tcp://127.0.0.1:65536",
        "tcp://127.0.0.1:-1",
        "tcp://127.0.0.1:+5570",
        "tcp://127.0.0.1",
        "tcp://127.0.0.1;10.0.0.5:5570", /* libzmq source;destination */
        "tcp://10.0.0.5;127.0.0.1:5570",
        "tcp://[::1]x:5570",
        "tcp://[::2]:5570",
        "tcp://[::ffff:127.0.0.1]:5570", /* mapped: leaves through v6 rules */
        "tcp://::1:5570",                /* unbracketed */
        "tcp://[::1:5570",
        "tcp://lo:5570", /* an interface name */
        "TCP://127.0.0.1:5570",
        "udp://127.0.0.1:5570",
        "pgm://127.0.0.1:5570",
        "ipc://",
        "inproc://",
        "127.0.0.1:5570",
        "",
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        CHECK_MSG(!pr_endpoint_is_local(no[i]), "'%s' must not count as local", no[i]);
    CHECK(!pr_endpoint_is_local(NULL));
}

static void test_valid(void)
{
    static const char *const yes[] = {"tcp://10.0.0.5:5555", "tcp://*:5555",
                                      "tcp://coordinator.example:1", "tcp://[::]:5555",
                                      "ipc:///tmp/x"};
    static const char *const no[] = {"tcp://h",
                                     "tcp://h:0",
                                     "tcp://h:70000",
                                     "tcp://:5555",
                                     "tcp://[]:5555",
                                     "tcp://[::1:5555",
                                     "tcp://h:55x",
                                     "ipc://",
                                     "inproc://x",
                                     "http://h:80",
                                     "",
                                     "tcp://a]b:1"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        CHECK_MSG(pr_endpoint_is_valid(yes[i]), "%s should be valid", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        CHECK_MSG(!pr_endpoint_is_valid(no[i]), "'%s' should be invalid", no[i]);
    CHECK(!pr_endpoint_is_valid(NULL));
}

int main(void)
{
    test_local();
    test_hostile();
    test_valid();
    return TEST_END();
}
