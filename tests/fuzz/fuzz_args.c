/* fuzz_args: libFuzzer target for the stampede command line as a whole
 * (co_args_parse, coordinator/cli/co_args*.c): the words and the command,
 * stampede's own options (--agents, --agent-weights, --listen and its key
 * rules, --partition, --report-checkpoints, ...), every sysbench option
 * through pr_opts, the families' checks, and --config-file's lines.
 * fuzz_opts covers pr_opts_parse_arg alone; this is what a user's
 * command line goes through before a run starts.
 *
 * Input: the arguments separated by '\n' (argv[0] is added); after a '\f',
 * the rest is a --config-file's contents (written to a memfd, read
 * through /proc/self/fd, the option placed first). Beyond "no crash, no
 * leak, no UB": a rejection fills err with its code and a NUL-terminated
 * message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "co_args.h"

#define MAX_ARGS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The --config-file argument for text[0..len) in a new memfd, or -1. */
static int config_file(const char *text, size_t len, char *arg, size_t cap)
{
    int fd = memfd_create("stampede.conf", 0);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len)
        abort();
    snprintf(arg, cap, "--config-file=/proc/self/fd/%d", fd);
    return fd;
}

static void parse(int argc, char **argv)
{
    struct co_args a;
    struct pr_error err = {0};
    int rc = co_args_parse(&a, argc, argv, NULL, &err);
    if (rc < 0 && (err.code != rc || memchr(err.msg, '\0', sizeof(err.msg)) == NULL))
        abort();
    co_args_clear(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), conf_arg[64];
    char *argv[MAX_ARGS + 3];
    int argc = 0, fd = -1;

    memcpy(text, data, size);
    text[size] = '\0';
    argv[argc++] = (char *)"stampede";
    char *ff = memchr(text, '\f', size);
    if (ff != NULL) {
        *ff = '\0';
        fd = config_file(ff + 1, size - (size_t)(ff + 1 - text), conf_arg, sizeof(conf_arg));
        argv[argc++] = conf_arg;
    }
    for (char *arg = text, *next; arg != NULL && argc < MAX_ARGS; arg = next) {
        next = strchr(arg, '\n');
        if (next != NULL)
            *next++ = '\0';
        argv[argc++] = arg;
    }
    argv[argc] = NULL;
    parse(argc, argv);
    if (fd >= 0)
        close(fd);
    free(text);
    return 0;
}
