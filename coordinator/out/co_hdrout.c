/* co_hdrout: the --hdr-log=FILE report (see co_hdrout.h). */
#include "co_hdrout.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "co_kinds_out.h"
#include "pr_file.h"
#include "pr_hdrlog.h"
#include "pr_text.h"

/* name with the bytes HdrHistogram tags cannot hold replaced by '_'. */
static char *sanitized(const char *name, uint32_t index)
{
    if (name == NULL || name[0] == '\0') {
        char buf[32];
        snprintf(buf, sizeof(buf), "agent%" PRIu32, index);
        return pr_xstrdup(buf);
    }
    char *tag = pr_xstrdup(name);
    unsigned char *s = (unsigned char *)tag;
    size_t n = strlen(tag);
    for (size_t i = 0; i < n;) {
        size_t len = pr_utf8_seq_len(s + i, n - i);
        if (len > 1) {
            i += len;
            continue;
        }
        if (len == 0 || s[i] == ',' || s[i] <= ' ' || s[i] == 0x7f)
            s[i] = '_';
        i++;
    }
    return tag;
}

/* Every agent's tag, unique: n_agents strings, the caller's (free_tags()). */
static char **make_tags(const struct co_result *r)
{
    char **tags = pr_xcalloc(r->n_agents + 1, sizeof(*tags));
    for (uint32_t i = 0; i < r->n_agents; i++) {
        tags[i] = sanitized(r->agents[i].name, i);
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(tags[j], tags[i]) == 0) {
                size_t len = strlen(tags[i]);
                tags[i] = pr_xrealloc(tags[i], len + 16);
                snprintf(tags[i] + len, 16, "~%" PRIu32, i);
                break;
            }
        }
    }
    return tags;
}

static void free_tags(char **tags, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(tags[i]);
    free(tags);
}

char *co_hdrout_agent_tag(const struct co_result *r, uint32_t index)
{
    if (index >= r->n_agents)
        return NULL;
    char **tags = make_tags(r);
    char *tag = tags[index];
    tags[index] = pr_xstrdup("");
    free_tags(tags, r->n_agents);
    return tag;
}

/* Seconds to whole milliseconds, 0 for negative or non-finite values. */
static uint64_t s_to_ms(double s)
{
    if (!isfinite(s) || s <= 0)
        return 0;
    if (s >= 1e15)
        return UINT64_C(1000000000000000000);
    return (uint64_t)llround(s * 1000.0);
}

/* The header comment, with characters a "#[...]" line cannot hold dropped. */
static void header_comment(const struct co_result *r, char *buf, size_t buf_len)
{
    snprintf(buf, buf_len,
             "stampede %s %s %s: latency in microseconds; untagged = all agents merged, "
             "Tag=<agent> = one agent",
             r->version != NULL ? r->version : "", r->workload != NULL ? r->workload : "",
             r->command != NULL ? r->command : "");
    for (char *c = buf; *c != '\0'; c++)
        if ((unsigned char)*c < ' ' || *c == ']')
            *c = ' ';
}

/* scratch: where one frozen histogram at a time is expanded. */
static int write_interval(pr_hdrlog *w, const struct co_interval_result *iv, char **tags,
                          uint32_t n_agents, pr_hist *scratch)
{
    uint64_t start_ms = s_to_ms(iv->t_s - iv->len_s);
    uint64_t length_ms = s_to_ms(iv->len_s);
    int rc = pr_hdrlog_write_interval(w, NULL, start_ms, length_ms, co_interval_lat(iv, scratch));
    for (uint32_t a = 0; rc == 0 && a < n_agents; a++) {
        const pr_hist *h = co_interval_agent_lat(iv, a, scratch);
        if (h != NULL)
            rc = pr_hdrlog_write_interval(w, tags[a], start_ms, length_ms, h);
    }
    return rc == 0 ? co_kinds_out_hlog(w, iv, start_ms, length_ms, scratch) : rc;
}

int co_hdrout_write(const struct co_result *r, uint64_t start_ms, FILE *f)
{
    char comment[512];
    header_comment(r, comment, sizeof(comment));
    pr_hdrlog *w = pr_hdrlog_new(f);
    char **tags = make_tags(r);
    pr_hist *scratch = pr_hist_new();
    int rc = pr_hdrlog_write_header(w, comment, start_ms, true);
    for (uint32_t i = 0; rc == 0 && i < r->n_intervals; i++)
        rc = write_interval(w, &r->intervals[i], tags, r->n_agents, scratch);
    pr_hist_destroy(&scratch);
    free_tags(tags, r->n_agents);
    pr_hdrlog_destroy(&w);
    if (rc == 0 && (fflush(f) != 0 || ferror(f)))
        rc = -EIO;
    return rc;
}

struct co_hdrout_stream {
    pr_hdrlog *w;    /* over the caller's FILE */
    char **tags;     /* per agent */
    uint32_t n_tags; /* agents */
};

co_hdrout_stream *co_hdrout_stream_begin(const struct co_result *r, uint64_t start_ms, FILE *f,
                                         int *rc)
{
    char comment[512];
    header_comment(r, comment, sizeof(comment));
    co_hdrout_stream *s = pr_xcalloc(1, sizeof(*s));
    s->w = pr_hdrlog_new(f);
    s->tags = make_tags(r);
    s->n_tags = r->n_agents;
    *rc = pr_hdrlog_write_header(s->w, comment, start_ms, true);
    return s;
}

int co_hdrout_stream_interval(co_hdrout_stream *s, const struct co_interval_result *iv,
                              pr_hist *scratch)
{
    return write_interval(s->w, iv, s->tags, s->n_tags, scratch);
}

void co_hdrout_stream_destroy(co_hdrout_stream **sp)
{
    co_hdrout_stream *s = *sp;
    if (s == NULL)
        return;
    free_tags(s->tags, s->n_tags);
    pr_hdrlog_destroy(&s->w);
    free(s);
    *sp = NULL;
}

struct hdrout_arg {
    const struct co_result *r;
    uint64_t start_ms;
};

static int hdrout_write_cb(FILE *f, const void *arg)
{
    const struct hdrout_arg *a = arg;
    return co_hdrout_write(a->r, a->start_ms, f);
}

int co_hdrout_write_file(const struct co_result *r, uint64_t start_ms, const char *path,
                         struct pr_error *err)
{
    struct hdrout_arg a = {r, start_ms};
    return pr_write_atomic(path, "--hdr-log", hdrout_write_cb, &a, err);
}
