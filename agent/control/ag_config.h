/* ag_config: the stampede-agent daemon's settings, from argv and a config file.
 *
 * A config file holds `key = value` lines (keys are the long option names
 * without "--"; '-' and '_' are interchangeable; '#' starts a comment). It is
 * read first, then command-line options override it, so nothing secret has to
 * be in argv: the agent's CURVE secret key is read from --secret-key-file, and
 * the database password never reaches the agent except inside a PLAN.
 *
 * Keys: coordinator (tcp://HOST:PORT or ipc://PATH, required), name (default
 * the hostname), region, coordinator-key (Z85 public key, or a file holding
 * it), secret-key-file, allow-db-hosts (comma list), workers (0 = one per
 * online core), once (serve one coordinator's command, then exit),
 * plaintext (allow an unencrypted control channel; refused unless the
 * coordinator is ipc:// or a literal loopback address, see pr_endpoint.h),
 * log-level (error|warn|info|debug), prometheus (HOST:PORT, :PORT or PORT
 * alone for loopback: the agent's own metrics endpoint, ag_prom.h; off
 * when unset).
 */
#ifndef AG_CONFIG_H
#define AG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pr_err.h"
#include "pr_keyfile.h"

#define AG_CONFIG_KEY_LEN   PR_KEY_LEN /* Z85 text of a 32-byte CURVE key */
#define AG_CONFIG_MAX_ALLOW 64

struct ag_config {
    char *coordinator;                           /* endpoint the DEALER connects to */
    char *name;                                  /* agent name; sorts the split */
    char *region;                                /* free-form region tag, "" when unset */
    char coordinator_key[AG_CONFIG_KEY_LEN + 1]; /* "" when plaintext */
    char secret_key[AG_CONFIG_KEY_LEN + 1];      /* our CURVE secret key, "" when plaintext */
    char public_key[AG_CONFIG_KEY_LEN + 1];      /* derived from secret_key */
    char *allow_db_hosts[AG_CONFIG_MAX_ALLOW];   /* NULL-terminated; empty = any host */
    size_t n_allow;                              /* entries in allow_db_hosts */
    int workers;                                 /* worker loops; 0 = usable CPUs (ag_cpus.h) */
    uint32_t lua_memory_mib;                     /* each Lua state's cap, MiB; 0: none */
    bool once;                                   /* one coordinator's command, then exit */
    bool plaintext;                              /* no CURVE (loopback/ipc only) */
    int log_level;                               /* 0 error .. 3 debug */
    bool allow_scripts; /* allow-scripts: run plans carrying Lua scripts (default no) */
    char *prometheus;   /* prometheus: HOST:PORT of our own /metrics, NULL when off */
    char **argv;        /* the command line parsed (borrowed): a stuck daemon re-executes it */
};

/* Fill cfg from argv (argv[0] skipped), reading --config=FILE first when
 * given. On error returns a negative code with a message naming the option
 * in err; cfg is then cleared. Prints nothing. --help and --version are the
 * caller's (they are reported as PR_EINVAL-free flags via *want_help and
 * *want_version, which may be NULL). */
int ag_config_parse(struct ag_config *cfg, int argc, char **argv, bool *want_help,
                    bool *want_version, struct pr_error *err);

/* True when host (a numeric address or name as given in the PLAN) is allowed
 * by --allow-db-hosts (an empty list allows every host). */
bool ag_config_db_host_allowed(const struct ag_config *cfg, const char *host);

/* Free what cfg owns and zero it. */
void ag_config_clear(struct ag_config *cfg);

/* The --help text. Static string. */
const char *ag_config_usage(void);

#endif
