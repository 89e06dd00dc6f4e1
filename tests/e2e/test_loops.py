"""e2e: the default number of loops follows the CPUs the agent may use.

An agent started under `taskset -c N` (here: a local agent of a coordinator
so pinned; children inherit the mask) reports 1 core in HELLO (the JSON
report's agents[].cores) and runs one worker thread per usable CPU: its
thread count mid-run is the unpinned agent's minus (usable CPUs - 1). The
cgroup v2 quota half is tested on file contents (tests/unit/test_ag_cpus.c).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as e  # noqa: E402


def run(prefix, tag):
    """(cores in the report, most threads seen in the agent mid-run)."""
    j = e.path(tag + ".json")
    p = e.Proc(prefix + [e.STAMPEDE, "oltp_point_select", "run", "--tables=1",
                         "--table-size=1000", "--agents=1", "--threads=8", "--time=3",
                         "--json=" + j] + e.local_opts() + e.db_opts(), env=e.db_env(), name=tag)
    most = 0
    deadline = time.monotonic() + 30
    while p.alive() and time.monotonic() < deadline:
        for pid in p.agent_children():
            try:
                most = max(most, len(os.listdir("/proc/%d/task" % pid)))
            except OSError:
                pass
        time.sleep(0.1)
    rc = p.wait(60)
    if not e.check(rc == 0, "%s: exit %s" % (tag, rc)):
        p.dump()
        return 0, most
    return e.load_json(j)["agents"][0]["cores"], most


def main():
    e.need_sandbox()
    e.prepare(tables=1, table_size=1000)
    cpus = sorted(os.sched_getaffinity(0))
    cores, threads = run([], "unpinned")
    e.check(cores == len(cpus), "unpinned agent reports %d cores (affinity mask: %d)"
            % (cores, len(cpus)))
    pcores, pthreads = run(["taskset", "-c", str(cpus[-1])], "pinned")
    e.check(pcores == 1, "agent under taskset -c %d reports %d core(s) (want 1)" % (cpus[-1], pcores))
    e.check(threads > 0 and pthreads == threads - (len(cpus) - 1),
            "agent threads mid-run: %d pinned vs %d unpinned (want %d: one loop per usable CPU)"
            % (pthreads, threads, threads - (len(cpus) - 1)))
    e.finish()


if __name__ == "__main__":
    main()
