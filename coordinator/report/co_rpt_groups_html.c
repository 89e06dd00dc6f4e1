/* co_rpt_groups_html: the groups' comparison on the page (co_rpt_groups_html.h). */
#include "co_rpt_groups_html.h"

#include <stdbool.h>

#include "co_rpt_draw.h"

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* One group's row; c its comparison with the baseline (NULL: it is it). */
static void row(FILE *f, const char *fig, const json_t *s, const json_t *c)
{
    const char *cls = "baseline";
    if (c != NULL)
        cls = !json_is_true(json_object_get(c, "significant")) ? "not-sig"
              : json_is_true(json_object_get(c, "better"))     ? "sig-better"
                                                               : "sig-worse";
    fprintf(f, "<tr class=\"%s\" data-fig=\"%s\" data-group=\"", cls, fig);
    co_rpt_esc(f, str(s, "group"));
    fputs("\">", f);
    co_rpt_td_str(f, fig);
    co_rpt_td_str(f, str(s, "group"));
    co_rpt_td_num(f, "n", co_rpt_num(s, "n"), 0);
    co_rpt_td_num(f, "median", co_rpt_num(s, "median"), 3);
    co_rpt_td_num(f, "mean", co_rpt_num(s, "mean"), 3);
    co_rpt_td_num(f, "stddev", co_rpt_num(s, "stddev"), 3);
    co_rpt_td_num(f, "ci_low", co_rpt_num(s, "ci_low"), 3);
    co_rpt_td_num(f, "ci_high", co_rpt_num(s, "ci_high"), 3);
    if (c == NULL) {
        fputs("<td colspan=\"5\">baseline</td></tr>\n", f);
        return;
    }
    co_rpt_td_num(f, "diff_pct", co_rpt_num(c, "diff_pct"), 1);
    co_rpt_td_num(f, "ci_low_pct", co_rpt_num(c, "ci_low_pct"), 1);
    co_rpt_td_num(f, "ci_high_pct", co_rpt_num(c, "ci_high_pct"), 1);
    co_rpt_td_num(f, "welch_p", co_rpt_num(c, "welch_p"), 4);
    fputs("<td class=\"verdict\">", f);
    co_rpt_esc(f,
               json_is_true(json_object_get(c, "tested")) ? str(c, "verdict") : str(c, "summary"));
    fputs("</td></tr>\n", f);
}

void co__rpt_groups_section(FILE *f, const json_t *cmp)
{
    if (cmp == NULL)
        return;
    fputs("<section id=\"groups\"><h2>Groups compared</h2>\n<p class=\"note\">The unit is one "
          "run; the baseline is ",
          f);
    co_rpt_esc(f, str(cmp, "baseline"));
    fputs(". Welch's t-test on the runs' means decides (p &lt; 0.05); rows in green are "
          "significantly better than the baseline, in red significantly worse. Each chart draws "
          "every run, the group's mean and the 95% interval of its mean.</p>\n"
          "<table id=\"groups-table\"><tr><th>figure</th><th>group</th><th>n</th><th>median</th>"
          "<th>mean</th><th>stddev</th><th>95% CI low</th><th>95% CI high</th><th>vs baseline "
          "%</th><th>its CI low</th><th>its CI high</th><th>Welch p</th><th>verdict</th></tr>\n",
          f);
    size_t i;
    const json_t *fig;
    json_array_foreach(json_object_get(cmp, "figures"), i, fig)
    {
        const json_t *samples = json_object_get(fig, "groups"), *c;
        size_t k;
        row(f, str(fig, "figure"), json_array_get(samples, 0), NULL);
        json_array_foreach(json_object_get(fig, "comparisons"), k, c)
            row(f, str(fig, "figure"), json_array_get(samples, k + 1), c);
    }
    fputs("</table>\n<div class=\"grid\">\n", f);
    json_array_foreach(json_object_get(cmp, "figures"), i, fig)
    {
        char id[64];
        snprintf(id, sizeof(id), "grp-%s", str(fig, "figure"));
        fputs("<div>", f); /* one grid cell: the heading with its chart */
        co_rpt_canvas(f, id, str(fig, "name"));
        fputs("</div>\n", f);
    }
    fputs("</div></section>\n", f);
}

const char co__rpt_groups_js[] =
    "(D.groups ? D.groups.figures : []).forEach(function (fg) {\n"
    "  const gs = fg.groups;\n"
    "  chart('grp-' + fg.figure, 'bar', [\n"
    "    ds('95% CI of the mean', gs.map(g => g.ci_low === null ? null : [g.ci_low, "
    "g.ci_high]),\n"
    "      0, {backgroundColor: C[0] + '55', barPercentage: 0.3}),\n"
    "    ds('mean', gs.map(g => g.mean), 1, {type: 'line', showLine: false, pointRadius: 6,\n"
    "      pointStyle: 'rectRot'}),\n"
    "    ds('runs', [].concat.apply([], gs.map(g => g.values.map(v => ({x: g.group, y: v})))),\n"
    "      2, {type: 'scatter', pointRadius: 3})],\n"
    "    'group', fg.name, {labels: gs.map(g => g.group), xType: 'category', x: {}});\n"
    "});\n";
