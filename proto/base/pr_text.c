/* pr_text: text the output writers share: numbers in their shortest
 * round-tripping form, UTF-8 checking and JSON strings (contract:
 * pr_text.h). */
#include "pr_text.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool pr_fmt_double(char *buf, size_t buf_len, double v)
{
    if (!isfinite(v)) {
        buf[0] = '\0';
        return false;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, buf_len, "%.*g", prec, v);
        /* A locale with a decimal comma would break both JSON and CSV. */
        for (char *c = buf; *c != '\0'; c++)
            if (*c == ',')
                *c = '.';
        if (strtod(buf, NULL) == v)
            break;
    }
    return true;
}

size_t pr_utf8_seq_len(const unsigned char *s, size_t n)
{
    if (n == 0)
        return 0;
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    uint32_t cp, min;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2, cp = c & 0x1fu, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3, cp = c & 0x0fu, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4, cp = c & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

void pr_json_string(FILE *f, const char *str)
{
    if (str == NULL)
        str = "";
    const unsigned char *s = (const unsigned char *)str;
    size_t n = strlen(str);
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len = pr_utf8_seq_len(s + i, n - i);
        if (len == 0) {
            fputs("\\ufffd", f);
            i++;
        } else if (len == 3 && c == 0xe2 && s[i + 1] == 0x80 && (s[i + 2] & 0xfe) == 0xa8) {
            fprintf(f, "\\u%04x", 0x2000u | (s[i + 2] & 0x3fu));
            i += 3;
        } else if (len > 1) {
            fwrite(s + i, 1, len, f);
            i += len;
        } else {
            const char *esc = c == '"'    ? "\\\""
                              : c == '\\' ? "\\\\"
                              : c == '\n' ? "\\n"
                              : c == '\r' ? "\\r"
                              : c == '\t' ? "\\t"
                              : c == '\b' ? "\\b"
                              : c == '\f' ? "\\f"
                                          : NULL;
            if (esc != NULL)
                fputs(esc, f);
            else if (c < 0x20 || c == 0x7f)
                fprintf(f, "\\u%04x", c);
            else
                fputc(c, f);
            i++;
        }
    }
    fputc('"', f);
}
