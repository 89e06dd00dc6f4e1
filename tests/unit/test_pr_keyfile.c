/* Tests for pr_keyfile: the key-file rule the coordinator and the agent
 * share (a secret key open to group or others is refused, naming the file
 * and the chmod fix), and the Z85 check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "pr_keyfile.h"
#include "testlib.h"

/* A valid key (the RFC 32 test vector's alphabet, decodable). */
#define KEY1 "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
#define KEY2 "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID"

static char dir[64];

static char *write_file(const char *name, const char *text, mode_t mode)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return path;
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
    return path;
}

static void test_z85(void)
{
    CHECK(pr_key_is_z85(KEY1) && pr_key_is_z85(KEY2));
    CHECK(!pr_key_is_z85(""));
    CHECK(!pr_key_is_z85(NULL));
    CHECK(!pr_key_is_z85(KEY1 "x"));                                    /* 41 characters */
    CHECK(!pr_key_is_z85("rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf"));   /* 39 */
    CHECK(!pr_key_is_z85("rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]y\"7")); /* '"' not Z85 */
    CHECK(!pr_key_is_z85("rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]y 7"));
    CHECK(!pr_key_is_z85("#####rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H")); /* group > 2^32 */
    CHECK(pr_key_is_z85("%nSc0rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H"));  /* 2^32 - 1 */
}

static void test_secret(void)
{
    char out[PR_KEY_LEN + 1] = "";
    struct pr_error err = {0};

    char *p = write_file("ok.secret", KEY1 "\n# comment\n", 0600);
    CHECK_MSG(pr_keyfile_read_secret(p, out, "--secret-key-file", &err) == 0, "%s", err.msg);
    CHECK(strcmp(out, KEY1) == 0);
    p = write_file("crlf.secret", KEY2 " \t\r\n", 0400);
    CHECK_MSG(pr_keyfile_read_secret(p, out, NULL, &err) == 0, "%s", err.msg);
    CHECK(strcmp(out, KEY2) == 0);

    /* Open to group or others, in any way: refused, file and fix named. */
    static const mode_t bad[] = {0640, 0604, 0644, 0660, 0620, 0602, 0610, 0601, 0666};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(out, 0, sizeof out);
        p = write_file("open.secret", KEY1 "\n", bad[i]);
        err.msg[0] = '\0';
        CHECK_MSG(pr_keyfile_read_secret(p, out, "--secret-key-file", &err) == PR_EINVAL,
                  "mode %03o accepted", (unsigned)bad[i]);
        CHECK_MSG(strstr(err.msg, p) && strstr(err.msg, "chmod 600") &&
                      strstr(err.msg, "--secret-key-file"),
                  "mode %03o: '%s'", (unsigned)bad[i], err.msg);
        CHECK(out[0] == '\0');
    }
    /* 0440 owned by root (a Secret volume with fsGroup) is taken; the
     * same mode owned by anyone else, or 0444/0460 by root, is not. */
    p = write_file("vol.secret", KEY2 "\n", 0440);
    struct stat st;
    bool root_owned = chown(p, 0, 0) == 0 && stat(p, &st) == 0 && st.st_uid == 0;
    CHECK_MSG((pr_keyfile_read_secret(p, out, NULL, &err) == 0) == root_owned, "0440 %s owner: %s",
              root_owned ? "root" : "non-root", err.msg);
    if (root_owned) {
        CHECK(chown(p, 10001, 10001) == 0);
        CHECK(pr_keyfile_read_secret(p, out, NULL, &err) == PR_EINVAL);
        static const mode_t root_bad[] = {0444, 0460, 0640, 0450, 02440};
        for (size_t i = 0; i < sizeof root_bad / sizeof root_bad[0]; i++) {
            p = write_file("vol.secret", KEY2 "\n", root_bad[i]);
            CHECK(chown(p, 0, 0) == 0);
            CHECK_MSG(pr_keyfile_read_secret(p, out, NULL, &err) == PR_EINVAL,
                      "root-owned mode %04o accepted", (unsigned)root_bad[i]);
        }
    }
    p = write_file("bad.secret", "not a key\n", 0600);
    CHECK(pr_keyfile_read_secret(p, out, NULL, &err) == PR_EINVAL && strstr(err.msg, "Z85") &&
          strstr(err.msg, p));
    p = write_file("empty.secret", "", 0600);
    CHECK(pr_keyfile_read_secret(p, out, NULL, &err) == PR_EINVAL && strstr(err.msg, "Z85"));
    CHECK(pr_keyfile_read_secret("/nonexistent/x.secret", out, "--secret-key-file", &err) ==
              PR_EINVAL &&
          strstr(err.msg, "/nonexistent/x.secret") && strstr(err.msg, "--secret-key-file"));
    CHECK(pr_keyfile_read_secret(dir, out, NULL, &err) == PR_EINVAL &&
          strstr(err.msg, "not a regular file"));
}

static void test_public(void)
{
    char out[PR_KEY_LEN + 1] = "";
    struct pr_error err = {0};

    CHECK(pr_keyfile_read_public(KEY1, out, NULL, &err) == 0 && strcmp(out, KEY1) == 0);
    /* A public key file may be world readable. */
    char *p = write_file("c.pub", KEY2 "\n", 0644);
    CHECK_MSG(pr_keyfile_read_public(p, out, NULL, &err) == 0, "%s", err.msg);
    CHECK(strcmp(out, KEY2) == 0);
    CHECK(pr_keyfile_read_public("tooshort", out, "--coordinator-key", &err) == PR_EINVAL &&
          strstr(err.msg, "--coordinator-key") && strstr(err.msg, "tooshort"));
    p = write_file("junk.pub", "junk\n", 0644);
    CHECK(pr_keyfile_read_public(p, out, NULL, &err) == PR_EINVAL && strstr(err.msg, p));
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_pr_keyfile-XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    umask(0);
    test_z85();
    test_secret();
    test_public();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return TEST_END();
}
