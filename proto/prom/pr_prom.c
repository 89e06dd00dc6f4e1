/* pr_prom: a Prometheus endpoint (see pr_prom.h). */
#include "pr_prom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>

#include "pr_msg_lat.h"

struct pr_prom {
    struct MHD_Daemon *mhd;               /* serving thread */
    pthread_mutex_t lock;                 /* guards snap */
    struct pr__prom_snap snap;            /* what scrapes see (HTTP thread reads under lock) */
    struct pr__prom_snap live;            /* owning thread only */
    uint64_t bounds[PR_PROM_MAX_BUCKETS]; /* bucket bounds, µs */
    uint32_t n_bounds;
    char log_prefix[96]; /* pr_prom_info.log_prefix, "" for none */
};

/* MHD_OPTION_EXTERNAL_LOGGER: one line, after the owner's prefix. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    const pr_prom *p = cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = '\0';
    if (p->log_prefix[0] != '\0')
        fprintf(stderr, "%s prometheus endpoint: %s\n", p->log_prefix, msg);
}

uint32_t pr__prom_bounds(uint64_t *bounds)
{
    uint32_t n = 0;
    /* 10% steps: histogram_quantile's linear interpolation inside a bucket
     * then reads any percentile within 10% (about 5% typical). */
    for (uint64_t b = PR_PROM_BUCKET_FIRST_US; n < PR_PROM_MAX_BUCKETS; b = (b * 11 + 9) / 10) {
        bounds[n++] = b < PR_PROM_BUCKET_LAST_US ? b : PR_PROM_BUCKET_LAST_US;
        if (b >= PR_PROM_BUCKET_LAST_US)
            break;
    }
    return n;
}

/* Which bucket a value falls in: the first bound >= value_us, else +Inf. */
static uint32_t bucket_of(const pr_prom *p, uint64_t value_us)
{
    uint32_t lo = 0, hi = p->n_bounds;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (p->bounds[mid] >= value_us)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void pr_prom_add_stats(pr_prom *p, uint32_t agent, const struct pr_msg_stats *st)
{
    if (p == NULL || agent >= p->live.n_agents)
        return;
    struct pr__prom_agent *a = &p->live.agents[agent];
    pr_counters_add(&a->ctr, &st->ctr);
    pr_counters_add(&p->live.ctr, &st->ctr);
    a->cpu_ratio = st->cpu_pct / 100.0;
    a->lag_max_s = (double)st->lag_max_us / 1e6;
    struct pr_hist_iter it = PR_HIST_ITER_INIT;
    while (pr_msg_stats_lat_next(st, &it))
        p->live.bucket[bucket_of(p, it.value_us)] += it.count;
    p->live.count += pr_msg_stats_lat_count(st);
    p->live.sum_us += pr_msg_stats_lat_sum(st);
    for (uint32_t k = 0; k < st->n_kst && k < p->live.n_kinds; k++) {
        struct pr__prom_kind *pk = &p->live.kinds[k];
        const struct pr_msg_kstat *ks = &st->kst[k];
        pk->ok += ks->count;
        pk->errors += ks->errors;
        struct pr_hist_iter kit = PR_HIST_ITER_INIT;
        if (ks->lat == NULL && ks->lat_frozen != NULL) { /* as decoded */
            while (pr_hist_frozen_next(ks->lat_frozen, &kit))
                pk->bucket[bucket_of(p, kit.value_us)] += kit.count;
            pk->count += pr_hist_frozen_count(ks->lat_frozen);
            pk->sum_us += pr_hist_frozen_sum(ks->lat_frozen);
            continue;
        }
        if (ks->lat == NULL)
            continue;
        while (pr_hist_next(ks->lat, &kit))
            pk->bucket[bucket_of(p, kit.value_us)] += kit.count;
        pk->count += pr_hist_count(ks->lat);
        pk->sum_us += pr_hist_sum(ks->lat);
    }
}

static struct pr__prom_kind *new_kinds(char *const *names, uint32_t n)
{
    struct pr__prom_kind *k = pr_xcalloc(n + 1, sizeof(*k));
    for (uint32_t i = 0; i < n; i++)
        k[i].name = pr_xstrdup(names[i] ? names[i] : "");
    return k;
}

void pr_prom_set_kinds(pr_prom *p, char *const *names, uint32_t n)
{
    if (p == NULL || n == 0 || names == NULL || p->live.n_kinds > 0)
        return;
    if (n > PR_MSG_MAX_KINDS)
        n = PR_MSG_MAX_KINDS;
    p->live.kinds = new_kinds(names, n);
    p->live.n_kinds = n;
    struct pr__prom_kind *sk = new_kinds(names, n);
    pthread_mutex_lock(&p->lock);
    p->snap.kinds = sk;
    p->snap.n_kinds = n;
    pthread_mutex_unlock(&p->lock);
}

void pr_prom_agent_state(pr_prom *p, uint32_t agent, bool up, int64_t clock_offset_ns)
{
    if (p == NULL || agent >= p->live.n_agents)
        return;
    p->live.agents[agent].up = up;
    p->live.agents[agent].clock_offset_s = (double)clock_offset_ns / 1e9;
}

void pr_prom_publish(pr_prom *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    p->snap.ctr = p->live.ctr;
    memcpy(p->snap.bucket, p->live.bucket, sizeof(p->snap.bucket));
    p->snap.count = p->live.count;
    p->snap.sum_us = p->live.sum_us;
    for (uint32_t i = 0; i < p->live.n_agents; i++) {
        char *name = p->snap.agents[i].name; /* same string, kept */
        p->snap.agents[i] = p->live.agents[i];
        p->snap.agents[i].name = name;
    }
    for (uint32_t k = 0; k < p->live.n_kinds; k++) {
        char *name = p->snap.kinds[k].name; /* same string, kept */
        p->snap.kinds[k] = p->live.kinds[k];
        p->snap.kinds[k].name = name;
    }
    pthread_mutex_unlock(&p->lock);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, char *body,
                             size_t len, bool owned)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        len, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (resp == NULL)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result rc = MHD_queue_response(c, code, resp);
    MHD_destroy_response(resp);
    return rc;
}

/* HTTP thread: every request. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **con_cls)
{
    static char not_found[] = "not found: stampede serves /metrics only\n";
    static char not_allowed[] = "method not allowed: GET or HEAD /metrics\n";
    pr_prom *p = cls;
    (void)version;
    (void)upload;
    (void)upload_len;
    (void)con_cls;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", not_allowed,
                     sizeof(not_allowed) - 1, false);
    if (strcmp(url, "/metrics") != 0)
        return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found, sizeof(not_found) - 1, false);
    size_t len = 0;
    pthread_mutex_lock(&p->lock);
    char *body = pr__prom_render(&p->snap, PR_PROM_KIND_ALL, &len);
    pthread_mutex_unlock(&p->lock);
    return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", body, len, true);
}

/* "HOST:PORT", "[V6]:PORT", ":PORT" into a numeric socket address. */
static int parse_addr(const char *hostport, const char *what, struct sockaddr_storage *ss,
                      struct pr_error *err)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (colon == NULL || colon[1] == '\0' || (size_t)(colon - hostport) >= sizeof(host))
        return pr_error_set(err, PR_EINVAL,
                            "%s: '%s' is not HOST:PORT (for example 127.0.0.1:9464)", what,
                            hostport);
    size_t hl = (size_t)(colon - hostport);
    memcpy(host, hostport, hl);
    host[hl] = '\0';
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    if (host[0] == '\0')
        snprintf(host, sizeof(host), "127.0.0.1");
    char *end = NULL;
    long port = strtol(colon + 1, &end, 10);
    if (*end != '\0' || port < 1 || port > 65535)
        return pr_error_set(err, PR_EINVAL, "%s: port '%s' is not 1..65535", what, colon + 1);
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
                             .ai_socktype = SOCK_STREAM},
                    *ai = NULL;
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0 || ai == NULL)
        return pr_error_set(err, PR_EINVAL,
                            "%s: '%s' is not a numeric IPv4 or [IPv6] address (names "
                            "are not resolved; 127.0.0.1 for loopback, 0.0.0.0 for all)",
                            what, host);
    memset(ss, 0, sizeof(*ss));
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    freeaddrinfo(ai);
    return 0;
}

static void free_snap(struct pr__prom_snap *s)
{
    for (uint32_t i = 0; s->agents && i < s->n_agents; i++)
        free(s->agents[i].name);
    free(s->agents);
    for (uint32_t k = 0; s->kinds && k < s->n_kinds; k++)
        free(s->kinds[k].name);
    free(s->kinds);
    free(s->workload);
    free(s->command);
    free(s->run_id);
    free(s->version);
}

/* The run info strings of s replaced from info. */
static void set_info(struct pr__prom_snap *s, const struct pr_prom_info *info)
{
    free(s->workload);
    free(s->command);
    free(s->run_id);
    free(s->version);
    s->workload = pr_xstrdup(info->workload ? info->workload : "");
    s->command = pr_xstrdup(info->command ? info->command : "");
    s->run_id = pr_xstrdup(info->run_id ? info->run_id : "");
    s->version = pr_xstrdup(info->version ? info->version : "");
}

static void init_snap(struct pr__prom_snap *s, const struct pr_prom_info *info, uint32_t n,
                      const char *const *names)
{
    set_info(s, info);
    s->n_agents = n;
    s->agents = pr_xcalloc(n + 1, sizeof(*s->agents));
    for (uint32_t i = 0; i < n; i++) {
        s->agents[i].name = pr_xstrdup(names[i] ? names[i] : "");
        s->agents[i].up = true;
    }
}

/* s's figures back to 0 and its kinds freed; names and run info kept. */
static void zero_snap(struct pr__prom_snap *s)
{
    memset(&s->ctr, 0, sizeof(s->ctr));
    memset(s->bucket, 0, sizeof(s->bucket));
    s->count = s->sum_us = 0;
    for (uint32_t i = 0; i < s->n_agents; i++) {
        char *name = s->agents[i].name;
        s->agents[i] = (struct pr__prom_agent){.name = name, .up = true};
    }
    for (uint32_t k = 0; s->kinds && k < s->n_kinds; k++)
        free(s->kinds[k].name);
    free(s->kinds);
    s->kinds = NULL;
    s->n_kinds = 0;
}

void pr_prom_new_run(pr_prom *p, const struct pr_prom_info *info)
{
    if (p == NULL)
        return;
    zero_snap(&p->live);
    set_info(&p->live, info);
    pthread_mutex_lock(&p->lock);
    zero_snap(&p->snap);
    set_info(&p->snap, info);
    pthread_mutex_unlock(&p->lock);
}

pr_prom *pr_prom_start(const char *hostport, const char *what, const struct pr_prom_info *info,
                       uint32_t n_agents, const char *const *names, struct pr_error *err)
{
    struct sockaddr_storage ss;
    if (parse_addr(hostport, what, &ss, err) != 0)
        return NULL;
    pr_prom *p = pr_xcalloc(1, sizeof(*p));
    pthread_mutex_init(&p->lock, NULL);
    p->n_bounds = pr__prom_bounds(p->bounds);
    init_snap(&p->live, info, n_agents, names);
    init_snap(&p->snap, info, n_agents, names);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    uint16_t port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                             : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    if (info->log_prefix != NULL)
        snprintf(p->log_prefix, sizeof p->log_prefix, "%s", info->log_prefix);
    p->mhd = MHD_start_daemon(flags, port, NULL, NULL, on_request, p, MHD_OPTION_EXTERNAL_LOGGER,
                              mhd_log, p, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
    if (p->mhd == NULL) {
        pr_error_set(err, PR_EINVAL,
                     "%s: cannot listen on %s (port in use, or not an address of "
                     "this host); choose another HOST:PORT",
                     what, hostport);
        pr_prom_stop(&p);
        return NULL;
    }
    return p;
}

void pr_prom_stop(pr_prom **pp)
{
    pr_prom *p = pp ? *pp : NULL;
    if (p == NULL)
        return;
    if (p->mhd != NULL)
        MHD_stop_daemon(p->mhd);
    free_snap(&p->live);
    free_snap(&p->snap);
    pthread_mutex_destroy(&p->lock);
    free(p);
    *pp = NULL;
}
