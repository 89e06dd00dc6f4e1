/* test_ag_config: stampede-agent's settings from argv and a config file:
 * precedence, spellings, the plaintext rule (pr_endpoint's: a literal
 * loopback address or ipc, never a name), the secret key file's mode
 * (pr_keyfile's rule, the coordinator's too), --allow-db-hosts, and errors
 * that name the option. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "ag_config.h"
#include "testlib.h"

static char dir[64];
static char pub[41], sec[41]; /* a coordinator key pair's public half, an agent secret */
static char agent_pub[41];    /* the agent secret's public key */
static char sec_path[128];    /* sec, mode 0600 */
static char pub_path[128];    /* pub, mode 0644 */

static char *write_file(const char *name, const char *text, mode_t mode)
{
    static char path[8][128];
    static int next;
    char *p = path[next++ % 8];

    snprintf(p, 128, "%s/%s", dir, name);
    unlink(p);
    FILE *f = fopen(p, "w");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
    chmod(p, mode);
    return p;
}

/* Parse a NULL-terminated word list (argv[0] added). */
static int parse(struct ag_config *cfg, struct pr_error *err, ...)
{
    char *argv[32];
    int argc = 0;
    va_list ap;

    argv[argc++] = "stampede-agent";
    va_start(ap, err);
    for (char *s; (s = va_arg(ap, char *)) != NULL && argc < 31;)
        argv[argc++] = s;
    va_end(ap);
    argv[argc] = NULL;
    memset(err, 0, sizeof *err);
    return ag_config_parse(cfg, argc, argv, NULL, NULL, err);
}

#define PARSE(cfg, err, ...) parse(cfg, err, __VA_ARGS__, (char *)NULL)

/* An error naming both fragments; cfg left cleared. */
#define EXPECT_ERR(frag1, frag2, ...)                                                              \
    do {                                                                                           \
        struct ag_config ec;                                                                       \
        struct pr_error ee;                                                                        \
        int erc = PARSE(&ec, &ee, __VA_ARGS__);                                                    \
        CHECK_MSG(erc < 0, "rc %d for %s", erc, #__VA_ARGS__);                                     \
        CHECK_MSG(strstr(ee.msg, frag1) != NULL, "'%s' lacks '%s'", ee.msg, frag1);                \
        CHECK_MSG(strstr(ee.msg, frag2) != NULL, "'%s' lacks '%s'", ee.msg, frag2);                \
        CHECK(ec.coordinator == NULL && ec.name == NULL && ec.n_allow == 0);                       \
        if (erc == 0)                                                                              \
            ag_config_clear(&ec);                                                                  \
    } while (0)

static void test_argv(void)
{
    struct ag_config c;
    struct pr_error err;
    char ck[64], sk[160];

    snprintf(ck, sizeof ck, "--coordinator-key=%s", pub);
    snprintf(sk, sizeof sk, "--secret-key-file=%s", sec_path);
    CHECK_MSG(PARSE(&c, &err, "--coordinator=tcp://10.0.0.5:5570", ck, sk, "--name=db-east-1",
                    "--region=eu", "--workers=3", "--once", "--log-level=debug",
                    "--allow-db-hosts=10.0.0.7,db.example") == 0,
              "%s", err.msg);
    CHECK(c.coordinator && strcmp(c.coordinator, "tcp://10.0.0.5:5570") == 0);
    CHECK(strcmp(c.coordinator_key, pub) == 0 && strcmp(c.secret_key, sec) == 0);
    CHECK_MSG(strcmp(c.public_key, agent_pub) == 0, "derived '%s'", c.public_key);
    CHECK(c.name && strcmp(c.name, "db-east-1") == 0 && c.region && strcmp(c.region, "eu") == 0);
    CHECK(c.workers == 3 && c.once && !c.plaintext && c.log_level == 3);
    CHECK(c.n_allow == 2 && c.allow_db_hosts[0] && strcmp(c.allow_db_hosts[0], "10.0.0.7") == 0 &&
          strcmp(c.allow_db_hosts[1], "db.example") == 0);
    ag_config_clear(&c);
    CHECK(c.coordinator == NULL && c.n_allow == 0);

    /* The coordinator key as a file; defaults for the rest. */
    char ckf[160];
    snprintf(ckf, sizeof ckf, "--coordinator_key=%s", pub_path);
    CHECK_MSG(PARSE(&c, &err, "--coordinator=tcp://10.0.0.5:5570", ckf, sk) == 0, "%s", err.msg);
    CHECK(strcmp(c.coordinator_key, pub) == 0);
    char host[256] = "";
    gethostname(host, sizeof host);
    CHECK_MSG(c.name && strcmp(c.name, host) == 0, "name '%s', host '%s'", c.name, host);
    CHECK(c.workers == 0 && !c.once && c.log_level == 2 && c.n_allow == 0 && c.region &&
          *c.region == '\0');
    ag_config_clear(&c);

    bool help = false, version = false;
    char *hv[] = {"stampede-agent", "--version", NULL};
    CHECK(ag_config_parse(&c, 2, hv, &help, &version, &err) == 0 && version && !help);
    ag_config_clear(&c);
}

static void test_config_file(void)
{
    struct ag_config c;
    struct pr_error err;
    char text[1024], arg[160];

    snprintf(text, sizeof text,
             "# agent settings\n"
             "  coordinator = tcp://10.0.0.5:5570  \n"
             "coordinator_key = %s\n"
             "secret-key-file=%s\n"
             "\n"
             "name = from-file\n"
             "workers = 2\n"
             "once = TRUE\n"
             "log_level = warn\n"
             "allow_db_hosts = 10.0.0.7\n",
             pub, sec_path);
    char *conf = write_file("agent.conf", text, 0600);
    snprintf(arg, sizeof arg, "--config=%s", conf);
    /* argv wins over the file, whatever the order on the command line. */
    CHECK_MSG(PARSE(&c, &err, "--name=from-argv", arg, "--workers=5") == 0, "%s", err.msg);
    CHECK(c.coordinator && strcmp(c.coordinator, "tcp://10.0.0.5:5570") == 0 &&
          strcmp(c.secret_key, sec) == 0);
    CHECK(c.name && strcmp(c.name, "from-argv") == 0 && c.workers == 5);
    CHECK(c.once && c.log_level == 1 && c.n_allow == 1);
    ag_config_clear(&c);

    conf = write_file("bad.conf", "coordinator = ipc:///tmp/x\nworkers = many\n", 0600);
    snprintf(arg, sizeof arg, "--config=%s", conf);
    EXPECT_ERR(":2:", "--workers: 'many'", arg, "--plaintext");
    conf = write_file("noeq.conf", "coordinator ipc:///tmp/x\n", 0600);
    snprintf(arg, sizeof arg, "--config=%s", conf);
    EXPECT_ERR(":1:", "key = value", arg);
    EXPECT_ERR("--config", "/nonexistent/agent.conf", "--config=/nonexistent/agent.conf");
}

static void test_plaintext_rule(void)
{
    struct ag_config c;
    struct pr_error err;

    static const char *const local[] = {
        "--coordinator=ipc:///tmp/stampede.sock", "--coordinator=tcp://127.0.0.1:5570",
        "--coordinator=tcp://127.3.2.1:5570", "--coordinator=tcp://[::1]:5570"};
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
        CHECK_MSG(PARSE(&c, &err, local[i], "--plaintext") == 0, "%s: %s", local[i], err.msg);
        CHECK(c.plaintext && c.coordinator_key[0] == '\0');
        ag_config_clear(&c);
    }
    /* The case and its relatives: names, never dialed in plain text. */
    static const char *const remote[] = {"--coordinator=tcp://127.evil.example:5570",
                                         "--coordinator=tcp://127.0.0.1.evil:5570",
                                         "--coordinator=tcp://localhost:5570",
                                         "--coordinator=tcp://0177.0.0.1:5570",
                                         "--coordinator=tcp://127.1:5570",
                                         "--coordinator=tcp://10.0.0.5:5570",
                                         "--coordinator=tcp://[::ffff:127.0.0.1]:5570"};
    for (size_t i = 0; i < sizeof remote / sizeof remote[0]; i++)
        EXPECT_ERR("--plaintext is allowed only", remote[i] + strlen("--coordinator="), remote[i],
                   "--plaintext");
    /* Any spelling of "on" is on, of "off" is off (pr_parse_bool). */
    EXPECT_ERR("--plaintext is allowed only", "never a host name",
               "--coordinator=tcp://127.evil.example:5570", "--plaintext=ON");
    EXPECT_ERR("CURVE keys missing", "", "--coordinator=tcp://127.0.0.1:5570", "--plaintext=Off");
    EXPECT_ERR("--plaintext", "'maybe'", "--coordinator=ipc:///x", "--plaintext=maybe");
    /* Without --plaintext a loopback coordinator still needs keys. */
    EXPECT_ERR("CURVE keys missing", "--secret-key-file", "--coordinator=tcp://127.0.0.1:5570");
}

static void test_key_files(void)
{
    char ck[64], sk[160];

    snprintf(ck, sizeof ck, "--coordinator-key=%s", pub);
    /* A secret key file open to group or others is refused: the same rule
     * as the coordinator's co_keys_read_secret(). */
    static const mode_t open_modes[] = {0644, 0640, 0604, 0660, 0606};
    for (size_t i = 0; i < sizeof open_modes / sizeof open_modes[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "%s\n", sec);
        char *p = write_file("open.secret", text, open_modes[i]);
        snprintf(sk, sizeof sk, "--secret-key-file=%s", p);
        EXPECT_ERR("chmod 600", p, "--coordinator=tcp://10.0.0.5:5570", ck, sk);
        EXPECT_ERR("--secret-key-file", "group or others", "--coordinator=tcp://10.0.0.5:5570", ck,
                   sk);
    }
    char *p = write_file("junk.secret", "not a key\n", 0600);
    snprintf(sk, sizeof sk, "--secret-key-file=%s", p);
    EXPECT_ERR("--secret-key-file", "Z85", "--coordinator=tcp://10.0.0.5:5570", ck, sk);
    EXPECT_ERR("--secret-key-file", "/nonexistent/a.secret", "--coordinator=tcp://10.0.0.5:5570",
               ck, "--secret-key-file=/nonexistent/a.secret");
    snprintf(sk, sizeof sk, "--secret-key-file=%s", sec_path);
    EXPECT_ERR("--coordinator-key", "short", "--coordinator=tcp://10.0.0.5:5570",
               "--coordinator-key=short", sk);
}

static void test_allow_db_hosts(void)
{
    struct ag_config c;
    struct pr_error err;

    CHECK_MSG(PARSE(&c, &err, "--coordinator=ipc:///x", "--plaintext",
                    "--allow-db-hosts=10.0.0.7,db.example", "--allow-db-hosts=10.0.0.8") == 0,
              "%s", err.msg);
    CHECK(c.n_allow == 3);
    CHECK(ag_config_db_host_allowed(&c, "10.0.0.7") && ag_config_db_host_allowed(&c, "db.example"));
    CHECK(ag_config_db_host_allowed(&c, "10.0.0.8"));
    CHECK(!ag_config_db_host_allowed(&c, "10.0.0.9") && !ag_config_db_host_allowed(&c, "db"));
    CHECK(!ag_config_db_host_allowed(&c, "DB.EXAMPLE") && !ag_config_db_host_allowed(&c, ""));
    ag_config_clear(&c);
    CHECK(PARSE(&c, &err, "--coordinator=ipc:///x", "--plaintext") == 0);
    CHECK(ag_config_db_host_allowed(&c, "anything.example")); /* empty list: any host */
    ag_config_clear(&c);
    EXPECT_ERR("--allow-db-hosts", "empty host name", "--coordinator=ipc:///x", "--plaintext",
               "--allow-db-hosts=a,,b");
    EXPECT_ERR("--allow-db-hosts", "empty host name", "--coordinator=ipc:///x", "--plaintext",
               "--allow-db-hosts=a,");
}

static void test_errors(void)
{
    EXPECT_ERR("--coordinator is required", "", "--plaintext");
    EXPECT_ERR("--coordinator", "'http://x:1'", "--coordinator=http://x:1", "--plaintext");
    EXPECT_ERR("--coordinator", "'tcp://h'", "--coordinator=tcp://h", "--plaintext");
    EXPECT_ERR("--coordinator", "'tcp://127.0.0.1:0'", "--coordinator=tcp://127.0.0.1:0",
               "--plaintext");
    EXPECT_ERR("unknown option --colour", "--help", "--coordinator=ipc:///x", "--colour=red");
    EXPECT_ERR("--workers", "'-1'", "--coordinator=ipc:///x", "--plaintext", "--workers=-1");
    EXPECT_ERR("--log-level", "'loud'", "--coordinator=ipc:///x", "--plaintext",
               "--log-level=loud");
    EXPECT_ERR("--name needs a value", "", "--coordinator=ipc:///x", "--plaintext", "--name");
    EXPECT_ERR("unexpected argument 'extra'", "", "--coordinator=ipc:///x", "--plaintext", "extra");
}

/* allow-scripts: off unless the config says so (a daemon runs no Lua
 * script by default); yes/no as well as the booleans. */
static void test_allow_scripts(void)
{
    struct ag_config c;
    struct pr_error err;
    char arg[160];

    CHECK(PARSE(&c, &err, "--coordinator=ipc:///x", "--plaintext") == 0 && !c.allow_scripts);
    ag_config_clear(&c);
    CHECK(PARSE(&c, &err, "--coordinator=ipc:///x", "--plaintext", "--allow-scripts") == 0 &&
          c.allow_scripts);
    ag_config_clear(&c);
    char *conf = write_file("scripts.conf", "coordinator = ipc:///x\nallow-scripts = yes\n", 0600);
    snprintf(arg, sizeof arg, "--config=%s", conf);
    CHECK_MSG(PARSE(&c, &err, arg, "--plaintext") == 0 && c.allow_scripts, "%s", err.msg);
    ag_config_clear(&c);
    CHECK(PARSE(&c, &err, arg, "--plaintext", "--allow-scripts=NO") == 0 && !c.allow_scripts);
    ag_config_clear(&c);
    EXPECT_ERR("--allow-scripts", "'maybe'", "--coordinator=ipc:///x", "--plaintext",
               "--allow-scripts=maybe");
}

/* prometheus: off unless set; a port alone is loopback (":PORT"). */
static void test_prometheus(void)
{
    struct ag_config c;
    struct pr_error err;
    char arg[160];

    CHECK(PARSE(&c, &err, "--coordinator=ipc:///x", "--plaintext") == 0 && c.prometheus == NULL);
    ag_config_clear(&c);
    char *conf = write_file("prom.conf", "coordinator = ipc:///x\nprometheus = 9465\n", 0600);
    snprintf(arg, sizeof arg, "--config=%s", conf);
    CHECK_MSG(PARSE(&c, &err, arg, "--plaintext") == 0 && c.prometheus &&
                  strcmp(c.prometheus, ":9465") == 0,
              "%s", c.prometheus ? c.prometheus : err.msg);
    ag_config_clear(&c);
    CHECK(PARSE(&c, &err, arg, "--plaintext", "--prometheus=0.0.0.0:9466") == 0 && c.prometheus &&
          strcmp(c.prometheus, "0.0.0.0:9466") == 0);
    ag_config_clear(&c);
}

int main(void)
{
    char sec_pub_unused[41];

    snprintf(dir, sizeof dir, "/tmp/test_ag_config-XXXXXX");
    if (mkdtemp(dir) == NULL || zmq_curve_keypair(pub, sec_pub_unused) != 0 ||
        zmq_curve_keypair(agent_pub, sec) != 0) {
        perror("setup");
        return 1;
    }
    umask(022);
    char text[64];
    snprintf(text, sizeof text, "%s\n", sec);
    snprintf(sec_path, sizeof sec_path, "%s", write_file("agent.secret", text, 0600));
    snprintf(text, sizeof text, "%s\n", pub);
    snprintf(pub_path, sizeof pub_path, "%s", write_file("coord.pub", text, 0644));

    test_argv();
    test_config_file();
    test_plaintext_rule();
    test_key_files();
    test_allow_db_hosts();
    test_errors();
    test_allow_scripts();
    test_prometheus();

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return TEST_END();
}
