/* co_tc_compat: tpcc-mysql's own command lines, translated into the tpcc
 * family's (co_args.h syntax) before co_args parses them:
 *
 *   stampede tpcc_load -h HOST -P PORT -d DB -u USER -p PASS -w W
 *                      [-l PART -m MIN_WH -n MAX_WH]      -> tpcc prepare
 *   stampede tpcc_start -h HOST -P PORT -d DB -u USER -p PASS -w W -c C
 *                      -r R -l L -i I [-S SOCKET] [-0..-4 LIMIT_MS]
 *                                                       -> tpcc run
 *
 * also when the program is invoked as tpcc_load or tpcc_start (argv[0]'s
 * basename). Values follow the option ("-w 2") or are joined ("-w2"), as
 * getopt takes them. Defaults are tpcc-mysql's (docs/design.md §13.2):
 * port 3306, database tpcc, -w 1, -c 10, -r 10, -l 20, limits
 * 5,5,5,80,20, user the login name (libmysqlclient's default for an empty
 * user); -i is left to the family's default (10, or -l when shorter).
 * -h l means localhost; a socket is passed only when -S gives one.
 * tpcc_start's -f and -t become --report-file and --trx-file, its -m and -o
 * --multi-schema and --multi-schema-offset. stampede's
 * own "--name=value" options may follow (or sit anywhere) and win over the
 * translation. Deliberate differences, all errors (exit 2, where tpcc-mysql
 * prints its usage and exits 0): an unknown option or a stray word; -l not
 * 1..4; -m/-n without -l (tpcc_load ignores them). tpcc_load -l without -n
 * loads up to -w (tpcc_load: nothing).
 *
 * Thread: none. Nothing prints. */
#ifndef CO_TC_COMPAT_H
#define CO_TC_COMPAT_H

#include <stdbool.h>

#include "pr_err.h"

/* A translated command line. */
struct co_tc_argv {
    int argc;          /* words in argv */
    char **argv;       /* owned, NULL terminated; argv[0] "stampede" */
    bool help;         /* --help was given: print co_tc_compat_usage(which) */
    const char *which; /* "tpcc_load" or "tpcc_start" (static) */
};

/* Translate argv when it is a tpcc-mysql command line (argv[0]'s basename,
 * or argv[1], is tpcc_load or tpcc_start): 1 with *out filled (free it
 * with co_tc_compat_free), 0 when it is not one (*out zeroed), PR_EINVAL
 * with err naming the option and what to do (exit 2; *out has which set
 * for the usage). login_user: the user when -u is not given (NULL: the
 * effective user's login name, or $USER). */
int co_tc_compat_translate(int argc, char **argv, const char *login_user, struct co_tc_argv *out,
                           struct pr_error *err);

/* Free what out owns (the password scrubbed) and zero it. Safe twice. */
void co_tc_compat_free(struct co_tc_argv *out);

/* The usage text of which ("tpcc_load" / "tpcc_start"). Static. */
const char *co_tc_compat_usage(const char *which);

#endif
