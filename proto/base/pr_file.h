/* pr_file: a file written whole or not at all: into "<path>.tmp",
 * flushed and fsync'ed, then renamed over path, so path is either the
 * complete new file or what it was before. Used by every output file that
 * is written at once (--json, --csv, --hdr-log, the report tool's pages).
 *
 * Thread: none of its own. */
#ifndef PR_FILE_H
#define PR_FILE_H

#include <stdio.h>

#include "pr_err.h"

/* A writer for pr_write_atomic: writes to f, returns 0 or a negative code. */
typedef int (*pr_write_fn)(FILE *f, const void *arg);

/* The atomic "<path>.tmp" + fsync + rename sequence around fn(f, arg).
 * what names the output in messages ("--json"). 0, or a negative code with
 * err naming the file and the step that failed (the .tmp file removed). */
int pr_write_atomic(const char *path, const char *what, pr_write_fn fn, const void *arg,
                    struct pr_error *err);

#endif
