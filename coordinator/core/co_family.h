/* co_family: the coordinator's side of a workload family (docs/design.md §8.1):
 * its option rules, its plan rules (which --partition fits) and its text
 * report. co_registry.c holds the one list; the merge (co_merge) and the
 * outputs name no family. */
#ifndef CO_FAMILY_H
#define CO_FAMILY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "co_family_summary.h"
#include "co_result.h"
#include "co_sbfmt.h"
#include "pr_err.h"
#include "pr_msg.h"

struct co_args;                 /* co_args.h */
struct co_rpt_family;           /* co_rpt_family.h */
typedef struct co_plan co_plan; /* co_plan.h */

/* Another tool's command line a family translated into stampede's
 * (co_family.argv_translate; tpcc: tpcc_load / tpcc_start). */
struct co_family_argv {
    int argc;          /* words in argv */
    char **argv;       /* NULL terminated, argv[0] "stampede"; owned through st */
    bool help;         /* the tool's --help: print usage, exit 0 */
    const char *usage; /* the tool's usage text (static), also after an error */
    void *st;          /* the family's, freed by free_fn */
    void (*free_fn)(struct co_family_argv *fa);
};

struct co_family {
    const char *name; /* "sysbench" */
    /* True when workload `name` belongs to the family. */
    bool (*has_workload)(const char *name);
    /* The family's option rules once every option is in: 0, or PR_EINVAL
     * with err naming the option (warnings go to a's list). It is the last
     * place that reads the family's own options by name: it keeps them
     * typed in a->fam_args when code after parsing needs them (tpcc:
     * co_tc_args.h); a->cfg is filled after it. */
    int (*check_options)(struct co_args *a, struct pr_error *err);
    /* Plan rule: why partition part cannot confine a's workload, or NULL. */
    const char *(*partition_unfit)(const struct co_args *a, enum pr_partition part);
    /* Optional: build every phase's PLANs into p (co_plan_family.h: phases,
     * names, msgs, rows_total) by the family's own rules; co_plan_new hashes
     * them. NULL: co_plan's sysbench rules. 0 or PR_EINVAL with err. */
    int (*plan)(co_plan *p, const struct co_args *a, const uint64_t *weights, uint64_t seed,
                struct pr_error *err);
    /* Optional: the line printed before a prepare/check/cleanup phase
     * starts (busy: agents with a plan in it; agent0: the first agent's
     * name). NULL: co_run's sysbench lines (tables, table_size). */
    void (*phase_line)(FILE *out, const struct co_args *a, const char *phase, uint32_t busy,
                       const char *agent0);
    /* Optional: text added after the option list of `stampede WORKLOAD
     * help` (defaults the family changes, other command lines), or NULL. */
    const char *help_text;
    /* Optional: the title of the per-kind latency table (co_kinds_out_text)
     * when the family's kinds are not all statements, or NULL for
     * "Latency by statement (ms):". */
    const char *kinds_title;
    /* Optional: the family's own live lines and summary; NULL: sysbench's
     * text format (co_sbfmt). */
    const struct co_family_summary *summary;

    /* Script families (a WORKLOAD word names a file the family loads; the
     * Lua family, co_lua_family.c). Every op below is optional; the
     * generic code calls it only when set and names no family. */
    /* Claim the WORKLOAD word w before the built-in names are looked up
     * (c: the command word, or NULL): 1 claimed (a->workload and
     * a->fam_args set, a->fam_args_free to free it), 0 not the family's
     * word, PR_EINVAL with err (a named script that cannot load). */
    int (*parse_word)(struct co_args *a, const char *w, const char *c, struct pr_error *err);
    /* The family's own option `name` (general: a general stampede option
     * of that name exists): 1 the family's (*canon its spelling, passed
     * through, borrowed), 0 a general option, PR_EINVAL with err. */
    int (*option)(const struct co_args *a, const char *name, const char *value, bool general,
                  const char **canon, struct pr_error *err);
    /* The command word the family's state was loaded for when it is none
     * of stampede's (it runs as PR_CMD_CHECK does), else NULL. Borrowed. */
    const char *(*custom_command)(const struct co_args *a);
    /* Whether a command other than run runs in every thread (planned as a
     * run is), rather than once. */
    bool (*cmd_parallel)(const struct co_args *a);
    /* `stampede WORKLOAD help`: the text in place of the option list, or
     * NULL. Caller frees. */
    char *(*usage)(const struct co_args *a);
    /* Put the family's payload into every PLAN pl (after the options). */
    void (*plan_fill)(const struct co_args *a, struct pr_msg_plan *pl);
    /* An interval line is due (co_live, not in --report-format=sysbench):
     * 1 when the family printed its own in place of the default line, 0
     * or -1 (said on stderr) for the default line. */
    int (*live_line)(const struct co_args *a, const struct co_sbfmt_interval *v,
                     uint32_t percentile);
    /* Before a run's agents get their PLANs, target the first agent's
     * (its servers and login): 0, or negative with err (the run fails). */
    int (*before_run)(const struct co_args *a, const struct pr_msg_plan *target,
                      struct pr_error *err);
    /* After sysbench's summary (co_summary_print_final) of a run: 0,
     * or negative when it failed (said on stderr; the run's exit status is
     * then 1, its results kept). */
    int (*summary_after)(const struct co_args *a, const struct co_result *res,
                         const struct pr_msg_plan *target);

    /* Optional: translate argv when it is another tool's command line
     * (argv[0]'s name): 1 translated (*out filled; free with
     * co_family_argv_free), 0 not the family's tool (*out zeroed),
     * PR_EINVAL with err (out->usage set, *out still to be freed). */
    int (*argv_translate)(int argc, char **argv, struct co_family_argv *out, struct pr_error *err);

    /* Optional: a capacity search (--find-capacity, co_capacity.h) in the
     * family's terms. capacity_slo: its SLO when --slo is not given, as
     * --slo would say it (caller frees); NULL: --slo is required.
     * capacity_warmup_opt: the option that gives a step's warm-up before
     * its --time (tpcc: "warmup-time"); NULL: --warmup, inside --time. */
    char *(*capacity_slo)(const struct co_args *a);
    const char *capacity_warmup_opt;

    /* Optional: the report tool's ops (co_rpt_family.h), or NULL. */
    const struct co_rpt_family *rpt;
};

/* The i-th family of the registry (0, 1, ...), NULL past the last. */
const struct co_family *co_registry_at(size_t i);

/* Offer argv to every family's argv_translate, in registry order: the
 * first non-zero answer, or 0 (out zeroed). */
int co_registry_argv_translate(int argc, char **argv, struct co_family_argv *out,
                               struct pr_error *err);

/* Free what fa holds and zero it. Safe twice. */
void co_family_argv_free(struct co_family_argv *fa);

/* Offer the WORKLOAD word w to every family's parse_word, in registry
 * order: the first non-zero answer, or 0 when none claims it. */
int co_registry_parse_word(struct co_args *a, const char *w, const char *c, struct pr_error *err);

/* The family of workload `name`, or NULL. */
const struct co_family *co_registry_find(const char *name);

/* The families, in families/meson.build's order (the claim order), NULL
 * at the end: generated by families/gen_registry.py (co_families.c). */
extern const struct co_family *const co_families[];

#endif
