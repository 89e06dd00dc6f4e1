/* pr_msg_int: what the message codec's files share (internal to proto/):
 * the field tables' types (pr_msg.c holds the tables, pr_msg_dec.c and
 * pr_msg_enc.c walk them, pr_msg_clear() frees by them), the structural
 * pre-scan (pr_msg_scan.c) and the helpers more than one of them calls. */
#ifndef PR_MSG_INT_H
#define PR_MSG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pr_err.h"
#include "pr_msg.h"

/* Every message type is described once, by a table of fields; the encoder,
 * the decoder and pr_msg_clear() all walk the same tables, so the three
 * cannot disagree about a key, its type or its limit. */

enum fkind {
    FK_U64,
    FK_U32,
    FK_U16,
    FK_I64,
    FK_I32,
    FK_BOOL,
    FK_DBL,
    FK_STR,      /* char *, cap = max length */
    FK_RUN,      /* char[PR_RUN_ID_MAX + 1] inline */
    FK_SQLSTATE, /* char[6] inline: "" or exactly 5 chars */
    FK_Z85,      /* char[41] inline: "" or a 40-char Z85 key */
    FK_ENUM,     /* an enum; names[cap] are its wire names */
    FK_TYPE,     /* "t": the envelope's type (decoded before the table) */
    FK_CTR,      /* struct pr_counters as a map */
    FK_HIST,     /* pr_hist * */
    FK_HISTF,    /* pr_hist * to encode, or the pr_hist_frozen * at off_n; decoded frozen */
    FK_MAP,      /* an inline struct as a map of the table sub (optional: has) */
    FK_STRS,     /* char ** + uint32_t count at off_n; each <= elen */
    FK_U16S,     /* uint16_t * + count */
    FK_OPTS,     /* struct pr_msg_opt * + count */
    FK_STATS,    /* struct pr_msg_stat * + count */
    FK_TABLES,   /* struct pr_msg_table * + count */
    FK_KSTATS,   /* struct pr_msg_kstat * + count */
    FK_MAPS,     /* array of structs of esize bytes, each a map of the table sub */
    FK_TRX,      /* struct pr_msg_trx * + count (pr_msg_trx.c); absent when 0 */
};

struct table;

struct field {
    const char *key;          /* wire key */
    enum fkind kind;          /* representation on both sides */
    bool req;                 /* required when decoding */
    uint32_t cap;             /* string length, array count or enum count */
    uint32_t elen;            /* FK_STRS: length of each string */
    size_t off;               /* offset of the value in its struct */
    size_t off_n;             /* arrays: offset of the uint32_t count */
    const char *const *names; /* FK_ENUM: wire names */
    bool has;                 /* optional scalar with a presence flag at off_has */
    size_t off_has;           /* bool: set when decoded; when false, not encoded */
    const struct table *sub;  /* FK_MAP, FK_MAPS: the fields of the nested map */
    size_t esize;             /* FK_MAPS: element size */
};

struct table {
    const struct field *f; /* the fields */
    size_t n;              /* how many */
};
#define TABLE(a)                                                                                   \
    {                                                                                              \
        a, sizeof(a) / sizeof(a[0])                                                                \
    }

/* The tables (pr_msg.c): one per message type (index: enum pr_msg_type),
 * PLAN's tables[] entries, and struct pr_counters. */
extern const struct table pr__msg_tables[PR_MSG_TYPE_COUNT_];
extern const struct table pr__msg_table_table;
extern const struct table pr__msg_ctr_table;

/* Path of a value inside a message, for error messages ("PLAN.tables[3]");
 * deep paths are cut short, which is harmless in a message. */
#define PATH_LEN 96

/* dst (PATH_LEN bytes) = "path.key" / "path[i]", cut short when too long. */
void pr__msg_key_path(char *dst, const char *path, const char *key);
void pr__msg_elem_path(char *dst, const char *path, uint32_t i);

/* Bytes of one element of list field f (FK_STRS .. FK_MAPS). */
size_t pr__msg_elem_size(const struct field *f);

/* Cross-field checks, shared by encoder and decoder: 0 or PR_ERANGE. */
int pr__msg_check(const struct pr_msg *m, struct pr_error *err);

/* "" (none) or a Z85 key by pr_keyfile's one rule; s is not terminated. */
bool pr__msg_is_z85_key(const char *s, uint32_t n);

/* ---- msgpack headers: the one classifier (pr_msg_scan.c's pre-scan,
 * pr_msg_kst.c's reader) ----
 *
 * Classify header byte b: *width is the size of the length/count that
 * follows, *fixed the payload bytes to skip (after any length; for a
 * fixarray/fixmap its element count), *mult the number of child objects
 * per counted element (0: none, 1: array, 2: map). -1 for 0xc1 (never
 * used), else 0. Inline: it runs once per object of every message. */
static inline int pr__mp_class(uint8_t b, unsigned *width, uint64_t *fixed, unsigned *mult)
{
    static const uint8_t fixed_len[0x20] = {
        /* c0 */ 0, 0, 0, 0, 0, 0, 0, 1, 1,  1, 4, 8, 1, 2, 4, 8,
        /* d0 */ 1, 2, 4, 8, 2, 3, 5, 9, 17, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t len_width[0x20] = {
        /* c0 */ 0, 0, 0, 0, 1, 2, 4, 1, 2, 4, 0, 0, 0, 0, 0, 0,
        /* d0 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 2, 4, 2, 4};

    *width = 0;
    *fixed = 0;
    *mult = 0;
    if (b <= 0x7f || b >= 0xe0)
        return 0;
    if (b <= 0x8f || b <= 0x9f) {
        *mult = b <= 0x8f ? 2 : 1;
        *fixed = b & 0x0f; /* element count */
        return 0;
    }
    if (b <= 0xbf) {
        *fixed = b & 0x1f;
        return 0;
    }
    if (b == 0xc1)
        return -1;
    *width = len_width[b - 0xc0];
    *fixed = fixed_len[b - 0xc0]; /* ext8/16/32: the type byte */
    if (b >= 0xdc)
        *mult = b >= 0xde ? 2 : 1;
    return 0;
}

/* p[*off..len) starts with one whole msgpack object: *off moves past it
 * (iterative, no depth limit, containers bounded by the bytes left).
 * False when it is truncated or malformed (0xc1), *off then at the
 * object that is (for the caller's message). */
bool pr__mp_skip(const uint8_t *p, size_t len, size_t *off);

/* ---- Structural pre-scan (pr_msg_scan.c) ----
 *
 * msgpack-c allocates an array's or map's elements as soon as it reads the
 * header, so a 5-byte "array of 4 billion" would ask for 96 GB. This scan
 * walks the raw bytes first and refuses, before msgpack-c sees them,
 * anything truncated, too deep, with trailing bytes, with a container
 * claiming more elements than bytes remain (so allocation stays within a
 * small multiple of the input) or with a map over PR_MSG_MAX_KEYS. */
struct pr__msg_scan {
    const uint8_t *p; /* input */
    size_t len;       /* input length */
    size_t off;       /* next byte to read */
    bool top_map;     /* the top value is a map; top[] then holds its layout */
    uint32_t n_top;   /* its keys and values, counted */
    /* where each key and value of the top map starts, then its end */
    size_t top[2 * PR_MSG_MAX_KEYS + 1];
    /* Optional: called for each value of the top map (i its position in
     * top[], odd), before it is scanned. It may decode the value at s->off
     * itself and return true with s->off past it (the scan then skips it:
     * a STATS' histograms are walked once, not twice), only for a value
     * the scan would accept; false leaves s->off and the scan goes on. */
    bool (*pre)(struct pr__msg_scan *s, uint32_t i);
    void *pre_ctx; /* pre's */
};

/* Scan the object at s->off (depth: its nesting, 0 for the message) and
 * move s->off past it; fills s->top for a top-level map. 0, or
 * PR_ETRUNCATED / PR_EINVAL / PR_ETOO_BIG with err saying where. */
int pr__msg_scan_obj(struct pr__msg_scan *s, unsigned depth, struct pr_error *err);

#endif
