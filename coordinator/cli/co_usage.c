/* co_usage: `stampede --help` and `stampede WORKLOAD help`, in sysbench
 * 1.0.20's layout (co_args.h documents them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_args.h"
#include "co_args_int.h"
#include "co_family.h"

/* ---- help texts ---------------------------------------------------------- */

/* One help line: "  --NAME=ARG" padded to width, the help, " [default]". */
struct help_line {
    char left[64];    /* "  --name=ARG" */
    const char *help; /* text */
    const char *def;  /* default or NULL */
    char marked[512]; /* help with a stampede mark appended, when help points here */
};

/* How sysbench shows an option's value. */
static const char *value_form(const struct pr_opt_def *d)
{
    if (strcmp(d->name, "thread-stack-size") == 0)
        return "=SIZE";
    if (strcmp(d->name, "config-file") == 0)
        return "=FILENAME";
    switch (d->type) {
    case PR_OPT_INT:
    case PR_OPT_DOUBLE:
        return "=N";
    case PR_OPT_BOOL:
        return "[=on|off]";
    case PR_OPT_LIST:
        return "=[LIST,...]";
    case PR_OPT_STRING:
        break;
    }
    return "=STRING";
}

/* Print lines aligned as sysbench does: the widest left column plus one space. */
static void print_block(FILE *f, const struct help_line *l, size_t n)
{
    int width = 0;

    for (size_t i = 0; i < n; i++)
        if ((int)strlen(l[i].left) > width)
            width = (int)strlen(l[i].left);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%-*s %s", width, l[i].left, l[i].help);
        if (l[i].def)
            fprintf(f, " [%s]", l[i].def);
        fputc('\n', f);
    }
}

static bool in_list(const char *const *list, const char *name)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

/* sysbench's help text, with what stampede does differently appended
 * (co__refused_opts, co__no_effect_opts, --validate); the text is copied into
 * buf when something is appended. */
static const char *help_text(const struct pr_opt_def *d, char *buf, size_t cap)
{
    const char *mark = NULL;

    if (in_list(co__refused_opts, d->name))
        mark = "(not supported)";
    else if (in_list(co__no_effect_opts, d->name))
        mark = "(no effect in stampede)";
    else if (strcmp(d->name, "verbosity") == 0)
        mark = "(stampede: 4 or more also prints where result files were written)";
    else if (strcmp(d->name, "validate") == 0)
        mark = "(accepted; the built-in workloads have nothing to validate, as in sysbench)";
    if (!mark)
        return d->help;
    snprintf(buf, cap, "%s %s", d->help, mark);
    return buf;
}

static void def_line(struct help_line *l, const struct pr_opt_def *d)
{
    snprintf(l->left, sizeof l->left, "  --%s%s", d->name, value_form(d));
    l->help = help_text(d, l->marked, sizeof l->marked);
    l->def = d->def;
}

/* sysbench's section of a general option, by name. */
static int general_section(const char *name)
{
    if (strncmp(name, "rand-", 5) == 0)
        return 1;
    if (strcmp(name, "verbosity") == 0)
        return 2;
    if (strcmp(name, "percentile") == 0 || strcmp(name, "histogram") == 0)
        return 3;
    if (strncmp(name, "db-", 3) == 0)
        return 4;
    return 0;
}

/* The schema's options of one group (and general section, or -1). */
static void print_schema_block(FILE *f, enum pr_opt_group g, int section)
{
    size_t n, k = 0;
    const struct pr_opt_def *s = pr_opts_schema(&n);
    struct help_line *l = pr_xcalloc(n, sizeof *l);

    for (size_t i = 0; i < n; i++)
        if (s[i].group == g && (section < 0 || general_section(s[i].name) == section))
            def_line(&l[k++], &s[i]);
    print_block(f, l, k);
    free(l);
}

static void print_own_block(FILE *f)
{
    size_t n_own = 0;
    const struct co__own_opt *own = co__args_own_opts(&n_own);
    struct help_line *l = pr_xcalloc(n_own, sizeof(*l));

    for (size_t i = 0; i < n_own; i++) {
        const struct co__own_opt *o = &own[i];
        snprintf(l[i].left, sizeof l[i].left, "  --%s%s", o->name, o->arg);
        l[i].help = o->help;
        l[i].def = o->def;
    }
    print_block(f, l, n_own);
    free(l);
}

char *co_args_usage(void)
{
    static const char *const titles[] = {
        "General options:", "Pseudo-Random Numbers Generator options:", "Log options:", NULL,
        "General database options:\n"};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (!f)
        abort();
    fputs("Usage:\n"
          "  stampede [options]... WORKLOAD COMMAND [options]...\n"
          "  stampede keygen DIR [NAME]\n"
          "  stampede report RUN.json... [--group=NAME RUN.json...]... [-o FILE] (--help)\n"
          "  stampede compare [--a=ARG]... [--b=ARG]... [--repeat=N] -- WORKLOAD [options]... "
          "run (--help)\n"
          "  stampede tpcc_load|tpcc_start [tpcc-mysql's options]... [options]...\n"
          "\n"
          "Commands: prepare run cleanup prewarm check help\n\n",
          f);
    for (int sec = 0; sec < 5; sec++) {
        if (titles[sec])
            fprintf(f, "%s\n", titles[sec]);
        print_schema_block(f, PR_OPT_GENERAL, sec);
        fputc('\n', f);
    }
    fputs("mysql options:\n", f);
    print_schema_block(f, PR_OPT_MYSQL, -1);
    fputc('\n', f);
    fputs("stampede options:\n", f);
    print_own_block(f);
    fputs("\nWorkloads:\n", f);
    for (int i = 0; i < PR_WL_COUNT_; i++)
        fprintf(f, "  %s\n", pr_workload_name(i));
    fputs("\nSee 'stampede WORKLOAD help' for a list of options for each workload.\n", f);
    fclose(f);
    return buf;
}

static int cmp_def_name(const void *x, const void *y)
{
    const struct pr_opt_def *const *a = x, *const *b = y;
    return strcmp((*a)->name, (*b)->name);
}

char *co_args_workload_usage(const char *workload)
{
    int wl = pr_workload_from_name(workload);
    size_t n, k = 0;
    const struct pr_opt_def *s = pr_opts_schema(&n);
    char *buf = NULL;
    size_t len = 0;

    if (wl < 0)
        return NULL;
    const struct pr_opt_def **defs = pr_xcalloc(n, sizeof *defs);
    for (size_t i = 0; i < n; i++)
        if (s[i].group == PR_OPT_SCRIPT && (s[i].workloads & (1u << wl)))
            defs[k++] = &s[i];
    qsort(defs, k, sizeof *defs, cmp_def_name);
    struct help_line *l = pr_xcalloc(k ? k : 1, sizeof *l);
    for (size_t i = 0; i < k; i++)
        def_line(&l[i], defs[i]);

    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    if (k == 0) {
        fprintf(f,
                "'%s' declares no options of its own (sysbench runs it in legacy mode and "
                "accepts any --name=value; stampede refuses unknown options).\n",
                pr_workload_name(wl));
    } else {
        fprintf(f, "%s options:\n", pr_workload_name(wl));
        print_block(f, l, k);
        fputc('\n', f);
    }
    const struct co_family *fam = co_registry_find(pr_workload_name(wl));
    if (fam && fam->help_text) /* the family's own defaults and command lines */
        fprintf(f, "%s\n", fam->help_text);
    fclose(f);
    free(l);
    free(defs);
    return buf;
}
