/* ag_sb_check: the sysbench family's `check` command, a statement stream
 * that verifies a prepared data set before a run.
 *
 * For each table sbtestN it sends
 *   SELECT COUNT(*), COALESCE(MIN(id),0), COALESCE(MAX(id),0) FROM sbtestN
 * and checks the result the engine hands back: the table exists (else the
 * server's 1146 fails the command), and it holds exactly --table_size rows
 * with ids 1..--table_size (what prepare loads). Workloads that grow their
 * tables are checked for what they keep: oltp_insert at least --table_size
 * rows (0 with --auto_inc=off, where prepare loads none); bulk_insert's
 * tables (sbtest1..--threads) only for existence. The first mismatch fails
 * the command with a message naming the table, the figures and what to do.
 */
#ifndef AG_SB_CHECK_H
#define AG_SB_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "ag_family.h"
#include "ag_sb_workload.h"

typedef struct ag_sb_check ag_sb_check;

/* A check of tables[0..n) (copied) of wl's data set. Caller owns; wl must
 * outlive it. */
ag_sb_check *ag_sb_check_new(const ag_sb_workload *wl, const uint32_t *tables, size_t n);

/* Free *c and NULL it. */
void ag_sb_check_destroy(ag_sb_check **c);

/* The stream over c (its it, next and result). */
struct ag_piece ag_sb_check_piece(ag_sb_check *c);

#endif
