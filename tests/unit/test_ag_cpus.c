/* test_ag_cpus: the usable-CPU count behind the default number of loops:
 * cpu.max parsing (rounded up, "max" = no limit), the cgroup v2 line of
 * /proc/self/cgroup, the lowest quota along a cgroup's ancestors (a real
 * directory tree standing in for /sys/fs/cgroup), and the affinity mask. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ag_cpus.h"
#include "testlib.h"

static void test_cpu_max(void)
{
    CHECK(ag_cpus_from_cpu_max("max 100000\n") == 0);
    CHECK(ag_cpus_from_cpu_max("200000 100000\n") == 2);
    CHECK(ag_cpus_from_cpu_max("150000 100000\n") == 2); /* 1.5 CPUs: rounded up */
    CHECK(ag_cpus_from_cpu_max("50000 100000") == 1);
    CHECK(ag_cpus_from_cpu_max("6400000 100000\n") == 64);
    CHECK(ag_cpus_from_cpu_max("") == 0);
    CHECK(ag_cpus_from_cpu_max("garbage") == 0);
    CHECK(ag_cpus_from_cpu_max("100000") == 0);
    CHECK(ag_cpus_from_cpu_max("100000 0") == 0);
    CHECK(ag_cpus_from_cpu_max(NULL) == 0);
}

static void test_cgroup_path(void)
{
    char out[64];
    const char *v1v2 = "4:memory:/x\n1:cpu:/\n0::/user.slice/app.scope\n";

    CHECK(ag_cpus_cgroup_path(v1v2, out, sizeof out) == out &&
          strcmp(out, "/user.slice/app.scope") == 0);
    CHECK(ag_cpus_cgroup_path("0::/\n", out, sizeof out) && strcmp(out, "/") == 0);
    CHECK(ag_cpus_cgroup_path("4:memory:/x\n", out, sizeof out) == NULL); /* v1 only */
    CHECK(ag_cpus_cgroup_path("0::/a/long/path\n", out, 5) == NULL);
}

static void put(const char *dir, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/cpu.max", dir);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_quota_tree(void)
{
    char root[] = "/tmp/test_ag_cpus.XXXXXX", a[128], b[128], cmd[160];

    CHECK(mkdtemp(root) != NULL);
    snprintf(a, sizeof a, "%s/pod", root);
    snprintf(b, sizeof b, "%s/pod/ctr", root);
    CHECK(mkdir(a, 0700) == 0 && mkdir(b, 0700) == 0);
    CHECK(ag_cpus_cgroup_quota(root, "/pod/ctr") == 0); /* no cpu.max anywhere */
    put(b, "max 100000\n");
    CHECK(ag_cpus_cgroup_quota(root, "/pod/ctr") == 0);
    put(a, "200000 100000\n"); /* the parent's limit applies to the child */
    CHECK(ag_cpus_cgroup_quota(root, "/pod/ctr") == 2);
    put(b, "100000 100000\n"); /* the lowest wins */
    CHECK(ag_cpus_cgroup_quota(root, "/pod/ctr") == 1);
    CHECK(ag_cpus_cgroup_quota(root, "/pod") == 2);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

static void test_affinity(void)
{
    cpu_set_t set, one;

    CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
    unsigned all = ag_cpus_usable();
    CHECK(all >= 1 && all <= (unsigned)CPU_COUNT(&set));
    int first = -1;
    for (int i = 0; i < CPU_SETSIZE && first < 0; i++)
        if (CPU_ISSET(i, &set))
            first = i;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0); /* as under taskset -c N */
    CHECK(ag_cpus_usable() == 1);
    CHECK(sched_setaffinity(0, sizeof set, &set) == 0);
    CHECK(ag_cpus_usable() == all);
    printf("usable CPUs: %u (affinity mask %d)\n", all, CPU_COUNT(&set));
}

int main(void)
{
    test_cpu_max();
    test_cgroup_path();
    test_quota_tree();
    test_affinity();
    return TEST_END();
}
