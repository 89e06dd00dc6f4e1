/* coordinator_merge: what merging N agents' STATS costs the coordinator.
 *
 * A forked simulator process opens N ZeroMQ DEALER sockets to a real
 * co_fleet (plain text, ipc://) bound by this process, says HELLO with N
 * distinct names, answers the fleet's PINGs with PONGs, sends a HEARTBEAT
 * every second and, once this process has sent START, one STATS(k) per agent
 * at every 1 s boundary. Each STATS carries a realistic latency histogram
 * (cm_gen_interval()) and is encoded in advance so the simulator stays cheap;
 * this side decodes every one, which is the real cost. The coordinator (this
 * process's main thread) is co_run's: its run state is a struct run
 * (co_run_int.h) built as co_run builds it, with the args from co_args_parse
 * of "stampede oltp_read_write run --agents=N --threads=16N
 * --report-interval=1 --time=K --listen=ipc://... --plaintext
 * [--hdr-log=...]", a real co_fleet and co_merge and a co_result; the loop
 * is co_run's drive_phase: co_fleet_next -> handle_event -> co__live_stats
 * (co_live.c: co_merge_add, the per-agent sums, the lead's server sample) ->
 * co__live_flush (co_merge_due, the sysbench line, co_merge_close), the
 * lines going to a memory FILE. Only co_run.c's static handle_event and
 * agent_of_peer are mirrored here (marked "as co_run.c"). At the end
 * co__live_sum_intervals makes the run's latency from the intervals, as
 * co_run's finish_results does.
 *
 * Prints for one N: coordinator thread CPU per interval (mean, max, % of one
 * core), the process's CPU including ZeroMQ's I/O thread, messages per
 * second, whether each interval was complete (every agent merged before its
 * line was printed, and the merged totals equal what the simulator sent),
 * peak RSS, CPU by section of the loop and per-STATS costs of the pieces
 * (decode, its histogram read, histogram allocation, co__live_stats,
 * co_merge_add) and the end of the run's co__live_sum_intervals. Asserts
 * nothing; exits 1 only when the bench itself could not run. Times are thread CPU
 * time (CLOCK_THREAD_CPUTIME_ID), steady on a shared machine; an interval's
 * CPU is what the thread used from the end of the co__live_flush call that
 * printed the previous line (START for the first) to the end of the one
 * that printed its line. The time each side waited for a CPU while runnable
 * (/proc/thread-self/schedstat) is printed too: lines printed at boundary +
 * grace with agents missing on a busy machine say "starved", not "slow",
 * when that wait is large. The last line is "RESULT key=value ..." for
 * tests/bench/coordinator-merge.
 *
 * Simplifications: every agent sends STATS(k) at the same instant (the
 * boundary; the burst is the worst case for the line's delay), agents send
 * no clock PINGs of their own, the run id stays "" and there is no PLAN
 * phase (each agent's connections are set to 16 directly, as co_plan splits
 * --threads=16N; no READY: the lead's baseline sample is set as READY would
 * set it).
 *
 * Usage: coordinator_merge [--agents=N] [--intervals=K] [--samples=MIN:MAX]
 *                          [--hdr-log] [--seed=S]
 *   --samples: transactions per agent-interval, uniform in MIN..MAX
 *   (default 1000:20000).
 *   --hdr-log keeps every agent's histogram per interval, as stampede does
 *   with --hdr-log=FILE (co_merge_new's keep_agent_hists).
 *
 * This file is the coordinator side and main; the generator and STATS
 * encoding, the simulator, the per-STATS costs, --ir and the printing are
 * the cm_*.c beside it (cm.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

#include "cm.h"
#include "co_args.h"
#include "co_fleet.h"
#include "co_merge.h"
#include "co_result.h"
#include "co_run_int.h"
#include "co_sbfmt.h"
#include "pr_hist.h"
#include "pr_msg.h"
#include "pr_msg_lat.h"
#include "pr_split.h"

/* The lead's READY sample, as the simulator's counters stand before
 * interval 0 (its STATS(k) say 1000000 * (k + 1) + i): the server QPS of
 * every interval is then 10^6, checked at the end. */
void cm_lead_baseline(struct run *r)
{
    struct pr_msg_stat srv[N_SRV];
    for (size_t i = 0; i < N_SRV; i++)
        srv[i] = (struct pr_msg_stat){(char *)cm_srv_names[i], i};
    co__live_baseline(r, srv, (uint32_t)N_SRV);
}

/* co_args_parse of "stampede oltp_read_write run --agents=N --threads=16N
 * --report-interval=1 --time=K --listen=ENDPOINT --plaintext [--hdr-log=
 * /dev/null]" (the bench never writes the log: co_output is not called). */
int cm_make_args(struct coord *c, const char *endpoint)
{
    char agents[32], threads[32], time_s[32], listen[160];
    char prog[] = "stampede", wl[] = "oltp_read_write", cmd[] = "run";
    char ri[] = "--report-interval=1", plain[] = "--plaintext", hdr[] = "--hdr-log=/dev/null";
    struct pr_error err = {0};

    snprintf(agents, sizeof(agents), "--agents=%u", c->n);
    snprintf(threads, sizeof(threads), "--threads=%u", c->n * THREADS_PER_AGENT);
    snprintf(time_s, sizeof(time_s), "--time=%u", c->k_count);
    snprintf(listen, sizeof(listen), "--listen=%s", endpoint);
    char *argv[] = {prog, wl, cmd, agents, threads, ri, time_s, listen, plain, hdr, NULL};
    if (co_args_parse(&c->args, c->keep_hists ? 10 : 9, argv, NULL, &err) != 0) {
        fprintf(stderr, "coordinator_merge: co_args_parse: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* as co_run.c's agent_of_peer (static there): linear scan */
static int agent_of_peer(const struct run *r, int peer)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (r->agents[i].peer == peer)
            return (int)i;
    return -1;
}

/* as co_run.c's handle_event (static there), for the events this bench
 * sees: STATS go to co__live_stats, a lost agent to co_merge_agent_lost.
 * Also notes how many agents interval k holds while its line is not
 * printed yet (co__live_flush does not merge: the count at the flush that
 * prints it is the last one noted). */
static void handle_event(struct coord *c, struct co_fleet_event *ev)
{
    struct run *r = &c->r;
    int i = ev->peer >= 0 ? agent_of_peer(r, ev->peer) : -1;

    if (ev->type == CO_FLEET_REFUSED) {
        c->refused++;
        fprintf(stderr, "coordinator_merge: %s\n", ev->text);
        return;
    }
    if (i < 0)
        return;
    if (ev->type == CO_FLEET_LOST || ev->type == CO_FLEET_BYE) {
        if (!r->agents[i].lost) {
            r->agents[i].lost = true;
            c->lost++;
            co_merge_agent_lost(r->merge, (uint32_t)i);
            fprintf(stderr, "coordinator_merge: agent %d lost\n", i);
        }
    } else if (ev->type == CO_FLEET_MSG && ev->msg.type == PR_MSG_STATS) {
        uint64_t k = ev->msg.u.stats.k;
        c->stats_events++;
        if (cm_long_ivl_ms) { /* how late the agent is, seen from here */
            uint64_t due = r->t0_ns + (k + 1) * (uint64_t)r->interval_ms * 1000000u;
            uint64_t now = co_fleet_now_ns();
            double ms = now > due ? (double)(now - due) / 1e6 : 0.0;
            c->cur.recv_lag_max_ms = ms > c->cur.recv_lag_max_ms ? ms : c->cur.recv_lag_max_ms;
            c->cur.recv_lag_sum_ms += ms;
            c->cur.recv_n++;
        }
        co__live_stats(r, (uint32_t)i, &ev->msg.u.stats);
        const struct co_interval_result *iv = co_merge_get(r->merge, k);
        if (k < MAX_INTERVALS && k >= c->printed && iv != NULL)
            c->reporting_at_print[k] = iv->agents_reporting;
    }
}

/* Lines co__live_flush printed since the last call (each is fflush'ed):
 * CPU and wall clock noted for each, after the whole call. */
static void count_lines(struct coord *c)
{
    uint64_t cpu = 0, proc = 0, wall = 0;
    long flt = 0;
    for (; c->out_seen < c->out_len; c->out_seen++) {
        if (c->out_buf[c->out_seen] != '\n' || c->printed >= c->k_count)
            continue;
        if (cpu == 0) {
            flt = cm_thread_minflt();
            cpu = cm_thread_cpu_ns();
            proc = cm_process_cpu_ns();
            wall = co_fleet_now_ns();
        }
        c->printed++;
        c->cpu_thread[c->printed] = cpu;
        c->minflt_at[c->printed] = flt;
        c->cpu_proc[c->printed] = proc;
        c->wall[c->printed] = wall;
        c->stats_at[c->printed] = c->stats_events;
    }
}

/* The 1, 5 and 15 minute load averages, as /proc/loadavg says them. */
static void loadavg(char *buf, size_t len)
{
    snprintf(buf, len, "?");
    FILE *f = fopen("/proc/loadavg", "r");
    double a, b, d;
    if (f != NULL && fscanf(f, "%lf %lf %lf", &a, &b, &d) == 3)
        snprintf(buf, len, "%.2f %.2f %.2f", a, b, d);
    if (f != NULL)
        fclose(f);
}

static long rss_kb(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Wait for every agent and its clock pings, as co_run's gather. */
static int gather(struct coord *c, uint64_t *join_cpu_ns, double *join_s)
{
    uint64_t t = cm_mono_ns(), cpu = cm_thread_cpu_ns();
    uint64_t deadline = t + (uint64_t)JOIN_TIMEOUT_S * 1000000000u;
    struct co_fleet_event ev;

    for (;;) {
        size_t have = co_fleet_count(c->r.fleet);
        bool clocks = have >= c->n;
        for (size_t i = 0; clocks && i < have; i++)
            clocks = co_fleet_peer(c->r.fleet, (int)i)->pongs >= CO_FLEET_PINGS / 2;
        if (clocks)
            break;
        if (cm_mono_ns() > deadline) {
            fprintf(stderr, "coordinator_merge: only %zu of %u agents joined in %d s\n", have, c->n,
                    JOIN_TIMEOUT_S);
            return -1;
        }
        co_fleet_next(c->r.fleet, &ev, 100);
        if (ev.type == CO_FLEET_REFUSED || ev.type == CO_FLEET_LOST)
            fprintf(stderr, "coordinator_merge: during join: %s\n",
                    ev.type == CO_FLEET_REFUSED ? ev.text : "an agent was lost");
        co_fleet_event_clear(&ev);
    }
    *join_cpu_ns = cm_thread_cpu_ns() - cpu;
    *join_s = (double)(cm_mono_ns() - t) / 1e9;
    return 0;
}

/* The run state as co_run's make_plan, init_results, run_phases and
 * send_start leave it (no PLAN phase: every agent has THREADS_PER_AGENT
 * connections, as co_plan splits --threads=16N), the lead's baseline,
 * "Threads started!", then START. */
static int start_run(struct coord *c)
{
    struct run *r = &c->r;
    const char **names = pr_xcalloc(c->n, sizeof(*names));
    uint32_t *perm = pr_xcalloc(c->n, sizeof(*perm));
    uint32_t *threads = pr_xcalloc(c->n, sizeof(*threads));
    uint64_t lead_ns = 200000000u; /* co_run's START_LEAD_MS */
    int64_t ri = pr_opts_int(c->args.opts, "report-interval");

    for (uint32_t i = 0; i < c->n; i++)
        names[i] = co_fleet_peer(r->fleet, (int)i)->name;
    int rc = pr_split_order(names, c->n, perm);
    r->n = c->n;
    r->agents = pr_xcalloc(c->n, sizeof(*r->agents));
    c->res.n_agents = c->n;
    c->res.agents = pr_xcalloc(c->n + 1, sizeof(*c->res.agents));
    for (uint32_t i = 0; i < c->n; i++) {
        r->agents[i].peer = (int)perm[i];
        r->agents[i].in_phase = r->agents[i].ready = true;
        c->res.agents[i].threads = threads[i] = THREADS_PER_AGENT;
        c->res.agents[i].db_rtt_us = cm_ready_rtt_us; /* as READY says it (co_run) */
        c->res.agents[i].has_db_rtt = cm_ready_rtt_us > 0;
        co__live_agent_ready(r, i);
        uint64_t rtt = co_fleet_peer(r->fleet, r->agents[i].peer)->rtt_ns;
        if (2 * rtt + 50000000u > lead_ns)
            lead_ns = 2 * rtt + 50000000u;
    }
    free(names);
    free(perm);
    r->interval_ms = ri > 0 ? (uint32_t)ri * 1000u : 1000u; /* co_run's interval_ms_of */
    /* The per-interval figures below read every interval after the run:
     * keep them in co_merge (stampede releases them: --interval-ms does). */
    r->keep_closed = cm_long_ivl_ms == 0;
    if (cm_long_ivl_ms)
        r->interval_ms = cm_long_ivl_ms;
    else if (rc != 0 || r->interval_ms != INTERVAL_MS)
        rc = rc ? rc : PR_EINVAL;
    if (rc != 0) {
        free(threads);
        fprintf(stderr, "coordinator_merge: %s\n",
                rc ? pr_strerror(rc) : "the interval is not INTERVAL_MS");
        return -1;
    }
    r->merge = co_merge_new(c->n, threads, r->interval_ms, c->args.hdr_log_path != NULL);
    free(threads);
    cm_lead_baseline(r);
    co_sbfmt_started(r->out);
    fflush(r->out);
    c->out_seen = c->out_len;
    r->t0_ns = r->first_t0_ns = co_fleet_now_ns() + lead_ns;
    c->cpu_thread[0] = cm_thread_cpu_ns();
    c->cpu_proc[0] = cm_process_cpu_ns();
    c->wait_ns = cm_runqueue_wait_ns();
    c->minflt = c->minflt_at[0] = cm_thread_minflt();
    c->wall[0] = co_fleet_now_ns();
    loadavg(c->load_start, sizeof(c->load_start));
    for (uint32_t i = 0; i < c->n; i++) {
        struct pr_msg m;
        pr_msg_init(&m, PR_MSG_START, NULL, 0);
        m.u.start.t0_ns = r->t0_ns;
        m.u.start.interval_ms = r->interval_ms;
        co_fleet_send(r->fleet, r->agents[i].peer, &m);
    }
    return 0;
}

long rss_kb(void);

/* --interval-ms, after each loop turn: the live window and the backlog
 * (maxima since the last sample); every LONG_SAMPLE_K lines RSS and the
 * heap (mallinfo2) too. Sampled whatever the state, so that a run that
 * falls behind shows its backlog next to its memory: memory that grows
 * with the backlog is load, memory that grows with none is kept. The
 * lines in memory are dropped (a long run's stdout is not the
 * coordinator's memory). */
static void long_sample(struct coord *c)
{
    struct long_sample *cur = &c->cur;
    while (co_merge_is_released(c->r.merge, c->first_live))
        c->first_live++;
    uint64_t count = co_merge_count(c->r.merge);
    uint64_t live = count > c->first_live ? count - c->first_live : 0;
    uint64_t sent = atomic_load(&cm_sim_live->stats_sent);
    uint64_t backlog = sent > c->stats_events ? sent - c->stats_events : 0;
    cur->live_max = live > cur->live_max ? live : cur->live_max;
    cur->backlog_max = backlog > cur->backlog_max ? backlog : cur->backlog_max;
    struct long_sample *last = c->n_ls ? &c->ls[c->n_ls - 1] : NULL;
    if (last && last->quiet_k == 0 && backlog <= QUIET_BACKLOG) {
        struct mallinfo2 mi = mallinfo2();
        last->quiet_k = c->printed;
        last->quiet_rss_kb = rss_kb();
        last->quiet_heap_used = mi.uordblks + mi.hblkhd;
    }
    if (c->printed >= (c->n_ls + 1) * LONG_SAMPLE_K && c->n_ls < LONG_SAMPLES) {
        struct mallinfo2 mi = mallinfo2();
        cur->backlog_now = backlog;
        for (uint32_t i = 0; i < c->n; i++)
            cur->acc_bytes += c->r.agents[i].lat_acc ? pr_hist_acc_size(c->r.agents[i].lat_acc) : 0;
        cur->k = c->printed;
        cur->rss_kb = rss_kb();
        cur->heap_used = mi.uordblks + mi.hblkhd;
        cur->heap_sys = mi.arena + mi.hblkhd;
        for (uint32_t k = c->n_ls ? c->ls[c->n_ls - 1].k : 0; k < c->printed; k++)
            cur->complete += c->reporting_at_print[k] == c->n;
        c->ls[c->n_ls++] = *cur;
        memset(cur, 0, sizeof(*cur));
    }
    fflush(c->r.out);
    fseek(c->r.out, 0, SEEK_SET);
    c->out_seen = 0;
    c->out_len = 0;
}

/* as co_run.c's drive_phase loop (co_fleet_next, handle_event,
 * co_fleet_event_clear, co__live_flush), with each part timed */
static void drive(struct coord *c)
{
    struct co_fleet_event ev;
    uint64_t deadline =
        c->r.t0_ns + (uint64_t)(c->k_count + 10) * c->r.interval_ms * 1000000u + 10000000000u;

    while (c->printed < c->k_count && co_fleet_now_ns() < deadline) {
        uint64_t a = cm_thread_cpu_ns();
        co_fleet_next(c->r.fleet, &ev, 50);
        uint64_t b = cm_thread_cpu_ns();
        handle_event(c, &ev);
        uint64_t d = cm_thread_cpu_ns();
        co_fleet_event_clear(&ev);
        uint64_t e = cm_thread_cpu_ns();
        co__live_flush(&c->r, false);
        uint64_t f = cm_thread_cpu_ns();
        count_lines(c);
        if (cm_long_ivl_ms)
            long_sample(c);
        c->sec.next += b - a;
        c->sec.handle += d - b;
        c->sec.clear += e - d;
        c->sec.flush += f - e;
        c->sec.loops++;
    }
}

/* co_fleet_next(timeout 0) with (nearly) nothing to read: what each call
 * costs beyond the messages, with N peers (heartbeat/loss timers scan them
 * all). The simulator's heartbeats may still arrive: calls that got one are
 * left out. */
static void measure_idle_next(struct coord *c)
{
    struct co_fleet_event ev;
    uint64_t total = 0, calls = 0;
    for (int i = 0; i < 5000; i++) {
        uint64_t t = cm_thread_cpu_ns();
        co_fleet_next(c->r.fleet, &ev, 0);
        uint64_t d = cm_thread_cpu_ns() - t;
        if (ev.type == CO_FLEET_NONE && d < 1000000u) {
            total += d;
            calls++;
        }
        handle_event(c, &ev);
        co_fleet_event_clear(&ev);
    }
    c->idle_next_us = calls ? (double)total / 1e3 / (double)calls : 0.0;
}

/* The end of the run as co_run's finish_results does it: the intervals
 * move out of co_merge and the run's latency is their sum
 * (co__live_sum_intervals, every agent having sent DONE). Returns the
 * thread CPU it took (ms); *samples: the run histogram's count. */
double cm_sum_intervals(struct coord *c, uint64_t *samples)
{
    for (uint32_t i = 0; i < c->n; i++)
        c->res.agents[i].done = true;
    uint64_t t = cm_thread_cpu_ns();
    co_merge_take(c->r.merge, &c->res.intervals, &c->res.n_intervals);
    co__live_sum_intervals(&c->r);
    double ms = (double)(cm_thread_cpu_ns() - t) / 1e6;
    *samples = pr_hist_count(c->res.lat);
    return ms;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: coordinator_merge [--agents=N (1..%d)] [--intervals=K (1..%d)] "
            "[--kinds=N (1..%d)] [--samples=MIN:MAX] [--hdr-log] [--seed=S] "
            "[--interval-ms=MS (10..1000)] [--ready-rtt-us=US (0..1000000)]\n",
            MAX_AGENTS, MAX_INTERVALS, PR_MSG_MAX_KINDS);
    return 2;
}

static bool parse_uint(const char *arg, const char *name, unsigned long max, unsigned long *v)
{
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0 || arg[len] != '=')
        return false;
    char *end;
    errno = 0;
    *v = strtoul(arg + len + 1, &end, 10);
    if (errno || *end || end == arg + len + 1 || *v == 0 || *v > max) {
        fprintf(stderr, "coordinator_merge: %s wants an integer in 1..%lu\n", name, max);
        exit(usage());
    }
    return true;
}

/* --samples=MIN:MAX, 1 <= MIN <= MAX <= 10^7 */
static void parse_samples(const char *v)
{
    char *end, *end2 = NULL;
    errno = 0;
    unsigned long lo = strtoul(v, &end, 10);
    unsigned long hi = *end == ':' ? strtoul(end + 1, &end2, 10) : 0;
    if (errno || end == v || *end != ':' || end2 == end + 1 || *end2 || lo == 0 || hi < lo ||
        hi > 10000000) {
        fprintf(stderr, "coordinator_merge: --samples wants MIN:MAX, 1 <= MIN <= MAX <= "
                        "10000000\n");
        exit(usage());
    }
    cm_min_samples = lo;
    cm_max_samples = hi;
}

static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int main(int argc, char **argv)
{
    unsigned long n = 100, k_count = 10, seed = 1;
    bool keep_hists = false, ir = false;
    char endpoint[128], path[96];
    int fds[2];

    for (int i = 1; i < argc; i++) {
        unsigned long v;
        if (parse_uint(argv[i], "--agents", MAX_AGENTS, &v))
            n = v;
        else if (parse_uint(argv[i], "--kinds", PR_MSG_MAX_KINDS, &v) && v >= 1)
            cm_n_kinds = (uint32_t)v;
        else if (strncmp(argv[i], "--kinds=", 8) == 0)
            return usage();
        else if (parse_uint(argv[i], "--intervals", MAX_INTERVALS, &v))
            k_count = v;
        else if (parse_uint(argv[i], "--seed", ULONG_MAX, &v))
            seed = v;
        else if (strncmp(argv[i], "--samples=", 10) == 0)
            parse_samples(argv[i] + 10);
        else if (strcmp(argv[i], "--hdr-log") == 0)
            keep_hists = true;
        else if (strcmp(argv[i], "--ir") == 0)
            ir = true;
        else if (strcmp(argv[i], "--ready-rtt-us=0") == 0)
            cm_ready_rtt_us = 0;
        else if (parse_uint(argv[i], "--ready-rtt-us", 1000000, &v))
            cm_ready_rtt_us = (uint32_t)v;
        else if (parse_uint(argv[i], "--interval-ms", 1000, &v) && v >= 10)
            cm_long_ivl_ms = (uint32_t)v;
        else if (strncmp(argv[i], "--interval-ms=", 14) == 0)
            return usage();
        else
            return usage();
    }
    raise_fd_limit();
    signal(SIGPIPE, SIG_IGN);
    cm_gen_init(seed);
    if (ir) {
        static struct coord ic; /* large arrays: static */
        ic.n = (uint32_t)n;
        ic.k_count = (uint32_t)k_count;
        ic.keep_hists = keep_hists;
        return cm_ir_cleanup(&ic, cm_ir_main(&ic, seed));
    }
    snprintf(path, sizeof(path), "/tmp/stampede-cmerge-%d.sock", (int)getpid());
    snprintf(endpoint, sizeof(endpoint), "ipc://%s", path);
    if (pipe(fds) != 0) {
        perror("coordinator_merge: pipe");
        return 1;
    }
    cm_sim_live =
        mmap(NULL, sizeof(*cm_sim_live), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (cm_sim_live == MAP_FAILED) {
        perror("coordinator_merge: mmap");
        return 1;
    }
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        perror("coordinator_merge: fork");
        return 1;
    }
    if (child == 0) { /* the simulator: fresh process, no ZeroMQ context yet */
        close(fds[0]);
        _exit(cm_sim_main((uint32_t)n, (uint32_t)k_count, seed, endpoint, fds[1]));
    }
    close(fds[1]);

    static struct coord c; /* large arrays: static */
    struct pr_error err = {0};
    uint64_t join_cpu = 0;
    double join_s = 0;
    int status = 1;
    c.n = (uint32_t)n;
    c.k_count = (uint32_t)k_count;
    c.keep_hists = keep_hists;
    c.r = (struct run){.a = &c.args, .res = &c.res};
    c.r.out = open_memstream(&c.out_buf, &c.out_len);
    if (cm_make_args(&c, endpoint) == 0) { /* as co_run's open_fleet with --listen --plaintext */
        struct co_fleet_config fc = {.endpoint = c.args.listen, .max_agents = c.args.agents};
        c.r.fleet = co_fleet_new(&fc, &err);
        if (c.r.fleet == NULL)
            fprintf(stderr, "coordinator_merge: %s\n", err.msg);
    }
    if (c.r.fleet != NULL && gather(&c, &join_cpu, &join_s) == 0 && start_run(&c) == 0) {
        long rss_join = rss_kb();
        c.heap_join = mallinfo2().uordblks;
        drive(&c);
        loadavg(c.load_end, sizeof(c.load_end));
        c.wait_ns = cm_runqueue_wait_ns() - c.wait_ns;
        c.minflt = cm_thread_minflt() - c.minflt;
        long rss_end = rss_kb(), peak = peak_rss_kb();
        c.heap_end = mallinfo2().uordblks;
        measure_idle_next(&c);
        co_fleet_broadcast_stop(c.r.fleet, "bench over", true);
        struct sim_report *rep = pr_xcalloc(1, sizeof(*rep));
        bool got = cm_read_report(fds[0], rep);
        if (!got || !rep->ok) {
            fprintf(stderr, "coordinator_merge: simulator: %s\n",
                    got ? rep->why : "no report (it died)");
        } else if (cm_long_ivl_ms) {
            cm_long_report(&c, rep, rss_join, rss_end, peak);
            status = 0;
        } else {
            struct micro mb;
            cm_micro_bench(&c, seed, &mb);
            cm_report(&c, rep, &mb, join_cpu, join_s, rss_join, rss_end, peak);
            cm_result_line(&c, rep, &mb, rss_join, rss_end, peak);
            status = 0;
        }
        free(rep);
    }
    if (status != 0)
        kill(child, SIGTERM);
    int ws;
    waitpid(child, &ws, 0);
    close(fds[0]);
    co_fleet_destroy(&c.r.fleet);
    unlink(path);
    co_merge_destroy(&c.r.merge);
    for (uint32_t i = 0; c.r.agents && i < c.r.n; i++)
        pr_hist_acc_destroy(&c.r.agents[i].lat_acc);
    pr_hist_destroy(&c.r.scratch);
    free(c.r.agents);
    co__srv_copy(&c.r.srv0, &c.r.n_srv0, NULL, 0);
    co__srv_copy(&c.r.srv_last, &c.r.n_srv_last, NULL, 0);
    free(c.r.srv0);
    free(c.r.srv_last);
    free(c.r.srv_qps);
    co_result_clear(&c.res);
    co_args_clear(&c.args);
    fclose(c.r.out);
    free(c.out_buf);
    return status;
}
