/* ag_pvio: one system call less per statement on Connector/C's
 * non-blocking path.
 *
 * A non-blocking _start call that sends a command (execute, query) reads
 * its reply at once, before yielding: on a loaded server that receive
 * almost always fails with EAGAIN (measured: 1.00 of the 2.02 receives per
 * point select), and only then does the library ask to wait for
 * readability. The library's I/O goes through the connection's PVIO
 * methods (ma_pvio.h, its plugin interface for transports); ag_pvio puts a
 * copy of the socket plugin's methods on the connection whose async_read
 * answers the first read after ag_pvio_skip_read() with EAGAIN without a
 * system call. The library then yields MYSQL_WAIT_READ as it would have,
 * and the read after the socket is readable is real. A skipped read is
 * always correct on a non-blocking socket: if the reply is already there,
 * the (level-triggered) poll reports it at the next loop iteration.
 *
 * TLS connections: OpenSSL reads the socket itself (read(2) through its
 * socket BIO), so there the skip is a filter BIO put in front of the SSL's
 * read BIO at the first arming; it answers the first read after arming
 * with "retry read" (SSL_ERROR_WANT_READ: the library yields
 * MYSQL_WAIT_READ as after a real EAGAIN). Writes pass straight through.
 * Thread: the flag is per thread and lasts one _start call (set it just
 * before, clear it just after: ag_pvio_skip_clear). */
#ifndef AG_PVIO_H
#define AG_PVIO_H

#include <stdbool.h>

#include <mysql.h>

/* The next read of m's connection on this thread (inside the _start call
 * that follows) returns EAGAIN without a system call. True when armed;
 * false when m has no connection or another transport (or the TLS filter
 * could not be made): then nothing changes. */
bool ag_pvio_skip_read(MYSQL *m);

/* Disarm whatever ag_pvio_skip_read armed on this thread (after the
 * _start call returned, whether or not it read). */
void ag_pvio_skip_clear(void);

/* Reads skipped on this thread so far (tests, benches). */
unsigned long long ag_pvio_skipped(void);

#endif
