/* co_result: the run's figures as plain data (see co_result.h). */
#include "co_result.h"

#include <stdlib.h>
#include <string.h>

#include "co_env.h"
#include "co_family_summary.h"

static void free_strv(char **v, uint32_t n)
{
    if (v == NULL)
        return;
    for (uint32_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void clear_agent(struct co_agent_result *a)
{
    free(a->name);
    free(a->host);
    free(a->region);
    free(a->reason);
    for (uint32_t i = 0; i < a->n_notes; i++)
        free(a->notes[i]);
    free(a->notes);
    pr_hist_destroy(&a->lat);
    free(a->conns);
    a->conns = NULL;
    a->n_conns = 0;
    free(a->cp_conns);
    a->cp_conns = NULL;
    a->n_cp_conns = 0;
    pr_hist_destroy(&a->svc);
}

/* agent_lat has n_agents entries (co_result.h). */
static void clear_interval(struct co_interval_result *iv, uint32_t n_agents)
{
    pr_hist_destroy(&iv->lat);
    pr_hist_frozen_destroy(&iv->lat_frozen);
    pr_hist_destroy(&iv->svc);
    pr_hist_frozen_destroy(&iv->svc_frozen);
    co_kinds_free(&iv->kinds, &iv->n_kinds);
    free(iv->srv_status);
    free(iv->agent_iv);
    if (iv->agent_lat != NULL) {
        for (uint32_t a = 0; a < n_agents; a++)
            pr_hist_destroy(&iv->agent_lat[a]);
        free(iv->agent_lat);
    }
    if (iv->agent_lat_frozen != NULL) {
        for (uint32_t a = 0; a < n_agents; a++)
            pr_hist_frozen_destroy(&iv->agent_lat_frozen[a]);
        free(iv->agent_lat_frozen);
    }
}

const pr_hist *co_interval_lat(const struct co_interval_result *iv, pr_hist *scratch)
{
    if (iv->lat != NULL)
        return iv->lat;
    if (iv->lat_frozen != NULL)
        pr_hist_thaw(scratch, iv->lat_frozen);
    else
        pr_hist_reset(scratch);
    return scratch;
}

const pr_hist *co_interval_svc(const struct co_interval_result *iv, pr_hist *scratch)
{
    if (iv->svc != NULL)
        return iv->svc;
    if (iv->svc_frozen == NULL)
        return NULL;
    pr_hist_thaw(scratch, iv->svc_frozen);
    return scratch;
}

const pr_hist *co_interval_agent_lat(const struct co_interval_result *iv, uint32_t a,
                                     pr_hist *scratch)
{
    if (iv->agent_lat != NULL && iv->agent_lat[a] != NULL)
        return iv->agent_lat[a];
    if (iv->agent_lat_frozen == NULL || iv->agent_lat_frozen[a] == NULL)
        return NULL;
    pr_hist_thaw(scratch, iv->agent_lat_frozen[a]);
    return scratch;
}

void co_result_clear(struct co_result *r)
{
    if (r == NULL)
        return;
    free(r->tool);
    free(r->version);
    free(r->workload);
    free(r->command);
    free_strv(r->opt_names, r->n_opts);
    free_strv(r->opt_values, r->n_opts);
    if (r->agents != NULL)
        for (uint32_t i = 0; i < r->n_agents; i++)
            clear_agent(&r->agents[i]);
    free(r->agents);
    if (r->intervals != NULL)
        for (uint32_t i = 0; i < r->n_intervals; i++)
            clear_interval(&r->intervals[i], r->n_agents);
    free(r->intervals);
    uint32_t nk = r->n_kinds;
    co_kinds_free(&r->kinds, &nk);
    free_strv(r->kind_names, r->n_kinds);
    pr_hist_destroy(&r->lat);
    pr_hist_destroy(&r->svc);
    if (r->server != NULL)
        for (uint32_t i = 0; i < r->n_server; i++)
            free(r->server[i].name);
    free(r->server);
    for (uint32_t i = 0; i < r->n_checkpoints; i++)
        pr_hist_destroy(&r->checkpoints[i].lat);
    free(r->checkpoints);
    pr_hist_destroy(&r->cp_late_lat);
    free(r->exit_reason);
    free(r->run_id);
    pr_hist_destroy(&r->since_cp_lat);
    co_env_destroy(&r->env);
    co_steady_series_clear(&r->steady_pts);
    co_warmcut_clear(&r->warmcut);
    free(r->thr);
    if (r->fam_summary != NULL && r->fam_state != NULL)
        r->fam_summary->destroy(r->fam_state);
    memset(r, 0, sizeof(*r));
}
