/* pr_file: a file written whole or not at all (contract: pr_file.h). */
#include "pr_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

/* Finish the temporary file: flush, fsync, close; -errno on failure. */
static int finish_tmp(FILE *f)
{
    int rc = 0;
    if (fflush(f) != 0 || ferror(f))
        rc = errno != 0 ? -errno : -EIO;
    else if (fsync(fileno(f)) != 0)
        rc = -errno;
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

int pr_write_atomic(const char *path, const char *what, pr_write_fn fn, const void *arg,
                    struct pr_error *err)
{
    if (path == NULL || path[0] == '\0')
        return pr_error_set(err, PR_EINVAL, "%s: empty file name", what);
    size_t len = strlen(path);
    char *tmp = pr_xmalloc(len + sizeof(".tmp"));
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", sizeof(".tmp"));
    int rc;
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        int e = errno;
        rc = pr_error_set(err, -e, "%s: cannot create %s: %s", what, tmp, strerror(e));
        goto out_free;
    }
    errno = 0;
    rc = fn(f, arg);
    int rc_close = finish_tmp(f);
    if (rc == 0)
        rc = rc_close;
    if (rc != 0) {
        pr_error_set(err, rc, "%s: cannot write %s: %s", what, tmp, pr_strerror(rc));
        goto out_unlink;
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        rc = pr_error_set(err, -e, "%s: cannot rename %s to %s: %s", what, tmp, path, strerror(e));
        goto out_unlink;
    }
    free(tmp);
    return 0;
out_unlink:
    unlink(tmp);
out_free:
    free(tmp);
    return rc;
}
