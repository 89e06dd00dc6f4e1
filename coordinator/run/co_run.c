/* co_run: one stampede command carried out end to end: gather, PLAN, READY, START, STATS, DONE
 * (contract: co_run.h). */
#include "co_run.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

#include "co_env.h"
#include "co_family.h"
#include "co_fleet.h"
#include "co_keys.h"
#include "co_kinds.h"
#include "co_kinds_res.h"
#include "co_merge.h"
#include "co_output.h"
#include "co_plan.h"
#include "co_prom.h"
#include "co_run_int.h"
#include "co_sbfmt.h"
#include "co_spawn.h"
#include "pr_split.h"

#define SETUP_TIMEOUT_MS 60000 /* PLAN to READY, at least */
#define STOP_WAIT_MS     10000 /* ABORT to DONE */
#define FINISH_SLACK_MS  60000 /* past --time before we give up on DONE */
#define START_LEAD_MS    200   /* START goes out this long before t0, at least */

static volatile sig_atomic_t interrupts;

static void on_interrupt(int sig)
{
    (void)sig;
    if (++interrupts >= 2) {
        static const char msg[] = "\nstampede: interrupted twice: exiting now, without a report\n";
        co_spawn_remove_now(); /* no one-run key directory left behind */
        if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
            _exit(1);
        _exit(1);
    }
}

bool co_run_interrupted(void)
{
    return interrupts > 0;
}

static void fail(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record the first reason the run failed; later ones are printed only. */
static void fail(struct run *r, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "stampede: %s\n", msg);
    if (r->res->exit_status == CO_EXIT_OK) {
        r->res->exit_status = CO_EXIT_FAILED;
        free(r->res->exit_reason);
        r->res->exit_reason = pr_xstrdup(msg);
    }
}

static int agent_of_peer(const struct run *r, int peer)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (r->agents[i].peer == peer)
            return (int)i;
    return -1;
}

const char *co__run_agent_name(const struct run *r, uint32_t i)
{
    return co_fleet_peer(r->fleet, r->agents[i].peer)->name;
}

static double since_t0_s(const struct run *r)
{
    uint64_t now = co_fleet_now_ns();
    return r->t0_ns && now > r->t0_ns ? (double)(now - r->t0_ns) / 1e9 : 0.0;
}

/* Keys and endpoint: local spawned agents, or --listen with key files. */
static int open_fleet(struct run *r, const char *self_exe)
{
    const struct co_args *a = r->a;
    struct pr_error err = {0};
    struct co_fleet_config fc = {.max_agents = a->agents};

    if (a->listen == NULL) {
        r->kr = co_keyring_new();
        r->spawn = co_spawn_new(a->agents, a->agent_bin, self_exe, a->agent_workers, r->kr,
                                co_run_interrupted, &err);
        if (r->spawn == NULL)
            goto bad;
        fc.endpoint = co_spawn_endpoint(r->spawn);
        fc.keys = co_spawn_server_keys(r->spawn);
        fc.keyring = r->kr;
    } else {
        fc.endpoint = a->listen;
        if (!a->plaintext) {
            if (a->secret_key_file == NULL || a->authorized_keys == NULL) {
                fail(r, "--listen needs --secret-key-file and --authorized-keys (make keys with "
                        "`stampede keygen DIR NAME`), or --plaintext on loopback");
                return -1;
            }
            if (co_keys_read_secret(a->secret_key_file, &r->keys, &err) != 0 ||
                (r->kr = co_keyring_load(a->authorized_keys, &err)) == NULL)
                goto bad;
            fc.keys = &r->keys;
            fc.keyring = r->kr;
        } else {
            fprintf(stderr,
                    "stampede: WARNING: control traffic on %s is PLAIN TEXT "
                    "(unencrypted, unauthenticated; loopback only)\n",
                    a->listen);
        }
    }
    r->fleet = co_fleet_new(&fc, &err);
    if (r->fleet == NULL)
        goto bad;
    char run_id[PR_RUN_ID_MAX + 1];
    snprintf(run_id, sizeof(run_id), "%llx-%x", (unsigned long long)time(NULL), (unsigned)getpid());
    co_fleet_set_run(r->fleet, run_id);
    free(r->res->run_id);
    r->res->run_id = pr_xstrdup(run_id);
    if (r->spawn && co_spawn_start(r->spawn, &err) != 0)
        goto bad;
    return 0;
bad:
    fail(r, "%s", err.msg);
    return -1;
}

/* Wait for --agents agents and their clock pings. */
static int gather(struct run *r)
{
    const struct co_args *a = r->a;
    uint64_t deadline = co_fleet_now_ns() + (uint64_t)a->agent_wait_s * 1000000000u;
    struct co_fleet_event ev;

    while (!interrupts) {
        size_t have = co_fleet_count(r->fleet);
        bool clocks = have >= a->agents;
        for (size_t i = 0; clocks && i < have; i++)
            clocks = co_fleet_peer(r->fleet, (int)i)->pongs >= CO_FLEET_PINGS / 2;
        if (clocks) {
            r->gathered = true;
            return 0;
        }
        if (co_fleet_now_ns() > deadline) {
            fail(r, "only %zu of %u agents joined within %u s%s", have, a->agents, a->agent_wait_s,
                 a->listen ? ": start more agents, check their --coordinator and keys, or lower "
                             "--agents / raise --agent-wait"
                           : ": the local agents did not start (see their messages above)");
            return -1;
        }
        if (r->spawn && co_spawn_exited(r->spawn) > 0) {
            fail(r, "a local stampede-agent exited before the run (see its message above)");
            return -1;
        }
        co_fleet_next(r->fleet, &ev, 100);
        if (ev.type == CO_FLEET_REFUSED)
            fprintf(stderr, "stampede: %s\n", ev.text);
        else if (ev.type == CO_FLEET_LOST || ev.type == CO_FLEET_BYE)
            fprintf(stderr, "stampede: agent %s left before the run\n",
                    co_fleet_peer(r->fleet, ev.peer)->name);
        co_fleet_event_clear(&ev);
    }
    fail(r, "interrupted while waiting for agents");
    return -1;
}

/* Agents in name order, their weights, the seed and the plan. */
static int make_plan(struct run *r)
{
    const struct co_args *a = r->a;
    uint32_t n = (uint32_t)co_fleet_count(r->fleet);
    const char **names = pr_xcalloc(n, sizeof(*names));
    uint32_t *perm = pr_xcalloc(n, sizeof(*perm));
    uint64_t *w = NULL;
    struct pr_error err = {0};
    int rc = 0;

    for (uint32_t i = 0; i < n; i++)
        names[i] = co_fleet_peer(r->fleet, (int)i)->name;
    pr_split_order(names, n, perm);
    r->n = n;
    r->agents = pr_xcalloc(n, sizeof(*r->agents));
    for (uint32_t i = 0; i < n; i++)
        r->agents[i].peer = (int)perm[i];
    if (a->n_weights) {
        w = pr_xcalloc(n, sizeof(*w));
        for (uint32_t k = 0; k < a->n_weights && rc == 0; k++) {
            int found = -1;
            for (uint32_t i = 0; i < n; i++)
                if (strcmp(co__run_agent_name(r, i), a->weights[k].name) == 0)
                    found = (int)i;
            if (found < 0) {
                fail(r, "--agent-weights names '%s', which is not one of the agents",
                     a->weights[k].name);
                rc = -1;
            } else {
                w[found] = a->weights[k].value;
            }
        }
        for (uint32_t i = 0; rc == 0 && i < n; i++)
            if (w[i] == 0)
                w[i] = 1; /* an agent not named keeps the default weight */
    }
    r->seed = a->cfg.seed;
    if (r->seed == 0)
        r->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    if (rc == 0 && (r->plan = co_plan_new(a, n, w, r->seed, &err)) == NULL) {
        fail(r, "%s", err.msg);
        rc = -1;
    }
    free(names);
    free(perm);
    free(w);
    return rc;
}

static void on_error_msg(struct run *r, uint32_t i, const struct pr_msg_error *e)
{
    struct agent *ag = &r->agents[i];
    char db[64] = "";
    if (e->db_errno)
        snprintf(db, sizeof(db), " [server error %u, SQLSTATE %s]", e->db_errno, e->sqlstate);
    snprintf(ag->error, sizeof(ag->error), "%s (%s) %s: %s%s", co__run_agent_name(r, i),
             co_fleet_peer(r->fleet, ag->peer)->host, pr_phase_name(e->phase), e->message, db);
}

/* Send this phase's PLANs and wait until every agent with one answered. */
static int setup_phase(struct run *r, uint32_t phase)
{
    uint32_t waiting = 0, conns = 0;
    struct co_fleet_event ev;

    for (uint32_t i = 0; i < r->n; i++) {
        struct agent *ag = &r->agents[i];
        const struct pr_msg *plan = co_plan_msg(r->plan, phase, i);
        ag->in_phase = plan != NULL && !ag->lost;
        ag->ready = ag->done = false;
        if (!ag->in_phase)
            continue;
        struct pr_msg m = *plan; /* sent as is; co_fleet sets run and seq */
        co_fleet_send(r->fleet, ag->peer, &m);
        waiting++;
        conns += plan->u.plan.conns;
    }
    uint64_t deadline = co_fleet_now_ns() + (uint64_t)(SETUP_TIMEOUT_MS + conns * 20u) * 1000000u;
    while (waiting > 0 && !interrupts && co_fleet_now_ns() < deadline) {
        co_fleet_next(r->fleet, &ev, 100);
        int i = ev.peer >= 0 ? agent_of_peer(r, ev.peer) : -1;
        if (i >= 0 && r->agents[i].in_phase && !r->agents[i].ready) {
            struct agent *ag = &r->agents[i];
            struct pr_error herr = {0};
            if (ev.type == CO_FLEET_MSG && ev.msg.type == PR_MSG_READY &&
                co_plan_check_ready(r->plan, phase, (uint32_t)i, &ev.msg.u.ready, &herr) < 0) {
                snprintf(ag->error, sizeof(ag->error), "%s (%s) plan: %s",
                         co__run_agent_name(r, (uint32_t)i),
                         co_fleet_peer(r->fleet, ag->peer)->host, herr.msg);
                ag->ready = true;
                waiting--;
            } else if (ev.type == CO_FLEET_MSG && ev.msg.type == PR_MSG_READY &&
                       co_kinds_res_ready(r->res, &ev.msg.u.ready, &herr) < 0) {
                snprintf(ag->error, sizeof(ag->error), "%s: %s", co__run_agent_name(r, (uint32_t)i),
                         herr.msg);
                ag->ready = true;
                waiting--;
            } else if (ev.type == CO_FLEET_MSG && ev.msg.type == PR_MSG_READY) {
                r->res->agents[i].db_rtt_us = ev.msg.u.ready.db_rtt_us;
                r->res->agents[i].has_db_rtt = ev.msg.u.ready.has_db_rtt;
                if (r->a->cmd == PR_CMD_RUN)
                    co__live_agent_ready(r, (uint32_t)i);
                co_env_ready(r->res->env, (uint32_t)i, &ev.msg.u.ready);
                if (i == 0)
                    co__live_baseline(r, ev.msg.u.ready.srv, ev.msg.u.ready.n_srv);
                ag->ready = true;
                waiting--;
            } else if (ev.type == CO_FLEET_MSG && ev.msg.type == PR_MSG_ERROR) {
                on_error_msg(r, (uint32_t)i, &ev.msg.u.error);
                ag->ready = true;
                waiting--;
            } else if (ev.type == CO_FLEET_LOST || ev.type == CO_FLEET_BYE) {
                snprintf(ag->error, sizeof(ag->error), "%s was lost during setup (%s)",
                         co__run_agent_name(r, (uint32_t)i),
                         ev.type == CO_FLEET_BYE ? ev.msg.u.bye.reason : ev.text);
                ag->lost = ag->ready = true;
                waiting--;
            }
        } else if (ev.type == CO_FLEET_REFUSED) {
            fprintf(stderr, "stampede: %s\n", ev.text);
        }
        co_fleet_event_clear(&ev);
    }
    bool bad = waiting > 0 || interrupts;
    for (uint32_t i = 0; i < r->n; i++)
        bad = bad || r->agents[i].error[0];
    if (!bad)
        return 0;
    co_fleet_broadcast_stop(r->fleet, "the run was aborted during setup", false);
    for (uint32_t i = 0; i < r->n; i++)
        if (r->agents[i].error[0])
            fprintf(stderr, "stampede: agent %s\n", r->agents[i].error);
    if (interrupts)
        fail(r, "interrupted during setup; no load was started");
    else if (waiting > 0)
        fail(r, "%u agent(s) did not answer the plan within %u s; no load was started", waiting,
             (SETUP_TIMEOUT_MS + conns * 20u) / 1000u);
    else
        fail(r, "setup failed on %s; no load was started",
             r->n > 1 ? "one or more agents (reasons above)" : "the agent (reason above)");
    return -1;
}

/* Agents report every --report-interval, or every second without one (the
 * JSON/CSV intervals and liveness still need them), or as their family's
 * plan says (PLAN.report_ms; tpcc: every second). */
static uint32_t interval_ms_of(const struct run *r)
{
    return co_plan_report_ms(r->plan);
}

static void send_start(struct run *r)
{
    uint64_t lead_ns = (uint64_t)START_LEAD_MS * 1000000u;
    for (uint32_t i = 0; i < r->n; i++) {
        uint64_t rtt = co_fleet_peer(r->fleet, r->agents[i].peer)->rtt_ns;
        if (2 * rtt + 50000000u > lead_ns)
            lead_ns = 2 * rtt + 50000000u;
    }
    r->t0_ns = co_fleet_now_ns() + lead_ns;
    if (r->first_t0_ns == 0)
        r->first_t0_ns = r->t0_ns;
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    /* t0 as our wall clock (the -t files' epoch): lead_ns after the read above */
    r->res->t0_unix_ns = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec + lead_ns;
    if (r->res->start_unix_ms == 0)
        r->res->start_unix_ms =
            (uint64_t)wall.tv_sec * 1000u + (uint64_t)wall.tv_nsec / 1000000u + lead_ns / 1000000u;
    r->interval_ms = interval_ms_of(r);
    for (uint32_t i = 0; i < r->n; i++) {
        if (!r->agents[i].in_phase)
            continue;
        struct pr_msg m;
        pr_msg_init(&m, PR_MSG_START, NULL, 0);
        m.u.start.t0_ns = r->t0_ns;
        m.u.start.interval_ms = r->interval_ms;
        co_fleet_send(r->fleet, r->agents[i].peer, &m);
    }
}

/* A run ends when its last event ends, not when the last DONE arrives (the
 * agents' wind-down and the control hop were counted in): every agent of
 * the phase said when (DONE.end, in the common epoch of t0), so the latest
 * of them is the end. Any agent without it (no event, an older agent, a
 * lost one): the arrival stands. */
static void true_end(struct run *r)
{
    uint64_t last = 0;
    if (r->a->cmd != PR_CMD_RUN)
        return;
    for (uint32_t i = 0; i < r->n; i++) {
        const struct agent *ag = &r->agents[i];
        if (!ag->in_phase)
            continue;
        if (!ag->done || !ag->has_end)
            return;
        if (ag->end_ns > last)
            last = ag->end_ns;
    }
    if (last > r->t0_ns)
        r->end_ns = last;
}

static void on_done(struct run *r, uint32_t i, const struct pr_msg_done *d)
{
    struct agent *ag = &r->agents[i];
    struct co_agent_result *ar = &r->res->agents[i];

    ag->done = true;
    r->end_ns = co_fleet_now_ns();
    ag->has_end = d->has_end && d->end_us > 0;
    /* Its own count, apart from every interval (issue 30 §3): its STATS
     * came before its DONE on the same channel, so they are all in. */
    if (d->has_tally && co_plan_phases(r->plan) == 1 && d->tally != ag->sum.transactions) {
        fprintf(stderr,
                "stampede: WARNING: agent %s: its intervals hold %" PRIu64
                " transactions but it counted %" PRIu64
                ": an interval was lost between its workers and this report\n",
                co__run_agent_name(r, i), ag->sum.transactions, d->tally);
        r->res->tally_mismatch = true;
    }
    if (d->n_conns > 0) { /* the summary's threads fairness, measured */
        free(ar->conns);
        ar->conns = pr_xmalloc(d->n_conns * sizeof *ar->conns);
        memcpy(ar->conns, d->conns, d->n_conns * sizeof *ar->conns);
        ar->n_conns = d->n_conns;
    }
    ag->end_ns = ag->has_end ? r->t0_ns + (uint64_t)d->end_us * 1000u : 0;
    pr_counters_add(&ar->ctr, &d->ctr);
    if (ar->lat == NULL)
        ar->lat = pr_hist_new();
    pr_hist_add(ar->lat, d->lat);
    co_kinds_res_done(r->res, d);
    ar->done = true;
    for (uint32_t k = 0; k < d->n_notes; k++) { /* informational: printed, and in --json */
        fprintf(r->out, "note (agent %s): %s\n", co__run_agent_name(r, i), d->notes[k]);
        ar->notes = pr_xrealloc(ar->notes, (ar->n_notes + 1) * sizeof *ar->notes);
        ar->notes[ar->n_notes++] = pr_xstrdup(d->notes[k]);
    }
    fflush(r->out);
    ar->start_skew_us = d->start_skew_us;
    ar->has_start_skew = d->has_start_skew;
    if (d->svc != NULL) {
        if (ar->svc == NULL)
            ar->svc = pr_hist_new();
        pr_hist_add(ar->svc, d->svc);
    }
    if (d->status != 0) {
        ar->status = d->status;
        free(ar->reason);
        ar->reason = pr_xstrdup(d->reason);
        fail(r, "agent %s failed: %s", co__run_agent_name(r, i), d->reason);
        if (!r->stopping) {
            co_fleet_broadcast_stop(r->fleet, "another agent failed", false);
            r->stopping = true;
            r->stop_ns = co_fleet_now_ns();
        }
    }
}

static void on_lost(struct run *r, uint32_t i, const char *why)
{
    struct agent *ag = &r->agents[i];
    struct co_agent_result *ar = &r->res->agents[i];
    const struct co_peer *p = co_fleet_peer(r->fleet, ag->peer);

    if (ag->lost)
        return;
    ag->lost = true;
    ar->lost = true;
    ar->lost_at_s = since_t0_s(r);
    ar->status = PR_EINVAL;
    free(ar->reason);
    ar->reason = pr_xstrdup(why);
    if (r->merge)
        co_merge_agent_lost(r->merge, i);
    co__live_prom(r, true); /* stampede_agent_up drops at once */
    fprintf(stderr, "stampede: agent %s (%s) lost at %.1f s: %s\n", p->name, p->host, ar->lost_at_s,
            why);
    if (ag->done || r->stopping)
        return;
    if (r->a->on_loss == CO_LOSS_ABORT) {
        fail(r,
             "agent %s (%s) was lost; run aborted (--on-agent-loss=continue finishes with "
             "the others)",
             p->name, p->host);
        co_fleet_broadcast_stop(r->fleet, "another agent was lost", false);
        r->stopping = true;
        r->stop_ns = co_fleet_now_ns();
    } else {
        fprintf(stderr, "stampede: continuing with the other agents (--on-agent-loss=continue)\n");
    }
}

static bool phase_over(const struct run *r)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (r->agents[i].in_phase && !r->agents[i].done && !r->agents[i].lost)
            return false;
    return true;
}

static void request_stop(struct run *r, const char *why)
{
    if (r->stopping)
        return;
    co_fleet_broadcast_stop(r->fleet, why, false);
    r->stopping = true;
    r->stop_ns = co_fleet_now_ns();
}

/* --abort-on-threshold: a threshold crossed live (co__live_release) stops
 * the run; what was measured is reported and written as for any stop. */
static void check_threshold_stop(struct run *r)
{
    if (r->res->thr_stop != NULL && !r->stopping)
        request_stop(r, "a --threshold was crossed (--abort-on-threshold)");
}

/* Watchdogs: agents that do not finish after a stop or long past --time. */
static void check_overdue(struct run *r)
{
    uint64_t now = co_fleet_now_ns();
    uint64_t time_s = co_plan_time_s(r->plan); /* --time, or the family's (PLAN.time_s) */
    uint64_t slack_ms = FINISH_SLACK_MS;
    if (r->forced_on && r->forced_ms + STOP_WAIT_MS > slack_ms)
        slack_ms = r->forced_ms + STOP_WAIT_MS; /* --forced-shutdown acts first */
    bool after_stop = r->stopping && now > r->stop_ns + (uint64_t)STOP_WAIT_MS * 1000000u;
    bool overdue = r->a->cmd == PR_CMD_RUN && time_s > 0 &&
                   now > r->t0_ns + (time_s * 1000u + slack_ms) * 1000000u;

    if (!after_stop && !overdue)
        return;
    if (overdue && !r->stopping) {
        fail(r, "the agents did not finish %d s after --time=%" PRIu64 "; stopping them",
             FINISH_SLACK_MS / 1000, time_s);
        request_stop(r, "the run is overdue");
        return;
    }
    for (uint32_t i = 0; i < r->n; i++)
        if (r->agents[i].in_phase && !r->agents[i].done && !r->agents[i].lost)
            on_lost(r, i, "no DONE within 10 s of the stop");
}

/* --forced-shutdown: at --time + its delay, a run whose agents have not all
 * finished is cut off as sysbench does it: the FATAL line, every agent told
 * to stop at once (events in flight are dropped and counted as unfinished),
 * and sysbench's exit code 2. What was measured is kept: the agents still
 * send their DONE, and the report and files are written as usual. */
static void check_forced(struct run *r)
{
    uint64_t time_ms = co_plan_time_s(r->plan) * 1000u; /* PLAN.time_s */

    if (!r->forced_on || r->forced || r->a->cmd != PR_CMD_RUN || r->t0_ns == 0 || phase_over(r))
        return;
    if (co_fleet_now_ns() < r->t0_ns + (time_ms + r->forced_ms) * 1000000u)
        return;
    r->forced = true;
    r->res->forced_shutdown = true;
    fprintf(r->out, "FATAL: The --max-time limit has expired, forcing shutdown...\n");
    fflush(r->out);
    if (r->res->exit_status == CO_EXIT_OK) {
        r->res->exit_status = CO_EXIT_FORCED;
        free(r->res->exit_reason);
        r->res->exit_reason = pr_xstrdup("forced shutdown: the agents had not finished at --time + "
                                         "--forced-shutdown; events in flight were cut off");
    }
    co_fleet_broadcast_abort_now(r->fleet, "--forced-shutdown: the --max-time limit has expired");
    r->stopping = true;
    r->stop_ns = co_fleet_now_ns();
}

static void handle_event(struct run *r, struct co_fleet_event *ev)
{
    int i = ev->peer >= 0 ? agent_of_peer(r, ev->peer) : -1;

    if (ev->type == CO_FLEET_REFUSED) {
        fprintf(stderr, "stampede: %s\n", ev->text);
        return;
    }
    if (i < 0)
        return;
    if (ev->type == CO_FLEET_LOST) {
        on_lost(r, (uint32_t)i, ev->text);
    } else if (ev->type == CO_FLEET_BYE) {
        if (!r->agents[i].done)
            on_lost(r, (uint32_t)i, ev->msg.u.bye.reason);
    } else if (ev->msg.type == PR_MSG_STATS) {
        co__live_stats(r, (uint32_t)i, &ev->msg.u.stats);
    } else if (ev->msg.type == PR_MSG_DONE) {
        on_done(r, (uint32_t)i, &ev->msg.u.done);
    } else if (ev->msg.type == PR_MSG_ERROR) {
        on_error_msg(r, (uint32_t)i, &ev->msg.u.error);
        fprintf(stderr, "stampede: agent %s\n", r->agents[i].error);
    }
}

/* A local agent's process ended: lost at once (unless it finished). */
static void reap_local(struct run *r)
{
    char name[64], why[128];
    while (r->spawn && co_spawn_reap(r->spawn, name, sizeof(name), why, sizeof(why)))
        for (uint32_t i = 0; i < r->n; i++)
            if (strcmp(co__run_agent_name(r, i), name) == 0 && !r->agents[i].done)
                on_lost(r, i, why);
}

/* START, then events until every agent of the phase is done or lost. */
static void drive_phase(struct run *r)
{
    struct co_fleet_event ev;
    int seen_interrupts = 0;

    send_start(r);
    if (r->a->cmd == PR_CMD_RUN && r->res->fam_summary != NULL) {
        r->res->fam_summary->started(r->res->fam_state, r->out);
        fflush(r->out);
    } else if (r->a->cmd == PR_CMD_RUN) {
        co_sbfmt_started(r->out);
        fflush(r->out);
    }
    while (!phase_over(r)) {
        co_fleet_next(r->fleet, &ev, 50);
        handle_event(r, &ev);
        co_fleet_event_clear(&ev);
        if (interrupts > seen_interrupts) {
            seen_interrupts = interrupts;
            fprintf(stderr, "\nstampede: interrupted: stopping the agents (again to exit at "
                            "once)\n");
            fail(r, "interrupted by the user; results are partial");
            request_stop(r, "interrupted on the coordinator");
        }
        reap_local(r);
        co__live_flush(r, false);
        co__live_progress(r);
        check_forced(r);
        check_threshold_stop(r);
        check_overdue(r);
    }
    if (r->end_ns == 0)
        r->end_ns = co_fleet_now_ns();
    true_end(r);
    co__live_flush(r, true);
}

/* A successful run's agents are told it is over (BYE), once. Remote
 * agents always; local ones (stopped by co_spawn right after) only before
 * the Prometheus linger, so that none takes its quiet for a lost
 * coordinator ("no word from the coordinator"). */
static void say_goodbye(struct run *r, bool local_too)
{
    if (r->bye_sent || (r->spawn != NULL && !local_too))
        return;
    if (r->fleet && r->res->exit_status == CO_EXIT_OK)
        co_fleet_broadcast_stop(r->fleet, "run finished", true);
    r->bye_sent = true;
}

static void free_run(struct run *r)
{
    for (uint32_t i = 0; r->agents && i < r->n; i++) {
        pr_hist_acc_destroy(&r->agents[i].lat_acc);
        for (uint32_t j = 0; j < r->agents[i].n_cp_snaps; j++)
            free(r->agents[i].cp_snaps[j].conns);
        free(r->agents[i].cp_snaps);
    }
    free(r->agents);
    pr_hist_destroy(&r->tot_lat);
    pr_hist_destroy(&r->tot_svc);
    co_kinds_free(&r->live_kinds, &r->n_live_kinds);
    pr_hist_destroy(&r->cp_lat);
    pr_hist_destroy(&r->scratch);
    co_prom_stop(&r->prom);
    co__srv_copy(&r->srv0, &r->n_srv0, NULL, 0);
    co__srv_copy(&r->srv_last, &r->n_srv_last, NULL, 0);
    free(r->srv0);
    free(r->srv_last);
    free(r->srv_qps);
    co_merge_destroy(&r->merge);
    co_srvstat_destroy(&r->srvstat);
    co_plan_destroy(&r->plan);
    say_goodbye(r, false);
    co_fleet_destroy(&r->fleet);
    /* Interrupted before every agent joined: they hold no run yet, so no
     * grace (SIGTERM during spawning exits within a second). */
    co_spawn_destroy(&r->spawn, interrupts && !r->gathered ? 0 : 3000);
    co_keyring_destroy(&r->kr);
    memset(&r->keys, 0, sizeof(r->keys));
}

/* --prometheus: open before any load, so a bad address loses nothing. */
static int start_prom(struct run *r)
{
    struct pr_error err = {0};
    if (r->a->prometheus == NULL)
        return 0;
    if (r->a->cmd != PR_CMD_RUN) {
        fprintf(stderr,
                "stampede: WARNING: --prometheus serves a run's metrics; %s has none, so "
                "no endpoint is opened\n",
                r->res->command);
        return 0;
    }
    const char **names = pr_xcalloc(r->n + 1, sizeof(*names));
    for (uint32_t i = 0; i < r->n; i++)
        names[i] = r->res->agents[i].name;
    /* libmicrohttpd's messages (a refused request) only at --verbosity >= 4 */
    struct co_prom_info info = {r->res->workload, r->res->command, r->res->run_id, r->res->version,
                                r->a->cfg.verbosity >= 4 ? "stampede:" : NULL};
    r->prom = co_prom_start(r->a->prometheus, &info, r->n, names, &err);
    free(names);
    if (r->prom == NULL) {
        fail(r, "%s", err.msg);
        co_fleet_broadcast_stop(r->fleet, "the run was aborted before it started", false);
        return -1;
    }
    co__live_prom(r, true);
    return 0;
}

/* --prometheus-linger: the final figures stay up for a last scrape. */
static void linger_prom(struct run *r)
{
    if (r->prom == NULL)
        return;
    co__live_prom(r, true);
    uint64_t until = co_fleet_now_ns() + (uint64_t)r->a->prometheus_linger_s * 1000000000u;
    while (co_fleet_now_ns() < until && !interrupts) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
}

/* The family's step before the agents set up: a script's init(), once, as
 * sysbench's main thread runs it before its threads start. */
static int before_run(struct run *r)
{
    const struct co_family *fam = co_registry_find(r->a->workload);
    struct pr_error err = {0};
    if (r->a->cmd != PR_CMD_RUN || fam == NULL || fam->before_run == NULL ||
        fam->before_run(r->a, &co_plan_msg(r->plan, 0, 0)->u.plan, &err) == 0)
        return 0;
    fail(r, "%s", err.msg);
    return -1;
}

static void run_phases(struct run *r)
{
    for (uint32_t ph = 0; ph < co_plan_phases(r->plan); ph++) {
        if (setup_phase(r, ph) != 0)
            return;
        if (r->a->cmd == PR_CMD_RUN) {
            uint32_t *threads = pr_xcalloc(r->n, sizeof(*threads));
            for (uint32_t i = 0; i < r->n; i++)
                threads[i] = r->res->agents[i].threads;
            r->merge = co_merge_new(r->n, threads, interval_ms_of(r), r->a->hdr_log_path != NULL);
            co_merge_set_kinds(r->merge, r->res->kind_names, r->res->n_kinds);
            co_prom_set_kinds(r->prom, r->res->kind_names, r->res->n_kinds); /* co_prom.h */
            free(threads);
        } else {
            co__run_print_phase(r, ph);
        }
        drive_phase(r);
        if (r->res->exit_status != CO_EXIT_OK)
            return;
    }
}

/* The output files (co_output), the run's last step: the stream's
 * completed, or every file written from res. The exit status: res's, 1
 * when a file failed on a run that had succeeded. */
static int write_files(struct run *r)
{
    int rc = r->res->exit_status;
    if (co_output_write(r->a, r->res, r->stream) != 0 && rc == CO_EXIT_OK)
        rc = CO_EXIT_FAILED;
    co_stream_destroy(&r->stream);
    return rc;
}

int co_run(const struct co_args *a, const char *self_exe, FILE *out, struct co_result *res)
{
    struct run r = {.a = a, .out = out, .res = res};
    struct sigaction sa = {.sa_handler = on_interrupt};

    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* interrupts is never reset: a Ctrl-C that lands between a sweep's
     * runs (after the pause, before this call) still stops the sweep. */
    r.forced_on = a->cmd == PR_CMD_RUN && a->cfg.forced_on;
    r.forced_ms = r.forced_on ? a->cfg.forced_ms : 0;
    co__run_fill_header(&r);
    co__run_open_family_summary(&r);
    co__run_print_header(&r);
    if (open_fleet(&r, self_exe) == 0 && gather(&r) == 0 && make_plan(&r) == 0 &&
        before_run(&r) == 0) {
        co__run_init_results(&r);
        if (start_prom(&r) == 0)
            run_phases(&r);
        /* The agents' part is over: told so now, not after the summary and
         * files (seconds on a loaded box, past their 3 s lease, and with no
         * heartbeat meanwhile they warned "no word from the coordinator"). */
        say_goodbye(&r, r.prom != NULL);
        co__run_finish_results(&r);
        co__run_print_end(&r);
    }
    fflush(out);
    linger_prom(&r);
    free_run(&r);
    return write_files(&r);
}
