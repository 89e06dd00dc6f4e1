/* co_config: the parsed command line's general sysbench options as typed
 * data (struct co_config, co_args.h), read from the option values once,
 * when co_args_parse is done with every rule; the code after parsing reads
 * these fields, never an option by name. */
#include <stdlib.h>

#include "co_args_int.h"

static char *dup_opt(const pr_opts *o, const char *name)
{
    return pr_xstrdup(pr_opts_str(o, name));
}

static void fill_mysql(struct co_config *c, const pr_opts *o)
{
    c->mysql_host = dup_opt(o, "mysql-host");
    c->mysql_port = dup_opt(o, "mysql-port");
    c->mysql_socket = pr_opts_is_set(o, "mysql-socket") ? dup_opt(o, "mysql-socket") : NULL;
    c->mysql_user = dup_opt(o, "mysql-user");
    c->mysql_db = dup_opt(o, "mysql-db");
    c->mysql_dry_run = pr_opts_bool(o, "mysql-dry-run");
}

void co__config_fill(struct co_args *a)
{
    struct co_config *c = &a->cfg;
    const pr_opts *o = a->opts;

    co__config_clear(c);
    c->threads = (uint32_t)pr_opts_int(o, "threads");
    c->threads_set = pr_opts_is_set(o, "threads");
    c->time_s = (uint64_t)pr_opts_int(o, "time");
    c->events = (uint64_t)pr_opts_int(o, "events");
    c->rate = (uint64_t)pr_opts_int(o, "rate");
    c->report_interval_s = (uint64_t)pr_opts_int(o, "report-interval");
    c->percentile = (uint32_t)pr_opts_int(o, "percentile");
    c->histogram = pr_opts_bool(o, "histogram");
    c->seed = (uint64_t)pr_opts_int(o, "rand-seed");
    c->verbosity = (uint32_t)pr_opts_int(o, "verbosity");
    c->forced_on = pr_opts_forced_shutdown_ms(o, &c->forced_ms);
    c->tables = (uint32_t)pr_opts_int(o, "tables");
    c->table_size = (uint64_t)pr_opts_int(o, "table_size");
    fill_mysql(c, o);
}

void co__config_clear(struct co_config *c)
{
    free(c->mysql_host);
    free(c->mysql_port);
    free(c->mysql_socket);
    free(c->mysql_user);
    free(c->mysql_db);
    *c = (struct co_config){0};
}
