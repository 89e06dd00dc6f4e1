/* agent_drive: run one stampede-agent for one workload through the
 * coordinator stand-in (tests/mysql/harness.c) and print what it measured
 * and what it cost, as one line of key=value pairs for the bench scripts:
 *
 *   agent_drive AGENT_BIN WORKLOAD CONNS TIME_S [WORKERS [name=value ...]]
 *
 * TIME_S may be events:N instead: the run ends after N events (PLAN
 * "events", no time limit), so two runs do the same work whatever the
 * speed (tests/bench/agent-callgrind runs the agent under valgrind), with
 * no STATS before the end (an interval of an hour) instead of one a
 * second; the rates printed are then per second of the wait for DONE.
 *
 * Needs STAMPEDE_TEST_MYSQL_* (deploy/sandbox-db env) and prepared tables.
 * The agent's CPU seconds and peak RSS come from wait4() on its process. */
#include <stdlib.h>
#include <string.h>

#include <dirent.h>

#include "harness.h"

#define MAX_OPTS 32

/* Seconds the agent's threads spent runnable but waiting for a CPU so far
 * (/proc/PID/task/TID/schedstat, second field), -1 when not readable. */
static double run_delay_s(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return -1;
    double sum = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char f[sizeof path + sizeof e->d_name + 16];
        unsigned long long on_cpu = 0, delay = 0;
        snprintf(f, sizeof f, "%s/%s/schedstat", path, e->d_name);
        FILE *fp = fopen(f, "r");
        if (fp && fscanf(fp, "%llu %llu", &on_cpu, &delay) == 2)
            sum += (double)delay / 1e9;
        if (fp)
            fclose(fp);
    }
    closedir(d);
    return sum;
}

int main(int argc, char **argv)
{
    struct harness h;
    struct pr_msg m;
    struct pr_msg_opt opts[MAX_OPTS];
    char workers[32];
    uint32_t n_opts = 0;

    if (argc < 5 || getenv("STAMPEDE_TEST_MYSQL_HOST") == NULL) {
        fprintf(stderr, "usage: agent_drive AGENT_BIN WORKLOAD CONNS TIME_S [WORKERS "
                        "[name=value ...]]\n(with STAMPEDE_TEST_MYSQL_* set)\n");
        return 2;
    }
    snprintf(workers, sizeof(workers), "--workers=%s", argc > 5 ? argv[5] : "0");
    for (int i = 6; i < argc && n_opts < MAX_OPTS; i++) {
        char *eq = strchr(argv[i], '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        opts[n_opts++] = (struct pr_msg_opt){argv[i], eq + 1};
    }
    const char *const extra[] = {workers, NULL};
    if (h_start(&h, argv[1], extra) != 0)
        return 1;
    strcpy(h.run, "bench");
    h_plan_init(&m, PR_CMD_RUN, argv[2]);
    m.u.plan.opts = opts;
    m.u.plan.n_opts = n_opts;
    m.u.plan.conns = m.u.plan.conns_total = (uint32_t)atoi(argv[3]);
    uint64_t events = 0;
    if (strncmp(argv[4], "events:", 7) == 0)
        events = strtoull(argv[4] + 7, NULL, 10);
    if (events)
        m.u.plan.events = events;
    else
        m.u.plan.time_s = (uint64_t)atoi(argv[4]);
    int wait_ms = events ? 3600 * 1000 : (atoi(argv[4]) + 60) * 1000;
    h_send(&h, &m);
    if (h_recv(&h, &m, PR_MSG_NONE, events ? 600000 : 120000) != 0 || m.type != PR_MSG_READY) {
        fprintf(stderr, "agent_drive: no READY: %s\n",
                m.type == PR_MSG_ERROR ? m.u.error.message : "timeout");
        h_stop(&h);
        return 1;
    }
    pr_msg_clear(&m);
    double delay0 = run_delay_s(h.agent_pid);
    pr_msg_init(&m, PR_MSG_START, NULL, 0);
    m.u.start.t0_ns = h_now_ns() + 200000000u;
    /* events:N: no STATS before the run ends (one interval of an hour),
     * so the per-interval work (histograms made, merged and sent) is not
     * counted as per-query cost under valgrind: both runs of the callgrind
     * bench then send the same STATS, however long they take. */
    m.u.start.interval_ms = events ? 3600 * 1000 : 1000;
    uint64_t run0 = h_now_ns();
    h_send(&h, &m);
    if (h_recv(&h, &m, PR_MSG_DONE, wait_ms) != 0) {
        fprintf(stderr, "agent_drive: no DONE\n");
        h_stop(&h);
        return 1;
    }
    double t_run = (double)(h_now_ns() - run0) / 1e9;
    double delay = run_delay_s(h.agent_pid) - delay0;
    h_stop(&h);
    const struct pr_counters *c = &m.u.done.ctr;
    double t = events ? t_run : (double)atoi(argv[4]);
    double cpu = (double)h.agent_ru.ru_utime.tv_sec + h.agent_ru.ru_utime.tv_usec / 1e6 +
                 (double)h.agent_ru.ru_stime.tv_sec + h.agent_ru.ru_stime.tv_usec / 1e6;
    double user = (double)h.agent_ru.ru_utime.tv_sec + h.agent_ru.ru_utime.tv_usec / 1e6;
    double sys = (double)h.agent_ru.ru_stime.tv_sec + h.agent_ru.ru_stime.tv_usec / 1e6;
    printf("user_s=%.3f sys_s=%.3f run_delay_s=%.3f ", user, sys, delay0 < 0 ? -1.0 : delay);
    printf("status=%d transactions=%llu queries=%llu errors=%llu reconnects=%llu tps=%.2f "
           "qps=%.2f p95_ms=%.3f cpu_s=%.3f maxrss_kb=%ld\n",
           m.u.done.status, (unsigned long long)c->transactions,
           (unsigned long long)pr_counters_queries(c), (unsigned long long)c->errors,
           (unsigned long long)c->reconnects, (double)c->transactions / t,
           (double)pr_counters_queries(c) / t,
           (double)pr_hist_value_at_percentile(m.u.done.lat, 95.0) / 1000.0, cpu,
           h.agent_ru.ru_maxrss);
    int rc = m.u.done.status == 0 ? 0 : 1;
    pr_msg_clear(&m);
    return rc;
}
