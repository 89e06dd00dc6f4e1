/* ag_tc_gen_int: the generator's state, shared by ag_tc_gen.c (machinery)
 * and ag_tc_txn.c (the five transactions). Internal to the tpcc family. */
#ifndef AG_TC_GEN_INT_H
#define AG_TC_GEN_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "ag_rand.h"
#include "ag_tc_gen.h"

#define AG_TC_DECK      23  /* 10 + 10 + 1 + 1 + 1 cards */
#define AG_TC_MAX_LINES 15  /* ol_cnt is U[5..15] */
#define AG_TC_NUM       24  /* a decimal parameter's text */
#define AG_TC_SL_ITEMS  512 /* Stock-Level: distinct items of 20 orders (<= 300) */
#define AG_TC_C_DATA    512 /* c_data is 300..500 characters */

/* tpcc_start's statement indexes (its stmt[t][0..34]). */
enum ag_tc_stmt {
    AG_TC_NO_CUST_WH,
    AG_TC_NO_DIST,
    AG_TC_NO_DIST_UPD,
    AG_TC_NO_ORDERS,
    AG_TC_NO_NEW_ORDERS,
    AG_TC_NO_ITEM,
    AG_TC_NO_STOCK,
    AG_TC_NO_STOCK_UPD,
    AG_TC_NO_OL,
    AG_TC_PY_WH_UPD,
    AG_TC_PY_WH,
    AG_TC_PY_DIST_UPD,
    AG_TC_PY_DIST,
    AG_TC_PY_CNT,
    AG_TC_PY_BYNAME,
    AG_TC_PY_CUST,
    AG_TC_PY_CDATA,
    AG_TC_PY_CUST_UPD_DATA,
    AG_TC_PY_CUST_UPD,
    AG_TC_PY_HIST,
    AG_TC_OS_CNT,
    AG_TC_OS_BYNAME,
    AG_TC_OS_CUST,
    AG_TC_OS_ORDER,
    AG_TC_OS_OL,
    AG_TC_DL_MIN,
    AG_TC_DL_DEL,
    AG_TC_DL_OCID,
    AG_TC_DL_ORD_UPD,
    AG_TC_DL_OL_UPD,
    AG_TC_DL_SUM,
    AG_TC_DL_CUST_UPD,
    AG_TC_SL_DIST,
    AG_TC_SL_ITEMS_Q,
    AG_TC_SL_STOCK,
};

/* The call in flight, when not a prepared statement. */
enum {
    AG_TC_CUR_COMMIT = AG_TC_NSTMTS,
    AG_TC_CUR_ROLLBACK,
    AG_TC_CUR_AUTOCOMMIT,
};

/* How the event ends once the COMMIT / ROLLBACK in flight succeeds. */
enum ag_tc_end {
    AG_TC_END_NONE,
    AG_TC_END_COMMITTED,
    AG_TC_END_ROLLED_BACK,
    AG_TC_END_FAILED,
};

/* One New-Order line. */
struct ag_tc_line {
    uint32_t item; /* ol_i_id (100001: the invalid item) */
    uint32_t supw; /* ol_supply_w_id */
    uint32_t qty;  /* ol_quantity */
};

struct ag_tc_gen {
    struct ag_gen base;
    const struct ag_tc_wl *wl;
    struct ag_rand r;
    uint32_t warehouses;   /* W */
    uint32_t home_w;       /* home warehouse (--partition=warehouses), 0: none */
    uint32_t max_attempts; /* --max-retries */
    uint8_t deck[AG_TC_DECK];
    uint32_t deck_pos;   /* next card */
    uint8_t txn;         /* enum pr_tc_txn of the event */
    uint32_t attempts;   /* attempts begun of this event */
    uint16_t step;       /* the transaction's next statement */
    uint16_t cur;        /* the call in flight: enum ag_tc_stmt or AG_TC_CUR_* */
    uint8_t end;         /* enum ag_tc_end */
    bool autocommit_due; /* SET autocommit=0 before anything else */
    bool rollback_due;   /* ROLLBACK before the (next) attempt */
    bool missing;        /* a required row was not found: the attempt fails */
    bool finished;       /* the final COMMIT was sent */
    char date[20];       /* the attempt's timestamp */
    time_t date_sec;     /* the second it shows */

    /* Inputs (kept on retries). */
    uint32_t w, d, c_id; /* home warehouse, district, customer */
    uint32_t c_w, c_d;   /* Payment: the customer's warehouse and district */
    bool byname;         /* Payment, Order-Status: by last name */
    char c_last[AG_TC_LASTNAME_MAX + 1];
    uint32_t c_last_len;
    uint32_t h_amount; /* Payment: integer dollars */
    uint32_t ol_cnt;   /* New-Order */
    uint32_t all_local;
    struct ag_tc_line lines[AG_TC_MAX_LINES]; /* sorted by (supw, item) */
    uint32_t carrier;                         /* Delivery */
    uint32_t threshold;                       /* Stock-Level */

    /* Per attempt, from results. */
    uint32_t line; /* New-Order: current line; Stock-Level: current item */
    int64_t o_id;  /* New-Order: d_next_o_id; Order-Status: the last order; Delivery:
                      the oldest new order; Stock-Level: d_next_o_id */
    float w_tax, d_tax, c_discount, price;
    int64_t s_qty;
    char dist[25]; /* s_dist_<d> */
    uint32_t dist_len;
    bool invalid;     /* New-Order: the item row is missing (the 1%) */
    int64_t namecnt;  /* Payment: customers with c_last */
    uint32_t found_c; /* Payment: the customer paid */
    float c_balance;
    bool bc; /* c_credit == "BC" */
    char c_data[AG_TC_C_DATA + 1];
    uint32_t c_data_len;
    char h_data[25]; /* w_name followed by d_name, at most 24 */
    uint32_t w_name_len, h_data_len;
    uint32_t dd;     /* Delivery: district */
    int64_t dl_c;    /* Delivery: o_c_id */
    float ol_total;  /* Delivery: SUM(ol_amount) */
    uint32_t nitems; /* Stock-Level */
    int64_t items[AG_TC_SL_ITEMS];
    char num[2][AG_TC_NUM]; /* decimal parameters of the call in flight */
};

/* ag_tc_gen.c */
uint32_t ag__tc_w_id(struct ag_tc_gen *g);
void ag__tc_c_last(struct ag_tc_gen *g);
enum ag_step ag__tc_commit(struct ag_tc_gen *g, struct ag_call *call, enum ag_tc_end end);
enum ag_step ag__tc_rollback(struct ag_tc_gen *g, struct ag_call *call, enum ag_tc_end end);
void ag__tc_stmt(struct ag_tc_gen *g, struct ag_call *call, enum ag_tc_stmt s, uint8_t want);
void ag__tc_str(struct ag_call *call, uint32_t i, const char *s, uint32_t len);
uint32_t ag__tc_money(char *buf, float v);

/* ag_tc_txn.c: the event's inputs (g->txn), an attempt's reset, the next
 * statement, a statement's result. */
void ag__tc_txn_inputs(struct ag_tc_gen *g);
void ag__tc_txn_attempt(struct ag_tc_gen *g);
enum ag_step ag__tc_txn_next(struct ag_tc_gen *g, struct ag_call *call);
void ag__tc_txn_result(struct ag_tc_gen *g, const struct ag_result *res);

#endif
