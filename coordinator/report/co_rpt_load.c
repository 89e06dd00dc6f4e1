/* co_rpt_load: checked reading of run and sweep JSON (see co_rpt_load.h). */
#include "co_rpt_load.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "pr_err.h"

json_t *co_rpt_get(const json_t *obj, const char *path)
{
    char step[128];
    const json_t *cur = obj;
    while (cur != NULL && *path != '\0') {
        size_t len = strcspn(path, ".");
        if (len >= sizeof(step))
            return NULL;
        memcpy(step, path, len);
        step[len] = '\0';
        cur = json_is_object(cur) ? json_object_get(cur, step) : NULL;
        path += len + (path[len] == '.');
    }
    return (json_t *)cur;
}

double co_rpt_num(const json_t *obj, const char *path)
{
    const json_t *v = co_rpt_get(obj, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Up to 4 numeric components ("1.2.3-dev" is 1, 2, 3, 0). */
static void version_parts(const char *v, unsigned long part[4])
{
    for (int i = 0; i < 4; i++) {
        char *end;
        part[i] = strtoul(v, &end, 10);
        v = *end == '.' ? end + 1 : "";
    }
}

int co_rpt_version_cmp(const char *a, const char *b)
{
    unsigned long pa[4], pb[4];
    version_parts(a, pa);
    version_parts(b, pb);
    for (int i = 0; i < 4; i++)
        if (pa[i] != pb[i])
            return pa[i] < pb[i] ? -1 : 1;
    return 0;
}

static char *label_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *s = pr_xstrdup(base);
    size_t n = strlen(s);
    if (n > 5 && strcmp(s + n - 5, ".json") == 0)
        s[n - 5] = '\0';
    return s;
}

/* The members a report reads, by kind. */
static int check_members(const char *path, const json_t *root, enum co_rpt_kind kind,
                         struct pr_error *err)
{
    if (kind == CO_RPT_CAPACITY) {
        const json_t *cap = json_object_get(root, "capacity");
        if (!json_is_array(json_object_get(root, "steps")))
            return pr_error_set(err, PR_EINVAL,
                                "%s: no \"steps\" array: not a complete stampede capacity JSON",
                                path);
        if (!json_is_object(cap) || !json_is_array(json_object_get(cap, "slo")))
            return pr_error_set(err, PR_EINVAL,
                                "%s: no \"capacity\" object with its \"slo\" array: not a "
                                "complete stampede capacity JSON",
                                path);
        return 0;
    }
    static const char *const run_arrays[] = {"agents", "intervals"};
    static const char *const sweep_arrays[] = {"runs", "points"};
    const char *const *arrays = kind == CO_RPT_RUN ? run_arrays : sweep_arrays;
    for (size_t i = 0; i < 2; i++)
        if (!json_is_array(json_object_get(root, arrays[i])))
            return pr_error_set(err, PR_EINVAL,
                                "%s: no \"%s\" array: not a complete stampede %s JSON", path,
                                arrays[i], kind == CO_RPT_RUN ? "run" : "sweep");
    if (kind == CO_RPT_RUN && !json_is_object(json_object_get(root, "totals")))
        return pr_error_set(err, PR_EINVAL,
                            "%s: no \"totals\" object: not a complete stampede run JSON", path);
    return 0;
}

static int check_doc(const char *path, const json_t *root, enum co_rpt_kind *kind,
                     struct pr_error *err)
{
    const char *tool = json_string_value(json_object_get(root, "tool"));
    const char *version = json_string_value(json_object_get(root, "version"));
    if (!json_is_object(root) || tool == NULL || strcmp(tool, "stampede") != 0)
        return pr_error_set(err, PR_EINVAL,
                            "%s: not a stampede JSON (no \"tool\": \"stampede\"); give the file "
                            "that `stampede ... run --json=FILE` wrote",
                            path);
    if (version == NULL)
        return pr_error_set(err, PR_EINVAL, "%s: no \"version\": not a stampede JSON", path);
    if (co_rpt_version_cmp(version, STAMPEDE_VERSION) > 0)
        return pr_error_set(err, PR_EINVAL,
                            "%s: written by stampede %s, newer than this stampede %s: report it "
                            "with stampede %s or later",
                            path, version, STAMPEDE_VERSION, version);
    const char *k = json_string_value(json_object_get(root, "kind"));
    *kind = k == NULL                    ? CO_RPT_RUN
            : strcmp(k, "sweep") == 0    ? CO_RPT_SWEEP
            : strcmp(k, "capacity") == 0 ? CO_RPT_CAPACITY
                                         : CO_RPT_RUN;
    return check_members(path, root, *kind, err);
}

int co_rpt_load(const char *path, struct co_rpt_file *f, struct pr_error *err)
{
    json_error_t je;
    memset(f, 0, sizeof(*f));
    FILE *in = fopen(path, "rb");
    if (in == NULL) {
        int e = errno;
        return pr_error_set(err, PR_EINVAL, "%s: cannot open: %s", path, strerror(e));
    }
    struct stat sb;
    long long size = fstat(fileno(in), &sb) == 0 ? (long long)sb.st_size : -1;
    json_t *root = json_loadf(in, JSON_REJECT_DUPLICATES, &je);
    fclose(in);
    if (root == NULL) {
        /* jansson says "... near end of file" or "premature end of input"
         * when the text stops inside a value; a cut inside a number ("0.")
         * reads as an invalid token, but at the very end of the file. */
        bool trunc = strstr(je.text, "premature end") != NULL ||
                     strstr(je.text, "end of file") != NULL ||
                     (size > 0 && (long long)je.position >= size &&
                      strstr(je.text, "invalid token") != NULL);
        if (trunc && je.position > 0)
            return pr_error_set(err, PR_EINVAL,
                                "%s: truncated: the JSON ends at byte %d (line %d) before it is "
                                "complete (%s); was the run interrupted while writing it?",
                                path, je.position, je.line, je.text);
        return pr_error_set(err, PR_EINVAL, "%s: not JSON: line %d column %d: %s", path, je.line,
                            je.column, je.text);
    }
    enum co_rpt_kind kind = CO_RPT_RUN;
    int rc = check_doc(path, root, &kind, err);
    if (rc != 0) {
        json_decref(root);
        return rc;
    }
    f->path = pr_xstrdup(path);
    f->label = label_of(path);
    f->kind = kind;
    f->root = root;
    return 0;
}

void co_rpt_file_clear(struct co_rpt_file *f)
{
    free(f->path);
    free(f->label);
    json_decref(f->root);
    memset(f, 0, sizeof(*f));
}
