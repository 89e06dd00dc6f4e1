/* pr_msg_trx: STATS.trx, the optional per-transaction record stream
 * (agent -> coordinator), batched one interval per STATS.
 *
 * An agent records an event one by one only when its family asks for the
 * kind (tpcc: New-Order, when `stampede tpcc run` was given --report-file
 * or --trx-file, tpcc_start's -f / -t); otherwise "trx" is absent and
 * nothing is recorded. Wire form: an array of
 * [conn, kind, flags, end_us, rt_us, start_rt_ns, end_rt_ns] arrays, each
 * a uint (internal to proto: pr_msg.c hands the "trx" value here). */
#ifndef PR_MSG_TRX_H
#define PR_MSG_TRX_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "pr_err.h"

#define PR_MSG_MAX_TRX 65536 /* STATS.trx records in one STATS */

#define PR_TRX_ROLLED_BACK 0x1u /* the event ended rolled back on purpose */

/* One recorded event. */
struct pr_msg_trx {
    uint32_t conn;        /* global connection index (tpcc_start's t_num) */
    uint16_t kind;        /* its kind, an index into READY.kinds */
    uint8_t flags;        /* PR_TRX_* bits */
    uint64_t end_us;      /* end, µs since the run's t0 (the agent's start instant) */
    uint64_t rt_us;       /* response time, first attempt to the end (retries in), µs */
    uint64_t start_rt_ns; /* CLOCK_REALTIME at the start of its last attempt, ns */
    uint64_t end_rt_ns;   /* CLOCK_REALTIME at its end, ns */
};

/* Pack n records (n <= PR_MSG_MAX_TRX) as the "trx" value. 0, or a
 * negative code (PR_ETOO_BIG naming path, or msgpack's failure). */
int pr__msg_trx_pack(msgpack_packer *pk, const struct pr_msg_trx *t, uint32_t n, const char *path,
                     struct pr_error *err);

/* Decode the "trx" value o into *arr (allocated, the caller's: freed by
 * pr_msg_clear()) and *n. 0, or a negative code with err naming the record
 * and what is wrong: PR_EBAD_TYPE (not an array of 7-uint arrays),
 * PR_ETOO_BIG (more than PR_MSG_MAX_TRX records), PR_ERANGE (conn, kind or
 * flags out of their type's range); *arr is then NULL. */
int pr__msg_trx_get(const msgpack_object *o, struct pr_msg_trx **arr, uint32_t *n, const char *path,
                    struct pr_error *err);

#endif
