/* pr_keyfile: CURVE key text and key files. See pr_keyfile.h. */
#include "pr_keyfile.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char z85_chars[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRST"
                                "UVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

bool pr_key_is_z85(const char *s)
{
    if (s == NULL || strlen(s) != PR_KEY_LEN)
        return false;
    for (size_t g = 0; g < PR_KEY_LEN; g += 5) {
        uint64_t v = 0;
        for (size_t i = g; i < g + 5; i++) {
            const char *p = strchr(z85_chars, s[i]);
            if (p == NULL)
                return false;
            v = v * 85 + (uint64_t)(p - z85_chars);
        }
        if (v > UINT32_MAX)
            return false;
    }
    return true;
}

/* "WHAT: " or "" for messages. */
static const char *sep(const char *what)
{
    return what && *what ? ": " : "";
}

/* The first line of the open file fd into line (cap bytes), without its
 * line end and trailing blanks. 0 or -errno. */
static int read_first_line(int fd, char *line, size_t cap)
{
    size_t len = 0;

    while (len + 1 < cap) {
        ssize_t n = read(fd, line + len, cap - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            break;
        len += (size_t)n;
        if (memchr(line, '\n', len))
            break;
    }
    line[len] = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    len = strlen(line);
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
        line[--len] = '\0';
    return 0;
}

/* The one group-readable shape a secret may have: 0440 owned by root,
 * what the kubelet writes for a Secret volume when the pod sets fsGroup
 * (defaultMode 0400 plus the group's read bit, group = fsGroup): a
 * non-root agent reads it through that group. Nobody but root can write or
 * re-mode it, and others have no access (PostgreSQL takes its server key
 * on the same terms). */
bool pr_keyfile_is_secret_volume(const struct stat *st)
{
    return st->st_uid == 0 && (st->st_mode & 07777) == 0440;
}

/* Open path and check, on the open file (no race with a rename), that it
 * is a regular file and, when secret, that group and others have no access
 * (but see pr_keyfile_is_secret_volume).
 * O_NONBLOCK keeps a FIFO given by mistake from hanging the open; it does
 * nothing to a regular file. fd >= 0, or PR_EINVAL with err. */
static int open_key_file(const char *path, bool secret, const char *what, struct pr_error *err)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0)
        return pr_error_set(err, PR_EINVAL, "%s%s%s: cannot read: %s", what ? what : "", sep(what),
                            path, strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return pr_error_set(err, PR_EINVAL, "%s%s%s: not a regular file", what ? what : "",
                            sep(what), path);
    }
    if (secret && (st.st_mode & 077) && !pr_keyfile_is_secret_volume(&st)) {
        close(fd);
        return pr_error_set(err, PR_EINVAL,
                            "%s%s%s: secret key is accessible by group or others (mode %03o); "
                            "run chmod 600 %s",
                            what ? what : "", sep(what), path, (unsigned)(st.st_mode & 0777), path);
    }
    return fd;
}

/* Read and check one key file into out; scrubs its buffer. */
static int read_key(const char *path, bool secret, char out[PR_KEY_LEN + 1], const char *what,
                    struct pr_error *err)
{
    char line[256];
    int fd = open_key_file(path, secret, what, err);

    if (fd < 0)
        return fd;
    int rc = read_first_line(fd, line, sizeof line);
    close(fd);
    if (rc < 0)
        rc = pr_error_set(err, PR_EINVAL, "%s%s%s: cannot read: %s", what ? what : "", sep(what),
                          path, strerror(-rc));
    else if (!pr_key_is_z85(line))
        rc = pr_error_set(err, PR_EINVAL, "%s%s%s: first line is not a 40-character Z85 CURVE key",
                          what ? what : "", sep(what), path);
    else
        memcpy(out, line, PR_KEY_LEN + 1);
    explicit_bzero(line, sizeof line);
    return rc;
}

int pr_keyfile_read_secret(const char *path, char out[PR_KEY_LEN + 1], const char *what,
                           struct pr_error *err)
{
    return read_key(path, true, out, what, err);
}

int pr_keyfile_read_public(const char *key_or_path, char out[PR_KEY_LEN + 1], const char *what,
                           struct pr_error *err)
{
    if (access(key_or_path, F_OK) != 0 && pr_key_is_z85(key_or_path)) {
        memcpy(out, key_or_path, PR_KEY_LEN + 1);
        return 0;
    }
    if (access(key_or_path, F_OK) != 0)
        return pr_error_set(err, PR_EINVAL, "%s%s%s: not a 40-character Z85 key and not a file",
                            what ? what : "", sep(what), key_or_path);
    return read_key(key_or_path, false, out, what, err);
}

bool pr_secrets_protect(void)
{
    const char *allow = getenv("STAMPEDE_ALLOW_CORE_DUMPS");
    if (allow != NULL && strcmp(allow, "1") == 0)
        return false;
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0;
}
