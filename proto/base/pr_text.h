/* pr_text: text the output writers share (the coordinator's JSON, CSV,
 * hlog and environment writers, the report tool): doubles in the shortest
 * form that reads back as the same value, UTF-8 sequence checking, and
 * JSON strings that are always valid UTF-8.
 *
 * Thread: none of its own; functions only read their arguments. */
#ifndef PR_TEXT_H
#define PR_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Format v into buf (at least 32 bytes) in the shortest %.15g..%.17g form
 * that strtod() reads back as v, with '.' as the decimal point. Returns
 * false (buf "") when v is NaN or infinite. */
bool pr_fmt_double(char *buf, size_t buf_len, double v);

/* Length of the well-formed UTF-8 sequence at s (n bytes available): 1..4,
 * or 0 when s does not start one (bad lead byte, bad continuation,
 * overlong form, surrogate, above U+10FFFF, truncated). */
size_t pr_utf8_seq_len(const unsigned char *s, size_t n);

/* s as a JSON string, quoted: quotes, backslash and control characters
 * escaped, U+2028/2029 escaped (JavaScript source cannot hold them raw),
 * bytes that are not well-formed UTF-8 replaced by \ufffd. NULL writes "". */
void pr_json_string(FILE *f, const char *s);

#endif
