/* sb_wl_fix: the fixtures test_ag_sb_workload and test_ag_sb_share share:
 * workloads from "name=value" strings and a call's SQL. Include after
 * testlib.h (with TESTLIB_COUNT_ALLOCS defined there, once per program). */
#ifndef SB_WL_FIX_H
#define SB_WL_FIX_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ag_sb_family.h"
#include "ag_sb_workload.h"
#include "testlib.h"

/* A workload from "name=value" strings (NULL terminated). */
static inline ag_sb_workload *wl_new(const char *name, const char *const *args,
                                     struct pr_error *err)
{
    struct ag_kv kv[32] = {{0}};
    char buf[32][64];
    size_t n = 0;

    for (; args && args[n]; n++) {
        snprintf(buf[n], sizeof buf[n], "%s", args[n]);
        char *eq = strchr(buf[n], '=');
        *eq = '\0';
        kv[n].name = buf[n];
        kv[n].value = eq + 1;
    }
    return ag_sb_workload_new(&ag_sb_family, name, kv, n, err);
}

static inline ag_sb_workload *wl_ok(const char *name, const char *const *args)
{
    struct pr_error err = {0};
    ag_sb_workload *wl = wl_new(name, args, &err);
    CHECK_MSG(wl != NULL, "%s: %s", name, err.msg);
    if (!wl)
        exit(1);
    return wl;
}

static inline const char *sql_of(const ag_sb_workload *wl, const struct ag_call *k)
{
    return ag_sb_workload_stmt(wl, (size_t)k->stmt)->sql;
}

#endif
