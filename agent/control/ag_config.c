/* ag_config: the stampede-agent daemon's settings, read from argv and a config file (contract:
 * ag_config.h). */
#include "ag_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strings.h>
#include <unistd.h>
#include <zmq.h>

#include "pr_endpoint.h"
#include "pr_keyfile.h"
#include "pr_lua.h"
#include "pr_parse.h"

static const char usage_text[] =
    "usage: stampede-agent [--config=FILE] --coordinator=tcp://HOST:PORT [options]\n"
    "\n"
    "Runs the stampede agent daemon: it dials the coordinator, receives plans, and\n"
    "drives the database through non-blocking connections on libuv loops.\n"
    "\n"
    "  --config=FILE             read `key = value` settings (same names as below)\n"
    "  --coordinator=ENDPOINT    tcp://HOST:PORT or ipc://PATH of the coordinator\n"
    "  --coordinator-key=KEY|FILE  the coordinator's CURVE public key (Z85)\n"
    "  --secret-key-file=FILE    this agent's CURVE secret key (Z85, first line; mode 0600)\n"
    "  --plaintext               no CURVE; only for ipc:// or a literal 127.x.x.x/[::1]\n"
    "  --name=NAME               agent name (default: the hostname)\n"
    "  --region=TAG              region tag shown in reports\n"
    "  --allow-db-hosts=LIST     refuse plans for database hosts not in LIST\n"
    "  --workers=N               event-loop threads (default: usable CPUs)\n"
    "  --once                    serve one coordinator's command (all its runs), then\n"
    "                            exit: 0, or 1 when a run failed or the coordinator was lost\n"
    "  --allow-scripts[=yes|no]  run plans that carry Lua scripts (default: no; the\n"
    "                            agents stampede spawns itself say yes)\n"
    "  --log-level=LEVEL         error, warn, info (default) or debug\n"
    "  --prometheus=HOST:PORT    serve this agent's metrics at /metrics (PORT or :PORT\n"
    "                            alone: 127.0.0.1; default: off)\n"
    "  --lua-memory-limit=MIB    cap each script's Lua state (per event loop): over it,\n"
    "                            the run fails with a script error (default 256; 0: none)\n"
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

static int set_list(struct ag_config *cfg, const char *value, struct pr_error *err)
{
    struct pr_list_iter it;
    const char *item;
    size_t len;

    pr_list_iter_init(&it, value);
    while (pr_list_iter_next(&it, &item, &len)) {
        if (len == 0)
            return pr_error_set(err, PR_EINVAL, "--allow-db-hosts: empty host name in '%s'", value);
        if (cfg->n_allow == AG_CONFIG_MAX_ALLOW)
            return pr_error_set(err, PR_ETOO_BIG, "--allow-db-hosts: more than %d hosts",
                                AG_CONFIG_MAX_ALLOW);
        char *host = pr_xmalloc(len + 1);
        memcpy(host, item, len);
        host[len] = '\0';
        cfg->allow_db_hosts[cfg->n_allow++] = host;
    }
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
    if (value == NULL)
        return *slot = true, 0;
    if (pr_parse_bool(value, slot))
        return 0;
    return pr_error_set(err, PR_EINVAL, "--%s: '%s' is not a boolean (" PR_BOOL_SPELLINGS ")", key,
                        value);
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
/* prometheus = HOST:PORT; a port alone means loopback (":PORT", which
 * pr_prom_start reads as 127.0.0.1). Checked when the endpoint opens. */
static int set_prometheus(struct ag_config *cfg, const char *value)
{
    size_t n = strspn(value, "0123456789");
    free(cfg->prometheus);
    if (n > 0 && value[n] == '\0') {
        cfg->prometheus = pr_xmalloc(n + 2);
        cfg->prometheus[0] = ':';
        memcpy(cfg->prometheus + 1, value, n + 1);
    } else {
        cfg->prometheus = pr_xstrdup(value);
    }
    return 0;
}

static int apply(struct ag_config *cfg, const char *key, const char *value, struct pr_error *err)
{
    if (!strcmp(key, "once"))
        return set_bool(&cfg->once, key, value, err);
    if (!strcmp(key, "allow-scripts"))
        return set_bool(&cfg->allow_scripts, key, value, err);
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
    if (!strcmp(key, "coordinator-key"))
        return pr_keyfile_read_public(value, cfg->coordinator_key, "--coordinator-key", err);
    if (!strcmp(key, "secret-key-file"))
        return pr_keyfile_read_secret(value, cfg->secret_key, "--secret-key-file", err);
    if (!strcmp(key, "allow-db-hosts"))
        return set_list(cfg, value, err);
    if (!strcmp(key, "workers"))
        return set_workers(cfg, value, err);
    if (!strcmp(key, "lua-memory-limit")) {
        char *end;
        long n = strtol(value, &end, 10);
        if (*value == '\0' || *end != '\0' || n < 0 || n > 1048576)
            return pr_error_set(err, PR_EINVAL,
                                "--lua-memory-limit: '%s' is not a number of MiB from 0 (no "
                                "limit) to 1048576",
                                value);
        cfg->lua_memory_mib = (uint32_t)n;
        return 0;
    }
    if (!strcmp(key, "log-level"))
        return set_level(cfg, value, err);
    if (!strcmp(key, "prometheus"))
        return set_prometheus(cfg, value);
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
    if (!pr_endpoint_is_valid(cfg->coordinator))
        return pr_error_set(err, PR_EINVAL,
                            "--coordinator: '%s' is not tcp://HOST:PORT (port 1..65535) or "
                            "ipc://PATH",
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
        if (!pr_endpoint_is_local(cfg->coordinator))
            return pr_error_set(err, PR_EINVAL,
                                "--plaintext is allowed only for a coordinator on ipc:// or a "
                                "literal loopback address (127.x.x.x, [::1]), never a host "
                                "name; give --coordinator-key and --secret-key-file for %s",
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
    cfg->argv = argv;
    cfg->log_level = 2;
    cfg->lua_memory_mib = PR_LUA_MEMORY_MIB;
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

void ag_config_clear(struct ag_config *cfg)
{
    free(cfg->coordinator);
    free(cfg->name);
    free(cfg->region);
    free(cfg->prometheus);
    for (size_t i = 0; i < cfg->n_allow; i++)
        free(cfg->allow_db_hosts[i]);
    memset(cfg, 0, sizeof(*cfg));
}
