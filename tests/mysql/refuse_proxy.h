/* refuse_proxy: a MySQL-protocol TCP proxy for tests, standing in for a
 * server that cannot prepare some statements. It relays every byte between
 * its clients and a real server, except a COM_STMT_PREPARE whose text
 * contains one of the given substrings: that one it answers itself with
 * ER_UNSUPPORTED_PS (1295, "HY000"), as MySQL does for statements outside
 * the prepared-statement protocol, and the server never sees it (and, when
 * asked, every COM_PING the same way). Commands
 * are recognised as client packets with sequence id 0 (the handshake's
 * packets have others); TLS and compression are not supported. Test-only
 * code: one thread, blocking writes, loopback only. */
#ifndef REFUSE_PROXY_H
#define REFUSE_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct refuse_proxy refuse_proxy;

/* Listen on 127.0.0.1 (a free port) and relay to host:port (numeric
 * IPv4). refuse[0..n) are borrowed and must outlive the proxy. NULL on
 * failure (message on stderr). */
refuse_proxy *refuse_proxy_start(const char *host, uint16_t port, const char *const *refuse,
                                 size_t n);

/* The port it listens on. */
uint16_t refuse_proxy_port(const refuse_proxy *p);

/* Also answer every COM_PING with that error (on) or relay it (off, the
 * default): a server whose round trip cannot be measured. */
void refuse_proxy_refuse_pings(refuse_proxy *p, bool on);
/* COM_PINGs answered so far. */
uint64_t refuse_proxy_pings_refused(refuse_proxy *p);

/* PREPAREs answered with 1295 so far. */
uint64_t refuse_proxy_refused(refuse_proxy *p);

/* Stop the thread, close every socket, free; *p = NULL. */
void refuse_proxy_stop(refuse_proxy **p);

#endif
