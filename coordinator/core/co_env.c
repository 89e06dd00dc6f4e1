/* co_env: the environment section of the JSON (co_env.h). */
#include "co_env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pr_build.h"
#include "pr_env.h"
#include "pr_text.h"

#define VAR_STR(name) #name,
static const char *const var_names[] = {PR_ENV_VARIABLES(VAR_STR)};
#define N_VARS (sizeof(var_names) / sizeof(var_names[0]))

static const char no_env[] =
    "the agent did not report its environment (a stampede-agent older than this "
    "coordinator, or it failed before READY)";

struct co_env {
    uint32_t n_agents;
    json_t **agents; /* per agent: its object without "name", or NULL */
    json_t *server;  /* the lead's "server" object, or NULL */
    json_t *dataset; /* the lead's "dataset" object, or NULL */
};

co_env *co_env_new(uint32_t n_agents)
{
    co_env *e = pr_xcalloc(1, sizeof(*e));
    e->n_agents = n_agents;
    e->agents = pr_xcalloc(n_agents + 1, sizeof(*e->agents));
    return e;
}

void co_env_destroy(co_env **ep)
{
    co_env *e = ep ? *ep : NULL;
    if (e == NULL)
        return;
    for (uint32_t i = 0; i < e->n_agents; i++)
        json_decref(e->agents[i]);
    free(e->agents);
    json_decref(e->server);
    json_decref(e->dataset);
    free(e);
    *ep = NULL;
}

/* s as a JSON string; bytes that are not UTF-8 become U+FFFD (jansson
 * refuses them). NULL gives null. */
static json_t *jstr(const char *s)
{
    if (s == NULL)
        return json_null();
    size_t n = strlen(s), o = 0;
    char *buf = pr_xmalloc(3 * n + 1);
    for (size_t i = 0; i < n;) {
        size_t len = pr_utf8_seq_len((const unsigned char *)s + i, n - i);
        if (len == 0) {
            memcpy(buf + o, "\xef\xbf\xbd", 3), o += 3, i++;
        } else {
            memcpy(buf + o, s + i, len), o += len, i += len;
        }
    }
    buf[o] = '\0';
    json_t *j = json_stringn(buf, o);
    free(buf);
    return j ? j : json_null();
}

static void set(json_t *obj, const char *key, json_t *v)
{
    json_object_set_new(obj, key, v ? v : json_null());
}

static const char *find_pair(const struct pr_msg_opt *l, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (l[i].name != NULL && strcmp(l[i].name, name) == 0)
            return l[i].value ? l[i].value : "";
    return NULL;
}

/* A fact: its value, or null when named in unread (the reason goes to the
 * unread object). */
static void fact(json_t *obj, json_t *unread, const struct pr_msg_opt *ul, uint32_t un,
                 const char *key, json_t *value)
{
    const char *why = find_pair(ul, un, key);
    if (why != NULL) {
        json_decref(value);
        set(obj, key, json_null());
        set(unread, key, jstr(why));
    } else {
        set(obj, key, value);
    }
}

static json_t *agent_json(const struct pr_msg_env *m)
{
    json_t *a = json_object(), *un = json_object();
    const struct pr_msg_opt *ul = m->unread;
    uint32_t n = m->n_unread;

    set(a, "reported", json_true());
    fact(a, un, ul, n, "hostname", jstr(m->hostname));
    fact(a, un, ul, n, "kernel", jstr(m->kernel));
    fact(a, un, ul, n, "cpu_model", jstr(m->cpu_model));
    fact(a, un, ul, n, "cores", json_integer(m->cores));
    fact(a, un, ul, n, "memory_bytes", json_integer((json_int_t)m->memory_bytes));
    fact(a, un, ul, n, "connector_c", jstr(m->connector));
    fact(a, un, ul, n, "stampede_version", jstr(m->version));
    fact(a, un, ul, n, "git_commit", jstr(m->git_commit));
    set(a, "unread", un);
    return a;
}

static json_t *server_json(const struct pr_msg_env_server *s)
{
    json_t *o = json_object(), *vars = json_object(), *un = json_object();

    fact(o, un, s->unread, s->n_unread, "version", jstr(s->version));
    fact(o, un, s->unread, s->n_unread, "version_comment", jstr(s->version_comment));
    for (size_t i = 0; i < N_VARS; i++) {
        const char *v = find_pair(s->vars, s->n_vars, var_names[i]);
        const char *why = find_pair(s->unread, s->n_unread, var_names[i]);
        set(vars, var_names[i], v && !why ? jstr(v) : json_null());
        if (!v || why)
            set(un, var_names[i], jstr(why ? why : "not reported by the lead agent"));
    }
    set(o, "variables", vars);
    set(o, "unread", un);
    return o;
}

static json_t *dataset_json(const struct pr_msg_env_server *s)
{
    json_t *o = json_object(), *tabs = json_array();
    const char *why = find_pair(s->unread, s->n_unread, "dataset");

    set(o, "schema", jstr(s->schema));
    for (uint32_t i = 0; !why && i < s->n_tables; i++) {
        const struct pr_msg_env_table *t = &s->tables[i];
        json_t *j = json_object();
        set(j, "name", jstr(t->name));
        set(j, "rows", json_integer((json_int_t)t->rows));
        set(j, "data_bytes", json_integer((json_int_t)t->data_bytes));
        set(j, "index_bytes", json_integer((json_int_t)t->index_bytes));
        json_array_append_new(tabs, j);
    }
    set(o, "tables", tabs);
    set(o, "table_count", why ? json_null() : json_integer(s->table_count));
    set(o, "rows", why ? json_null() : json_integer((json_int_t)s->rows));
    set(o, "data_bytes", why ? json_null() : json_integer((json_int_t)s->data_bytes));
    set(o, "index_bytes", why ? json_null() : json_integer((json_int_t)s->index_bytes));
    set(o, "unread", why ? jstr(why) : json_null());
    return o;
}

void co_env_ready(co_env *e, uint32_t agent, const struct pr_msg_ready *ready)
{
    if (e == NULL || agent >= e->n_agents || !ready->has_env)
        return;
    json_decref(e->agents[agent]);
    e->agents[agent] = agent_json(&ready->env);
    if (agent != 0 || !ready->env.has_server)
        return;
    json_decref(e->server);
    json_decref(e->dataset);
    e->server = server_json(&ready->env.server);
    e->dataset = dataset_json(&ready->env.server);
}

/* What the JSON says when the lead reported no server facts. */
static void unreported(co_env *e)
{
    json_t *o = json_object(), *vars = json_object(), *un = json_object();
    set(o, "version", json_null());
    set(o, "version_comment", json_null());
    set(un, "version", jstr(no_env));
    set(un, "version_comment", jstr(no_env));
    for (size_t i = 0; i < N_VARS; i++) {
        set(vars, var_names[i], json_null());
        set(un, var_names[i], jstr(no_env));
    }
    set(o, "variables", vars);
    set(o, "unread", un);
    e->server = o;
    struct pr_msg_env_server none = {0};
    struct pr_msg_opt why = {(char *)"dataset", (char *)no_env};
    none.unread = &why;
    none.n_unread = 1;
    e->dataset = dataset_json(&none);
}

static json_t *build(co_env *e, const char *const *names, uint32_t n_names)
{
    json_t *root = json_object(), *agents = json_array(), *co = json_object();

    if (e->server == NULL)
        unreported(e);
    set(root, "server", json_incref(e->server));
    set(root, "dataset", json_incref(e->dataset));
    for (uint32_t i = 0; i < e->n_agents; i++) {
        json_t *a = json_object();
        set(a, "name", jstr(i < n_names ? names[i] : NULL));
        if (e->agents[i] != NULL) {
            json_object_update(a, e->agents[i]);
        } else {
            static const char *const keys[] = {
                "hostname",     "kernel",      "cpu_model",        "cores",
                "memory_bytes", "connector_c", "stampede_version", "git_commit"};
            json_t *un = json_object();
            set(a, "reported", json_false());
            for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
                set(a, keys[k], json_null());
                set(un, keys[k], jstr(no_env));
            }
            set(a, "unread", un);
        }
        json_array_append_new(agents, a);
    }
    set(root, "agents", agents);
    set(co, "stampede_version", jstr(STAMPEDE_VERSION));
    set(co, "git_commit", jstr(PR_GIT_COMMIT));
    set(root, "coordinator", co);
    return root;
}

int co_env_json_write(co_env *e, const char *const *names, uint32_t n_names, FILE *f, int depth)
{
    fprintf(f, ",\n%*s\"environment\": ", 2 * depth, "");
    if (e == NULL) {
        fputs("null", f);
        return 0;
    }
    json_t *root = build(e, names, n_names);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (text == NULL)
        return -ENOMEM;
    /* jansson indents from column 0: shift every line to our depth. */
    for (const char *p = text; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "%*s", 2 * depth, "");
    }
    free(text);
    return 0;
}
