/* test_co_output_edges: co_json, co_csv and co_hdrout at their edges.
 * Error paths: a missing directory, a directory as the target, an empty
 * name, /dev/full. The hdr-log's agent tags and a workload name too long
 * for one header line; pr_fmt_double and pr_utf8_seq_len. The result is
 * co_output_fixture.h's; the files of a whole run are checked in
 * test_co_output.c. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "co_csv.h"
#include "co_hdrout.h"
#include "co_json.h"
#include "co_output_fixture.h"
#include "co_result.h"
#include "pr_hdrlog.h"
#include "pr_text.h"
#include "testlib.h"

/* A long workload name (a script path, say) leaves every header line of
 * the hdr-log under HdrHistogram_c's 127-byte limit, and is all there. */
static void test_hdr_long_workload(const struct co_result *base)
{
    struct co_result r = *base;
    char name[400] = "/home/someone/benchmarks/", *text = NULL;
    while (strlen(name) < 300)
        strcat(name, "very_long_directory_name/");
    strcat(name, "script.lua");
    r.workload = name;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK_EQ_U64(co_hdrout_write(&r, START_MS, f), 0);
    fclose(f);
    char joined[2048] = "";
    size_t longest = 0;
    for (char *line = strtok(text, "\n"); line && line[0] == '#'; line = strtok(NULL, "\n")) {
        longest = strlen(line) > longest ? strlen(line) : longest;
        if (strncmp(line, "#[Histogram log format", 22) == 0)
            break;
        strncat(joined, line + 2, strlen(line) - 3);
    }
    CHECK_MSG(longest <= PR_HDRLOG_LINE_MAX, "longest header line %zu", longest);
    CHECK_MSG(strstr(joined, name) != NULL, "comment %s", joined);
    free(text);
}

static void test_tags(void)
{
    struct co_result r = {0};
    struct co_agent_result agents[4] = {{.name = "a b"}, {.name = "a,b"}, {.name = ""}, {0}};
    r.agents = agents;
    r.n_agents = 4;
    const char *want[] = {"a_b", "a_b~1", "agent2", "agent3"};
    for (uint32_t i = 0; i < 4; i++) {
        char *t = co_hdrout_agent_tag(&r, i);
        CHECK_MSG(t != NULL && strcmp(t, want[i]) == 0, "tag %u: %s", i, t);
        free(t);
    }
    CHECK(co_hdrout_agent_tag(&r, 4) == NULL);
}

/* ---- errors ---------------------------------------------------------- */

typedef int (*write_file_fn)(const struct co_result *r, const char *path, struct pr_error *err);

static int hdr_write_file(const struct co_result *r, const char *path, struct pr_error *err)
{
    return co_hdrout_write_file(r, START_MS, path, err);
}

static void check_error(const struct co_result *r, write_file_fn fn, const char *path)
{
    struct pr_error err = {0};
    size_t len = strlen(path);
    char *tmp = pr_xmalloc(len + 5);
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);
    struct stat before, after;
    bool existed = lstat(path, &before) == 0;
    int rc = fn(r, path, &err);
    CHECK_MSG(rc < 0, "%s: rc %d", path, rc);
    CHECK_MSG(err.code == rc && strstr(err.msg, path) != NULL, "%s: message '%s'", path, err.msg);
    CHECK_MSG(!exists(tmp), "%s left behind", tmp);
    if (existed)
        CHECK(lstat(path, &after) == 0 && after.st_ino == before.st_ino &&
              S_ISDIR(after.st_mode) == S_ISDIR(before.st_mode));
    else
        CHECK(!exists(path));
    printf("expected error: %s\n", err.msg);
    free(tmp);
}

static void test_errors(const struct co_result *r)
{
    write_file_fn fns[] = {co_json_write_file, co_csv_write_file, hdr_write_file};
    char *missing = path_in("no-such-dir/out");
    char *dir = path_in("a-dir");
    CHECK(mkdir(dir, 0700) == 0);
    for (size_t i = 0; i < 3; i++) {
        check_error(r, fns[i], missing);
        check_error(r, fns[i], dir); /* the rename fails: .tmp removed */
        struct pr_error err = {0};
        CHECK_EQ_U64(fns[i](r, "", &err), PR_EINVAL);
    }
    rmdir(dir);
    free(dir);
    free(missing);

    /* A full device: the stream writers report -EIO. */
    FILE *f = fopen("/dev/full", "w");
    if (f == NULL)
        return;
    CHECK_EQ_U64(co_json_write(r, f), -EIO);
    clearerr(f);
    CHECK_EQ_U64(co_csv_write(r, f), -EIO);
    clearerr(f);
    CHECK_EQ_U64(co_hdrout_write(r, START_MS, f), -EIO);
    fclose(f);
}

/* ---- internals and co_result_clear ---------------------------------- */

static void test_helpers(void)
{
    char buf[40];
    CHECK(pr_fmt_double(buf, sizeof(buf), 0.1) && strcmp(buf, "0.1") == 0);
    CHECK(pr_fmt_double(buf, sizeof(buf), 1250.0) && strcmp(buf, "1250") == 0);
    CHECK(pr_fmt_double(buf, sizeof(buf), 1.0 / 3) && strtod(buf, NULL) == 1.0 / 3);
    CHECK(pr_fmt_double(buf, sizeof(buf), -1e300) && strtod(buf, NULL) == -1e300);
    CHECK(!pr_fmt_double(buf, sizeof(buf), NAN) && buf[0] == '\0');
    CHECK(!pr_fmt_double(buf, sizeof(buf), -INFINITY));
    const struct {
        const char *s;
        size_t len;
    } seqs[] = {
        {"a", 1},
        {"\xc3\xa9", 2},
        {"\xe2\x80\xa8", 3},
        {"\xf0\x9f\x98\x80", 4},
        {"\xc0\x80", 0},
        {"\xe0\x80\x80", 0},
        {"\xed\xa0\x80", 0},
        {"\xf4\x90\x80\x80", 0},
        {"\xc3", 0},
        {"\xc3(", 0},
        {"\x80", 0},
        {"\xff", 0},
        {"\xf0\x9f\x98", 0},
    };
    for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
        CHECK_MSG(pr_utf8_seq_len((const unsigned char *)seqs[i].s, strlen(seqs[i].s)) ==
                      seqs[i].len,
                  "sequence %zu", i);
}

int main(void)
{
    if (co_output_tmpdir_make() != 0)
        return 1;
    test_helpers();
    test_tags();
    struct co_result r = {0};
    build_result(&r);
    test_hdr_long_workload(&r);
    test_errors(&r);
    co_result_clear(&r);
    co_output_tmpdir_remove();
    return TEST_END();
}
