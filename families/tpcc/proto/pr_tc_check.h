/* pr_tc_check: the TPC-C consistency conditions `stampede tpcc check`
 * runs (clause 3.3.2; docs/design.md §13.2), as one table both sides
 * read: the agent checks them (agent/tpcc), the coordinator names them in
 * its report. Conditions with always set run on every check; the others
 * only with --check-all.
 */
#ifndef PR_TC_CHECK_H
#define PR_TC_CHECK_H

#include <stdbool.h>
#include <stddef.h>

struct pr_tc_condition {
    unsigned number;  /* the spec's clause 3.3.2.<number> */
    const char *text; /* what must hold */
    bool always;      /* checked without --check-all */
};

/* The 12 conditions, by number. Static. */
const struct pr_tc_condition *pr_tc_conditions(size_t *n);

#endif
