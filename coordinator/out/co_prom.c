/* co_prom: the --prometheus endpoint (see co_prom.h): pr_prom's. */
#include "co_prom.h"

co_prom *co_prom_start(const char *hostport, const struct co_prom_info *info, uint32_t n_agents,
                       const char *const *names, struct pr_error *err)
{
    struct pr_prom_info pi = {info->workload, info->command, info->run_id, info->version,
                              info->log_prefix};
    return pr_prom_start(hostport, "--prometheus", &pi, n_agents, names, err);
}

void co_prom_add_stats(co_prom *p, uint32_t agent, const struct pr_msg_stats *st)
{
    pr_prom_add_stats(p, agent, st);
}

void co_prom_agent_state(co_prom *p, uint32_t agent, bool up, int64_t clock_offset_ns)
{
    pr_prom_agent_state(p, agent, up, clock_offset_ns);
}

void co_prom_set_kinds(co_prom *p, char *const *names, uint32_t n)
{
    pr_prom_set_kinds(p, names, n);
}

void co_prom_publish(co_prom *p)
{
    pr_prom_publish(p);
}

void co_prom_stop(co_prom **pp)
{
    pr_prom_stop(pp);
}
