/* co_live_fixture: a two-agent run for driving co_live as co_run does
 * (co__live_stats, co__live_flush), with a real co_merge and no fleet:
 * the tests move t0 instead of the clock. Shared by test_co_live_late and
 * test_co_live_cp. */
#ifndef CO_LIVE_FIXTURE_H
#define CO_LIVE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "co_args.h"
#include "co_merge.h"
#include "co_result.h"
#include "co_run_int.h"
#include "co_stream.h"

struct co_live_fixture {
    struct co_args args;
    struct co_result res;
    struct run r;
    char *out_buf;
    size_t out_len;
};

/* Parse argv (argc entries, NULL-terminated) as the coordinator's command
 * line and set up two agents of one connection each at 1 s intervals.
 * Returns 0, or -1 (with the parse error on stderr). */
static inline int co_live_fixture_init(struct co_live_fixture *f, int argc, char **argv)
{
    struct pr_error err = {0};
    uint32_t threads[2] = {1, 1};

    if (co_args_parse(&f->args, argc, argv, NULL, &err) != 0) {
        fprintf(stderr, "co_args_parse: %s\n", err.msg);
        return -1;
    }
    f->res = (struct co_result){.n_agents = 2};
    f->res.agents = pr_xcalloc(3, sizeof(*f->res.agents));
    f->res.agents[0].threads = f->res.agents[1].threads = 1;
    f->r = (struct run){.a = &f->args, .res = &f->res, .n = 2, .interval_ms = 1000};
    f->r.agents = pr_xcalloc(2, sizeof(*f->r.agents));
    f->out_buf = NULL;
    f->out_len = 0;
    f->r.out = open_memstream(&f->out_buf, &f->out_len);
    f->r.merge = co_merge_new(2, threads, 1000, false);
    return 0;
}

static inline void co_live_fixture_clear(struct co_live_fixture *f)
{
    struct run *r = &f->r;

    co_stream_destroy(&r->stream);
    co_merge_destroy(&r->merge);
    for (uint32_t i = 0; i < r->n; i++) {
        pr_hist_acc_destroy(&r->agents[i].lat_acc);
        for (uint32_t j = 0; j < r->agents[i].n_cp_snaps; j++)
            free(r->agents[i].cp_snaps[j].conns);
        free(r->agents[i].cp_snaps);
    }
    free(r->agents);
    pr_hist_destroy(&r->scratch);
    pr_hist_destroy(&r->tot_lat);
    pr_hist_destroy(&r->cp_lat);
    free(r->srv_qps);
    co_result_clear(&f->res);
    co_args_clear(&f->args);
    fclose(r->out);
    free(f->out_buf);
}

#endif
