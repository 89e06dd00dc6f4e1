/* co_rpt_groups_html: the groups' comparison (co_rpt_groups_json) on the
 * report page: a table per figure and group, each later group's row marked
 * when its difference to the baseline is significant (class "sig-better"
 * or "sig-worse", "not-sig" otherwise), and a chart per figure drawing each
 * group's runs, mean and the 95% interval of its mean as a floating bar.
 * Internal to co_rpt_html. */
#ifndef CO_RPT_GROUPS_HTML_H
#define CO_RPT_GROUPS_HTML_H

#include <stdio.h>

#include <jansson.h>

/* The section (nothing when cmp is NULL). */
void co__rpt_groups_section(FILE *f, const json_t *cmp);

/* Its charts, from D.groups (after co__rpt_js). */
extern const char co__rpt_groups_js[];

#endif
