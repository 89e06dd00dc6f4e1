/* co_rpt_load: reading the files `stampede report` is given: a run's
 * --json file or a sweep's summary JSON (co_sweep.h), with jansson.
 *
 * A file is checked before anything is drawn from it: it must parse as
 * JSON in full (a truncated file is named as truncated), carry
 * "tool": "stampede", a "version" not newer than this program's, and the
 * members the report reads (a run: agents[], intervals[], totals{}; a
 * sweep: "kind": "sweep", runs[], points[]; a capacity search: "kind":
 * "capacity", capacity{slo[]}, steps[]). Optional members a run may
 * lack (environment, intervals[].server_status: older files) read as
 * missing, never as an error.
 *
 * Thread: none of its own. Nothing here prints: errors come back in err.
 */
#ifndef CO_RPT_LOAD_H
#define CO_RPT_LOAD_H

#include <stdbool.h>

#include <jansson.h>

#include "pr_err.h"

enum co_rpt_kind { CO_RPT_RUN, CO_RPT_SWEEP, CO_RPT_CAPACITY };

/* One file read. Owned by the caller; co_rpt_file_clear frees it. */
struct co_rpt_file {
    char *path;            /* as given */
    char *label;           /* the file's base name without ".json" */
    enum co_rpt_kind kind; /* what the file holds */
    json_t *root;          /* the parsed document (one reference) */
};

/* Read and check path into *f (overwritten). 0, or PR_EINVAL with err
 * naming the file and what is wrong with it (not JSON, truncated, not
 * stampede's, newer version, a member missing); *f is then empty. */
int co_rpt_load(const char *path, struct co_rpt_file *f, struct pr_error *err);

/* Free what f holds and zero it. Safe twice. */
void co_rpt_file_clear(struct co_rpt_file *f);

/* The number at a dotted path under obj ("totals.latency_ms.p95"); NAN
 * when a step is missing, null or not a number. */
double co_rpt_num(const json_t *obj, const char *path);

/* The member at a dotted path, or NULL. Borrowed. */
json_t *co_rpt_get(const json_t *obj, const char *path);

/* Compare two dotted version strings numerically: <0, 0, >0. */
int co_rpt_version_cmp(const char *a, const char *b);

#endif
