/* pr_parse: the small text rules every option reader shares.
 *
 * One home for them so the coordinator's command line, its config file,
 * the agent's argv and config file and the PLAN's options all accept the
 * same spellings: option names compare with '-' and '_' equal, booleans
 * are on/off/true/false/1/0 in any case, and comma lists split the
 * same way (every item kept, an empty one included, so the caller can
 * refuse "a,,b" by name). Pure functions on strings; thread-safe.
 */
#ifndef PR_PARSE_H
#define PR_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* True when a (alen bytes, need not be terminated) and the NUL-terminated
 * b are the same option name, '-' and '_' counted equal. */
bool pr_name_eq(const char *a, size_t alen, const char *b);

/* The one boolean parser (options, agent config, script options; the
 * Lua prelude calls it, ansible asserts the same spellings): on/off,
 * yes/no, true/false, 1/0, any case. false (out untouched) for anything
 * else: the caller's error names the value and PR_BOOL_SPELLINGS. */
#define PR_BOOL_SPELLINGS "on/off, yes/no, true/false or 1/0"
bool pr_parse_bool(const char *s, bool *out);

/* A walk over a comma list; plain data, the caller's. */
struct pr_list_iter {
    const char *next; /* start of the next item */
    bool done;        /* no item left */
};

/* Start walking text (NULL or "" has no items; "a," has two: "a", ""). */
void pr_list_iter_init(struct pr_list_iter *it, const char *text);

/* The next item into item and len (not terminated; may be empty). False when
 * the list is done. text must outlive the walk. */
bool pr_list_iter_next(struct pr_list_iter *it, const char **item, size_t *len);

/* Split text at commas into a NULL-terminated array of heap copies (every
 * item, empty ones included); *n gets the count. NULL with *n = 0 for NULL
 * or "". The caller frees with pr_list_free(). */
char **pr_list_split(const char *text, size_t *n);

/* Free an array from pr_list_split() and its strings; NULL is a no-op. */
void pr_list_free(char **list);

/* name as a MySQL quoted identifier: `name` with each backtick doubled,
 * into out (cap bytes, NUL ended). Its length, or 0 when it does not fit
 * (out then ""). Every identifier built from an option goes through it. */
size_t pr_sql_ident(char *out, size_t cap, const char *name);

#endif
