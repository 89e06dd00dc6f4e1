/* opt_dump: prints every option table of stampede as one JSON document on
 * stdout, for tests/lint/reference_opts.py, which writes and checks the
 * generated parts of docs/reference.md from it (issue 31).
 *
 * What it reads, through the libraries' own functions: sysbench's option
 * schema with the tpcc family's rows (pr_opts_schema), the workload names,
 * stampede's own coordinator options (co__args_own_opts), the help texts
 * `stampede --help` and `stampede WORKLOAD help` print (co_args_usage,
 * co_args_workload_usage) and `stampede-agent --help` (ag_config_usage).
 * Nothing is copied here: a change to any table shows in the output.
 *
 *   opt_dump            the JSON document
 */
#include <stdio.h>
#include <stdlib.h>

#include "ag_config.h"
#include "co_args.h"
#include "co_args_int.h"
#include "pr_opts.h"

/* s as a JSON string (or null), escaped. */
static void put_str(const char *s)
{
    if (s == NULL) {
        fputs("null", stdout);
        return;
    }
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static const char *type_name(enum pr_opt_type t)
{
    switch (t) {
    case PR_OPT_INT:
        return "int";
    case PR_OPT_DOUBLE:
        return "double";
    case PR_OPT_BOOL:
        return "bool";
    case PR_OPT_STRING:
        return "string";
    case PR_OPT_LIST:
        return "list";
    }
    return "?";
}

static const char *group_name(enum pr_opt_group g)
{
    switch (g) {
    case PR_OPT_GENERAL:
        return "general";
    case PR_OPT_MYSQL:
        return "mysql";
    case PR_OPT_SCRIPT:
        return "script";
    }
    return "?";
}

static void put_schema(void)
{
    size_t n;
    const struct pr_opt_def *s = pr_opts_schema(&n);

    fputs("\"schema\": [\n", stdout);
    for (size_t i = 0; i < n; i++) {
        fputs("  {\"name\": ", stdout);
        put_str(s[i].name);
        printf(", \"type\": \"%s\", \"group\": \"%s\", \"default\": ", type_name(s[i].type),
               group_name(s[i].group));
        put_str(s[i].def);
        fputs(", \"help\": ", stdout);
        put_str(s[i].help);
        fputs(", \"alias_of\": ", stdout);
        put_str(s[i].alias_of);
        fputs(", \"workloads\": [", stdout);
        int k = 0;
        for (int wl = 0; wl < PR_WL_COUNT_; wl++)
            if (s[i].workloads & (1u << wl)) {
                fputs(k++ ? ", " : "", stdout);
                put_str(pr_workload_name(wl));
            }
        printf("]}%s\n", i + 1 < n ? "," : "");
    }
    fputs("],\n", stdout);
}

static void put_own(void)
{
    size_t n;
    const struct co__own_opt *o = co__args_own_opts(&n);

    fputs("\"own\": [\n", stdout);
    for (size_t i = 0; i < n; i++) {
        fputs("  {\"name\": ", stdout);
        put_str(o[i].name);
        fputs(", \"arg\": ", stdout);
        put_str(o[i].arg);
        fputs(", \"default\": ", stdout);
        put_str(o[i].def);
        fputs(", \"help\": ", stdout);
        put_str(o[i].help);
        printf("}%s\n", i + 1 < n ? "," : "");
    }
    fputs("],\n", stdout);
}

static void put_workloads(void)
{
    fputs("\"workloads\": [", stdout);
    for (int wl = 0; wl < PR_WL_COUNT_; wl++) {
        fputs(wl ? ", " : "", stdout);
        put_str(pr_workload_name(wl));
    }
    printf("],\n\"sysbench_workloads\": %d,\n", PR_WL_SB_LAST_ + 1);
    fputs("\"workload_usage\": {\n", stdout);
    for (int wl = 0; wl < PR_WL_COUNT_; wl++) {
        char *text = co_args_workload_usage(pr_workload_name(wl));
        fputs("  ", stdout);
        put_str(pr_workload_name(wl));
        fputs(": ", stdout);
        put_str(text);
        printf("%s\n", wl + 1 < PR_WL_COUNT_ ? "," : "");
        free(text);
    }
    fputs("},\n", stdout);
}

int main(void)
{
    char *usage = co_args_usage();

    fputs("{\n", stdout);
    put_schema();
    put_own();
    put_workloads();
    fputs("\"usage\": ", stdout);
    put_str(usage);
    fputs(",\n\"agent_usage\": ", stdout);
    put_str(ag_config_usage());
    fputs("\n}\n", stdout);
    free(usage);
    return fflush(stdout) == 0 ? 0 : 1;
}
