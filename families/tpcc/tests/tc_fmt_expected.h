/* tc_fmt_expected: test_co_tc_fmt.c's inputs (the samples and
 * errors of every interval, agent and kind) and the tpcc_start output they
 * must give, worked out by hand. Included by test_co_tc_fmt.c alone. */
#ifndef TC_FMT_EXPECTED_H
#define TC_FMT_EXPECTED_H

#include <stdint.h>

/* Samples: in interval k, agent a, kind, n samples of value_us. */
struct sample {
    int k, agent, kind;
    uint64_t value_us, n;
};

/* The data (kinds: 0 NO, 1 P, 2 OS, 3 D, 4 SL, 5.. <txn>_stmt). Values
 * above 2048 µs are chosen as the highest value of their bucket (v % 4 == 3
 * below 8192) or as bucket boundaries (5000, 20000, 30000), so that what
 * the histogram reports is the value itself. */
static const struct sample samples[] = {
    /* warm-up: must not count */
    {0, 0, 0, 100000, 500},
    {1, 1, 0, 100000, 500},
    {1, 0, 1, 100000, 50},
    /* window, line 1 (k 2, 3) */
    {2, 0, 0, 1000, 5},
    {2, 1, 0, 4999, 3},
    {2, 1, 0, 5000, 1}, /* exactly at the 5 ms limit: late */
    {2, 0, 0, 7003, 1},
    {2, 0, 1, 2000, 10},
    {2, 1, 1, 6003, 1},
    {2, 1, 2, 1500, 1},
    {2, 0, 4, 19999, 1}, /* below the 20 ms limit */
    {3, 0, 0, 2000, 12},
    {3, 1, 0, 2000, 8},
    {3, 1, 0, 30000, 1},
    {3, 0, 1, 3000, 5},
    {3, 1, 3, 90000, 2},
    {3, 1, 4, 20000, 1}, /* at the limit: late */
    /* window, line 2 (k 4, 5) */
    {4, 0, 0, 1234, 4},
    {5, 1, 1, 100, 23},
    /* after the window: must not count */
    {6, 0, 0, 1, 500},
    {6, 1, 3, 1, 5},
};

/* Errors: in interval k, agent a, kind, n. */
static const struct sample errors[] = {
    {0, 0, 5, 0, 7}, /* warm-up retries: not counted */
    {2, 0, 0, 0, 1}, /* a New-Order given up: fl */
    {2, 0, 5, 0, 3}, /* its failed attempts (3): rt = 3 - 1 */
    {3, 1, 8, 0, 4}, /* Delivery statements failed, retried: rt 4 */
    {6, 0, 0, 0, 9}, /* after the window */
};

/* Worked out by hand (see the samples):
 * line 1, New-Order: 1000x5, 2000x20, 4999x3, 5000, 7003, 30000 = 31;
 *   95%: rank ceil(0.95*31) = 30 -> 7003; 99%: rank 31 -> 30000.
 *   Payment 10+1+5 = 16, max 6.003; Order-Status 1|1.500; Delivery
 *   2|90.000; Stock-Level 2|20.000.
 * line 2: New-Order 4 x 1234; Payment 23 x 100.
 * window New-Order: 35, below 5000: 5+3+20+4 = 32, late 3; fl 1, rt 3-1;
 *   avg (5000+14997+5000+7003+40000+30000+4936)/35 = 3055.3 us.
 * Payment: 39 (38 below, 6003 late), avg 43303/39 = 1110.3 us.
 * Order-Status 1, 1.5 ms. Delivery 2 late, 90 ms, rt 4. Stock-Level 19999
 *   (sc), 20000 (lt): avg 19.9995 -> "20.0".
 * all: 35+39+1+2+2 = 79: Payment 49.37%, OS 1.27%, D and SL 2.53%.
 * response time: NO 32/35 91.43%, P 38/39 97.44%, OS 100%, D 0%, SL 50%.
 * TpmC 35 * 60 / 4 = 525. */
static const char expected[] =
    "***************************************\n"
    "*** ###easy### TPC-C Load Generator ***\n"
    "***************************************\n"
    "option h with value '127.0.0.1'\n"
    "option w with value '2'\n"
    "option c with value '3'\n"
    "option r with value '2'\n"
    "option l with value '5'\n"
    "option i with value '2'\n"
    "option 3 (response time limit for transaction 3) '80'\n"
    "<Parameters>\n"
    "     [server]: 127.0.0.1\n"
    "     [port]: 3306\n"
    "     [DBname]: tpcc\n"
    "       [user]: root\n"
    "       [pass]: *****\n"
    "  [warehouse]: 2\n"
    " [connection]: 3\n"
    "     [rampup]: 2 (sec.)\n"
    "    [measure]: 5 (sec.)\n"
    "\n"
    "RAMP-UP TIME.(2 sec.)\n"
    "\n"
    "MEASURING START.\n"
    "\n"
    "   2, trx: 31, 95%: 7.003, 99%: 30.000, max_rt: 30.000, 16|6.003, 1|1.500, 2|90.000, "
    "2|20.000\n"
    "   4, trx: 4, 95%: 1.234, 99%: 1.234, max_rt: 1.234, 23|0.100, 0|0.000, 0|0.000, 0|0.000\n"
    "\n"
    "STOPPING THREADS...\n"
    "\n"
    "<Raw Results>\n"
    "  [0] sc:32 lt:3  rt:2  fl:1 avg_rt: 3.1 (5)\n"
    "  [1] sc:38 lt:1  rt:0  fl:0 avg_rt: 1.1 (5)\n"
    "  [2] sc:1 lt:0  rt:0  fl:0 avg_rt: 1.5 (5)\n"
    "  [3] sc:0 lt:2  rt:4  fl:0 avg_rt: 90.0 (80)\n"
    "  [4] sc:1 lt:1  rt:0  fl:0 avg_rt: 20.0 (20)\n"
    " in 4 sec.\n"
    "\n"
    "<Raw Results2(sum ver.)>\n"
    "  [0] sc:32  lt:3  rt:2  fl:1 \n"
    "  [1] sc:38  lt:1  rt:0  fl:0 \n"
    "  [2] sc:1  lt:0  rt:0  fl:0 \n"
    "  [3] sc:0  lt:2  rt:4  fl:0 \n"
    "  [4] sc:1  lt:1  rt:0  fl:0 \n"
    "\n"
    "<Constraint Check> (all must be [OK])\n"
    " [transaction percentage]\n"
    "        Payment: 49.37% (>=43.0%) [OK]\n"
    "   Order-Status: 1.27% (>= 4.0%) [NG] *\n"
    "       Delivery: 2.53% (>= 4.0%) [NG] *\n"
    "    Stock-Level: 2.53% (>= 4.0%) [NG] *\n"
    " [response time (at least 90% passed)]\n"
    "      New-Order: 91.43%  [OK]\n"
    "        Payment: 97.44%  [OK]\n"
    "   Order-Status: 100.00%  [OK]\n"
    "       Delivery: 0.00%  [NG] *\n"
    "    Stock-Level: 50.00%  [NG] *\n"
    "\n"
    "<TpmC>\n"
    "                 525.000 TpmC\n";

#endif
