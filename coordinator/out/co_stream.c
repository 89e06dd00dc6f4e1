/* co_stream: result files written as intervals close (see co_stream.h). */
#include "co_stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "co_csv.h"
#include "co_hdrout.h"
#include "co_json.h"
#include "co_kinds_out.h"

/* One output file. */
struct out {
    const char *what; /* "JSON results", ... for messages */
    char *path;       /* final name */
    char *tmp;        /* what is written (path + ".tmp" for the JSON), or NULL: path */
    FILE *f;          /* NULL when not asked for, or failed */
    bool is_stdout;   /* --json=- */
    bool failed;      /* named on stderr already */
};

struct co_stream {
    struct out json, csv, csvk, hlog; /* csvk: --csv-kinds */
    co_json_stream *js;               /* inside the JSON's intervals */
    co_hdrout_stream *hs;             /* the log's writer */
    pr_hist *scratch;                 /* where a frozen histogram is expanded */
    bool finished;                    /* co_stream_finish() ran */
    int finish_rc;                    /* what it returned */
};

static void out_fail(struct out *o, const char *verb, int e)
{
    if (!o->failed)
        fprintf(stderr, "stampede: cannot %s the %s %s: %s\n", verb, o->what,
                o->tmp ? o->tmp : o->path, strerror(e));
    o->failed = true;
    if (o->f != NULL && !o->is_stdout)
        fclose(o->f);
    o->f = NULL;
}

static void out_open(struct out *o, const char *what, const char *path, bool tmp)
{
    o->what = what;
    o->path = pr_xstrdup(path);
    if (strcmp(path, "-") == 0 && tmp) {
        o->f = stdout;
        o->is_stdout = true;
        return;
    }
    if (tmp) {
        size_t len = strlen(path);
        o->tmp = pr_xmalloc(len + sizeof(".tmp"));
        memcpy(o->tmp, path, len);
        memcpy(o->tmp + len, ".tmp", sizeof(".tmp"));
    }
    o->f = fopen(o->tmp ? o->tmp : path, "w");
    if (o->f == NULL)
        out_fail(o, "create", errno);
}

/* After each interval: the bytes reach the kernel (a SIGKILL keeps them). */
static void out_flush(struct out *o)
{
    if (o->f != NULL && (fflush(o->f) != 0 || ferror(o->f)))
        out_fail(o, "write", errno ? errno : EIO);
}

co_stream *co_stream_open(const struct co_args *a, const struct co_result *res)
{
    if (a->json_path == NULL && a->csv_path == NULL && a->hdr_log_path == NULL &&
        a->csv_kinds_path == NULL)
        return NULL;
    co_stream *s = pr_xcalloc(1, sizeof(*s));
    s->scratch = pr_hist_new();
    if (a->json_path != NULL) {
        out_open(&s->json, "JSON results", a->json_path, true);
        if (s->json.f != NULL)
            s->js = co_json_stream_begin(res, s->json.f);
        out_flush(&s->json);
    }
    if (a->csv_path != NULL) {
        out_open(&s->csv, "CSV intervals", a->csv_path, false);
        if (s->csv.f != NULL)
            co_csv_write_header(s->csv.f);
        out_flush(&s->csv);
    }
    if (a->csv_kinds_path != NULL) {
        out_open(&s->csvk, "CSV per statement kind", a->csv_kinds_path, false);
        if (s->csvk.f != NULL)
            co_kinds_out_csv_header(s->csvk.f);
        out_flush(&s->csvk);
    }
    if (a->hdr_log_path != NULL) {
        out_open(&s->hlog, "HdrHistogram log", a->hdr_log_path, false);
        int rc = 0;
        if (s->hlog.f != NULL)
            s->hs = co_hdrout_stream_begin(res, res->start_unix_ms, s->hlog.f, &rc);
        if (rc != 0)
            out_fail(&s->hlog, "write", EIO);
        out_flush(&s->hlog);
    }
    return s;
}

void co_stream_interval(co_stream *s, const struct co_interval_result *iv)
{
    if (s == NULL || s->finished)
        return;
    if (s->json.f != NULL) {
        co_json_stream_interval(s->js, iv, s->scratch);
        out_flush(&s->json);
    }
    if (s->csv.f != NULL) {
        co_csv_write_row(s->csv.f, iv, s->scratch);
        out_flush(&s->csv);
    }
    if (s->csvk.f != NULL) {
        co_kinds_out_csv_rows(s->csvk.f, iv, s->scratch);
        out_flush(&s->csvk);
    }
    if (s->hlog.f != NULL) {
        if (co_hdrout_stream_interval(s->hs, iv, s->scratch) != 0)
            out_fail(&s->hlog, "write", EIO);
        out_flush(&s->hlog);
    }
}

/* Sync and close o (rename its .tmp into place); 0 or -1. */
static int out_close(struct out *o, bool info)
{
    if (o->what == NULL)
        return 0;
    if (o->f != NULL && o->is_stdout) {
        out_flush(o);
        o->f = NULL;
    } else if (o->f != NULL) {
        out_flush(o);
        if (o->f != NULL && fsync(fileno(o->f)) != 0)
            out_fail(o, "sync", errno);
        if (o->f != NULL && fclose(o->f) != 0) {
            o->f = NULL;
            out_fail(o, "close", errno);
        }
        o->f = NULL;
        if (!o->failed && o->tmp != NULL && rename(o->tmp, o->path) != 0)
            out_fail(o, "rename into place", errno);
    }
    if (o->failed) {
        fprintf(stderr, "stampede: cannot write the %s: %s (see above)\n", o->what, o->path);
        return -1;
    }
    if (info && !o->is_stdout)
        fprintf(stderr, "stampede: %s written to %s\n", o->what, o->path);
    return 0;
}

int co_stream_finish(co_stream *s, const struct co_result *res, bool info)
{
    if (s == NULL)
        return 0;
    if (s->finished)
        return s->finish_rc;
    s->finished = true;
    if (s->js != NULL && s->json.f != NULL && co_json_stream_end(&s->js, res) != 0)
        out_fail(&s->json, "write", EIO);
    co_hdrout_stream_destroy(&s->hs);
    int bad = out_close(&s->json, info);
    bad |= out_close(&s->csv, info);
    bad |= out_close(&s->csvk, info);
    bad |= out_close(&s->hlog, info);
    s->finish_rc = bad ? -1 : 0;
    return s->finish_rc;
}

static void out_free(struct out *o)
{
    if (o->f != NULL && !o->is_stdout)
        fclose(o->f);
    else if (o->f != NULL)
        fflush(o->f);
    free(o->path);
    free(o->tmp);
}

void co_stream_destroy(co_stream **sp)
{
    co_stream *s = sp ? *sp : NULL;
    if (s == NULL)
        return;
    free(s->js); /* an unfinished JSON stays in its .tmp */
    co_hdrout_stream_destroy(&s->hs);
    out_free(&s->json);
    out_free(&s->csv);
    out_free(&s->csvk);
    out_free(&s->hlog);
    pr_hist_destroy(&s->scratch);
    free(s);
    *sp = NULL;
}
