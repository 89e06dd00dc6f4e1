/* test_co_keys: key files (modes, refusal to overwrite, read back), the
 * authorized-keys file, and the ZAP handler on a real ZeroMQ CURVE ROUTER
 * with one authorized and one unauthorized DEALER. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "co_keys.h"
#include "pr_err.h"
#include "testlib.h"

static char tmpdir[64];

static void write_text(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

static char *read_text(const char *path)
{
    static char buf[512];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return buf;
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static void test_generate(void)
{
    struct co_keypair a, b;
    struct pr_error err = {0};
    uint8_t raw[32];

    CHECK(co_keys_generate(&a, &err) == 0);
    CHECK(co_keys_generate(&b, &err) == 0);
    CHECK(strlen(a.public_key) == CO_KEY_LEN && strlen(a.secret_key) == CO_KEY_LEN);
    CHECK(zmq_z85_decode(raw, a.public_key) != NULL);
    CHECK(strcmp(a.public_key, b.public_key) != 0);
    CHECK(strcmp(a.secret_key, a.public_key) != 0);
}

static void test_write_read(void)
{
    struct co_keypair kp, back;
    struct pr_error err = {0};
    char dir[128], sec[192], pub[192];
    char key[CO_KEY_LEN + 1];

    snprintf(dir, sizeof dir, "%s/keys/deep", tmpdir);
    snprintf(sec, sizeof sec, "%s/agent1.secret", dir);
    snprintf(pub, sizeof pub, "%s/agent1.pub", dir);
    CHECK(co_keys_generate(&kp, &err) == 0);

    umask(0); /* modes must not depend on the caller's umask */
    CHECK_MSG(co_keys_write(dir, "agent1", &kp, &err) == 0, "%s", err.msg);
    umask(022);
    CHECK(mode_of(dir) == 0700);
    CHECK(mode_of(sec) == 0600);
    CHECK(mode_of(pub) == 0644);
    CHECK(strncmp(read_text(sec), kp.secret_key, CO_KEY_LEN) == 0);
    CHECK(strncmp(read_text(pub), kp.public_key, CO_KEY_LEN) == 0);

    /* Refuses to overwrite, and leaves the old pair untouched. */
    struct co_keypair other;
    CHECK(co_keys_generate(&other, &err) == 0);
    CHECK(co_keys_write(dir, "agent1", &other, &err) == -EEXIST);
    CHECK(strstr(err.msg, "agent1.pub") && strstr(err.msg, "not overwriting"));
    CHECK(strncmp(read_text(sec), kp.secret_key, CO_KEY_LEN) == 0);
    unlink(pub);
    CHECK(co_keys_write(dir, "agent1", &other, &err) == -EEXIST);
    CHECK(strstr(err.msg, "agent1.secret") != NULL);
    CHECK(access(pub, F_OK) != 0); /* no half pair left behind */
    CHECK(co_keys_write(dir, "a/b", &other, &err) == PR_EINVAL);

    /* Read back: the public key is derived from the secret. */
    memset(&back, 0, sizeof back);
    CHECK_MSG(co_keys_read_secret(sec, &back, &err) == 0, "%s", err.msg);
    CHECK(strcmp(back.secret_key, kp.secret_key) == 0);
    CHECK(strcmp(back.public_key, kp.public_key) == 0);

    /* Group/world readable secret: refused with the fix named. */
    chmod(sec, 0640);
    CHECK(co_keys_read_secret(sec, &back, &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "chmod 600") && strstr(err.msg, sec));
    chmod(sec, 0600);

    char path[192];
    snprintf(path, sizeof path, "%s/missing.secret", tmpdir);
    CHECK(co_keys_read_secret(path, &back, &err) == PR_EINVAL && strstr(err.msg, path));
    snprintf(path, sizeof path, "%s/bad.secret", tmpdir);
    write_text(path, "not a key\n", 0600);
    CHECK(co_keys_read_secret(path, &back, &err) == PR_EINVAL && strstr(err.msg, "Z85"));
    /* CRLF and anything after the first line are fine. */
    char text[128];
    snprintf(text, sizeof text, "%s\r\n# comment\n", kp.secret_key);
    write_text(path, text, 0600);
    CHECK(co_keys_read_secret(path, &back, &err) == 0);
    CHECK(strcmp(back.public_key, kp.public_key) == 0);

    /* Public key given as itself or as a file. */
    CHECK(co_keys_read_public(kp.public_key, key, &err) == 0 && !strcmp(key, kp.public_key));
    memset(key, 0, sizeof key);
    snprintf(text, sizeof text, "%s\n", kp.public_key);
    write_text(pub, text, 0644);
    CHECK(co_keys_read_public(pub, key, &err) == 0 && !strcmp(key, kp.public_key));
    CHECK(co_keys_read_public("tooshort", key, &err) == PR_EINVAL);
    CHECK(strstr(err.msg, "tooshort") != NULL);
    write_text(path, "# a comment first\n", 0644);
    CHECK(co_keys_read_public(path, key, &err) == PR_EINVAL && strstr(err.msg, path));
    /* 40 characters, not all Z85. */
    CHECK(co_keys_read_public("abcdefghij~~~~~~~~~~abcdefghijabcdefghij", key, &err) == PR_EINVAL);
    unlink(path);
    unlink(sec);
    unlink(pub);
    snprintf(path, sizeof path, "%s/keys", tmpdir);
    rmdir(dir);
    rmdir(path);
}

static void test_keyring(void)
{
    struct co_keypair a, b, c;
    struct pr_error err = {0};
    char path[128], text[512];

    CHECK(co_keys_generate(&a, &err) == 0 && co_keys_generate(&b, &err) == 0);
    CHECK(co_keys_generate(&c, &err) == 0);
    snprintf(path, sizeof path, "%s/authorized", tmpdir);
    snprintf(text, sizeof text,
             "# agents of the load fleet\n"
             "\n"
             "   %s   agent-a (eu-west)  \r\n"
             "\t%s\n"
             "%s agent-a again\n"
             "  # indented comment\n",
             a.public_key, b.public_key, a.public_key);
    write_text(path, text, 0644);
    co_keyring *kr = co_keyring_load(path, &err);
    CHECK_MSG(kr != NULL, "%s", err.msg);
    if (kr) {
        CHECK(co_keyring_count(kr) == 2);
        CHECK(co_keyring_has(kr, a.public_key) && co_keyring_has(kr, b.public_key));
        CHECK(!co_keyring_has(kr, c.public_key));
        CHECK(co_keyring_add(kr, "bad", "x") == PR_EINVAL);
        CHECK(co_keyring_add(kr, c.public_key, "agent-c") == 0);
        CHECK(co_keyring_has(kr, c.public_key) && co_keyring_count(kr) == 3);
        co_keyring_destroy(&kr);
        CHECK(kr == NULL);
        co_keyring_destroy(&kr);
    }

    /* A bad line names the file and the line. */
    snprintf(text, sizeof text, "# x\n%s\nnot-a-key comment\n", a.public_key);
    write_text(path, text, 0644);
    char want[160];
    snprintf(want, sizeof want, "%s:3:", path);
    kr = co_keyring_load(path, &err);
    CHECK(kr == NULL && err.code == PR_EINVAL);
    CHECK_MSG(strstr(err.msg, want) && strstr(err.msg, "not-a-key"), "%s", err.msg);

    /* A key one character short. */
    snprintf(text, sizeof text, "%.39s\n", a.public_key);
    write_text(path, text, 0644);
    snprintf(want, sizeof want, "%s:1:", path);
    CHECK(co_keyring_load(path, &err) == NULL && strstr(err.msg, want));

    write_text(path, "# only comments\n\n", 0644);
    CHECK(co_keyring_load(path, &err) == NULL && strstr(err.msg, "no keys"));

    /* Group- or world-writable: refused as sshd's StrictModes does, naming
     * the file and the chmod to run (issue 27 §4). */
    snprintf(text, sizeof text, "%s\n", a.public_key);
    static const mode_t loose[] = {0664, 0646, 0666, 0620};
    char fix[192];
    snprintf(fix, sizeof fix, "chmod go-w %s", path);
    for (size_t i = 0; i < sizeof loose / sizeof loose[0]; i++) {
        write_text(path, text, 0600);
        chmod(path, loose[i]);
        kr = co_keyring_load(path, &err);
        CHECK_MSG(kr == NULL && strstr(err.msg, fix), "mode %03o: %s", (unsigned)loose[i],
                  kr ? "loaded" : err.msg);
        co_keyring_destroy(&kr);
    }
    chmod(path, 0644);
    kr = co_keyring_load(path, &err);
    CHECK_MSG(kr != NULL, "mode 644: %s", err.msg);
    co_keyring_destroy(&kr);
    unlink(path);
    CHECK(co_keyring_load(path, &err) == NULL && strstr(err.msg, path));

    kr = co_keyring_new();
    CHECK(co_keyring_count(kr) == 0 && !co_keyring_has(kr, a.public_key));
    co_keyring_destroy(&kr);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *curve_dealer(void *ctx, const char *endpoint, const struct co_keypair *kp,
                          const char *server_pub)
{
    void *s = zmq_socket(ctx, ZMQ_DEALER);
    int linger = 0;

    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    CHECK(zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, server_pub, CO_KEY_LEN + 1) == 0);
    CHECK(zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, kp->public_key, CO_KEY_LEN + 1) == 0);
    CHECK(zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, kp->secret_key, CO_KEY_LEN + 1) == 0);
    CHECK(zmq_connect(s, endpoint) == 0);
    return s;
}

/* Receive a ROUTER message: identity frame, then the body into body. Returns
 * the body length and fills user_id from the message's "User-Id" property. */
static int router_recv(void *router, char *body, size_t cap, char *user_id, size_t uid_cap)
{
    zmq_msg_t m;
    int n = -1;
    int more = 1;

    user_id[0] = '\0';
    for (int part = 0; more; part++) {
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, router, 0) < 0) {
            zmq_msg_close(&m);
            return -1;
        }
        more = zmq_msg_more(&m);
        if (part == 1) {
            n = (int)zmq_msg_size(&m);
            snprintf(body, cap, "%.*s", n, (const char *)zmq_msg_data(&m));
            const char *uid = zmq_msg_gets(&m, "User-Id");
            snprintf(user_id, uid_cap, "%s", uid ? uid : "");
        }
        zmq_msg_close(&m);
    }
    return n;
}

static void test_zap_curve(void)
{
    struct co_keypair server, good, bad;
    struct pr_error err = {0};
    char endpoint[128];
    void *ctx = zmq_ctx_new();

    CHECK(co_keys_generate(&server, &err) == 0 && co_keys_generate(&good, &err) == 0);
    CHECK(co_keys_generate(&bad, &err) == 0);
    co_keyring *kr = co_keyring_new();
    CHECK(co_keyring_add(kr, good.public_key, "good-agent") == 0);

    co_zap *zap = co_zap_new(ctx, kr, &err);
    CHECK_MSG(zap != NULL, "%s", err.msg);
    if (!zap)
        return;
    /* The ZAP endpoint is per context and single: a second handler fails. */
    co_zap *dup = co_zap_new(ctx, kr, &err);
    CHECK(dup == NULL && strstr(err.msg, "zeromq.zap.01"));

    void *router = zmq_socket(ctx, ZMQ_ROUTER);
    int one = 1, linger = 0;
    zmq_setsockopt(router, ZMQ_LINGER, &linger, sizeof linger);
    CHECK(zmq_setsockopt(router, ZMQ_CURVE_SERVER, &one, sizeof one) == 0);
    CHECK(zmq_setsockopt(router, ZMQ_CURVE_SECRETKEY, server.secret_key, CO_KEY_LEN + 1) == 0);
    CHECK(zmq_setsockopt(router, ZMQ_ZAP_DOMAIN, "stampede", 8) == 0);
    snprintf(endpoint, sizeof endpoint, "ipc:///tmp/test_co_keys.%d.%lld.sock", (int)getpid(),
             (long long)now_ms());
    CHECK_MSG(zmq_bind(router, endpoint) == 0, "%s", zmq_strerror(zmq_errno()));

    void *ca = curve_dealer(ctx, endpoint, &good, server.public_key);
    void *cb = curve_dealer(ctx, endpoint, &bad, server.public_key);
    CHECK(zmq_send(ca, "from-good", 9, ZMQ_DONTWAIT) == 9);
    /* The unauthorized client queues its message; it must never arrive. */
    zmq_send(cb, "from-bad", 8, ZMQ_DONTWAIT);

    bool got_good = false, got_bad = false;
    char user_id[64] = "";
    int64_t deadline = now_ms() + 5000, settle = -1;
    while (now_ms() < deadline && (settle < 0 || now_ms() < settle)) {
        zmq_pollitem_t items[] = {{router, 0, ZMQ_POLLIN, 0},
                                  {co_zap_socket(zap), 0, ZMQ_POLLIN, 0}};
        zmq_poll(items, 2, 50);
        if (items[1].revents & ZMQ_POLLIN)
            co_zap_handle(zap);
        if (items[0].revents & ZMQ_POLLIN) {
            char body[64], uid[64];
            if (router_recv(router, body, sizeof body, uid, sizeof uid) > 0) {
                if (strcmp(body, "from-good") == 0) {
                    got_good = true;
                    snprintf(user_id, sizeof user_id, "%s", uid);
                }
                if (strcmp(body, "from-bad") == 0)
                    got_bad = true;
            }
        }
        /* Both outcomes seen: keep listening a little longer for a leak. */
        if (settle < 0 && got_good && co_zap_refused(zap) > 0)
            settle = now_ms() + 500;
    }
    CHECK(got_good);
    CHECK(!got_bad);
    CHECK(co_zap_refused(zap) >= 1);
    CHECK_MSG(strcmp(co_zap_last_refused_key(zap), bad.public_key) == 0, "refused '%s'",
              co_zap_last_refused_key(zap));
    CHECK(strcmp(co_zap_last_refused_key(zap), good.public_key) != 0);
    /* The refused peer's address is the one libzmq gave in the ZAP request
     * (frame 4): over ipc on Linux that is the peer's credentials,
     * "...:UID:GID:PID", here this very process. Another frame (domain
     * "stampede", the empty identity) or none would not match. */
    char peer[64];
    const char *addr = co_zap_last_refused_addr(zap);
    snprintf(peer, sizeof peer, ":%u:%u:%d", (unsigned)getuid(), (unsigned)getgid(), (int)getpid());
    size_t alen = strlen(addr), plen = strlen(peer);
    CHECK_MSG(alen > plen && strcmp(addr + alen - plen, peer) == 0,
              "refused address '%s' does not name this process ('%s')", addr, peer);
    /* Our 200 reply's user id is the admitted key: the ROUTER sees it. */
    CHECK_MSG(strcmp(user_id, good.public_key) == 0, "User-Id '%s'", user_id);

    zmq_close(ca);
    zmq_close(cb);
    zmq_close(router);
    unlink(endpoint + strlen("ipc://"));
    co_zap_destroy(&zap);
    CHECK(zap == NULL);
    co_zap_destroy(&zap);
    zmq_ctx_term(ctx);
    co_keyring_destroy(&kr);
}

/* Send a request straight to the handler and read the status code. */
static void zap_exchange(void *req, co_zap *zap, const char *const *frames, int n, const void *key,
                         char status[8])
{
    for (int i = 0; i < n; i++)
        zmq_send(req, frames[i], strlen(frames[i]), i + 1 < n || key ? ZMQ_SNDMORE : 0);
    if (key)
        zmq_send(req, key, 32, 0);
    zmq_pollitem_t it = {co_zap_socket(zap), 0, ZMQ_POLLIN, 0};
    zmq_poll(&it, 1, 2000);
    co_zap_handle(zap);
    status[0] = '\0';
    for (int part = 0, more = 1; more; part++) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, req, 0) < 0)
            break;
        more = zmq_msg_more(&m);
        if (part == 2)
            snprintf(status, 8, "%.*s", (int)zmq_msg_size(&m), (const char *)zmq_msg_data(&m));
        zmq_msg_close(&m);
    }
}

/* Malformed and non-CURVE requests are refused, not crashed on. */
static void test_zap_requests(void)
{
    struct co_keypair kp;
    struct pr_error err = {0};
    uint8_t raw[32];
    char status[8];
    void *ctx = zmq_ctx_new();
    co_keyring *kr = co_keyring_new();

    CHECK(co_keys_generate(&kp, &err) == 0);
    CHECK(co_keyring_add(kr, kp.public_key, "k") == 0);
    zmq_z85_decode(raw, kp.public_key);
    co_zap *zap = co_zap_new(ctx, kr, &err);
    void *req = zmq_socket(ctx, ZMQ_REQ);
    CHECK(zmq_connect(req, "inproc://zeromq.zap.01") == 0);

    const char *good[] = {"1.0", "id1", "dom", "10.1.2.3", "", "CURVE"};
    zap_exchange(req, zap, good, 6, raw, status);
    CHECK(strcmp(status, "200") == 0);
    CHECK(co_zap_refused(zap) == 0);

    raw[0] ^= 1;
    zap_exchange(req, zap, good, 6, raw, status);
    CHECK(strcmp(status, "400") == 0);
    CHECK(co_zap_refused(zap) == 1);
    CHECK(strcmp(co_zap_last_refused_addr(zap), "10.1.2.3") == 0);
    CHECK(strlen(co_zap_last_refused_key(zap)) == CO_KEY_LEN);

    const char *plain[] = {"1.0", "id2", "dom", "127.0.0.1", "", "NULL"};
    zap_exchange(req, zap, plain, 6, NULL, status);
    CHECK(strcmp(status, "400") == 0 && co_zap_refused(zap) == 2);
    const char *shortreq[] = {"1.0", "id3"};
    zap_exchange(req, zap, shortreq, 2, NULL, status);
    CHECK(strcmp(status, "400") == 0 && co_zap_refused(zap) == 3);
    const char *badver[] = {"2.0", "id4", "dom", "127.0.0.1", "", "CURVE"};
    raw[0] ^= 1;
    zap_exchange(req, zap, badver, 6, raw, status);
    CHECK(strcmp(status, "400") == 0 && co_zap_refused(zap) == 4);
    CHECK(co_zap_handle(zap) == 0); /* nothing pending: returns at once */

    zmq_close(req);
    co_zap_destroy(&zap);
    zmq_ctx_term(ctx);
    co_keyring_destroy(&kr);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_co_keys.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_generate();
    test_write_read();
    test_keyring();
    test_zap_curve();
    test_zap_requests();
    rmdir(tmpdir);
    return TEST_END();
}
