/* ag_tc_load_rows: tpcc_load's rows (docs/design.md §13.2), as SQL
 * tuples. See ag_tc_load_int.h.
 *
 * Values follow tpcc_load's rules, including where they differ from the
 * TPC-C spec (50% BC credit, lowercase "original", 0.10..0.20 taxes, a
 * 9-digit zip, an alphanumeric state, ol_amount 0.10..100.00), with one
 * deliberate fix: tpcc_load marks its "original" rows in an array it
 * clears only in part (a known defect), so its stock tables of the second
 * and later warehouses may get more than 10%; here exactly 10,000 of the
 * 100,000 rows of item and of each warehouse's stock are marked (ids drawn
 * from 1..100000, where tpcc_load also draws the unused id 0). Decimal
 * values are written exactly (tpcc_load binds C floats that the server
 * rounds to the same two decimals). */
#include <stdlib.h>
#include <string.h>

#include "ag_tc_load_int.h"
#include "pr_err.h"
#include "pr_tc_opts.h"

/* Seed tags apart from the tables' (enum ag_tc_table). */
enum { TAG_ORIG = 16, TAG_PERM = 17 };

static const char alnum_chars[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void row_rand(struct ag_rand *r, const struct ag__tc_load_ctx *c, unsigned tag, uint32_t w,
                     uint32_t d, uint32_t id)
{
    uint64_t s = mix(c->seed ^ 0x7463206c6f616400ull); /* "tc load" */
    s = mix(s ^ tag);
    s = mix(s ^ w);
    s = mix(s ^ d);
    ag_rand_init(r, mix(s ^ id));
}

void ag__tc_buf_reserve(struct ag__tc_buf *b, size_t more)
{
    if (b->len + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p)
        abort(); /* out of memory, as pr_xmalloc */
    b->p = p;
    b->cap = cap;
}

void ag__tc_buf_put(struct ag__tc_buf *b, const char *s, size_t n)
{
    ag__tc_buf_reserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void ag__tc_buf_free(struct ag__tc_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* The appenders below reserve first; a row is at most a few KiB. */
#define ROW_MAX 2048

static inline void put_c(struct ag__tc_buf *b, char ch)
{
    b->p[b->len++] = ch;
}

static void put_lit(struct ag__tc_buf *b, const char *s)
{
    size_t n = strlen(s);
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void put_u(struct ag__tc_buf *b, uint32_t v)
{
    char tmp[12];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n > 0)
        put_c(b, tmp[--n]);
}

/* v / 100 with two decimals: 1015 -> "10.15". */
static void put_cents(struct ag__tc_buf *b, uint32_t v)
{
    put_u(b, v / 100);
    put_c(b, '.');
    put_c(b, (char)('0' + v / 10 % 10));
    put_c(b, (char)('0' + v % 10));
}

/* ,'alnum(lo..hi)' ; returns the offset of the first character. */
static size_t put_alnum(struct ag__tc_buf *b, struct ag_rand *r, uint32_t lo, uint32_t hi,
                        size_t *len)
{
    uint32_t n = ag_rand_uniform(r, lo, hi);
    put_lit(b, ",'");
    size_t at = b->len;
    for (uint32_t i = 0; i < n; i++)
        put_c(b, alnum_chars[ag_rand_uniform(r, 0, sizeof alnum_chars - 2)]);
    put_c(b, '\'');
    if (len)
        *len = n;
    return at;
}

static void put_digits(struct ag__tc_buf *b, struct ag_rand *r, uint32_t n)
{
    put_lit(b, ",'");
    for (uint32_t i = 0; i < n; i++)
        put_c(b, (char)('0' + ag_rand_uniform(r, 0, 9)));
    put_c(b, '\'');
}

static void put_ts(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c)
{
    put_lit(b, ",'");
    put_lit(b, c->ts);
    put_c(b, '\'');
}

/* street_1, street_2, city, state, zip (tpcc_load's MakeAddress). */
static void put_address(struct ag__tc_buf *b, struct ag_rand *r)
{
    put_alnum(b, r, 10, 20, NULL);
    put_alnum(b, r, 10, 20, NULL);
    put_alnum(b, r, 10, 20, NULL);
    put_alnum(b, r, 2, 2, NULL);
    put_digits(b, r, 9);
}

/* "(id,d,w": the opening of a row keyed in a district (CUSTOMER, ORDERS,
 * NEW_ORDERS, ORDER_LINE). */
static void put_key(struct ag__tc_buf *b, uint32_t id, uint32_t d, uint32_t w)
{
    put_c(b, '(');
    put_u(b, id);
    put_c(b, ',');
    put_u(b, d);
    put_c(b, ',');
    put_u(b, w);
}

/* The columns WAREHOUSE and DISTRICT share after their keys: name, the
 * address, tax. The ytd (and next_o_id) that follow are the caller's. */
static void put_name_address_tax(struct ag__tc_buf *b, struct ag_rand *r)
{
    put_alnum(b, r, 6, 10, NULL); /* w_name / d_name */
    put_address(b, r);
    put_c(b, ',');
    put_cents(b, ag_rand_uniform(r, 10, 20)); /* w_tax / d_tax */
}

/* i_data / s_data: alnum(26..50), "original" at U[0..len-8] when marked. */
static void put_data(struct ag__tc_buf *b, struct ag_rand *r, bool original)
{
    size_t len;
    size_t at = put_alnum(b, r, 26, 50, &len);
    if (original) {
        uint32_t pos = ag_rand_uniform(r, 0, (uint32_t)len - 8);
        memcpy(b->p + at + pos, "original", 8);
    }
}

void ag__tc_orig_flags(const struct ag__tc_load_ctx *c, enum ag_tc_table t, uint32_t w,
                       uint8_t *flags)
{
    struct ag_rand r;

    row_rand(&r, c, TAG_ORIG, (uint32_t)t, w, 0);
    memset(flags, 0, PR_TC_ITEMS + 1);
    for (uint32_t i = 0; i < PR_TC_ITEMS / 10; i++) {
        uint32_t pos;
        do
            pos = ag_rand_uniform(&r, 1, PR_TC_ITEMS);
        while (flags[pos]);
        flags[pos] = 1;
    }
}

void ag__tc_permutation(const struct ag__tc_load_ctx *c, uint32_t w, uint32_t d, uint16_t *perm)
{
    struct ag_rand r;

    row_rand(&r, c, TAG_PERM, w, d, 0);
    for (uint32_t i = 0; i < PR_TC_ORD_PER_DIST; i++)
        perm[i] = (uint16_t)(i + 1);
    for (uint32_t i = 0; i + 1 < PR_TC_ORD_PER_DIST; i++) {
        uint32_t j = ag_rand_uniform(&r, i + 1, PR_TC_ORD_PER_DIST - 1);
        uint16_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
}

void ag__tc_row_item(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t i_id,
                     bool original)
{
    struct ag_rand r;

    row_rand(&r, c, AG_TC_ITEM, 0, 0, i_id);
    ag__tc_buf_reserve(b, ROW_MAX);
    put_c(b, '(');
    put_u(b, i_id);
    put_c(b, ',');
    put_u(b, ag_rand_uniform(&r, 1, 10000)); /* i_im_id */
    put_alnum(b, &r, 14, 24, NULL);          /* i_name */
    put_c(b, ',');
    put_cents(b, ag_rand_uniform(&r, 100, 10000)); /* i_price */
    put_data(b, &r, original);                     /* i_data */
    put_c(b, ')');
    b->p[b->len] = '\0';
}

void ag__tc_row_warehouse(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w)
{
    struct ag_rand r;

    row_rand(&r, c, AG_TC_WAREHOUSE, w, 0, 0);
    ag__tc_buf_reserve(b, ROW_MAX);
    put_c(b, '(');
    put_u(b, w);
    put_name_address_tax(b, &r);
    put_lit(b, ",300000.00)"); /* w_ytd */
    b->p[b->len] = '\0';
}

void ag__tc_row_district(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w,
                         uint32_t d)
{
    struct ag_rand r;

    row_rand(&r, c, AG_TC_DISTRICT, w, d, 0);
    ag__tc_buf_reserve(b, ROW_MAX);
    put_c(b, '(');
    put_u(b, d);
    put_c(b, ',');
    put_u(b, w);
    put_name_address_tax(b, &r);
    put_lit(b, ",30000.00,3001)"); /* d_ytd, d_next_o_id */
    b->p[b->len] = '\0';
}

void ag__tc_row_stock(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w,
                      uint32_t i_id, bool original)
{
    struct ag_rand r;

    row_rand(&r, c, AG_TC_STOCK, w, 0, i_id);
    ag__tc_buf_reserve(b, ROW_MAX);
    put_c(b, '(');
    put_u(b, i_id);
    put_c(b, ',');
    put_u(b, w);
    put_c(b, ',');
    put_u(b, ag_rand_uniform(&r, 10, 100)); /* s_quantity */
    for (int i = 0; i < 10; i++)
        put_alnum(b, &r, 24, 24, NULL); /* s_dist_01..10 */
    put_lit(b, ",0,0,0");               /* s_ytd, s_order_cnt, s_remote_cnt */
    put_data(b, &r, original);          /* s_data */
    put_c(b, ')');
    b->p[b->len] = '\0';
}

void ag__tc_row_customer(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w,
                         uint32_t d, uint32_t c_id)
{
    struct ag_rand r;
    char last[AG_TC_LASTNAME_MAX + 1];

    row_rand(&r, c, AG_TC_CUSTOMER, w, d, c_id);
    ag__tc_buf_reserve(b, ROW_MAX);
    put_key(b, c_id, d, w);
    put_alnum(b, &r, 8, 16, NULL); /* c_first */
    put_lit(b, ",'OE','");         /* c_middle */
    uint32_t n = c_id <= 1000 ? c_id - 1 : ag_tc_nurand(&r, 255, 0, 999, c->k.c_last_load);
    ag__tc_buf_put(b, last, ag_tc_lastname(n, last)); /* c_last */
    put_c(b, '\'');
    put_address(b, &r);
    put_digits(b, &r, 16); /* c_phone */
    put_ts(b, c);          /* c_since */
    put_lit(b, ag_rand_uniform(&r, 0, 1) ? ",'GC'" : ",'BC'");
    put_lit(b, ",50000,"); /* c_credit_lim */
    put_cents(b, ag_rand_uniform(&r, 0, 50));
    put_lit(b, ",-10.00,10.00,1,0");  /* c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt */
    put_alnum(b, &r, 300, 500, NULL); /* c_data */
    put_c(b, ')');
    b->p[b->len] = '\0';
}

void ag__tc_row_history(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w,
                        uint32_t d, uint32_t c_id)
{
    struct ag_rand r;

    row_rand(&r, c, AG_TC_HISTORY, w, d, c_id);
    ag__tc_buf_reserve(b, ROW_MAX);
    put_c(b, '(');
    put_u(b, c_id); /* h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id */
    for (int i = 0; i < 2; i++) {
        put_c(b, ',');
        put_u(b, d);
        put_c(b, ',');
        put_u(b, w);
    }
    put_ts(b, c);                   /* h_date */
    put_lit(b, ",10.00");           /* h_amount */
    put_alnum(b, &r, 12, 24, NULL); /* h_data */
    put_c(b, ')');
    b->p[b->len] = '\0';
}

uint32_t ag__tc_order_ol_cnt(const struct ag__tc_load_ctx *c, uint32_t w, uint32_t d, uint32_t o_id)
{
    struct ag_rand r;

    row_rand(&r, c, AG_TC_ORDERS, w, d, o_id);
    (void)ag_rand_uniform(&r, 1, 10); /* o_carrier_id, drawn for every order */
    return ag_rand_uniform(&r, 5, 15);
}

void ag__tc_row_orders(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w,
                       uint32_t d, uint32_t o_id, uint32_t o_c_id)
{
    struct ag_rand r;

    row_rand(&r, c, AG_TC_ORDERS, w, d, o_id);
    uint32_t carrier = ag_rand_uniform(&r, 1, 10);
    uint32_t cnt = ag_rand_uniform(&r, 5, 15);
    ag__tc_buf_reserve(b, ROW_MAX);
    put_key(b, o_id, d, w);
    put_c(b, ',');
    put_u(b, o_c_id);
    put_ts(b, c); /* o_entry_d */
    put_c(b, ',');
    if (o_id < PR_TC_NEW_ORD_FIRST)
        put_u(b, carrier);
    else
        put_lit(b, "NULL");
    put_c(b, ',');
    put_u(b, cnt);
    put_lit(b, ",1)"); /* o_all_local */
    b->p[b->len] = '\0';
}

void ag__tc_row_new_orders(struct ag__tc_buf *b, uint32_t w, uint32_t d, uint32_t o_id)
{
    ag__tc_buf_reserve(b, 64);
    put_key(b, o_id, d, w);
    put_c(b, ')');
    b->p[b->len] = '\0';
}

uint32_t ag__tc_rows_order_line(struct ag__tc_buf *b, const struct ag__tc_load_ctx *c, uint32_t w,
                                uint32_t d, uint32_t o_id)
{
    struct ag_rand r;
    uint32_t cnt = ag__tc_order_ol_cnt(c, w, d, o_id);
    bool delivered = o_id < PR_TC_NEW_ORD_FIRST;

    row_rand(&r, c, AG_TC_ORDER_LINE, w, d, o_id);
    ag__tc_buf_reserve(b, 16 * 128);
    for (uint32_t ol = 1; ol <= cnt; ol++) {
        if (ol > 1)
            put_c(b, ',');
        put_key(b, o_id, d, w);
        put_c(b, ',');
        put_u(b, ol);
        put_c(b, ',');
        put_u(b, ag_rand_uniform(&r, 1, PR_TC_ITEMS)); /* ol_i_id, uniform */
        put_c(b, ',');
        put_u(b, w); /* ol_supply_w_id */
        if (delivered)
            put_ts(b, c); /* ol_delivery_d */
        else
            put_lit(b, ",NULL");
        put_lit(b, ",5,"); /* ol_quantity */
        uint32_t amount = ag_rand_uniform(&r, 10, 10000);
        put_cents(b, delivered ? 0 : amount); /* ol_amount */
        put_alnum(b, &r, 24, 24, NULL);       /* ol_dist_info */
        put_c(b, ')');
    }
    b->p[b->len] = '\0';
    return cnt;
}
