/* co_args_fixture: what test_co_args and test_co_args_rules share: a
 * command line parsed from a list of words (PARSE, parse_env with a
 * MYSQL_PWD), the error case (EXPECT_ERR), passthrough lookups, and files
 * written to a temporary directory (co_args_tmpdir_make, write_file). */
#ifndef CO_ARGS_FIXTURE_H
#define CO_ARGS_FIXTURE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "co_args.h"
#include "pr_err.h"
#include "testlib.h"

static char tmpdir[64];

/* Parse a NULL-terminated list of words (argv[0] added). */
static inline int parse_env(struct co_args *a, struct pr_error *err, const char *env, ...)
{
    char *argv[64];
    int argc = 0;
    va_list ap;

    argv[argc++] = "stampede";
    va_start(ap, env);
    for (char *s; (s = va_arg(ap, char *)) != NULL && argc < 63;)
        argv[argc++] = s;
    va_end(ap);
    argv[argc] = NULL;
    memset(err, 0, sizeof *err);
    return co_args_parse(a, argc, argv, env, err);
}

#define PARSE(a, err, ...) parse_env(a, err, NULL, __VA_ARGS__, (char *)NULL)

static inline bool has_pass(const struct co_args *a, const char *item)
{
    for (uint32_t i = 0; i < a->n_passthrough; i++)
        if (strcmp(a->passthrough[i], item) == 0)
            return true;
    return false;
}

/* Error case: PR_EINVAL, err mentions both fragments, a cleared. */
#define EXPECT_ERR(frag1, frag2, ...)                                                              \
    do {                                                                                           \
        struct co_args ea;                                                                         \
        struct pr_error ee;                                                                        \
        int erc = PARSE(&ea, &ee, __VA_ARGS__);                                                    \
        CHECK_MSG(erc == PR_EINVAL, "rc %d for %s", erc, #__VA_ARGS__);                            \
        CHECK_MSG(strstr(ee.msg, frag1) != NULL, "'%s' lacks '%s'", ee.msg, frag1);                \
        CHECK_MSG(strstr(ee.msg, frag2) != NULL, "'%s' lacks '%s'", ee.msg, frag2);                \
        CHECK(ea.opts == NULL && ea.password == NULL && ea.passthrough == NULL);                   \
        co_args_clear(&ea);                                                                        \
    } while (0)

static inline char *write_file(const char *name, const char *text, mode_t mode)
{
    static char path[8][128];
    static int next;
    char *p = path[next++ % 8];

    snprintf(p, 128, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    if (!f) {
        perror(p);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
    chmod(p, mode);
    return p;
}

/* Make tmpdir, /tmp/<prog>.XXXXXX, for write_file; 0, or -1 (perror). */
static inline int co_args_tmpdir_make(const char *prog)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/%s.XXXXXX", prog);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

#endif
