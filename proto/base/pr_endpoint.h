/* pr_endpoint: what a ZeroMQ control endpoint is, and which ones are local.
 *
 * The one loopback rule both programs apply before they allow --plaintext
 * (docs/design.md §10): an unencrypted control channel may only be an ipc:// or
 * inproc:// endpoint, or tcp:// to a LITERAL loopback address, so nothing
 * in plain text can leave the host. A name is never local, whatever it
 * resolves to ("localhost" included: resolution is configuration, and a
 * resolver or /etc/hosts can send it elsewhere), and the test is on the
 * whole host, not a prefix ("127.evil.example" and "127.0.0.1.evil" are
 * names). Pure string work: no resolver, no sockets. Thread-safe.
 */
#ifndef PR_ENDPOINT_H
#define PR_ENDPOINT_H

#include <stdbool.h>

/* True when endpoint is "ipc://PATH" or "inproc://NAME" (non-empty), or
 * "tcp://HOST:PORT" where HOST is a dotted-quad IPv4 literal in 127.0.0.0/8
 * (four decimal octets 0..255, no leading zeros, nothing else) or "[::1]"
 * (any spelling of the IPv6 loopback in brackets), and PORT is a decimal
 * 1..65535 with nothing after it. False for everything else, NULL included. */
bool pr_endpoint_is_local(const char *endpoint);

/* True when endpoint is well formed for our sockets: "ipc://PATH" (PATH
 * non-empty), or "tcp://HOST:PORT" with a non-empty HOST ("[v6]" bracketed,
 * a name, an address or "*") and a decimal PORT 1..65535. Says nothing
 * about whether HOST is local. */
bool pr_endpoint_is_valid(const char *endpoint);

#endif
