/* co_args_int: what co_args.c shares with co_usage.c (the help texts).
 * Internal to the coordinator. */
#ifndef CO_ARGS_INT_H
#define CO_ARGS_INT_H

#include <stddef.h>

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
 * connection layer) and those it accepts with no effect; NULL terminated.
 * --help marks them. */
extern const char *const co__refused_opts[];
extern const char *const co__no_effect_opts[];

/* stampede's own options, for --help. Static table; *n set. */
const struct co__own_opt *co__args_own_opts(size_t *n);

#endif
