/* fuzz_agconf: libFuzzer target for stampede-agent's configuration file
 * (ag_config_parse with --config=FILE, agent/control/ag_config.c): the key = value
 * lines an operator or a playbook writes, keys, booleans, lists, the
 * endpoint and the CURVE key files they name. Input: the file's bytes
 * (written to a memfd, read through /proc/self/fd). Beyond "no crash, no
 * leak, no UB": a rejection fills err with its code and a NUL-terminated
 * message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "ag_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("agent.conf", 0);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size)
        abort();
    char arg[64];
    snprintf(arg, sizeof(arg), "--config=/proc/self/fd/%d", fd);
    char *argv[] = {(char *)"stampede-agent", arg, NULL};
    struct ag_config cfg;
    struct pr_error err = {0};
    bool help = false, version = false;
    int rc = ag_config_parse(&cfg, 2, argv, &help, &version, &err);
    if (rc < 0 && (err.code != rc || memchr(err.msg, '\0', sizeof(err.msg)) == NULL))
        abort();
    if (rc == 0)
        ag_config_clear(&cfg);
    close(fd);
    return 0;
}
