/* ag_env: READY.env, the agent's host and (lead) the server (ag_env.h). */
#include "ag_env.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "pr_build.h"

/* Only SHOW statements: they count under Com_show_*, which the cross-check
 * and the tests' own Com_select accounting leave out (a SELECT VERSION()
 * would be a Com_select the agents did not count as load). version and
 * version_comment are variables: @@version is what VERSION() returns. */
#define VAR_NAME(name) "'" #name "',"
static const char vars_sql[] = "SHOW GLOBAL VARIABLES WHERE Variable_name IN "
                               "('version','version_comment'," PR_ENV_VARIABLES(VAR_NAME) "'')";
#define VAR_STR(name) #name,
static const char *const var_names[] = {PR_ENV_VARIABLES(VAR_STR)};
#define N_VARS (sizeof(var_names) / sizeof(var_names[0]))

/* The default database's tables: Name, Engine, Version, Row_format, Rows,
 * Avg_row_length, Data_length, Max_data_length, Index_length, ...; a view
 * has Engine NULL and Comment "VIEW". */
static const char tables_sql[] = "SHOW TABLE STATUS";

/* Append [name, value] to a list. */
static void add_pair(struct pr_msg_opt **list, uint32_t *n, const char *name, const char *value)
{
    if (*n >= PR_MSG_MAX_ENV_VARS)
        return;
    *list = pr_xrealloc(*list, (*n + 1) * sizeof(**list));
    (*list)[*n] = (struct pr_msg_opt){pr_xstrdup(name), pr_xstrdup(value)};
    (*n)++;
}

/* s cut to cap bytes (the wire's limit for that field), as a heap copy. */
static char *dup_cut(const char *s, size_t cap)
{
    size_t n = strnlen(s, cap);
    char *d = pr_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* The value after "key<spaces/tabs>: " of the first line of path starting
 * with key, or false. */
static bool proc_field(const char *path, const char *key, char *out, size_t out_len)
{
    FILE *f = fopen(path, "r");
    char line[512];
    size_t klen = strlen(key);
    bool found = false;

    if (f == NULL)
        return false;
    while (!found && fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, key, klen) != 0 || strchr(" \t:", line[klen]) == NULL)
            continue;
        char *v = strchr(line + klen, ':');
        if (v == NULL)
            continue;
        v += 1 + strspn(v + 1, " \t");
        v[strcspn(v, "\n")] = '\0';
        snprintf(out, out_len, "%s", v);
        found = true;
    }
    fclose(f);
    return found;
}

static void host_cpu(struct pr_msg_env *e)
{
    static const char *const keys[] = {"model name", "Hardware", "cpu model", "Processor"};
    char v[256] = "";

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (proc_field("/proc/cpuinfo", keys[i], v, sizeof(v)) && v[0] != '\0')
            break;
    e->cpu_model = pr_xstrdup(v);
    if (v[0] == '\0')
        add_pair(&e->unread, &e->n_unread, "cpu_model",
                 "no 'model name' line in /proc/cpuinfo (or it cannot be read)");
}

static void host_memory(struct pr_msg_env *e)
{
    char v[64] = "";
    unsigned long long kb = 0;
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);

    if (proc_field("/proc/meminfo", "MemTotal", v, sizeof(v)) && sscanf(v, "%llu", &kb) == 1 &&
        kb > 0)
        e->memory_bytes = (uint64_t)kb * 1024u;
    else if (pages > 0 && page_size > 0)
        e->memory_bytes = (uint64_t)pages * (uint64_t)page_size;
    else
        add_pair(&e->unread, &e->n_unread, "memory_bytes",
                 "neither /proc/meminfo MemTotal nor sysconf(_SC_PHYS_PAGES) answered");
}

void ag_env_host(struct pr_msg_env *e)
{
    char host[PR_MSG_HOST_MAX + 1] = "";
    char kern[3 * sizeof(((struct utsname *)0)->release) + 3] = "";
    struct utsname u;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0')
        add_pair(&e->unread, &e->n_unread, "hostname", "gethostname() failed");
    e->hostname = pr_xstrdup(host);
    if (uname(&u) == 0)
        snprintf(kern, sizeof(kern), "%s %s %s", u.sysname, u.release, u.machine);
    else
        add_pair(&e->unread, &e->n_unread, "kernel", "uname() failed");
    e->kernel = dup_cut(kern, PR_MSG_HOST_MAX);
    host_cpu(e);
    if (cores > 0)
        e->cores = (uint32_t)cores;
    else
        add_pair(&e->unread, &e->n_unread, "cores", "sysconf(_SC_NPROCESSORS_ONLN) failed");
    host_memory(e);
    e->connector = dup_cut(mysql_get_client_info(), PR_MSG_NAME_MAX);
    e->version = pr_xstrdup(STAMPEDE_VERSION);
    e->git_commit = dup_cut(PR_GIT_COMMIT, PR_MSG_NAME_MAX);
}

/* "error N: message" of the last failed call on conn. */
static void db_error(MYSQL *conn, const char *what, char *out, size_t out_len)
{
    snprintf(out, out_len, "%s failed: error %u: %s", what, mysql_errno(conn), mysql_error(conn));
}

/* version and version_comment from the variables' rows; "" and unread
 * when the server did not give one. */
static char *take_version(const char *v, const char *key, const char *why,
                          struct pr_msg_env_server *s)
{
    if (v != NULL)
        return dup_cut(v, PR_MSG_HOST_MAX);
    add_pair(&s->unread, &s->n_unread, key, why ? why : "no such variable on this server");
    return pr_xstrdup("");
}

static void read_vars(MYSQL *conn, struct pr_msg_env_server *s)
{
    char why[PR_MSG_TEXT_MAX], *ver = NULL, *com = NULL;
    bool seen[N_VARS] = {false};
    MYSQL_RES *res = NULL;
    MYSQL_ROW row;

    if (mysql_query(conn, vars_sql) != 0 || (res = mysql_store_result(conn)) == NULL) {
        db_error(conn, "SHOW GLOBAL VARIABLES", why, sizeof(why));
        s->version = take_version(NULL, "version", why, s);
        s->version_comment = take_version(NULL, "version_comment", why, s);
        for (size_t i = 0; i < N_VARS; i++)
            add_pair(&s->unread, &s->n_unread, var_names[i], why);
        return;
    }
    while ((row = mysql_fetch_row(res)) != NULL) {
        const char *v = row[1] ? row[1] : "";
        if (row[0] != NULL && strcasecmp(row[0], "version") == 0 && ver == NULL)
            ver = pr_xstrdup(v);
        if (row[0] != NULL && strcasecmp(row[0], "version_comment") == 0 && com == NULL)
            com = pr_xstrdup(v);
        for (size_t i = 0; row[0] != NULL && i < N_VARS; i++) {
            if (seen[i] || strcasecmp(row[0], var_names[i]) != 0)
                continue;
            seen[i] = true;
            if (strlen(v) > PR_MSG_TEXT_MAX)
                add_pair(&s->unread, &s->n_unread, var_names[i],
                         "value longer than the 4096 bytes READY carries");
            else
                add_pair(&s->vars, &s->n_vars, var_names[i], v);
        }
    }
    mysql_free_result(res);
    s->version = take_version(ver, "version", NULL, s);
    s->version_comment = take_version(com, "version_comment", NULL, s);
    free(ver);
    free(com);
    for (size_t i = 0; i < N_VARS; i++)
        if (!seen[i])
            add_pair(&s->unread, &s->n_unread, var_names[i], "no such variable on this server");
}

static uint64_t col_u64(const char *v)
{
    return v ? strtoull(v, NULL, 10) : 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct pr_msg_env_table *)a)->name,
                  ((const struct pr_msg_env_table *)b)->name);
}

static void read_tables(MYSQL *conn, struct pr_msg_env_server *s)
{
    char why[PR_MSG_TEXT_MAX];
    MYSQL_RES *res = NULL;
    MYSQL_ROW row;

    if (s->schema[0] == '\0')
        return; /* no default database: no data set */
    if (mysql_query(conn, tables_sql) != 0 || (res = mysql_store_result(conn)) == NULL ||
        mysql_num_fields(res) < 9) {
        db_error(conn, "SHOW TABLE STATUS", why, sizeof(why));
        add_pair(&s->unread, &s->n_unread, "dataset", why);
        if (res != NULL)
            mysql_free_result(res);
        return;
    }
    uint64_t n = mysql_num_rows(res);
    s->tables =
        pr_xcalloc((n < PR_MSG_MAX_ENV_TABS ? n : PR_MSG_MAX_ENV_TABS) + 1, sizeof(*s->tables));
    while ((row = mysql_fetch_row(res)) != NULL) {
        if (row[0] == NULL || row[1] == NULL) /* a view (or a table that cannot be opened) */
            continue;
        uint64_t rows = col_u64(row[4]), data = col_u64(row[6]), idx = col_u64(row[8]);
        s->table_count++;
        s->rows += rows;
        s->data_bytes += data;
        s->index_bytes += idx;
        if (s->n_tables < PR_MSG_MAX_ENV_TABS && strlen(row[0]) <= PR_MSG_NAME_MAX)
            s->tables[s->n_tables++] =
                (struct pr_msg_env_table){pr_xstrdup(row[0]), rows, data, idx};
    }
    mysql_free_result(res);
    if (s->n_tables > 1)
        qsort(s->tables, s->n_tables, sizeof(*s->tables), by_name);
}

void ag_env_server(struct pr_msg_env *e, MYSQL *conn, const char *schema, const char *why_none)
{
    struct pr_msg_env_server *s = &e->server;

    memset(s, 0, sizeof(*s));
    e->has_server = true;
    s->schema = dup_cut(schema ? schema : "", PR_MSG_NAME_MAX);
    if (conn == NULL) {
        const char *why = why_none ? why_none : "no server connection";
        s->version = pr_xstrdup("");
        s->version_comment = pr_xstrdup("");
        add_pair(&s->unread, &s->n_unread, "version", why);
        add_pair(&s->unread, &s->n_unread, "version_comment", why);
        for (size_t i = 0; i < N_VARS; i++)
            add_pair(&s->unread, &s->n_unread, var_names[i], why);
        add_pair(&s->unread, &s->n_unread, "dataset", why);
        return;
    }
    read_vars(conn, s);
    read_tables(conn, s);
}
