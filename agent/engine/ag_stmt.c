/* ag_stmt: text rendering of a prepared-statement call (ag_family.h). */
#include <stdio.h>
#include <string.h>

#include "ag_family.h"

static void put(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
    if (n > 0 && *len + n < cap)
        memcpy(buf + *len, s, n);
    *len += n;
}

size_t ag_stmt_render(const struct ag_stmt_def *d, const struct ag_call *call, char *buf,
                      size_t cap)
{
    size_t len = 0;
    uint32_t p = 0;
    char num[24];

    for (const char *s = d->sql; *s; s++) {
        if (*s != '?' || p >= call->nparams) {
            put(buf, cap, &len, s, 1);
        } else if (d->type[p] == AG_PARAM_INT) {
            int n = snprintf(num, sizeof num, "%lld", (long long)call->ival[p]);
            put(buf, cap, &len, num, (size_t)n);
            p++;
        } else {
            put(buf, cap, &len, "'", 1);
            put(buf, cap, &len, call->sval[p], call->slen[p]);
            put(buf, cap, &len, "'", 1);
            p++;
        }
    }
    if (len < cap)
        buf[len] = '\0';
    return len;
}

/* --db-ps-mode=disable: the statement as text (sysbench's emulated
 * prepared statements); text_cap was sized for every statement's longest
 * rendering. */
