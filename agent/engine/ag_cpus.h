/* ag_cpus: how many CPUs this process may actually use, for the default
 * number of loops and HELLO's "cores": the CPUs in its affinity mask
 * (sched_getaffinity: taskset, cpuset), capped by its cgroup v2 CPU quota
 * (cpu.max "QUOTA PERIOD", rounded up) on its cgroup or any ancestor. A
 * 2-CPU container on a 64-core host gets 2, `taskset -c 1` gets 1.
 *
 * The parsers take file contents so they can be tested without a cgroup.
 */
#ifndef AG_CPUS_H
#define AG_CPUS_H

#include <stddef.h>

/* CPUs allowed by the quota in the contents of a cpu.max file ("max
 * 100000" or "150000 100000" -> 2), rounded up, at least 1; 0 when there
 * is no limit or the text is not a cpu.max. */
unsigned ag_cpus_from_cpu_max(const char *text);

/* The cgroup v2 path ("/a/b") in the contents of /proc/self/cgroup (its
 * "0::" line), copied into out (len bytes). Returns out, or NULL when the
 * text has no v2 line or the path does not fit. */
const char *ag_cpus_cgroup_path(const char *text, char *out, size_t len);

/* The lowest quota of the cgroup at path under root (e.g.
 * "/sys/fs/cgroup") and its ancestors, in CPUs; 0: no limit found. */
unsigned ag_cpus_cgroup_quota(const char *root, const char *path);

/* CPUs this process may use now: its affinity mask's count, capped by its
 * cgroup v2 quota; at least 1. Thread-safe (reads files). */
unsigned ag_cpus_usable(void);

#endif
