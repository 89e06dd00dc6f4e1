"""Where one CPU's time goes while a client runs: perf record of that CPU
(agent-vs-sysbench --perf-server samples the server's CPU under each
client), then the shares by function of one command's samples, and a table
comparing the clients.

perf's software cpu-clock is used (this box's VM offers no hardware
counters): a sample lands where the timer interrupt finds the CPU, and with
interrupts off it lands where they are turned back on (the kernel's
_raw_spin_unlock_irqrestore holds the wake-ups' share)."""
import os
import re
import subprocess

FREQ = 999  # samples per second


def start(cpu, delay, secs, path):
    """Samples CPU `cpu` for `secs` seconds after `delay` seconds, into path
    (the caller runs the client meanwhile, then calls finish)."""
    cmd = "sleep %g; exec perf record -q -C %s -F %d -o %s -- sleep %g" % (
        delay, cpu, FREQ, path, secs)
    return subprocess.Popen(["sh", "-c", cmd], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def finish(proc, path, comm):
    """Waits for the sampler; {function: percent of comm's samples}, or
    None when perf recorded nothing (not installed, not permitted)."""
    proc.wait()
    r = None
    if proc.returncode == 0 and os.path.exists(path) and os.path.getsize(path) > 0:
        r = subprocess.run(["perf", "report", "-i", path, "--comms", comm, "--no-children",
                            "--sort", "sym", "-g", "none", "--stdio", "--percentage",
                            "relative"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
    if os.path.exists(path):
        os.unlink(path)
    if r is None:
        return None
    shares = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\[.\]\s+\S.*?)\s*$", line)
        if m:
            shares[m.group(2)] = float(m.group(1))
    return shares or None


def mean(runs, key):
    return sum(r.get(key, 0.0) for r in runs) / len(runs)


def table(title, by_tool, top=14):
    """Prints the functions with the largest mean share under any tool, the
    mean share under each tool, its runs, and the spread between tools."""
    tools = [t for t in by_tool if by_tool[t]]
    if len(tools) < 2:
        print("%s: perf recorded too little to compare (is linux-perf installed?)" % title)
        return
    keys = set()
    for t in tools:
        for r in by_tool[t]:
            keys |= set(r)
    keys = sorted(keys, key=lambda k: -max(mean(by_tool[t], k) for t in tools))[:top]
    print("%s (perf, %% of the server's samples; mean of %s runs; runs in brackets)" % (
        title, "/".join("%d %s" % (len(by_tool[t]), t) for t in tools)))
    rows = []
    worst = 0.0
    for k in keys:
        ms = [mean(by_tool[t], k) for t in tools]
        cells = ["%.2f [%s]" % (m, ",".join("%.1f" % r.get(k, 0.0) for r in by_tool[t]))
                 for t, m in zip(tools, ms)]
        worst = max(worst, max(ms) - min(ms))
        rows.append((k, cells, max(ms) - min(ms)))
    w = max([len(t) for t in tools] + [len(c) for _, cells, _ in rows for c in cells])
    print("  %-48s %s | %s" % ("function", " ".join("%*s" % (w, t) for t in tools), "spread"))
    for k, cells, spread in rows:
        print("  %-48s %s | %5.2f" % (k[:48], " ".join("%*s" % (w, c) for c in cells), spread))
    print("  largest difference between the tools' means among these: %.2f points" % worst)
