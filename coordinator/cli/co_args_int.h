/* co_args_int: what co_args.c shares with co_usage.c (the help texts),
 * co_args_unsup.c (the options stampede does not implement) and
 * co_args_sweep.c (the sweep options). Internal to the coordinator. */
#ifndef CO_ARGS_INT_H
#define CO_ARGS_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "co_args.h"

/* One of stampede's own options: its setter gets the value (NULL when bare). */
struct co__own_opt {
    const char *name; /* canonical, '-' separated */
    const char *arg;  /* how --help shows the value: "=N", "[=on|off]" */
    const char *def;  /* default shown by --help, NULL for none */
    const char *help; /* --help text */
    int (*set)(struct co_args *a, const char *name, const char *v, struct pr_error *err);
};

/* sysbench options stampede refuses when set (TLS, compression: a later
 * connection layer) and those it accepts with no effect; NULL terminated
 * (co_args_unsup.c). --help marks them. */
extern const char *const co__refused_opts[];
extern const char *const co__no_effect_opts[];

/* co_args_num.c. A strict decimal in lo..hi (no sign, no spaces, nothing
 * after it) into *out, or PR_EINVAL with err naming --name, the value and
 * the range; v NULL is "a value is required". */
int co__args_uint(const char *name, const char *v, uint64_t lo, uint64_t hi, uint64_t *out,
                  struct pr_error *err);
int co__args_u32(const char *name, const char *v, uint32_t lo, uint32_t hi, uint32_t *out,
                 struct pr_error *err);
/* 0 when v is a non-empty text, else PR_EINVAL "--name: a value is required". */
int co__args_need_text(const char *name, const char *v, struct pr_error *err);

/* co_args_warn with a va_list. */
void co__args_vwarn(struct co_args *a, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* co_args_sweep.c, the sweep options (co_sweep): --repeat=N (1..10000)
 * and --sweep-pause=S (0..86400), setters for the own options' table. 0 or
 * PR_EINVAL. */
int co__args_sweep_repeat(struct co_args *a, const char *name, const char *v, struct pr_error *err);
int co__args_sweep_pause(struct co_args *a, const char *name, const char *v, struct pr_error *err);

/* co_args_capacity.c, the capacity search's options (co_capacity.h): the
 * setter of every --find-capacity, --slo and --capacity-* option (by
 * name), and their rules once all options are applied. 0 or PR_EINVAL. */
int co__args_capacity(struct co_args *a, const char *name, const char *v, struct pr_error *err);
int co__args_capacity_check(const struct co_args *a, struct pr_error *err);

/* For --threads/--num-threads with a comma list in *value: store the points
 * in a->sweep_threads and point *value at the first (copied into first, of
 * first_len bytes). Any other option is left alone. 0 or PR_EINVAL. */
int co__args_sweep_threads(struct co_args *a, const char *name, const char **value, char *first,
                           size_t first_len, struct pr_error *err);

/* a->cfg from a->opts (co_config.c), once every rule ran; co__config_clear
 * frees its strings. */
void co__config_fill(struct co_args *a);
void co__config_clear(struct co_config *c);

/* stampede's own options, for --help. Static table; *n set. */
const struct co__own_opt *co__args_own_opts(size_t *n);

/* What co_args.c's first pass over argv finds: the words and the early
 * options. */
struct co__args_scan {
    int pos[4];              /* argv indexes of positional words (first 4) */
    int npos;                /* how many positional words */
    int nopts;               /* how many options besides help/version */
    bool help, version;      /* --help / --version given (and on) */
    const char *config_file; /* last --config-file value */
};

/* keygen DIR [NAME] (argv[s->pos[0]] is "keygen"). 0 or PR_EINVAL. */
int co__args_parse_keygen(struct co_args *a, char **argv, const struct co__args_scan *s,
                          struct pr_error *err);

/* WORKLOAD and command from the positional words: a->wl, a->workload,
 * a->cmd / a->action, a->lua for a script. 0 or PR_EINVAL with err. */
int co__args_parse_words(struct co_args *a, char **argv, const struct co__args_scan *s,
                         struct pr_error *err);

/* The rules between options once all are in (the family's own checks,
 * keys and --listen, --partition fit); warnings into a->warnings. 0 or
 * PR_EINVAL with err. */
int co__args_check(struct co_args *a, struct pr_error *err);

#endif
