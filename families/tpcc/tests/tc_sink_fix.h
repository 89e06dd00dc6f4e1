/* tc_sink_fix.h: the sink the tpcc loader tests hand to ag_tc_loads
 * (families/tpcc/agent/ag_tc_load.h): it keeps each piece with its destroy
 * function, in order, and frees them all. TC_SINK_CAP, defined before the
 * include, bounds it (default 64); a test that overflows it exits 1. */
#ifndef TC_SINK_FIX_H
#define TC_SINK_FIX_H

#include <stdio.h>
#include <stdlib.h>

#include "ag_tc_load.h"

#ifndef TC_SINK_CAP
#define TC_SINK_CAP 64
#endif

struct sink {
    struct ag_piece p[TC_SINK_CAP];
    void (*destroy[TC_SINK_CAP])(void *);
    size_t n;
};

static void sink_add(void *ctx, struct ag_piece piece, void (*destroy)(void *it))
{
    struct sink *s = ctx;
    if (s->n == TC_SINK_CAP) {
        fprintf(stderr, "tc_sink_fix: more than %d streams\n", TC_SINK_CAP);
        exit(1);
    }
    s->p[s->n] = piece;
    s->destroy[s->n++] = destroy;
}

static void sink_free(struct sink *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->destroy[i])
            s->destroy[i](s->p[i].it);
    s->n = 0;
}

#endif
