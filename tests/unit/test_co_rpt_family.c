/* test_co_rpt_family: the report tool names no family. The registry walk
 * (co_registry_at, co_rpt_family_at) lists every family once; a run JSON
 * whose family member no registry entry claims renders the generic
 * sections and no family section, no headline column, and the same
 * figures under the member a family does claim (its json_key, read from
 * the registry, not spelled here) render that family's sections; a
 * sweep's headline column appears only for a family's headline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "co_family.h"
#include "co_rpt_family.h"
#include "co_rpt_html.h"
#include "co_rpt_load.h"
#include "co_rpt_text.h"
#include "testlib.h"

static void test_walk(void)
{
    size_t n = 0, with_rpt = 0;
    const struct co_family *f;
    for (; (f = co_registry_at(n)) != NULL; n++) {
        CHECK(f->name != NULL && f->has_workload != NULL);
        for (size_t j = 0; j < n; j++)
            CHECK_MSG(strcmp(co_registry_at(j)->name, f->name) != 0, "%s twice", f->name);
        with_rpt += f->rpt != NULL;
    }
    printf("registry: %zu families, %zu with report-tool ops\n", n, with_rpt);
    CHECK(n >= 2);
    size_t k = 0;
    const struct co_rpt_family *r;
    for (; (r = co_rpt_family_at(k)) != NULL; k++) {
        bool owned = false;
        for (size_t j = 0; j < n; j++)
            owned = owned || co_registry_at(j)->rpt == r;
        CHECK_MSG(owned && r->json_key != NULL, "report ops %zu belong to no family", k);
    }
    CHECK_MSG(k == with_rpt, "co_rpt_family_at walks %zu, the registry has %zu", k, with_rpt);
    CHECK(co_registry_find("no_such_workload") == NULL);
}

/* A run JSON with figures under member key (generic parts and kinds);
 * key NULL: without the member. */
static json_t *run_json(const char *key, double scale)
{
    json_t *root = json_loads(
        "{\"version\": \"0.1.0\", \"agents\": [{\"name\": \"g1\", \"tps\": 10}],"
        " \"intervals\": [{\"t_s\": 1, \"len_s\": 1, \"tps\": 10, \"kinds\": {\"new_order\":"
        " {\"count\": 5, \"latency_ms\": {\"p95\": 2}}, \"payment\": {\"count\": 4}}}],"
        " \"totals\": {\"tps\": 10, \"qps\": 20, \"latency_ms\": {\"p95\": 2, \"max\": 3},"
        " \"kinds\": {\"new_order\": {\"count\": 5}}}}",
        0, NULL);
    json_t *member =
        json_pack("{s:f,s:i,s:i,s:{s:{s:i,s:f}}}", "tpmC", 777.25 * scale, "new_orders", 40,
                  "window_s", 3, "transactions", "new_order", "sc", 40, "p95_ms", 2.5);
    /* every headline a family declares, so an unclaimed member has them all */
    const struct co_rpt_family *r;
    for (size_t k = 0; (r = co_rpt_family_at(k)) != NULL; k++)
        if (r->headline)
            json_object_set_new(member, r->headline, json_real(777.25 * scale));
    if (key != NULL)
        json_object_set_new(root, key, member);
    else
        json_decref(member);
    return root;
}

static char *render(const char *key, bool html, struct co_rpt_file *files)
{
    files[0] = (struct co_rpt_file){.label = "a", .kind = CO_RPT_RUN, .root = run_json(key, 1)};
    files[1] = (struct co_rpt_file){.label = "b", .kind = CO_RPT_RUN, .root = run_json(key, 2)};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    int rc = html ? co_rpt_html_write(f, files, 2, "/* chart.js */", NULL)
                  : co_rpt_text_write(f, files, 2);
    CHECK(rc == 0);
    fclose(f);
    json_decref(files[0].root);
    json_decref(files[1].root);
    return out;
}

static void test_unclaimed(void)
{
    const struct co_rpt_family *fam = co_rpt_family_at(0);
    CHECK(fam != NULL);
    if (fam == NULL)
        return;
    struct co_rpt_file files[2];
    char *page = render("widgets", true, files), *text = render("widgets", false, files);
    char *fpage = render(fam->json_key, true, files), *ftext = render(fam->json_key, false, files);
    char *bare = render(NULL, true, files), *btext = render(NULL, false, files);
    /* a member no family claims changes nothing: byte for byte the page and
     * the text of the same runs without it */
    CHECK_MSG(strcmp(page, bare) == 0, "an unclaimed member changed the page");
    CHECK_MSG(strcmp(text, btext) == 0, "an unclaimed member changed the text:\n%s", text);
    /* the generic sections are there in both */
    CHECK(strstr(page, "id=\"kinds-table-0\"") && strstr(page, "id=\"krate-0\"") &&
          strstr(page, "id=\"kinds-cmp-table\""));
    CHECK(strstr(fpage, "id=\"kinds-table-0\"") && strstr(fpage, "id=\"krate-0\""));
    /* the unclaimed member draws nothing: the pages differ only by the
     * family's sections, so the claimed one is longer and the unclaimed
     * one has none of the family's tables */
    printf("page: %zu bytes unclaimed, %zu under \"%s\"\n", strlen(page), strlen(fpage),
           fam->json_key);
    CHECK(strlen(fpage) > strlen(page));
    CHECK_MSG(strstr(page, "777.250") == NULL, "an unclaimed member's figure is drawn");
    /* the markup (the page script, every family's, is always there) names
     * neither the family's member nor its headline when no run has it */
    char *script = strstr(page, "<script>\n"), *last = script;
    while (last && (last = strstr(last + 1, "<script>\n")) != NULL)
        script = last;
    if (script)
        *script = '\0';
    CHECK_MSG(strstr(page, fam->json_key) == NULL, "\"%s\" drawn without its member",
              fam->json_key);
    CHECK_MSG(!fam->headline || strstr(page, fam->headline) == NULL,
              "\"%s\" drawn without its member", fam->headline);
    CHECK_MSG(strstr(fpage, "777.250") != NULL, "the family's figure is not drawn");
    if (fam->headline) {
        CHECK_MSG(strstr(text, fam->headline) == NULL, "headline column without its family:\n%s",
                  text);
        CHECK_MSG(strstr(ftext, fam->headline) != NULL && strstr(ftext, "777.250") &&
                      strstr(ftext, "1554.500"),
                  "no %s column:\n%s", fam->headline, ftext);
    }
    free(page);
    free(text);
    free(fpage);
    free(ftext);
    free(bare);
    free(btext);
}

static void test_sweep(void)
{
    const struct co_rpt_family *fam = co_rpt_family_at(0);
    if (fam == NULL || fam->headline == NULL)
        return;
    const char *stats = "{\"mean\": 5, \"stddev\": 0, \"min\": 5, \"max\": 5}";
    char doc[1024];
    snprintf(doc, sizeof doc,
             "{\"points\": [{\"threads\": 1, \"runs\": 1, \"tps\": %s, \"qps\": %s, \"p95_ms\":"
             " %s, \"p99_ms\": %s, \"widgets\": {\"mean\": 4242}, \"%s\": {\"mean\": 9191}}]}",
             stats, stats, stats, stats, fam->headline);
    json_t *sw = json_loads(doc, 0, NULL);
    CHECK(sw != NULL);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    co_rpt_text_sweep(f, sw, "s");
    fclose(f);
    CHECK_MSG(strstr(out, "9191.000") != NULL && strstr(out, "4242") == NULL &&
                  strstr(out, "widgets") == NULL,
              "%s", out);
    free(out);
    json_decref(sw);
}

int main(void)
{
    test_walk();
    test_unclaimed();
    test_sweep();
    return TEST_END();
}
