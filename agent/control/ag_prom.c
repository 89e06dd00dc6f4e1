/* ag_prom: the agent's own Prometheus endpoint, fed from the STATS it
 * sends, for fleets that scrape every host (contract: ag_prom.h). */
#include "ag_prom.h"

#include <stdbool.h>
#include <stdlib.h>

#include "pr_prom.h"

struct ag_prom {
    pr_prom *p;  /* the endpoint, one agent series: this agent */
    bool in_run; /* the current PLAN is a run command: its STATS are measured */
};

ag_prom *ag_prom_start(const char *hostport, const char *name, const char *log_prefix,
                       struct pr_error *err)
{
    struct pr_prom_info info = {"", "", "", STAMPEDE_VERSION, log_prefix};
    const char *names[1] = {name};
    pr_prom *p =
        pr_prom_start(hostport, "prometheus (agent.conf or --prometheus)", &info, 1, names, err);
    if (p == NULL)
        return NULL;
    ag_prom *a = pr_xcalloc(1, sizeof(*a));
    a->p = p;
    pr_prom_publish(p);
    return a;
}

void ag_prom_plan(ag_prom *p, const struct pr_msg_plan *plan, const char *run_id)
{
    if (p == NULL)
        return;
    p->in_run = plan->cmd == PR_CMD_RUN;
    if (!p->in_run)
        return;
    struct pr_prom_info info = {plan->workload, pr_plan_cmd_name(plan->cmd), run_id,
                                STAMPEDE_VERSION, NULL};
    pr_prom_new_run(p->p, &info);
    pr_prom_publish(p->p);
}

void ag_prom_msg(ag_prom *p, const struct pr_msg *m, int64_t clock_offset_ns)
{
    if (p == NULL || !p->in_run)
        return;
    switch (m->type) {
    case PR_MSG_READY:
        pr_prom_set_kinds(p->p, m->u.ready.kinds, m->u.ready.n_kinds);
        break;
    case PR_MSG_STATS:
        if (m->u.stats.lat == NULL && m->u.stats.lat_frozen == NULL)
            return;
        pr_prom_add_stats(p->p, 0, &m->u.stats);
        /* The metric is the agent's clock minus the coordinator's. */
        pr_prom_agent_state(p->p, 0, true, -clock_offset_ns);
        break;
    case PR_MSG_DONE:
        break;
    default:
        return;
    }
    pr_prom_publish(p->p);
}

void ag_prom_stop(ag_prom **pp)
{
    ag_prom *p = pp ? *pp : NULL;
    if (p == NULL)
        return;
    pr_prom_stop(&p->p);
    free(p);
    *pp = NULL;
}
