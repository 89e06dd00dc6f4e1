/* co_keys: CURVE key files, the authorized-keys list and the ZAP handler.
 * See co_keys.h. */
#include "co_keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "pr_keyfile.h"

#define ZAP_ENDPOINT "inproc://zeromq.zap.01"
#define ZAP_FRAMES   7 /* version, request id, domain, address, identity, mechanism, key */

/* ---- key text ---------------------------------------------------------- */

int co_keys_generate(struct co_keypair *kp, struct pr_error *err)
{
    if (!zmq_has("curve"))
        return pr_error_set(err, PR_EINVAL, "this libzmq has no CURVE support");
    if (zmq_curve_keypair(kp->public_key, kp->secret_key) != 0)
        return pr_error_set(err, PR_EINVAL, "zmq_curve_keypair: %s", zmq_strerror(zmq_errno()));
    return 0;
}

/* mkdir -p with mode 0700 for the components created. */
static int make_dirs(const char *dir, struct pr_error *err)
{
    char *p = pr_xstrdup(dir);
    int rc = 0;

    for (char *s = p + 1; rc == 0; s++) {
        bool end = *s == '\0';
        if (*s != '/' && !end)
            continue;
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            rc = pr_error_set(err, -errno, "%s: cannot create directory: %s", p, strerror(errno));
        if (end)
            break;
        *s = '/';
    }
    struct stat st;
    if (rc == 0 && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        rc = pr_error_set(err, -ENOTDIR, "%s: not a directory", dir);
    free(p);
    return rc;
}

/* Create path exclusively with exactly mode and write text + "\n". */
static int write_new_file(const char *path, const char *text, mode_t mode, struct pr_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);

    if (fd < 0) {
        int e = errno;
        return pr_error_set(err, -e, "%s: %s", path,
                            e == EEXIST ? "already exists; not overwriting it" : strerror(e));
    }
    size_t len = strlen(text);
    char *buf = pr_xmalloc(len + 1);
    memcpy(buf, text, len);
    buf[len] = '\n';
    int rc = 0;
    if (fchmod(fd, mode) != 0 || write(fd, buf, len + 1) != (ssize_t)(len + 1) || fsync(fd) != 0)
        rc = pr_error_set(err, -errno, "%s: cannot write: %s", path, strerror(errno));
    free(buf);
    if (close(fd) != 0 && rc == 0)
        rc = pr_error_set(err, -errno, "%s: cannot write: %s", path, strerror(errno));
    if (rc < 0)
        unlink(path);
    return rc;
}

int co_keys_write(const char *dir, const char *name, const struct co_keypair *kp,
                  struct pr_error *err)
{
    if (!*dir || !*name || strchr(name, '/'))
        return pr_error_set(err, PR_EINVAL, "keygen: bad directory '%s' or name '%s'", dir, name);
    int rc = make_dirs(dir, err);
    if (rc < 0)
        return rc;

    size_t cap = strlen(dir) + strlen(name) + 16;
    char *sec = pr_xmalloc(cap), *pub = pr_xmalloc(cap);
    snprintf(sec, cap, "%s/%s.secret", dir, name);
    snprintf(pub, cap, "%s/%s.pub", dir, name);
    /* Refuse before writing anything, so a refusal leaves no half pair. */
    if (access(pub, F_OK) == 0)
        rc = pr_error_set(err, -EEXIST, "%s: already exists; not overwriting it", pub);
    if (rc == 0)
        rc = write_new_file(sec, kp->secret_key, 0600, err);
    if (rc == 0) {
        rc = write_new_file(pub, kp->public_key, 0644, err);
        if (rc < 0)
            unlink(sec);
    }
    free(sec);
    free(pub);
    return rc;
}

int co_keys_read_secret(const char *path, struct co_keypair *kp, struct pr_error *err)
{
    int rc = pr_keyfile_read_secret(path, kp->secret_key, NULL, err);

    if (rc < 0)
        return rc;
    if (zmq_curve_public(kp->public_key, kp->secret_key) != 0)
        return pr_error_set(err, PR_EINVAL, "%s: cannot derive the public key: %s", path,
                            zmq_strerror(zmq_errno()));
    return 0;
}

int co_keys_read_public(const char *key_or_path, char out[CO_KEY_LEN + 1], struct pr_error *err)
{
    return pr_keyfile_read_public(key_or_path, out, NULL, err);
}

/* ---- keyring ----------------------------------------------------------- */

struct co_keyring {
    size_t n;   /* keys held */
    size_t cap; /* slots allocated */
    struct {
        char key[CO_KEY_LEN + 1]; /* Z85 public key */
        char *label;              /* owner's name or file:line; owned */
    } * keys;
};

co_keyring *co_keyring_new(void)
{
    return pr_xcalloc(1, sizeof(co_keyring));
}

int co_keyring_add(co_keyring *kr, const char *public_key, const char *label)
{
    if (!pr_key_is_z85(public_key))
        return PR_EINVAL;
    if (co_keyring_has(kr, public_key))
        return 0;
    if (kr->n == kr->cap) {
        kr->cap = kr->cap ? kr->cap * 2 : 8;
        kr->keys = pr_xrealloc(kr->keys, kr->cap * sizeof kr->keys[0]);
    }
    memcpy(kr->keys[kr->n].key, public_key, CO_KEY_LEN + 1);
    kr->keys[kr->n].label = pr_xstrdup(label ? label : "");
    kr->n++;
    return 0;
}

bool co_keyring_has(const co_keyring *kr, const char *public_key)
{
    for (size_t i = 0; i < kr->n; i++)
        if (strcmp(kr->keys[i].key, public_key) == 0)
            return true;
    return false;
}

size_t co_keyring_count(const co_keyring *kr)
{
    return kr->n;
}

void co_keyring_destroy(co_keyring **kr)
{
    if (!*kr)
        return;
    for (size_t i = 0; i < (*kr)->n; i++)
        free((*kr)->keys[i].label);
    free((*kr)->keys);
    free(*kr);
    *kr = NULL;
}

/* One authorized-keys line (already without its newline): skip blanks and
 * comments, else "KEY [comment]". 0 or PR_EINVAL with err. */
static int load_line(co_keyring *kr, const char *path, unsigned lineno, char *s,
                     struct pr_error *err)
{
    char label[128];

    s += strspn(s, " \t\r");
    if (*s == '\0' || *s == '#')
        return 0;
    size_t klen = strcspn(s, " \t\r");
    char *rest = s + klen;
    rest += strspn(rest, " \t\r");
    size_t rlen = strlen(rest);
    while (rlen > 0 && (rest[rlen - 1] == ' ' || rest[rlen - 1] == '\t' || rest[rlen - 1] == '\r'))
        rest[--rlen] = '\0';
    s[klen] = '\0';
    if (!pr_key_is_z85(s))
        return pr_error_set(err, PR_EINVAL,
                            "%s:%u: '%.48s' is not a 40-character Z85 CURVE public key", path,
                            lineno, s);
    if (rlen)
        snprintf(label, sizeof label, "%s", rest);
    else
        snprintf(label, sizeof label, "%s:%u", path, lineno);
    return co_keyring_add(kr, s, label);
}

co_keyring *co_keyring_load(const char *path, struct pr_error *err)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0;
    int rc = 0;

    if (!f) {
        pr_error_set(err, -errno, "%s: %s", path, strerror(errno));
        return NULL;
    }
    /* As sshd's StrictModes: who may write the file decides who may run
     * load through our agents. */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        pr_error_set(err, PR_EINVAL,
                     "%s: group or others may write it (mode %03o), so anyone of them could "
                     "admit an agent: run chmod go-w %s",
                     path, (unsigned)(st.st_mode & 0777), path);
        fclose(f);
        return NULL;
    }
    co_keyring *kr = co_keyring_new();
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        rc = load_line(kr, path, lineno, line, err);
    }
    if (rc == 0 && ferror(f))
        rc = pr_error_set(err, PR_EINVAL, "%s: read error", path);
    if (rc == 0 && kr->n == 0)
        rc = pr_error_set(err, PR_EINVAL, "%s: no keys (one Z85 public key per line)", path);
    free(line);
    fclose(f);
    if (rc < 0)
        co_keyring_destroy(&kr);
    return kr;
}

/* ---- ZAP handler (RFC 27) ---------------------------------------------- */

struct co_zap {
    void *rep;                             /* REP bound to ZAP_ENDPOINT */
    const co_keyring *kr;                  /* admitted keys, borrowed */
    uint64_t refused;                      /* requests answered 400 */
    char last_refused_key[CO_KEY_LEN + 1]; /* Z85 of the last refused key */
    char last_refused_addr[64];            /* its peer address, "" if unknown */
};

co_zap *co_zap_new(void *zctx, const co_keyring *kr, struct pr_error *err)
{
    void *rep = zmq_socket(zctx, ZMQ_REP);

    if (!rep) {
        pr_error_set(err, PR_EINVAL, "ZAP: zmq_socket: %s", zmq_strerror(zmq_errno()));
        return NULL;
    }
    int linger = 0;
    zmq_setsockopt(rep, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_bind(rep, ZAP_ENDPOINT) != 0) {
        pr_error_set(err, PR_EINVAL, "ZAP: bind %s: %s", ZAP_ENDPOINT, zmq_strerror(zmq_errno()));
        zmq_close(rep);
        return NULL;
    }
    co_zap *z = pr_xcalloc(1, sizeof *z);
    z->rep = rep;
    z->kr = kr;
    return z;
}

void *co_zap_socket(co_zap *z)
{
    return z->rep;
}

/* Receive one whole request (non-blocking). Returns the number of frames
 * (extra frames beyond ZAP_FRAMES are drained and counted), 0 when none is
 * pending, -1 on error. */
static int recv_request(void *rep, zmq_msg_t f[ZAP_FRAMES])
{
    int n = 0;
    int more = 1;

    while (more) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, rep, n == 0 ? ZMQ_DONTWAIT : 0) < 0) {
            int e = zmq_errno();
            zmq_msg_close(&m);
            for (int i = 0; i < n && i < ZAP_FRAMES; i++)
                zmq_msg_close(&f[i]);
            return n == 0 && e == EAGAIN ? 0 : -1;
        }
        more = zmq_msg_more(&m);
        if (n < ZAP_FRAMES)
            f[n] = m;
        else
            zmq_msg_close(&m);
        n++;
    }
    return n;
}

/* Copy a frame's bytes as a NUL-terminated string, truncated to cap. */
static void frame_str(zmq_msg_t *m, char *out, size_t cap)
{
    size_t len = zmq_msg_size(m);

    if (len >= cap)
        len = cap - 1;
    memcpy(out, zmq_msg_data(m), len);
    out[len] = '\0';
}

/* Send the reply: version, request id, status code, text, user id, metadata. */
static void send_reply(void *rep, zmq_msg_t *request_id, const char *code, const char *text,
                       const char *user_id)
{
    zmq_send(rep, "1.0", 3, ZMQ_SNDMORE);
    if (request_id)
        zmq_send(rep, zmq_msg_data(request_id), zmq_msg_size(request_id), ZMQ_SNDMORE);
    else
        zmq_send(rep, "", 0, ZMQ_SNDMORE);
    zmq_send(rep, code, strlen(code), ZMQ_SNDMORE);
    zmq_send(rep, text, strlen(text), ZMQ_SNDMORE);
    zmq_send(rep, user_id, strlen(user_id), ZMQ_SNDMORE);
    zmq_send(rep, "", 0, 0);
}

/* Decide one request of n frames; true when admitted. */
static bool decide(co_zap *z, zmq_msg_t f[ZAP_FRAMES], int n, char key[CO_KEY_LEN + 1], char *addr,
                   size_t addr_cap)
{
    char mech[16] = "";

    key[0] = '\0';
    addr[0] = '\0';
    if (n >= 4)
        frame_str(&f[3], addr, addr_cap);
    if (n != ZAP_FRAMES || zmq_msg_size(&f[0]) != 3 || memcmp(zmq_msg_data(&f[0]), "1.0", 3))
        return false;
    frame_str(&f[5], mech, sizeof mech);
    if (strcmp(mech, "CURVE") != 0 || zmq_msg_size(&f[6]) != 32)
        return false;
    if (!zmq_z85_encode(key, zmq_msg_data(&f[6]), 32))
        return false;
    return co_keyring_has(z->kr, key);
}

int co_zap_handle(co_zap *z)
{
    int refused = 0;

    for (;;) {
        zmq_msg_t f[ZAP_FRAMES];
        char key[CO_KEY_LEN + 1], addr[sizeof z->last_refused_addr];
        int n = recv_request(z->rep, f);
        if (n <= 0)
            break;
        bool ok = decide(z, f, n, key, addr, sizeof addr);
        if (ok) {
            send_reply(z->rep, n >= 2 ? &f[1] : NULL, "200", "OK", key);
        } else {
            send_reply(z->rep, n >= 2 ? &f[1] : NULL, "400", "key not authorized", "");
            refused++;
            z->refused++;
            memcpy(z->last_refused_key, key, sizeof key);
            memcpy(z->last_refused_addr, addr, sizeof addr);
        }
        for (int i = 0; i < n && i < ZAP_FRAMES; i++)
            zmq_msg_close(&f[i]);
    }
    return refused;
}

uint64_t co_zap_refused(const co_zap *z)
{
    return z->refused;
}

const char *co_zap_last_refused_key(const co_zap *z)
{
    return z->last_refused_key;
}

const char *co_zap_last_refused_addr(const co_zap *z)
{
    return z->last_refused_addr;
}

void co_zap_destroy(co_zap **z)
{
    if (!*z)
        return;
    zmq_close((*z)->rep);
    free(*z);
    *z = NULL;
}
