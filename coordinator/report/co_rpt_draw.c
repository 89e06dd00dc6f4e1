/* co_rpt_draw: figures as text, HTML cells and canvases, series over time
 * (see co_rpt_draw.h). */
#include "co_rpt_draw.h"

#include <math.h>

char *co_rpt_fmt(char *buf, size_t len, double v, int decimals)
{
    if (isfinite(v))
        snprintf(buf, len, "%.*f", decimals, v);
    else
        snprintf(buf, len, "-");
    return buf;
}

char *co_rpt_fmt_ratio(char *buf, size_t len, double v, double first)
{
    return co_rpt_fmt(buf, len, first != 0 ? v / first : NAN, 3);
}

void co_rpt_esc(FILE *f, const char *s)
{
    for (; s != NULL && *s != '\0'; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

void co_rpt_td_num(FILE *f, const char *key, double v, int decimals)
{
    char buf[64];
    fprintf(f, "<td data-k=\"%s\">%s</td>", key, co_rpt_fmt(buf, sizeof(buf), v, decimals));
}

void co_rpt_td_str(FILE *f, const char *s)
{
    fputs("<td>", f);
    co_rpt_esc(f, s);
    fputs("</td>", f);
}

void co_rpt_td_ratio(FILE *f, double v, double first)
{
    char buf[64];
    fprintf(f, "<td>%s</td>", co_rpt_fmt_ratio(buf, sizeof(buf), v, first));
}

void co_rpt_canvas(FILE *f, const char *id, const char *title)
{
    fprintf(f, "<h3>%s</h3><div class=\"chart\"><canvas id=\"%s\"></canvas></div>\n", title, id);
}

void co_rpt_grid_canvas(FILE *f, const char *id, const char *series, const char *kind,
                        const char *unit)
{
    fputs("<div><h4>", f);
    co_rpt_esc(f, kind);
    fprintf(f,
            ": %s</h4><div class=\"chart small\"><canvas id=\"%s\" data-what=\"%s\" data-kind=\"",
            unit, id, series);
    co_rpt_esc(f, kind);
    fputs("\"></canvas></div></div>\n", f);
}

json_t *co_rpt_num_or_null(const json_t *obj, const char *path)
{
    double v = co_rpt_num(obj, path);
    return isfinite(v) ? json_real(v) : json_null();
}

json_t *co_rpt_series_at(json_t *obj, const char *key, size_t n)
{
    json_t *a = json_object_get(obj, key);
    if (a == NULL) {
        a = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(a, json_null());
        json_object_set_new(obj, key, a);
    }
    return a;
}

json_t *co_rpt_rate_series(const json_t *ivs, const char *name, double scale)
{
    json_t *a = json_array();
    size_t i;
    json_t *iv;
    json_array_foreach(ivs, i, iv)
    {
        const json_t *kinds = json_object_get(iv, "kinds");
        double len = co_rpt_num(iv, "len_s");
        if (!json_is_object(kinds) || !isfinite(len) || len <= 0) {
            json_array_append_new(a, json_null());
            continue;
        }
        double c = co_rpt_num(json_object_get(kinds, name), "count");
        json_array_append_new(a, json_real((isfinite(c) ? c : 0.0) * scale / len));
    }
    return a;
}

json_t *co_rpt_p95_series(const json_t *ivs, const char *name)
{
    json_t *a = json_array();
    size_t i;
    json_t *iv;
    json_array_foreach(ivs, i, iv)
    {
        const json_t *k = json_object_get(json_object_get(iv, "kinds"), name);
        json_array_append_new(a, co_rpt_num_or_null(k, "latency_ms.p95"));
    }
    return a;
}
