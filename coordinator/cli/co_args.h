/* co_args: the stampede command line, sysbench 1.0.20 style.
 *
 *   stampede [options] WORKLOAD prepare|run|cleanup|prewarm|help [options]
 *   stampede keygen DIR [NAME]
 *   stampede --help | --version
 *
 * Options may come before or after WORKLOAD and the command; '-' and '_' are
 * interchangeable in names; values are "--name=value" (a bare "--name" is a
 * boolean on). Every sysbench option (general, rand, mysql driver and the
 * workload's own, pr_opts.h) is accepted with sysbench's defaults;
 * deprecated aliases are accepted and listed in warnings. --config-file=FILE
 * reads one option per line ("name=value" or "--name=value", '#' comments),
 * given before the command line's options, which override it.
 *
 * stampede's own options (not passed to agents):
 *   --agents=N               agents to use (default 1)
 *   --listen=tcp://ADDR:PORT wait for N remote agents there (default: spawn
 *                            N local agents on a private ipc endpoint)
 *   --agent-wait=SECONDS     how long to wait for the agents (default 30)
 *   --agent-weights=NAME=W,... relative shares (integers), default equal
 *   --agent-bin=PATH         local agent executable (default: stampede-agent
 *                            beside this executable, then $PATH)
 *   --agent-workers=N        event loops per local agent (0 = cores)
 *   --partition=none|tables|rows|warehouses  (default none; warehouses: tpcc)
 *   --on-agent-loss=abort|continue (default abort)
 *   --json=FILE --csv=FILE --hdr-log=FILE
 *   --secret-key-file=FILE   coordinator CURVE secret key (Z85, first line)
 *   --authorized-keys=FILE   agent public keys admitted, one per line
 *   --plaintext              no CURVE (only with a loopback --listen)
 *   --grace-ms=MS            how long after a boundary a line waits for late
 *                            agents (default 5000: co__live_grace_ms)
 *
 * The database password: --mysql-password (a warning says to prefer the
 * others), MYSQL_PWD, or --mysql-password-file=FILE (first line). MYSQL_PWD
 * is the default; the option and the file override it, the later of the two
 * winning. A password in a --config-file gives no warning.
 *
 * An unknown option is PR_EINVAL for every workload (bulk_insert too, which
 * sysbench runs in legacy mode), naming the closest known option. sysbench
 * options stampede does not implement (co__refused_opts; none today) are
 * refused when set, the --mysql-ssl* options must make sense together
 * (pr_ssl_check_opts); --report-checkpoints is parsed into checkpoints.
 *
 * Rules checked here (PR_EINVAL): --listen needs --secret-key-file and
 * --authorized-keys unless --plaintext; --plaintext with a tcp --listen
 * needs a literal loopback address (pr_endpoint.h: 127.x or ::1; a name,
 * "localhost" included, is refused) and no key options;
 * --histogram with --percentile=0 (sysbench's rule). A "--name VALUE" with
 * a space is refused with a hint (sysbench needs "--name=VALUE" too).
 * Warnings (not errors): deprecated aliases, --mysql-password, a password
 * file readable by others, run with --time=0 --events=0 (sysbench's
 * "Both event and time limits are disabled, running an endless test"), key
 * options without --listen, --agent-bin/--agent-workers with --listen.
 *
 * Thread: none of its own. Nothing here prints: errors come back in err.
 */
#ifndef CO_ARGS_H
#define CO_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "co_threshold.h"
#include "co_warmcut.h"
#include "pr_err.h"
#include "pr_msg.h"
#include "pr_opts.h"

/* What the user asked for. */
enum co_action {
    CO_ACTION_COMMAND, /* WORKLOAD prepare|run|cleanup|prewarm */
    CO_ACTION_HELP,    /* --help, or no arguments */
    CO_ACTION_VERSION, /* --version */
    CO_ACTION_WL_HELP, /* WORKLOAD help: the workload's options */
    CO_ACTION_KEYGEN,  /* keygen DIR [NAME] */
};

enum co_on_loss { CO_LOSS_ABORT, CO_LOSS_CONTINUE };
/* --report-format: stampede (default: sysbench's report with stampede's
 * banner, interval markers and its own section after it) or sysbench (stdout
 * is only sysbench 1.0.20's lines; the stampede section goes to --json). */
enum co_report_format { CO_REPORT_FORMAT_STAMPEDE, CO_REPORT_FORMAT_SYSBENCH };

#define CO_ARGS_MAX_WEIGHTS 1024

/* One --agent-weights entry. */
struct co_weight {
    char *name;     /* agent name */
    uint64_t value; /* relative share, >= 0 */
};

/* The general sysbench options the coordinator uses once the command line
 * is parsed, typed. co_args_parse fills it once from opts, after every rule
 * ran (a family's defaults included: tpcc's report-interval and mysql-db),
 * so that nothing after parsing reads an option by name. It is a member of
 * co_args, not loose fields, to keep sysbench's schema apart from
 * stampede's own options; a family's own options are the family's
 * (a->fam_args: tpcc's co_tc_args). opts stays the text behind the PLANs
 * and the JSON. A sweep (co_sweep) changes threads between its runs, here
 * and in opts. Strings are owned (co_args_clear frees them). */
struct co_config {
    uint32_t threads;           /* --threads, 1..1000000 (a sweep's point) */
    bool threads_set;           /* --threads given */
    uint64_t time_s;            /* --time, 0: no limit */
    uint64_t events;            /* --events, 0: no limit */
    uint64_t rate;              /* --rate, 0: unlimited */
    uint64_t report_interval_s; /* --report-interval, 0: no interval lines */
    uint32_t percentile;        /* --percentile, 0..100 */
    bool histogram;             /* --histogram */
    uint64_t seed;              /* --rand-seed, as the PLANs carry it */
    uint32_t verbosity;         /* --verbosity, 0..5 */
    bool forced_on;             /* --forced-shutdown in force (pr_opts_forced_shutdown_ms) */
    uint64_t forced_ms;         /* then: its delay after --time */
    uint32_t tables;            /* --tables (sysbench scripts; co_plan's default rules) */
    uint64_t table_size;        /* --table_size (idem) */
    char *mysql_host;           /* --mysql-host, comma separated */
    char *mysql_port;           /* --mysql-port, comma separated */
    char *mysql_socket;         /* --mysql-socket, NULL when not given */
    char *mysql_user;           /* --mysql-user */
    char *mysql_db;             /* --mysql-db */
    bool mysql_dry_run;         /* --mysql-dry-run */
};

/* The parsed command line. Strings are owned (co_args_clear frees them). */
struct co_args {
    enum co_action action;
    char *workload;            /* canonical workload name (COMMAND, WL_HELP) */
    int wl;                    /* pr_workload id, -1 when none */
    enum pr_plan_cmd cmd;      /* COMMAND */
    pr_opts *opts;             /* every sysbench option, defaults filled; owned; never
                                  NULL after a successful parse. mysql-password is left
                                  at its default: the password is only in .password */
    struct co_config cfg;      /* opts' general options, typed (filled with opts) */
    char *keygen_dir;          /* KEYGEN */
    char *keygen_name;         /* KEYGEN, default "stampede" */
    uint32_t agents;           /* --agents, >= 1 */
    char *listen;              /* --listen, NULL: spawn local agents */
    uint32_t agent_wait_s;     /* --agent-wait */
    struct co_weight *weights; /* --agent-weights, n_weights entries */
    uint32_t n_weights;
    char *agent_bin;                     /* --agent-bin, NULL: default */
    uint32_t agent_workers;              /* --agent-workers */
    enum pr_partition part;              /* --partition */
    enum co_on_loss on_loss;             /* --on-agent-loss */
    enum co_report_format report_format; /* --report-format */
    enum pr_rate_mode rate_mode;         /* --rate-mode (stampede's own; sysbench is Poisson) */
    char *json_path;                     /* --json, NULL when unset */
    struct co_threshold *thresholds;     /* --threshold, in the order given (co_threshold.h) */
    uint32_t n_thresholds;
    uint32_t abort_on_threshold_s; /* --abort-on-threshold: judged live from then on; 0: off */
    struct co_warmup_opt warmup;   /* --warmup: the start left out of the totals (co_warmcut.h) */
    char *csv_path;                /* --csv */
    char *csv_kinds_path;          /* --csv-kinds: per statement kind (co_kinds_out.h) */
    char *hdr_log_path;            /* --hdr-log */
    char *prometheus;              /* --prometheus HOST:PORT, NULL: off */
    uint32_t prometheus_linger_s;  /* --prometheus-linger */
    char *secret_key_file;         /* --secret-key-file */
    char *authorized_keys;         /* --authorized-keys */
    bool plaintext;                /* --plaintext */
    uint32_t grace_ms;             /* --grace-ms, 0: default rule */
    char *password;                /* resolved DB password ("" when none); never printed */
    char *warnings;                /* lines "WARNING: ...\n" to print as they are, "" when
                                      none */
    char **passthrough;            /* "name=value" of every option given explicitly (sysbench
                                      and workload options only, canonical names, password
                                      excluded), plus the defaults a family resolves for
                                      its agents (co_args_set_default; tpcc:
                                      mysql-db, mysql-ignore-errors, report-interval),
                                      in order of first appearance (a repeated
                                      option keeps its slot with the last value; an unknown
                                      option never gets here): sent to agents in
                                      PLAN.opts */
    uint32_t n_passthrough;
    uint32_t n_passthrough_given; /* the first n_passthrough_given entries were given by the
                                     user; the rest are a family's defaults (co_family
                                     check_options), e.g. tpcc's mysql-db=tpcc */
    bool defaults_added;          /* a family default is in passthrough */
    uint32_t *checkpoints;        /* --report-checkpoints in seconds, ascending, no duplicates;
                                     NULL when none */
    uint32_t n_checkpoints;       /* at most 256 (pr_opts's bound) */

    uint32_t *sweep_threads;  /* --threads=A,B,...: the sweep's points (co_sweep.h), NULL
                                 for a single --threads; --threads itself holds the first */
    uint32_t n_sweep_threads; /* entries of sweep_threads */
    uint32_t repeat;          /* --repeat, runs per point; 0 when not given (one) */
    uint32_t sweep_pause_s;   /* --sweep-pause, seconds between a sweep's runs */

    /* run --find-capacity (co_capacity.h): the highest open-loop rate that
     * meets the SLO, a trial run a step. 0: the option's default. */
    bool find_capacity;           /* --find-capacity */
    char *slo;                    /* --slo, threshold expressions joined by ','; NULL: none */
    uint32_t capacity_start;      /* --capacity-start, events/s */
    uint32_t capacity_trial_s;    /* --capacity-trial, measured seconds a step */
    uint32_t capacity_warmup_s;   /* --capacity-warmup, seconds left out before them */
    double capacity_precision;    /* --capacity-precision, percent */
    uint32_t capacity_max_trials; /* --capacity-max-trials */
    char *capacity_dir;           /* --capacity-dir, the steps' files; NULL: "capacity" */

    /* A family's state from the WORKLOAD word (co_family.h parse_word: the
     * Lua family's script, co_lua.h) or its typed options (check_options:
     * tpcc's co_tc_args.h), freed by fam_args_free; else NULL. */
    void *fam_args;
    void (*fam_args_free)(void *fam_args);
    bool script_forced; /* --lua: a built-in WORKLOAD name runs its script (parse_word) */
};

/* Parse argv (argv[0] skipped) into *a (overwritten). Returns 0, or
 * PR_EINVAL with err naming the option or word and what to do (exit code 2
 * for the caller); *a is then cleared. env_password is MYSQL_PWD's value or
 * NULL (passed in so tests need not touch the environment). */
int co_args_parse(struct co_args *a, int argc, char **argv, const char *env_password,
                  struct pr_error *err);

/* Free what a owns (scrubbing the password) and zero it. Safe twice. */
void co_args_clear(struct co_args *a);

/* The --help text (general, stampede and mysql options with defaults).
 * Caller frees. */
char *co_args_usage(void);

/* "WORKLOAD help": the workload's own options with defaults, as sysbench
 * prints them after its version banner (the banner is not included).
 * Caller frees; NULL for an unknown workload. */
char *co_args_workload_usage(const char *workload);

/* For a family's check_options (co_family.h), the option rules it may
 * share with the core. */

/* Append "WARNING: <fmt...>\n" to a->warnings unless already there: a
 * warning about the options, printed before the run. */
void co_args_warn(struct co_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A family's default for option name (canonical) when the user did not
 * give it: set in a->opts and added to a->passthrough, so the agents get it
 * in PLAN.opts and the JSON lists it (tpcc: --mysql-db=tpcc). No effect
 * when given. 0 or PR_EINVAL (a bad value: programmer error). */
int co_args_set_default(struct co_args *a, const char *name, const char *value,
                        struct pr_error *err);

/* The sysbench options stampede accepts without implementing them
 * (co_args_unsup.c; --help marks them), for a family whose options include
 * sysbench's general ones. co_args_refuse_unsupported: PR_EINVAL with err
 * when one that would change what a run does is set (none today), else 0.
 * co_args_warn_no_effect: a warning for each cosmetic one that is set. */
int co_args_refuse_unsupported(const struct co_args *a, struct pr_error *err);
void co_args_warn_no_effect(struct co_args *a);

/* Local agents (no --listen) per online core: each is a process with its
 * own loops and connections; more are refused (co__args_check). */
#define CO_LOCAL_AGENTS_PER_CORE 32

#endif
