/* pr_parse: the text rules every option reader shares (names with '-' and
 * '_' equal, booleans, comma lists), so all accept the same spellings
 * (contract: pr_parse.h). */
#include "pr_parse.h"

#include <stdlib.h>
#include <string.h>

#include <strings.h>

#include "pr_err.h"

bool pr_name_eq(const char *a, size_t alen, const char *b)
{
    size_t i = 0;

    for (; i < alen && b[i]; i++) {
        char x = a[i] == '_' ? '-' : a[i];
        char y = b[i] == '_' ? '-' : b[i];
        if (x != y)
            return false;
    }
    return i == alen && b[i] == '\0';
}

bool pr_parse_bool(const char *s, bool *out)
{
    static const char *const on[] = {"on", "yes", "true", "1"};
    static const char *const off[] = {"off", "no", "false", "0"};

    for (size_t i = 0; s && i < sizeof on / sizeof on[0]; i++) {
        if (strcasecmp(s, on[i]) == 0)
            return *out = true, true;
        if (strcasecmp(s, off[i]) == 0)
            return *out = false, true;
    }
    return false;
}

void pr_list_iter_init(struct pr_list_iter *it, const char *text)
{
    it->next = text;
    it->done = text == NULL || *text == '\0';
}

bool pr_list_iter_next(struct pr_list_iter *it, const char **item, size_t *len)
{
    if (it->done)
        return false;
    *item = it->next;
    *len = strcspn(it->next, ",");
    it->done = it->next[*len] == '\0';
    it->next += *len + !it->done;
    return true;
}

char **pr_list_split(const char *text, size_t *n)
{
    char **out = NULL;
    struct pr_list_iter it;
    const char *item;
    size_t len;

    *n = 0;
    pr_list_iter_init(&it, text);
    while (pr_list_iter_next(&it, &item, &len)) {
        out = pr_xrealloc(out, (*n + 2) * sizeof *out);
        out[*n] = pr_xmalloc(len + 1);
        memcpy(out[*n], item, len);
        out[*n][len] = '\0';
        out[++*n] = NULL;
    }
    return out;
}

void pr_list_free(char **list)
{
    for (size_t i = 0; list && list[i]; i++)
        free(list[i]);
    free(list);
}

size_t pr_sql_ident(char *out, size_t cap, const char *name)
{
    size_t n = 0;
    if (cap < 3)
        goto too_long;
    out[n++] = '`';
    for (const char *p = name; *p; p++) {
        if (n + (*p == '`' ? 2 : 1) + 2 > cap)
            goto too_long;
        if (*p == '`')
            out[n++] = '`';
        out[n++] = *p;
    }
    out[n++] = '`';
    out[n] = '\0';
    return n;
too_long:
    if (cap > 0)
        out[0] = '\0';
    return 0;
}
