#include "ag_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>
#include <zmq.h>

static const char usage_text[] =
    "usage: stampede-agent [--config=FILE] --coordinator=tcp://HOST:PORT [options]\n"
    "\n"
    "Runs the stampede agent daemon: it dials the coordinator, receives plans, and\n"
    "drives the database through non-blocking connections on libuv loops.\n"
    "\n"
    "  --config=FILE             read `key = value` settings (same names as below)\n"
    "  --coordinator=ENDPOINT    tcp://HOST:PORT or ipc://PATH of the coordinator\n"
    "  --coordinator-key=KEY|FILE  the coordinator's CURVE public key (Z85)\n"
    "  --secret-key-file=FILE    this agent's CURVE secret key (Z85, first line)\n"
    "  --plaintext               no CURVE; allowed only for loopback or ipc endpoints\n"
    "  --name=NAME               agent name (default: the hostname)\n"
    "  --region=TAG              region tag shown in reports\n"
    "  --allow-db-hosts=LIST     refuse plans for database hosts not in LIST\n"
    "  --workers=N               event-loop threads (default: online cores)\n"
    "  --once                    exit after one run\n"
    "  --log-level=LEVEL         error, warn, info (default) or debug\n"
    "  --help, --version\n"
    "\n"
    "The database password arrives only inside a plan, over the encrypted channel.\n";

const char *ag_config_usage(void)
{
    return usage_text;
}

/* Canonical key: '_' folded to '-'. */
static void canon_key(char *dst, size_t cap, const char *src, size_t len)
{
    size_t i;
    for (i = 0; i < len && i + 1 < cap; i++)
        dst[i] = src[i] == '_' ? '-' : src[i];
    dst[i] = '\0';
}

static int read_key_file(const char *path, char out[AG_CONFIG_KEY_LEN + 1], const char *what,
                         struct pr_error *err)
{
    char line[256];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return pr_error_set(err, -errno, "--%s: cannot read %s: %s", what, path, strerror(errno));
    if (fgets(line, sizeof(line), f) == NULL)
        line[0] = '\0';
    fclose(f);
    line[strcspn(line, " \t\r\n")] = '\0';
    if (strlen(line) != AG_CONFIG_KEY_LEN)
        return pr_error_set(err, PR_EINVAL, "--%s: %s does not start with a 40-character Z85 key",
                            what, path);
    memcpy(out, line, AG_CONFIG_KEY_LEN + 1);
    return 0;
}

static int set_list(struct ag_config *cfg, const char *value, struct pr_error *err)
{
    char *copy = pr_xstrdup(value), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (cfg->n_allow == AG_CONFIG_MAX_ALLOW) {
            free(copy);
            return pr_error_set(err, PR_ETOO_BIG, "--allow-db-hosts: more than %d hosts",
                                AG_CONFIG_MAX_ALLOW);
        }
        cfg->allow_db_hosts[cfg->n_allow++] = pr_xstrdup(tok);
    }
    free(copy);
    return 0;
}

static int set_string(char **slot, const char *value)
{
    free(*slot);
    *slot = pr_xstrdup(value);
    return 0;
}

static int set_bool(bool *slot, const char *key, const char *value, struct pr_error *err)
{
    if (value == NULL || !strcmp(value, "on") || !strcmp(value, "true") || !strcmp(value, "1"))
        *slot = true;
    else if (!strcmp(value, "off") || !strcmp(value, "false") || !strcmp(value, "0"))
        *slot = false;
    else
        return pr_error_set(err, PR_EINVAL, "--%s: '%s' is not on/off/true/false/1/0", key, value);
    return 0;
}

static int set_level(struct ag_config *cfg, const char *value, struct pr_error *err)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < 4; i++) {
        if (!strcmp(value, names[i])) {
            cfg->log_level = i;
            return 0;
        }
    }
    return pr_error_set(err, PR_EINVAL, "--log-level: '%s' is not error, warn, info or debug",
                        value);
}

static int set_workers(struct ag_config *cfg, const char *value, struct pr_error *err)
{
    char *end;
    long n = strtol(value, &end, 10);
    if (*value == '\0' || *end != '\0' || n < 0 || n > 1024)
        return pr_error_set(err, PR_EINVAL, "--workers: '%s' is not a number from 0 to 1024",
                            value);
    cfg->workers = (int)n;
    return 0;
}

/* Apply one setting. value is NULL for a bare flag. */
static int apply(struct ag_config *cfg, const char *key, const char *value, struct pr_error *err)
{
    if (!strcmp(key, "once"))
        return set_bool(&cfg->once, key, value, err);
    if (!strcmp(key, "plaintext"))
        return set_bool(&cfg->plaintext, key, value, err);
    if (value == NULL)
        return pr_error_set(err, PR_EINVAL, "--%s needs a value (--%s=VALUE)", key, key);
    if (!strcmp(key, "coordinator"))
        return set_string(&cfg->coordinator, value);
    if (!strcmp(key, "name"))
        return set_string(&cfg->name, value);
    if (!strcmp(key, "region"))
        return set_string(&cfg->region, value);
    if (!strcmp(key, "coordinator-key")) {
        if (strlen(value) == AG_CONFIG_KEY_LEN && access(value, F_OK) != 0) {
            memcpy(cfg->coordinator_key, value, AG_CONFIG_KEY_LEN + 1);
            return 0;
        }
        return read_key_file(value, cfg->coordinator_key, key, err);
    }
    if (!strcmp(key, "secret-key-file"))
        return read_key_file(value, cfg->secret_key, key, err);
    if (!strcmp(key, "allow-db-hosts"))
        return set_list(cfg, value, err);
    if (!strcmp(key, "workers"))
        return set_workers(cfg, value, err);
    if (!strcmp(key, "log-level"))
        return set_level(cfg, value, err);
    return pr_error_set(err, PR_EINVAL, "unknown option --%s (see stampede-agent --help)", key);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int read_config_file(struct ag_config *cfg, const char *path, struct pr_error *err)
{
    char line[1024], key[64];
    int lineno = 0, rc = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return pr_error_set(err, -errno, "--config: cannot read %s: %s", path, strerror(errno));
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        char *s = trim(line);
        if (*s == '#' || *s == '\0')
            continue;
        char *eq = strchr(s, '=');
        if (eq == NULL) {
            rc = pr_error_set(err, PR_EINVAL, "%s:%d: expected `key = value`", path, lineno);
            break;
        }
        *eq = '\0';
        char *k = trim(s);
        canon_key(key, sizeof(key), k, strlen(k));
        rc = apply(cfg, key, trim(eq + 1), err);
        if (rc < 0) {
            char inner[sizeof(err->msg)];
            snprintf(inner, sizeof(inner), "%s", err->msg);
            pr_error_set(err, rc, "%s:%d: %s", path, lineno, inner);
        }
    }
    fclose(f);
    return rc;
}

/* Check the settings hang together once everything is read. */
static int finish(struct ag_config *cfg, struct pr_error *err)
{
    char host[256];
    if (cfg->coordinator == NULL)
        return pr_error_set(err, PR_EINVAL,
                            "--coordinator is required (e.g. --coordinator=tcp://10.0.0.5:5555)");
    if (strncmp(cfg->coordinator, "tcp://", 6) != 0 && strncmp(cfg->coordinator, "ipc://", 6) != 0)
        return pr_error_set(err, PR_EINVAL,
                            "--coordinator: '%s' is not tcp://HOST:PORT or ipc://PATH",
                            cfg->coordinator);
    if (cfg->name == NULL) {
        if (gethostname(host, sizeof(host)) != 0)
            snprintf(host, sizeof(host), "agent");
        host[sizeof(host) - 1] = '\0';
        cfg->name = pr_xstrdup(host);
    }
    if (cfg->region == NULL)
        cfg->region = pr_xstrdup("");
    if (cfg->plaintext) {
        if (!ag_config_endpoint_is_local(cfg->coordinator))
            return pr_error_set(err, PR_EINVAL,
                                "--plaintext is allowed only for loopback or ipc coordinators; "
                                "give --coordinator-key and --secret-key-file for %s",
                                cfg->coordinator);
        return 0;
    }
    if (cfg->coordinator_key[0] == '\0' || cfg->secret_key[0] == '\0')
        return pr_error_set(err, PR_EINVAL,
                            "CURVE keys missing: give --coordinator-key and --secret-key-file "
                            "(see `stampede keygen`), or --plaintext for a loopback coordinator");
    if (zmq_curve_public(cfg->public_key, cfg->secret_key) != 0)
        return pr_error_set(err, PR_EINVAL, "--secret-key-file: not a valid CURVE secret key");
    return 0;
}

int ag_config_parse(struct ag_config *cfg, int argc, char **argv, bool *want_help,
                    bool *want_version, struct pr_error *err)
{
    char key[64];
    int rc = 0;

    memset(cfg, 0, sizeof(*cfg));
    cfg->log_level = 2;
    for (int i = 1; i < argc && rc == 0; i++) {
        if (!strncmp(argv[i], "--config=", 9))
            rc = read_config_file(cfg, argv[i] + 9, err);
    }
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0) {
            rc = pr_error_set(err, PR_EINVAL, "unexpected argument '%s' (see --help)", a);
            break;
        }
        const char *eq = strchr(a, '=');
        canon_key(key, sizeof(key), a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
        if (!strcmp(key, "help") || !strcmp(key, "version")) {
            bool *flag = key[0] == 'h' ? want_help : want_version;
            if (flag)
                *flag = true;
            return 0;
        }
        if (strcmp(key, "config") != 0)
            rc = apply(cfg, key, eq ? eq + 1 : NULL, err);
    }
    if (rc == 0)
        rc = finish(cfg, err);
    if (rc < 0)
        ag_config_clear(cfg);
    return rc;
}

bool ag_config_db_host_allowed(const struct ag_config *cfg, const char *host)
{
    if (cfg->n_allow == 0)
        return true;
    for (size_t i = 0; i < cfg->n_allow; i++) {
        if (!strcmp(cfg->allow_db_hosts[i], host))
            return true;
    }
    return false;
}

bool ag_config_endpoint_is_local(const char *endpoint)
{
    if (!strncmp(endpoint, "ipc://", 6))
        return true;
    if (strncmp(endpoint, "tcp://", 6) != 0)
        return false;
    const char *h = endpoint + 6;
    return !strncmp(h, "127.", 4) || !strncmp(h, "localhost:", 10) || !strncmp(h, "[::1]:", 6);
}

void ag_config_clear(struct ag_config *cfg)
{
    free(cfg->coordinator);
    free(cfg->name);
    free(cfg->region);
    for (size_t i = 0; i < cfg->n_allow; i++)
        free(cfg->allow_db_hosts[i]);
    memset(cfg, 0, sizeof(*cfg));
}
