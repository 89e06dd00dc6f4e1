/* ag_tc_rand: TPC-C's random inputs (NURand, last names, strings) drawn as
 * tpcc-mysql draws them, on ag_rand's generator (contract: ag_tc_rand.h). */
#include "ag_tc_rand.h"

#include <string.h>

static const char *const syllables[10] = {"BAR", "OUGHT", "ABLE",  "PRI",   "PRES",
                                          "ESE", "ANTI",  "CALLY", "ATION", "EING"};

static const char alnum_chars[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

void ag_tc_consts_init(struct ag_tc_consts *c, uint64_t seed)
{
    struct ag_rand r;
    uint32_t delta;

    ag_rand_init(&r, seed ^ 0x7470636332303236ull); /* "tpcc2026": apart from the runs' seeds */
    c->c_last_load = ag_rand_uniform(&r, 0, 255);
    do
        delta = ag_rand_uniform(&r, 65, 119);
    while (delta == 96 || delta == 112);
    c->c_last_run = (c->c_last_load + delta) % 256;
    c->c_id = ag_rand_uniform(&r, 0, 1023);
    c->ol_i_id = ag_rand_uniform(&r, 0, 8191);
}

uint32_t ag_tc_nurand(struct ag_rand *r, uint32_t a, uint32_t x, uint32_t y, uint32_t c)
{
    uint32_t u = ag_rand_uniform(r, 0, a) | ag_rand_uniform(r, x, y);
    return ((u + c) % (y - x + 1)) + x;
}

size_t ag_tc_lastname(uint32_t n, char *buf)
{
    size_t len = 0;
    uint32_t part[3] = {(n / 100) % 10, (n / 10) % 10, n % 10};

    for (int i = 0; i < 3; i++) {
        size_t l = strlen(syllables[part[i]]);
        memcpy(buf + len, syllables[part[i]], l);
        len += l;
    }
    buf[len] = '\0';
    return len;
}

size_t ag_tc_alnum(struct ag_rand *r, char *buf, uint32_t lo, uint32_t hi)
{
    uint32_t len = ag_rand_uniform(r, lo, hi);

    for (uint32_t i = 0; i < len; i++)
        buf[i] = alnum_chars[ag_rand_uniform(r, 0, sizeof alnum_chars - 2)];
    buf[len] = '\0';
    return len;
}

void ag_tc_digits(struct ag_rand *r, char *buf, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        buf[i] = (char)('0' + ag_rand_uniform(r, 0, 9));
    buf[n] = '\0';
}

uint32_t ag_tc_other_ware(struct ag_rand *r, uint32_t w, uint32_t warehouses)
{
    uint32_t o;

    if (warehouses <= 1)
        return w;
    do
        o = ag_rand_uniform(r, 1, warehouses);
    while (o == w);
    return o;
}
