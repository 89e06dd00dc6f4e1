/* ag_engine_test: test-only internals of ag_engine (STYLE: test-only
 * internals in a separate header). Not for production callers. */
#ifndef AG_ENGINE_TEST_H
#define AG_ENGINE_TEST_H

#include "ag_engine.h"

/* The next ag_engine_collect drops the first worker's interval buffer as a
 * lost interval would: its figures reach neither that collect's result
 * nor any later one. ag_engine_totals, counted by the workers apart from
 * the intervals, still holds them, so "the intervals sum to the totals"
 * must then fail (tests/mysql/test_engine.c, case intervals). Control
 * thread, like every engine call. */
void ag__engine_test_lose_interval(ag_engine *e);
/* The next swap of the first worker drops its interval inside the worker
 * (before the run totals fold it): only the tally still counts it. */
void ag__engine_test_lose_in_worker(ag_engine *e);

#endif
