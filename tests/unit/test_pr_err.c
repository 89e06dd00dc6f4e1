#include <errno.h>
#include <string.h>

#include "pr_err.h"
#include "testlib.h"

int main(void)
{
    struct pr_error err = {0};

    CHECK(strcmp(pr_strerror(0), "success") == 0);
    CHECK(strcmp(pr_strerror(PR_EMISSING_KEY), "required key missing") == 0);
    CHECK(strcmp(pr_errname(PR_EVERSION), "PR_EVERSION") == 0);
    CHECK(strcmp(pr_strerror(-ENOENT), strerror(ENOENT)) == 0);
    CHECK(strcmp(pr_strerror(12345), "unknown error") == 0);
    CHECK(PR_EINVAL <= -9999 && PR_EBAD_BASE64 < 0);

    CHECK(pr_error_set(&err, PR_ETOO_BIG, "array of %d", 7) == PR_ETOO_BIG);
    CHECK(err.code == PR_ETOO_BIG);
    CHECK(strcmp(err.msg, "array of 7") == 0);
    CHECK(pr_error_set(NULL, PR_EINVAL, "x") == PR_EINVAL);

    char *s = pr_xstrdup("abc");
    CHECK(strcmp(s, "abc") == 0);
    free(s);
    return TEST_END();
}
