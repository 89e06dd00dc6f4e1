/* ag_cpus: usable CPUs from the affinity mask and cgroup v2 quota. See
 * ag_cpus.h. */
#include "ag_cpus.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sched.h>
#include <unistd.h>

unsigned ag_cpus_from_cpu_max(const char *text)
{
    char *end;

    if (text == NULL || strncmp(text, "max", 3) == 0)
        return 0;
    errno = 0;
    unsigned long long quota = strtoull(text, &end, 10);
    if (errno || end == text || *end != ' ' || quota == 0)
        return 0;
    const char *p = end + 1;
    unsigned long long period = strtoull(p, &end, 10);
    if (errno || end == p || period == 0 || (*end != '\0' && *end != '\n'))
        return 0;
    unsigned long long n = (quota + period - 1) / period;
    return n > UINT_MAX ? UINT_MAX : (unsigned)n;
}

const char *ag_cpus_cgroup_path(const char *text, char *out, size_t len)
{
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        if (n >= 3 && strncmp(line, "0::", 3) == 0) {
            if (n - 3 >= len || n == 3)
                return NULL;
            memcpy(out, line + 3, n - 3);
            out[n - 3] = '\0';
            return out;
        }
        line = nl ? nl + 1 : NULL;
    }
    return NULL;
}

/* The whole (small) file at path, NUL-terminated into buf; false when
 * unreadable. */
static int read_small(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return 1;
}

unsigned ag_cpus_cgroup_quota(const char *root, const char *path)
{
    char dir[PATH_MAX], file[PATH_MAX + 16], text[128];
    unsigned best = 0;

    if (snprintf(dir, sizeof dir, "%s%s", root, path) >= (int)sizeof dir)
        return 0;
    size_t root_len = strlen(root);
    for (;;) {
        snprintf(file, sizeof file, "%s/cpu.max", dir);
        if (read_small(file, text, sizeof text)) {
            unsigned n = ag_cpus_from_cpu_max(text);
            if (n && (best == 0 || n < best))
                best = n;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < root_len)
            break;
        *slash = '\0'; /* the parent; the root itself last */
    }
    return best;
}

unsigned ag_cpus_usable(void)
{
    unsigned n = 0;
    cpu_set_t set;
    char text[4096], path[PATH_MAX];

    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = (unsigned)CPU_COUNT(&set);
    if (n == 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        n = online > 0 ? (unsigned)online : 1;
    }
    if (read_small("/proc/self/cgroup", text, sizeof text) &&
        ag_cpus_cgroup_path(text, path, sizeof path)) {
        unsigned q = ag_cpus_cgroup_quota("/sys/fs/cgroup", strcmp(path, "/") ? path : "");
        if (q && q < n)
            n = q;
    }
    return n ? n : 1;
}
