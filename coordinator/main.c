/* stampede: wires the command line to a run and its output files; nothing
 * else here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "co_args.h"
#include "co_capacity.h"
#include "co_compare.h"
#include "co_family.h"
#include "co_keys.h"
#include "co_result.h"
#include "co_rpt.h"
#include "co_run.h"
#include "co_sweep.h"
#include "pr_keyfile.h"

static int keygen(const struct co_args *a)
{
    struct co_keypair kp;
    struct pr_error err = {0};
    if (co_keys_generate(&kp, &err) != 0 ||
        co_keys_write(a->keygen_dir, a->keygen_name, &kp, &err) != 0) {
        fprintf(stderr, "stampede keygen: %s\n", err.msg);
        return 1;
    }
    printf("wrote %s/%s.secret (keep it private) and %s/%s.pub\n%s\n", a->keygen_dir,
           a->keygen_name, a->keygen_dir, a->keygen_name, kp.public_key);
    return 0;
}

static int help(const struct co_args *a)
{
    const struct co_family *fam = co_registry_find(a->workload);
    char *text = a->action == CO_ACTION_HELP ? co_args_usage()
                 : fam && fam->usage         ? fam->usage(a)
                                             : co_args_workload_usage(a->workload);
    if (text == NULL) {
        fprintf(stderr, "stampede: unknown workload '%s'\n", a->workload);
        return 2;
    }
    fputs(text, stdout);
    free(text);
    return 0;
}

static const char *self_exe(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
    return n > 0 ? buf : NULL;
}

int main(int argc, char **argv)
{
    char exe[4096];
    struct co_args a;
    struct co_result res = {0};
    struct pr_error err = {0};

    pr_secrets_protect(); /* the password, the one-run CURVE keys */
    if (argc >= 2 && strcmp(argv[1], "report") == 0)
        return co_rpt_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "compare") == 0)
        return co_compare_main(argc - 1, argv + 1, self_exe(exe, sizeof(exe)));
    /* another tool's command line (tpcc_start ...): a family's words */
    struct co_family_argv tc;
    int trc = co_registry_argv_translate(argc, argv, &tc, &err);
    if (trc < 0 || (trc > 0 && tc.help)) {
        fprintf(trc < 0 ? stderr : stdout, "%s%s%s%s", trc < 0 ? "stampede: " : "",
                trc < 0 ? err.msg : "", trc < 0 ? "\n" : "", tc.usage ? tc.usage : "");
        co_family_argv_free(&tc);
        return trc < 0 ? 2 : 0;
    }
    if (trc > 0) {
        argc = tc.argc;
        argv = tc.argv;
    }
    if (co_args_parse(&a, argc, argv, getenv("MYSQL_PWD"), &err) != 0) {
        fprintf(stderr, "stampede: %s\n", err.msg);
        co_family_argv_free(&tc);
        return 2;
    }
    if (a.warnings && *a.warnings)
        fprintf(stderr, "%s", a.warnings);
    int rc = 0;
    switch (a.action) {
    case CO_ACTION_VERSION:
        printf("stampede %s (sysbench 1.0.20 compatible)\n", STAMPEDE_VERSION);
        break;
    case CO_ACTION_HELP:
    case CO_ACTION_WL_HELP:
        rc = help(&a);
        break;
    case CO_ACTION_KEYGEN:
        rc = keygen(&a);
        break;
    case CO_ACTION_COMMAND:
        if (a.find_capacity) {
            rc = co_capacity_run(&a, argc, argv, self_exe(exe, sizeof(exe)), stdout);
            break;
        }
        if (co_sweep_is_wanted(&a)) {
            rc = co_sweep_run(&a, self_exe(exe, sizeof(exe)), stdout);
            break;
        }
        /* --json=-: the JSON owns stdout, the text report goes to stderr. */
        rc = co_run(&a, self_exe(exe, sizeof(exe)),
                    a.json_path && strcmp(a.json_path, "-") == 0 ? stderr : stdout, &res);
        co_result_clear(&res);
        break;
    }
    co_args_clear(&a);
    co_family_argv_free(&tc);
    return rc;
}
