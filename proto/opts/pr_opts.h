/* pr_opts: sysbench 1.0.20's option schema and a parser for it.
 *
 * One const table describes every general, mysql-driver and OLTP script
 * option (name, type, default, help, which workloads declare it; the tpcc
 * family's rows come from pr_tc_opts.h), plus the
 * deprecated aliases (--num-threads, --max-requests, --max-time, --tx-rate).
 * Both the coordinator (command line) and the agent (PLAN key/values) parse
 * through it, so defaults and errors are identical on both sides. Pure data
 * and parsing: no mysql, no uv.
 *
 * Names: given with or without a leading "--"; '-' and '_' are
 * interchangeable. Booleans accept on/off/true/false/1/0 in any case (and a
 * bare "--name" means on): pr_parse.h's rules, the agent's too. Integers
 * accept a decimal or a floating literal with an integral value ("1e4").
 * Lists are comma separated.
 */
#ifndef PR_OPTS_H
#define PR_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pr_err.h"

enum pr_opt_type {
    PR_OPT_INT,    /* int64 */
    PR_OPT_DOUBLE, /* double */
    PR_OPT_BOOL,   /* on/off/true/false/1/0 */
    PR_OPT_STRING, /* any text */
    PR_OPT_LIST,   /* comma-separated text */
};

enum pr_opt_group {
    PR_OPT_GENERAL, /* sysbench general, rand, log, db options */
    PR_OPT_MYSQL,   /* mysql driver options */
    PR_OPT_SCRIPT,  /* Lua script options (workload specific) */
};

/* The workloads, as a bit index for pr_opt_def.workloads. */
enum pr_workload {
    PR_WL_OLTP_READ_WRITE,
    PR_WL_OLTP_READ_ONLY,
    PR_WL_OLTP_WRITE_ONLY,
    PR_WL_OLTP_POINT_SELECT,
    PR_WL_OLTP_UPDATE_INDEX,
    PR_WL_OLTP_UPDATE_NON_INDEX,
    PR_WL_OLTP_INSERT,
    PR_WL_OLTP_DELETE,
    PR_WL_SELECT_RANDOM_POINTS,
    PR_WL_SELECT_RANDOM_RANGES,
    PR_WL_BULK_INSERT,
    PR_WL_SB_LAST_ = PR_WL_BULK_INSERT, /* the sysbench family's are 0..PR_WL_SB_LAST_ */
    PR_WL_TPCC, /* the tpcc family (tpcc-mysql's TPC-C), not a sysbench script */
    PR_WL_COUNT_
};

/* One option of the schema. Plain const data. */
struct pr_opt_def {
    const char *name;        /* canonical spelling, as sysbench prints it */
    enum pr_opt_type type;   /* value type */
    enum pr_opt_group group; /* where sysbench declares it */
    const char *def;         /* default as text; NULL means unset (no default) */
    const char *help;        /* sysbench's help text */
    uint32_t workloads;      /* PR_OPT_SCRIPT: bit (1u << pr_workload) per declaring workload */
    const char *alias_of;    /* deprecated alias: the canonical name; else NULL */
};

/* The schema: n entries (aliases included). Static, thread-safe. */
const struct pr_opt_def *pr_opts_schema(size_t *n);

/* Workload id for a name ("oltp_read_write", or with a ".lua" suffix), or -1. */
int pr_workload_from_name(const char *name);

/* Canonical name of a workload id; NULL when out of range. Static string. */
const char *pr_workload_name(int wl);

/* Schema entry for a name (any spelling, with or without "--"; aliases are
 * returned as themselves); NULL when unknown. */
const struct pr_opt_def *pr_opts_find(const char *name);

/* Longest option name pr_opts_distance compares. */
#define PR_OPTS_NAME_MAX 64

/* Edit distance (insertions, deletions, substitutions) between a (alen
 * bytes) and the option name b, '-' and '_' equal; UINT32_MAX when either
 * is longer than PR_OPTS_NAME_MAX. */
unsigned pr_opts_distance(const char *a, size_t alen, const char *b);

/* The known option (canonical name; for an alias its target) of workload wl
 * (-1: general and mysql options only), or one of the n_extra names in extra
 * (the caller's own options; may be NULL when n_extra is 0), closest to name
 * (len bytes, no "--"), when it is within a typo's distance (a third of the
 * length, 1..3 edits); NULL otherwise. Returns a static schema string or an
 * extra[] pointer. */
const char *pr_opts_suggest(int wl, const char *name, size_t len, const char *const *extra,
                            size_t n_extra);

typedef struct pr_opts pr_opts; /* values of every option, defaults filled */

/* A value set for workload wl (a pr_workload id, or -1 for none: only general
 * and mysql options are then accepted). Every option starts at its default.
 * Caller owns the result. */
pr_opts *pr_opts_new(int wl);

/* Free *o and NULL it. */
void pr_opts_destroy(pr_opts **o);

/* Set one option from text. name: any spelling, with or without "--"; value
 * NULL means a bare flag (on for booleans, an error otherwise). A deprecated
 * alias sets its canonical option and marks pr_opts_deprecated(). Unknown
 * names, and script options this workload does not declare, are rejected
 * for every workload (sysbench's bulk_insert runs in legacy mode and would
 * take any --x=y; stampede does not, so a typo cannot pass unnoticed): the
 * error names the closest known option when one is near (pr_opts_suggest).
 * Returns 0, or PR_EINVAL with err naming the option and the problem. The
 * value set is unchanged on error. */
int pr_opts_set(pr_opts *o, const char *name, const char *value, struct pr_error *err);

/* Parse one argument "--name=value", "name=value" or "--name" (see
 * pr_opts_set). Returns 0 or PR_EINVAL with err filled. */
int pr_opts_parse_arg(pr_opts *o, const char *arg, struct pr_error *err);

/* Typed getters by canonical name (any spelling). Asserts the option exists
 * and has the right type (programmer error otherwise). Strings are borrowed
 * from o; "" for an unset string without default. */
int64_t pr_opts_int(const pr_opts *o, const char *name);
double pr_opts_double(const pr_opts *o, const char *name);
bool pr_opts_bool(const pr_opts *o, const char *name);
const char *pr_opts_str(const pr_opts *o, const char *name);

/* True when the option was given explicitly (not defaulted). */
bool pr_opts_is_set(const pr_opts *o, const char *name);

/* Names of the deprecated aliases used so far, comma separated ("" if none):
 * the caller prints a warning. Borrowed from o. */
const char *pr_opts_deprecated(const pr_opts *o);

/* --forced-shutdown in force: true with *ms, the delay after --time at
 * which a run still going is forced to end: N s, N% of --time, or 5% of it
 * for an empty value (sysbench 1.0.20; in ms, where sysbench rounds down to
 * whole seconds). False when "off", or with --time=0 (nothing to count
 * from; sysbench then ignores it too). */
bool pr_opts_forced_shutdown_ms(const pr_opts *o, uint64_t *ms);

/* --report-checkpoints parsed: *at (malloc'd, NULL when none) the
 * seconds, sorted ascending and deduplicated, as sysbench sorts them; *n
 * how many. Returns 0, or PR_EINVAL with err filled for an item that is not
 * a whole number of seconds. Coordinator (its reports) and agent (which
 * intervals carry STATS.conns) read it here. */
int pr_opts_checkpoints(const pr_opts *o, uint32_t **at, uint32_t *n, struct pr_error *err);

/* The interval (of interval_ms) at whose end the checkpoint at_s is taken:
 * the first report boundary at or after it. */
uint64_t pr_checkpoint_interval(uint32_t at_s, uint32_t interval_ms);

/* --mysql-ignore-errors parsed: "all", or a list of numeric codes; empty
 * text means none (every error fatal). */
#define PR_MAX_IGNORE_ERRORS 64
struct pr_ignore_errors {
    bool all;                             /* "all" given */
    uint32_t n;                           /* number of codes */
    uint32_t codes[PR_MAX_IGNORE_ERRORS]; /* the codes, in the order given */
};

/* Parse an --mysql-ignore-errors value. Returns 0 or PR_EINVAL (err names
 * the option and the bad item). */
int pr_ignore_errors_parse(const char *text, struct pr_ignore_errors *out, struct pr_error *err);

/* True when code is ignorable under ie. */
bool pr_ignore_errors_has(const struct pr_ignore_errors *ie, uint32_t code);

#endif
