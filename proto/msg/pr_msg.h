/* pr_msg: the control-message codec between coordinator and agents.
 *
 * Bytes only: this module encodes a struct pr_msg into msgpack and decodes
 * msgpack bytes into a struct pr_msg; framing (ZeroMQ multipart) and sockets
 * belong to the callers. docs/design.md §3, §4.
 *
 * Wire form. One msgpack map per message, flat: the four envelope keys
 *   "v"   uint    protocol version, PR_PROTO_VERSION (exact match required)
 *   "t"   str     type name: "HELLO", "PING", ... (pr_msg_type_name())
 *   "run" str     run id, at most PR_RUN_ID_MAX bytes; "" before a run exists
 *                 (HELLO, PING, PONG, HEARTBEAT while idle)
 *   "seq" uint    sender's message number, see "Resends" below
 * plus the keys of the type, listed beside each struct below as `"key"`.
 * Keys marked (opt) may be absent; every other key is required.
 *
 * Decoding is strict. The whole buffer must be exactly one msgpack object
 * (PR_ETRUNCATED, PR_ETRAILING) of at most PR_MSG_MAX_BYTES, nested at most
 * PR_MSG_MAX_DEPTH deep, whose top value is a map (PR_ENOTMAP) with string
 * keys only, at most PR_MSG_MAX_KEYS of them and no key twice (PR_EDUP_KEY,
 * for unknown keys too). "v" is checked first (PR_EVERSION), then "t"
 * (PR_EUNKNOWN_TYPE). Then every required key must be present
 * (PR_EMISSING_KEY), every known key must have its type (PR_EBAD_TYPE; nil is
 * a wrong type, not an absent key), integers must fit their field
 * (PR_ERANGE: negative for an unsigned field, too large for its width),
 * floats must be finite, strings and arrays must respect the limits below
 * (PR_ETOO_BIG) and strings may not contain NUL bytes (PR_EINVAL).
 * Enumerations travel as their lower-case names. Unknown keys are ignored,
 * so a minor change can add optional keys without a version bump. Float
 * fields also accept integers (JavaScript encoders send 12.0 as 12).
 * Histograms are pr_hist_pack()'s sparse form and pr_hist_unpack()'s
 * rejections (PR_EBAD_HIST...) are passed through. Every rejection fills
 * struct pr_error with the code and a message naming the message type and
 * key ("PLAN.tables[3].lo: ..."). No input crashes the decoder (fuzzed,
 * tests/fuzz/fuzz_msg.c); memory used is bounded: about 50 times the input
 * length (msgpack-c objects) plus one pr_hist per histogram key.
 *
 * The encoder enforces the same limits and the same cross-field checks, so
 * anything pr_msg_encode() accepts, pr_msg_decode() accepts too.
 *
 * Ownership. A decoded struct pr_msg owns every string, array and histogram
 * it points to (heap, pr_xmalloc); pr_msg_clear() frees them. Decoded strings
 * are never NULL; an empty or absent array is NULL with count 0; an absent
 * optional histogram is NULL. For encoding, the
 * struct is only read: its pointers may be borrowed from the caller, a NULL
 * string encodes as "" and a NULL optional histogram is left out; such a
 * struct must not be passed to pr_msg_clear().
 *
 * Secrets. PLAN.password is sent as given. It must only travel over a CURVE
 * encrypted or a local (ipc/inproc/loopback spawned-agent) channel, and
 * callers never log a PLAN (docs/design.md §10). Copies are scrubbed before they
 * are freed: pr_msg_clear() for decoded messages, pr_msg_sbuffer_scrub()
 * for encode buffers, and receivers zero the frame they decoded.
 *
 * Resends. Each sender numbers the messages it sends on one connection from
 * 1, strictly increasing by one per new message (a timer's PING and a STATS
 * each take a fresh number); a resend repeats the number. Control traffic
 * runs over ordered ZeroMQ connections, so a receiver keeps, per peer, the
 * run and the highest seq it accepted and drops anything not above it:
 * pr_seq_accept() does exactly that. A new run id resets the count.
 *
 * Thread: all functions are reentrant; a struct belongs to one thread.
 */
#ifndef PR_MSG_H
#define PR_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "pr_counters.h"
#include "pr_err.h"
#include "pr_hist.h"

/* 2: READY.kinds, STATS/DONE.kst; 3: PLAN scr* (was lua*); 4: histograms'
 * "b" holds gaps between bucket indexes, not the indexes (pr_hist.h); 5:
 * STATS/DONE.kst entries carry late (issue 30 §6); 6: STATS.conns at a
 * --report-checkpoints interval */
#define PR_PROTO_VERSION 6

/* Limits, enforced by both encoder and decoder (lengths in bytes, without
 * the terminating NUL). */
#define PR_MSG_MAX_BYTES    (4u * 1024 * 1024) /* one encoded message */
#define PR_MSG_MAX_DEPTH    16                 /* msgpack nesting */
#define PR_MSG_MAX_KEYS     64                 /* keys in any map */
#define PR_RUN_ID_MAX       64                 /* "run" */
#define PR_MSG_NAME_MAX     64                 /* agent, workload, option, region, version names */
#define PR_MSG_HOST_MAX     255                /* hostnames, DB hosts */
#define PR_MSG_PATH_MAX     107                /* unix socket paths (sun_path - 1) */
#define PR_MSG_TEXT_MAX     4096               /* option values, messages, reasons, passwords */
#define PR_MSG_Z85_KEY_LEN  40                 /* a CURVE public key in Z85 */
#define PR_MSG_SQLSTATE_LEN 5
#define PR_MSG_MAX_OPTS     512   /* PLAN.opts */
#define PR_MSG_MAX_TABLES   65536 /* PLAN.tables */
#define PR_MSG_MAX_TARGETS  256   /* PLAN.hosts, ports, sockets each */
#define PR_MSG_MAX_STATS    1024  /* STATS.srv, DONE.kinds */
#define PR_MSG_MAX_KINDS    64    /* READY.kinds, STATS.kst, DONE.kst */
struct pr_msg_trx;                /* STATS.trx records: pr_msg_trx.h */
#define PR_MSG_MAX_ENV_VARS 256   /* READY.env: vars and unread lists each */
#define PR_MSG_MAX_ENV_TABS 1024  /* READY.env.srv.tabs */

#define PR_MSG_MAX_NOTES   64             /* DONE.notes */
#define PR_MSG_MAX_CONNS   65536          /* DONE.conns: an agent with more sends none */
#define PR_MSG_MAX_SCRIPTS 64             /* PLAN.scrn, PLAN.scrs: a script and its modules */
#define PR_MSG_SCRIPT_MAX  (1024u * 1024) /* bytes of one script source */

enum pr_msg_type {
    PR_MSG_NONE = 0, /* an empty or cleared struct; never on the wire */
    PR_MSG_HELLO,
    PR_MSG_PING,
    PR_MSG_PONG,
    PR_MSG_PLAN,
    PR_MSG_READY,
    PR_MSG_START,
    PR_MSG_STATS,
    PR_MSG_DONE,
    PR_MSG_ABORT,
    PR_MSG_HEARTBEAT,
    PR_MSG_ERROR,
    PR_MSG_BYE,
    PR_MSG_TYPE_COUNT_
};

/* PLAN.cmd: "prepare", "run", "cleanup", "prewarm", "check" (the family's
 * data check, ag_family.h). */
enum pr_plan_cmd {
    PR_CMD_PREPARE,
    PR_CMD_RUN,
    PR_CMD_CLEANUP,
    PR_CMD_PREWARM,
    PR_CMD_CHECK,
    PR_CMD_COUNT_
};

/* PLAN.part (docs/design.md §5): "none", "tables", "rows". */
/* PLAN.part. warehouses: TPC-C's home-warehouse split (each agent's range
 * of warehouses in PLAN.tables, see the tpcc family). */
enum pr_partition {
    PR_PART_NONE,
    PR_PART_TABLES,
    PR_PART_ROWS,
    PR_PART_WAREHOUSES,
    PR_PART_COUNT_
};

/* PLAN.rmode (opt, default "poisson"): the arrival process of rate mode
 * (--rate-mode, docs/design.md §6.3): "poisson" (exponential gaps, as sysbench)
 * or "uniform" (every gap exactly 1/rate). */
enum pr_rate_mode { PR_RATE_POISSON, PR_RATE_UNIFORM, PR_RATE_COUNT_ };

/* HEARTBEAT.state: "idle", "connecting", "ready", "running", "stopping",
 * "done"; the coordinator sends its own state the same way. */
enum pr_agent_state {
    PR_STATE_IDLE,       /* no plan */
    PR_STATE_CONNECTING, /* plan received, opening connections / probing */
    PR_STATE_READY,      /* READY sent, waiting for START */
    PR_STATE_RUNNING,    /* between t0 and the stop */
    PR_STATE_STOPPING,   /* draining in-flight statements */
    PR_STATE_DONE,       /* DONE sent */
    PR_STATE_COUNT_
};

/* ERROR.phase: "gather", "clock", "plan", "connect", "prepare", "run",
 * "cleanup", "prewarm", "finish", "check". */
enum pr_phase {
    PR_PHASE_GATHER,
    PR_PHASE_CLOCK,
    PR_PHASE_PLAN,
    PR_PHASE_CONNECT,
    PR_PHASE_PREPARE,
    PR_PHASE_RUN,
    PR_PHASE_CLEANUP,
    PR_PHASE_PREWARM,
    PR_PHASE_FINISH,
    PR_PHASE_CHECK,
    PR_PHASE_COUNT_
};

/* HELLO, agent -> coordinator on connect. The protocol version the agent
 * speaks is the envelope's `v` (struct pr_msg.v). */
struct pr_msg_hello {
    char *name;                          /* "name" agent name, <= PR_MSG_NAME_MAX */
    char *version;                       /* "ver" stampede version string, <= PR_MSG_NAME_MAX */
    uint32_t cores;                      /* "cores" online CPUs */
    char *hostname;                      /* "host" <= PR_MSG_HOST_MAX */
    char *region;                        /* "region" region tag, may be "", <= PR_MSG_NAME_MAX */
    char pubkey[PR_MSG_Z85_KEY_LEN + 1]; /* "key" CURVE public key (Z85) or "" */
};

/* PING, either way. clock_ns is the sender's pr clock (monotonic ns). */
struct pr_msg_ping {
    uint64_t id;       /* "id" ping id, echoed by PONG */
    uint64_t clock_ns; /* "clk" sender's clock at send */
};

/* PONG, reply to PING: echoes id and the pinger's clock, adds the
 * responder's own clock at reply. With t4 the pinger's clock on receipt,
 * offset = peer_clock_ns - (ping_clock_ns + t4) / 2, rtt = t4 - ping_clock_ns. */
struct pr_msg_pong {
    uint64_t id;            /* "id" */
    uint64_t ping_clock_ns; /* "clk" echo of PING.clock_ns */
    uint64_t peer_clock_ns; /* "pclk" responder's clock at reply */
};

/* One workload option, passed through verbatim ("--name=value"). Wire: a
 * 2-element array [name, value]. */
struct pr_msg_opt {
    char *name;  /* <= PR_MSG_NAME_MAX, without "--" */
    char *value; /* <= PR_MSG_TEXT_MAX */
};

/* A table (or id range of one) assigned to this agent. Wire: map
 * {"n", "lo", "hi", "ct", "ci"}, all required. id_lo <= id_hi, or
 * id_lo == id_hi + 1 for an empty range (no rows: e.g. lo=1 hi=0, or
 * lo=N+1 hi=N), so a piece can only create the table (ct) or only build
 * its index (ci) around other pieces loading the rows. */
struct pr_msg_table {
    uint32_t table;    /* "n" table number (sbtest<n>), >= 1 */
    uint64_t id_lo;    /* "lo" first id, inclusive */
    uint64_t id_hi;    /* "hi" last id, inclusive */
    bool create_table; /* "ct" this agent creates the table */
    bool create_index; /* "ci" this agent builds the secondary index */
};

/* A named counter. Wire: a 2-element array [name, uint]. */
struct pr_msg_stat {
    char *name; /* <= PR_MSG_NAME_MAX */
    uint64_t value;
};

/* PLAN, coordinator -> agent. Checks: agent_count >= 1, agent_index <
 * agent_count, conn_first + conns <= conns_total, report_ms >= 1. */
struct pr_msg_plan {
    enum pr_plan_cmd cmd;        /* "cmd" */
    char *workload;              /* "wl" workload name, <= PR_MSG_NAME_MAX */
    struct pr_msg_opt *opts;     /* "opts" all workload/sysbench options */
    uint32_t n_opts;             /* <= PR_MSG_MAX_OPTS */
    uint32_t agent_index;        /* "ai" this agent's index in name order */
    uint32_t agent_count;        /* "an" */
    uint32_t conns;              /* "conns" connections on this agent */
    uint64_t conn_first;         /* "c0" global index of its first connection */
    uint64_t conns_total;        /* "ctot" connections over all agents */
    uint64_t rate;               /* "rate" events/s share, 0 = closed loop */
    uint64_t events;             /* "events" event limit share, 0 = none */
    uint64_t time_s;             /* "time" time limit s, 0 = none */
    uint32_t report_ms;          /* "ri" report interval ms */
    uint64_t seed;               /* "seed" run seed (--rand-seed) */
    bool lead;                   /* "lead" this agent samples server status */
    enum pr_partition part;      /* "part" */
    struct pr_msg_table *tables; /* "tables" */
    uint32_t n_tables;           /* <= PR_MSG_MAX_TABLES */
    char **hosts;                /* "hosts" each <= PR_MSG_HOST_MAX */
    uint32_t n_hosts;            /* <= PR_MSG_MAX_TARGETS */
    uint16_t *ports;             /* "ports" */
    uint32_t n_ports;            /* <= PR_MSG_MAX_TARGETS */
    char **sockets;              /* "socks" each <= PR_MSG_PATH_MAX */
    uint32_t n_sockets;          /* <= PR_MSG_MAX_TARGETS */
    char *user;                  /* "user" <= PR_MSG_NAME_MAX */
    char *database;              /* "db" <= PR_MSG_NAME_MAX */
    char *password;              /* "pw" <= PR_MSG_TEXT_MAX; see "Secrets" */
    uint64_t plan_hash;          /* "hash" pr_msg_plan_hash() of the rest, echoed in
                                    READY; an agent refuses a PLAN whose hash does not
                                    match its contents, a coordinator a READY that
                                    echoes another */
    enum pr_rate_mode rate_mode; /* "rmode" (opt) arrivals when rate > 0 */
    /* A scripted family's sources (optional; none for the built-in
     * families), which only that family reads: module names ("oltp_common";
     * the first is the main script) and their texts, in the same order, and
     * the family's hash over them (the Lua family's: pr_lua_hash()). */
    char **script_names;     /* "scrn" (opt) each <= PR_MSG_NAME_MAX */
    uint32_t n_script_names; /* <= PR_MSG_MAX_SCRIPTS */
    char **script_srcs;      /* "scrs" (opt) each <= PR_MSG_SCRIPT_MAX bytes */
    uint32_t n_script_srcs;  /* == n_script_names */
    uint64_t script_hash;    /* "scrh" (opt) */
    /* A script's own command (Lua: sysbench.cmdline.commands) that is none of
     * prepare/run/cleanup/prewarm/check: its name; cmd is then
     * PR_CMD_CHECK, which runs command streams the same way. */
    char *script_cmd; /* "scrc" (opt) <= PR_MSG_NAME_MAX */
};

/* One table of the data set under test (READY.env.srv "tabs"). Wire: map
 * {"n", "rows", "data", "idx"}, all required. From SHOW TABLE STATUS (as
 * information_schema.TABLES): rows is Rows, an estimate for InnoDB; data and
 * idx are Data_length and Index_length in bytes (NULL counts as 0). */
/* DONE.conns: one connection's whole-run figures, for the summary's
 * threads fairness (sysbench's per thread). */
struct pr_msg_conn {
    uint32_t index;  /* "i" global connection index */
    uint64_t events; /* "e" events completed (committed or rolled back on purpose) */
    uint64_t lat_us; /* "l" the latencies of its events summed, µs (failed ones too) */
};

struct pr_msg_env_table {
    char *name;           /* "n" TABLE_NAME, <= PR_MSG_NAME_MAX */
    uint64_t rows;        /* "rows" */
    uint64_t data_bytes;  /* "data" */
    uint64_t index_bytes; /* "idx" */
};

/* The server as the lead agent reads it on its probe connection, before
 * READY's srv baseline is sampled (so none of these statements is in the
 * cross-check delta). Wire: map, every key required. A name in unread
 * means its value could not be read and is null in the report (never a
 * guess): "version" (@@version, VERSION()), "version_comment", one of
 * PR_ENV_VARIABLES (pr_env.h), or "dataset" (SHOW TABLE STATUS); version and
 * version_comment are then "". Values are the server's text, verbatim. */
struct pr_msg_env_server {
    char *version;                   /* "ver" VERSION(), <= PR_MSG_HOST_MAX */
    char *version_comment;           /* "com" @@version_comment, <= PR_MSG_HOST_MAX */
    struct pr_msg_opt *vars;         /* "vars" [name, value] as SHOW GLOBAL VARIABLES gives */
    uint32_t n_vars;                 /* <= PR_MSG_MAX_ENV_VARS */
    struct pr_msg_opt *unread;       /* "unread" [name, reason] */
    uint32_t n_unread;               /* <= PR_MSG_MAX_ENV_VARS */
    char *schema;                    /* "schema" the database under test (PLAN.db) */
    struct pr_msg_env_table *tables; /* "tabs" its base tables by name, at most
                                        PR_MSG_MAX_ENV_TABS of them */
    uint32_t n_tables;               /* <= PR_MSG_MAX_ENV_TABS */
    uint32_t table_count;            /* "tcount" all its base tables (tabs may be cut) */
    uint64_t rows;                   /* "rows" totals over all of them */
    uint64_t data_bytes;             /* "data" */
    uint64_t index_bytes;            /* "idx" */
};

/* READY.env (opt): the agent's host and build, and (lead) the server. Wire:
 * map; every key but "srv" required. A fact that could not be read is
 * named in unread with the reason and its value is "" or 0. */
struct pr_msg_env {
    char *hostname;                  /* "host" gethostname(), <= PR_MSG_HOST_MAX */
    char *kernel;                    /* "kern" uname: "Linux 6.1.0-18-amd64 x86_64",
                                        <= PR_MSG_HOST_MAX */
    char *cpu_model;                 /* "cpu" /proc/cpuinfo model name, <= PR_MSG_HOST_MAX */
    uint32_t cores;                  /* "cores" online CPUs */
    uint64_t memory_bytes;           /* "mem" physical memory (MemTotal) */
    char *connector;                 /* "cc" mysql_get_client_info(), <= PR_MSG_NAME_MAX */
    char *version;                   /* "ver" STAMPEDE_VERSION, <= PR_MSG_NAME_MAX */
    char *git_commit;                /* "git" commit built from, "unknown", <= PR_MSG_NAME_MAX */
    struct pr_msg_opt *unread;       /* "unread" [fact, reason]: "cpu_model", ... */
    uint32_t n_unread;               /* <= PR_MSG_MAX_ENV_VARS */
    struct pr_msg_env_server server; /* "srv" (opt) lead only */
    bool has_server;                 /* "srv" is present */
};

/* READY, agent -> coordinator: pool open, statements prepared.
 *
 * srv, the server cross-check baseline (docs/design.md §7.5): the lead agent
 * (PLAN.lead) sends the same SHOW GLOBAL STATUS sample as STATS.srv, taken
 * at the very end of setup (pool open, statements prepared), just before
 * READY; other agents leave it empty. The lead's last STATS of a run (the
 * tail after the stop) always comes and carries a sample taken once its own
 * connections have closed and no other session of PLAN.user is left on the
 * server (the other agents' pools and probes close when their runs end;
 * the lead waits for that up to 6 s, so a session of that user that is not
 * an agent's only delays it), so for the whole run
 *   delta(name) = last STATS.srv[name] - READY.srv[name]
 * and, summed over every agent's DONE.ctr,
 *   delta(Com_select) + delta(Com_insert) + delta(Com_update)
 *     + delta(Com_delete) + delta(Com_begin) + delta(Com_commit)
 *   == reads + writes + other + errors
 * in both --db-ps-mode=auto and disable: the server counts a prepared
 * statement's execution under its own Com_<kind> as well as under
 * Com_stmt_execute, and counts an ignored error's failed statement as the
 * client does. With --db-ps-mode=auto, workloads whose statements are all
 * prepared (every oltp_* but oltp_insert, and select_random_*) also give
 *   delta(Com_stmt_execute) == reads + writes + other + errors.
 * The tpcc family (COMMIT and ROLLBACK are text statements under its
 * kinds, families/tpcc/proto/pr_tc_opts.h) is checked by its own formula instead,
 *   delta(Com_commit) + delta(Com_rollback)
 *     == commit + rollback + retry_rollback (count + errors)
 * (families/tpcc/coordinator/co_tc_fmt.h).
 * The lead's own SHOW GLOBAL STATUS and SHOW PROCESSLIST count only under
 * Com_show_status, Com_show_processlist and Questions, which the formulas
 * leave out; agents run nothing else before START (the lead's environment
 * reads for READY.env come before the baseline sample). Exact when the only clients
 * of the server are the agents, DONE.code is 0 for every agent (a fatal
 * error's statement reached the server, not the counters), no agent
 * reconnected (a lost connection may lose a statement the server
 * counted) and the stop let in-flight events finish (no lease expiry, no
 * grace timeout). */
/* Per-kind figures (READY.kinds names the kinds; STATS.kst and DONE.kst
 * carry one entry per kind, in that order). Wire form: [count, errors,
 * lat, late] with lat pr_hist_pack()'s sparse form. */
struct pr_msg_kstat {
    uint64_t count;  /* statements (events) of the kind that succeeded */
    uint64_t errors; /* its failed statements (ignored errors) */
    /* of count, the events whose response time (retries included, in ns)
     * reached the kind's limit, counted as each ended (tpcc --rt-limits:
     * tpcc_start's lt, `rt < limit` being sc); 0 for a kind without one.
     * Exact whatever the limit, where the histogram is exact only at its
     * bucket boundaries. <= count (the decoder refuses more). */
    uint64_t late;
    pr_hist *lat; /* its latency, µs (required in each entry: lat or lat_frozen) */
    /* the same latency, frozen: what pr_msg_decode() fills instead of lat
     * (then NULL), read from the wire's sorted pairs without a 186 KB
     * histogram per kind, added with pr_hist_add_frozen() or
     * pr_hist_frozen_merge() at a cost proportional to its buckets. The
     * encoder takes either (lat first); pr_msg_clear() frees both. */
    pr_hist_frozen *lat_frozen;
};

struct pr_msg_ready {
    uint64_t plan_hash;      /* "hash" PLAN.plan_hash */
    uint64_t db_rtt_us;      /* "rtt" (opt) baseline DB round trip, µs */
    uint32_t conns;          /* "conns" connections actually open */
    struct pr_msg_stat *srv; /* "srv" (opt) lead: SHOW GLOBAL STATUS baseline */
    uint32_t n_srv;          /* <= PR_MSG_MAX_STATS */
    bool has_db_rtt;         /* "rtt" is present: false when every probe ping failed */
    char **kinds;            /* "kinds" (opt) the family's statement kinds (names), the
                                order of every STATS.kst / DONE.kst of the run */
    uint32_t n_kinds;        /* <= PR_MSG_MAX_KINDS */
    struct pr_msg_env env;   /* "env" (opt) environment (README "Environment") */
    bool has_env;            /* "env" is present: false from an agent before it */
};

/* START, coordinator -> agent. interval_ms >= 1. */
struct pr_msg_start {
    uint64_t t0_ns;       /* "t0" start instant, coordinator clock ns */
    uint32_t interval_ms; /* "ivl" report interval length */
};

/* STATS(k), agent -> coordinator, one per interval. cpu_pct >= 0.
 *
 * Sent at every interval boundary of a run and of a prepare, cleanup or
 * prewarm, plus a last one after the stop for the tail of the last
 * interval when it holds anything (the lead agent's always comes: see
 * READY). In prepare, cleanup and prewarm, each statement counts once:
 * an INSERT carrying rows as a write (rows adds its row count), one with
 * a result set as a read, any other (CREATE TABLE, CREATE INDEX, DROP,
 * SET) as other; transactions and lat stay 0 and empty. */
struct pr_msg_stats {
    uint64_t k;               /* "k" interval index */
    struct pr_counters ctr;   /* "ctr" map of PR_COUNTERS_FIELDS names */
    pr_hist *lat;             /* "lat" latency histogram (required) */
    pr_hist *svc;             /* "svc" (opt) service time, rate mode */
    double cpu_pct;           /* "cpu" user+sys over the interval, % of
                                 one core (may exceed 100) */
    uint64_t lag_max_us;      /* "lagmax" event loop lag, max */
    uint64_t lag_p99_us;      /* "lag99" event loop lag, p99 */
    uint64_t slip_us;         /* "slip" send slip (rate mode), max */
    struct pr_msg_stat *srv;  /* "srv" (opt) SHOW GLOBAL STATUS sample */
    uint32_t n_srv;           /* <= PR_MSG_MAX_STATS */
    uint64_t rows;            /* "rows" (opt) prepare: rows inserted over
                                 the interval, 0 otherwise */
    struct pr_msg_kstat *kst; /* "kst" (opt) per kind (READY.kinds order) */
    uint32_t n_kst;           /* 0 or READY.n_kinds, <= PR_MSG_MAX_KINDS */
    struct pr_msg_trx *trx;   /* "trx" (opt, absent when 0) the interval's recorded
                                 events (pr_msg_trx.h), owned */
    uint32_t n_trx;           /* <= PR_MSG_MAX_TRX */
    /* "lat" frozen: what pr_msg_decode() fills instead of lat (then NULL),
     * as for the kinds (pr_msg_kstat): read from the wire's sorted pairs,
     * no 186 KB histogram made per STATS. The encoder takes either (lat
     * first: lat or lat_frozen is required); pr_msg_clear() frees both.
     * pr_msg_lat.h reads whichever is there. */
    pr_hist_frozen *lat_frozen;
    uint64_t trx_lost; /* "trxlost" (opt, 0 when absent) records the interval
                          could not carry (more than PR_MSG_MAX_TRX) */
    /* "conns" (opt) only in the STATS of an interval that ends a
     * --report-checkpoints window: each connection's figures from the
     * run's start to this interval's end (as DONE.conns), so the
     * checkpoint's threads fairness is measured per connection. */
    struct pr_msg_conn *conns;
    uint32_t n_conns; /* <= PR_MSG_MAX_CONNS */
};

/* DONE, agent -> coordinator: exact whole-run totals (for prepare, cleanup
 * and prewarm, the statement counts as in STATS and the rows loaded). The
 * agent's workers count them apart from the interval figures (a second set
 * of counters and histograms updated at record time), so the sum of a
 * run's STATS equalling DONE checks that no interval was lost or counted
 * twice on the way. */
struct pr_msg_done {
    struct pr_counters ctr;    /* "ctr" */
    pr_hist *lat;              /* "lat" whole-run latency (required) */
    uint64_t intervals;        /* "ivls" STATS messages sent */
    int32_t status;            /* "code" 0 or a negative PR_E / -errno code */
    char *reason;              /* "why" "" or why it ended, <= PR_MSG_TEXT_MAX */
    int64_t start_skew_us;     /* "skew" (opt) actual start - t0, µs (signed) */
    struct pr_msg_stat *kinds; /* "kinds" (opt) statements per kind */
    uint32_t n_kinds;          /* <= PR_MSG_MAX_STATS */
    uint64_t rows;             /* "rows" (opt) prepare: rows inserted in all,
                                  the sum of the STATS rows; 0 otherwise */
    bool has_start_skew;       /* "skew" is present: false when the workers never
                                  all started (stopped before t0, setup only) */
    pr_hist *svc;              /* "svc" (opt) whole-run service time, rate mode */
    struct pr_msg_kstat *kst;  /* "kst" (opt) whole-run per kind (READY.kinds order) */
    uint32_t n_kst;            /* 0 or READY.n_kinds, <= PR_MSG_MAX_KINDS */
    char **notes;              /* "notes" (opt) informational lines of a command's
                                  streams (tpcc check: conditions 10-12 after a run),
                                  each <= PR_MSG_TEXT_MAX */
    uint32_t n_notes;          /* <= PR_MSG_MAX_NOTES */
    int64_t end_us;            /* "end" (opt) a run's last event's end - t0, µs: the
                                  run's true end in the common epoch (summary time) */
    bool has_end;              /* "end" is present: a run with at least one event */
    uint64_t tally;            /* "tally" (opt) a run: transactions counted apart from
                                  every interval (issue 30 §3); has_tally */
    bool has_tally;
    struct pr_msg_conn *conns; /* "conns" (opt) a run: per connection, n_conns */
    uint32_t n_conns;          /* <= PR_MSG_MAX_CONNS */
};

/* ABORT, coordinator -> agent, or BYE either way. */
struct pr_msg_abort {
    char *reason; /* "why" <= PR_MSG_TEXT_MAX */
    bool now;     /* "now" (opt, ABORT only) stop at once: in-flight events are cut
                     off and counted as unfinished (--forced-shutdown), instead of
                     being let finish within the agent's stop grace */
};

/* HEARTBEAT, both ways every second. */
struct pr_msg_heartbeat {
    enum pr_agent_state state; /* "state" */
    uint64_t clock_ns;         /* "clk" sender's clock */
};

/* ERROR, agent -> coordinator (instead of READY, or during the run). */
struct pr_msg_error {
    int32_t code;                           /* "code" PR_E* or -errno */
    enum pr_phase phase;                    /* "phase" */
    uint32_t db_errno;                      /* "dberr" server errno, 0 if none */
    char sqlstate[PR_MSG_SQLSTATE_LEN + 1]; /* "sqlstate" 5 chars or "" */
    char *message;                          /* "msg" <= PR_MSG_TEXT_MAX */
    char *stmt_kind;                        /* "kind" "" or <= PR_MSG_NAME_MAX */
};

/* The envelope: header plus the body selected by type. */
struct pr_msg {
    uint32_t v;                  /* protocol version */
    enum pr_msg_type type;       /* selects the union member */
    char run[PR_RUN_ID_MAX + 1]; /* run id, "" before a run */
    uint64_t seq;                /* see "Resends" */
    union {
        struct pr_msg_hello hello;
        struct pr_msg_ping ping;
        struct pr_msg_pong pong;
        struct pr_msg_plan plan;
        struct pr_msg_ready ready;
        struct pr_msg_start start;
        struct pr_msg_stats stats;
        struct pr_msg_done done;
        struct pr_msg_abort abort; /* ABORT */
        struct pr_msg_heartbeat heartbeat;
        struct pr_msg_error error;
        struct pr_msg_abort bye; /* BYE: same shape as ABORT */
    } u;
};

/* Zero *m and set its header: v = PR_PROTO_VERSION, type, run (NULL = "",
 * truncated to PR_RUN_ID_MAX) and seq. The caller then fills m->u.<type>. */
void pr_msg_init(struct pr_msg *m, enum pr_msg_type type, const char *run, uint64_t seq);

/* The PONG answering ping: its id and clock echoed, peer_clock_ns = now_ns
 * (the answerer's pr_clock_now_ns()); see pr_clock.h for the offset the
 * pinger derives from it. */
void pr_msg_init_pong(struct pr_msg *reply, const struct pr_msg_ping *ping, uint64_t now_ns);

/* Encode m and append it to sb (initialized by the caller). Returns 0, or a
 * negative code with err filled (when not NULL) and sb left as it was:
 * PR_EINVAL (unknown type, NULL required histogram or array, bad sqlstate
 * or key), PR_EVERSION (m->v is not PR_PROTO_VERSION), PR_ETOO_BIG (a
 * limit above), PR_ERANGE (enum out of range, non-finite float, a failed
 * cross-field check), -ENOMEM, or a pr_hist_pack() code. m is only read. */
int pr_msg_encode(const struct pr_msg *m, msgpack_sbuffer *sb, struct pr_error *err);

/* Decode exactly one message from buf[0..len) into *m, which is overwritten
 * (not freed: clear it first if it held a decoded message). Returns 0 or a
 * negative code with err filled (see the file comment). On any return the
 * caller calls pr_msg_clear(m) when done; on failure m holds nothing except
 * after PR_EVERSION, when m->v, m->type (PR_MSG_NONE if unknown), m->run,
 * m->seq and, for HELLO, m->u.hello.name (or NULL) are filled best effort,
 * so the caller can say "agent X speaks protocol N". */
int pr_msg_decode(struct pr_msg *m, const void *buf, size_t len, struct pr_error *err);

/* Free everything a decoded m owns and zero it (type becomes PR_MSG_NONE).
 * Every string (PLAN.password and option values included) is overwritten
 * with explicit_bzero() before it is freed, so a password does not linger
 * in freed heap. Safe on a zeroed struct and twice in a row. */
void pr_msg_clear(struct pr_msg *m);

/* explicit_bzero() sb's bytes, then msgpack_sbuffer_destroy(sb): for every
 * buffer an encoded message was in (a PLAN's holds the password). */
void pr_msg_sbuffer_scrub(msgpack_sbuffer *sb);

/* Wire names: "HELLO"..., "prepare"..., "none"..., "idle"..., "gather"...;
 * "?" for out-of-range values. Static strings. */
const char *pr_msg_type_name(enum pr_msg_type type);
const char *pr_plan_cmd_name(enum pr_plan_cmd cmd);
const char *pr_partition_name(enum pr_partition part);
const char *pr_agent_state_name(enum pr_agent_state state);
const char *pr_phase_name(enum pr_phase phase);
const char *pr_rate_mode_name(enum pr_rate_mode mode);

/* Hash of a plan's content: FNV-1a 64 over its canonical encoding with
 * plan_hash, run and seq left out, so the coordinator can fill plan_hash
 * with it and an agent can recompute it from the PLAN it decoded. Returns
 * 0 with *hash set, or pr_msg_encode()'s error (the plan breaks a limit or
 * a cross-field check). Allocates a scratch buffer; not for hot paths. */
int pr_msg_plan_hash(const struct pr_msg_plan *plan, uint64_t *hash);

/* Check that plan->plan_hash is pr_msg_plan_hash() of the plan: 0, or
 * PR_EINVAL with err naming both hashes (the plan was altered, or comes
 * from an encoder that hashes differently), or pr_msg_plan_hash()'s error. */
int pr_msg_plan_verify(const struct pr_msg_plan *plan, struct pr_error *err);

/* Per-peer duplicate filter (see "Resends"). Zero-initialize. */
struct pr_seq_track {
    char run[PR_RUN_ID_MAX + 1]; /* run of the last accepted message */
    uint64_t last_seq;           /* highest accepted seq in that run, 0 = none */
};

/* True when m is new for this peer: its run differs from the tracked one
 * (the tracker moves to it) or its seq is above the last accepted (which
 * becomes seq). False for a resend or a stale message: drop it. */
bool pr_seq_accept(struct pr_seq_track *t, const struct pr_msg *m);

#endif
