/* pr_split: exact, deterministic splitting of work over agents (docs/design.md §5).
 *
 * Every function here is pure: the same input gives the same output on every
 * host, so the coordinator computes the whole plan and any agent can check its
 * part. k6's execution segments are the model (docs/design.md
 * §13.4): integer quantities are split by largest remainder over rational
 * shares, so the shares always sum exactly to the total.
 *
 * Agent order. Agents are identified by their index 0..n_agents-1 in an order
 * the CALLER fixes. The coordinator must order agents by name (byte-wise
 * strcmp order, see pr_split_order()) so that the same fleet gives the same
 * split whatever order the agents said HELLO in.
 *
 * Weights. Optional per-agent weights are non-negative integers (uint64_t),
 * NULL meaning "all equal". Integers keep the arithmetic exact (products are
 * taken in 128 bits); for fractional weights scale them first (e.g. per-mille:
 * 1.5 -> 1500). A zero weight gives that agent nothing; all-zero weights, or
 * weights whose sum overflows uint64_t, are errors.
 *
 * Errors are PR_E* codes from pr_err.h: PR_EINVAL for bad arguments (no
 * agents, NULL output, all-zero weights, no tables), PR_ERANGE when the
 * weights overflow or there is too little work to give every agent some.
 * A failed call leaves its outputs unspecified but never crashes.
 *
 * Nothing here allocates except pr_split_prepare() (its result) and a
 * temporary array in pr_split_tables()/pr_split_rows()/pr_split_prepare();
 * all functions are thread-safe (no shared state).
 */
#ifndef PR_SPLIT_H
#define PR_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits of the functions that allocate (pr_split_tables, pr_split_rows,
 * pr_split_prepare): beyond them they return PR_ETOO_BIG rather than try to
 * allocate gigabytes. pr_split_u64() and pr_split_order() have no limit. */
#define PR_SPLIT_MAX_AGENTS (UINT32_C(1) << 20)
#define PR_SPLIT_MAX_TABLES (UINT32_C(1) << 24)

/* An inclusive 1-based range [lo, hi] of tables or row ids. An empty span is
 * lo = 1, hi = 0 (use pr_split_span_len()). */
struct pr_split_span {
    uint64_t lo; /* first table or id, 1-based, inclusive */
    uint64_t hi; /* last table or id, inclusive; lo - 1 when empty */
};

/* One unit of `prepare` work: agent `agent` loads ids [id_lo, id_hi] of table
 * `table` (sbtest<table>). Ordering requirement, to be enforced by the agents
 * and the coordinator:
 *   1. the piece with `creates` runs CREATE TABLE before ANY piece of the same
 *      table inserts (when table_pieces > 1 the other agents wait for it);
 *   2. the piece with `indexes` builds the table's secondary index(es) only
 *      after ALL table_pieces pieces of that table have finished inserting.
 * Each table has exactly one creating and one indexing piece. When
 * table_pieces == 1 the same piece does both, in order, with no cross-agent
 * wait. */
struct pr_split_piece {
    uint32_t agent;        /* index in the caller's (name-sorted) agent order */
    uint32_t table;        /* table number, 1..n_tables */
    uint64_t id_lo;        /* first id to insert, 1-based, inclusive */
    uint64_t id_hi;        /* last id to insert, inclusive; id_lo - 1 if table_size is 0 */
    uint32_t table_pieces; /* how many pieces (agents) share this table */
    bool creates;          /* this piece runs CREATE TABLE (the piece holding id 1) */
    bool indexes;          /* this piece builds the secondary index (the piece holding the
                              last id) after every piece of the table has loaded */
};

/* Number of elements in a span (0 when empty). */
uint64_t pr_split_span_len(struct pr_split_span span);

/* Split `total` over n_agents by `weights` (NULL = equal), writing
 * shares[0..n_agents-1]. Guarantees: the shares sum exactly to total; each
 * share is floor or ceil of total*w_i/W (W = sum of weights), so it is within
 * 1 of the exact rational share; units left after the floors go to the agents
 * with the largest remainders, ties to the lower index; equal weights give
 * shares that differ by at most one (the first total%n agents get the extra
 * one); zero-weight agents get 0. No allocation. Returns 0, PR_EINVAL
 * (n_agents 0, shares NULL, all weights zero) or PR_ERANGE (weight sum
 * overflows). Use it for connections, events, rate, and connections over an
 * agent's worker threads. */
int pr_split_u64(uint64_t total, uint32_t n_agents, const uint64_t *weights, uint64_t *shares);

/* Sort agent names: fill perm[0..n-1] so names[perm[0]] < names[perm[1]] <
 * ... in byte-wise strcmp order. The caller then uses position k in this
 * order as the agent index. names and its strings are borrowed. Returns 0,
 * PR_EINVAL (n 0, a NULL pointer) or PR_EDUP_KEY (two equal names: their
 * order would be arbitrary, so the coordinator must reject the fleet). */
int pr_split_order(const char *const *names, uint32_t n, uint32_t *perm);

/* --partition=tables: contiguous runs of whole tables. Every agent with a
 * non-zero weight gets at least one table: it gets 1 + its pr_split_u64()
 * share of (n_tables - active agents); with equal weights this is exactly
 * the pr_split_u64() split of n_tables, so counts differ by at most one.
 * Agent 0 gets the lowest table numbers. Writes spans[0..n_agents-1] (tables
 * 1..n_tables, covering them exactly once; zero-weight agents get an empty
 * span). These are the same tables pr_split_prepare() gives each agent when
 * n_tables >= active agents. Returns 0, PR_EINVAL, PR_ETOO_BIG (over the
 * limits above) or PR_ERANGE (fewer tables than active agents: use
 * --partition=rows). */
int pr_split_tables(uint32_t n_agents, const uint64_t *weights, uint32_t n_tables,
                    struct pr_split_span *spans);

/* --partition=rows: one contiguous id range per agent, applied to EVERY
 * table (agent i touches all tables but only ids spans[i]). Same rule as
 * pr_split_tables() over ids 1..table_size: each active agent gets 1 + its
 * share of (table_size - active agents). Returns 0, PR_EINVAL, PR_ETOO_BIG
 * or PR_ERANGE (fewer rows than active agents). */
int pr_split_rows(uint32_t n_agents, const uint64_t *weights, uint64_t table_size,
                  struct pr_split_span *spans);

/* The `prepare` plan: tables 1..n_tables of table_size rows (ids
 * 1..table_size) over the agents.
 * - Whole-table mode, when n_tables >= active agents: agent i loads the
 *   tables pr_split_tables() gives it, one piece per table, creating and
 *   indexing each itself.
 * - Row mode, when n_tables < active agents (an agent's share is less than a
 *   table): the active agents, in order, are split into n_tables contiguous
 *   groups of equal size (+-1); table t's ids are split into contiguous
 *   ranges over its group (by weight, each member getting at least one row
 *   when table_size allows; with fewer rows than members the later members
 *   load nothing). The piece holding id 1 creates, the piece holding the last
 *   id indexes (with table_size 0, one empty piece does both).
 * Pieces come sorted by (table, id_lo), which is also by agent. Every id of
 * every table is in exactly one piece. On success *pieces is a new array the
 * caller frees with free() and *n_pieces its length (at most
 * max(n_tables, n_agents)). Returns 0, PR_EINVAL (n_agents or n_tables 0,
 * NULL outputs, all weights zero), PR_ETOO_BIG or PR_ERANGE; on error
 * *pieces is NULL. */
int pr_split_prepare(uint32_t n_agents, const uint64_t *weights, uint32_t n_tables,
                     uint64_t table_size, struct pr_split_piece **pieces, size_t *n_pieces);

/* Seed of one random stream from (--rand-seed, a domain, an index), by
 * chained splitmix64 finalizers. The callers pass a domain (ag_engine: its
 * SEED_CONN or SEED_ARRIVALS; a family: its own, e.g. a table) and a global
 * index (the connection's index over the whole run), so a connection's
 * stream does not depend on how the connections were split over agents.
 * For a fixed run_seed the map (domain, index) -> seed is a bijection, so
 * distinct streams of a run always get distinct seeds; a different
 * run_seed gives unrelated seeds. Any 64-bit value, 0 included, may come out: seed the
 * connection's generator through its own seeding routine. */
uint64_t pr_split_seed(uint64_t run_seed, uint32_t agent, uint32_t conn);

#endif
