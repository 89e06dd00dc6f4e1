#!/usr/bin/env python3
"""Local checks for ansible/preflight.yml, run on each agent and coordinator host.

Arguments are KEY=VALUE pairs (see roles/*/tasks/preflight.yml). Prints one JSON
object: the measured values plus `hard` (problems that make a run fail) and
`warn` (problems that make a run less accurate). Standard library only.

`mode=timeserver port=P clients=N seconds=S` instead serves the coordinator
host's clock on TCP port P (the coordinator's control port, free before a run)
to N agents or for S seconds: each request line gets time.time() back. The
agents measure their offset to it NTP style (the exchange with the shortest
round trip wins; half of it bounds the error), which also proves they reach
that port.
"""
import glob
import json
import os
import pwd
import resource
import socket
import subprocess
import sys
import threading
import time


def read(path):
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def first_token(path):
    text = read(path)
    if text is None:
        return None
    parts = text.split()
    return parts[0] if parts else ""


def run(argv):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=5, check=False)
        return p.returncode, p.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None, ""


def agent_pid(a):
    """PID of the running agent, or None."""
    if a.get("manager") == "systemd":
        rc, out = run(["systemctl", "show", "-p", "MainPID", "--value", "stampede-agent.service"])
        pid = int(out) if rc == 0 and out.isdigit() else 0
    else:
        text = read(a.get("pidfile", ""))
        pid = int(text.strip()) if text and text.strip().isdigit() else 0
    if pid <= 0:
        return None
    exe = ""
    try:
        exe = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None
    return pid if os.path.basename(exe).startswith("stampede-agent") else None


def nofile_of(pid):
    for line in (read(f"/proc/{pid}/limits") or "").splitlines():
        if line.startswith("Max open files"):
            soft = line.split()[3]
            return int(soft) if soft.isdigit() else 1 << 30
    return None


def check_key_file(path, owner, hard, what):
    """Secret key file: present, 40 chars, mode 0600 or stricter, right owner."""
    try:
        st = os.stat(path)
    except OSError as e:
        hard.append(f"{what} {path}: {e.strerror}")
        return False
    tok = first_token(path) or ""
    if len(tok) != 40:
        hard.append(f"{what} {path}: no 40-character Z85 key")
        return False
    if st.st_mode & 0o077:
        hard.append(f"{what} {path}: mode {st.st_mode & 0o777:04o}, want 0600")
        return False
    if owner:
        try:
            want = pwd.getpwnam(owner).pw_uid
        except KeyError:
            hard.append(f"user {owner} does not exist")
            return False
        if st.st_uid != want:
            hard.append(f"{what} {path}: owned by uid {st.st_uid}, not {owner}")
            return False
    return True


def tcp_reach(host, port):
    """Connect time in ms, or an error string."""
    t = time.monotonic()
    try:
        with socket.create_connection((host, int(port)), timeout=3):
            return round((time.monotonic() - t) * 1000, 2), None
    except OSError as e:
        return None, str(e) or e.__class__.__name__


def port_in_use(port):
    """True when something already listens on the coordinator's port."""
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in (read(path) or "").splitlines()[1:]:
            cols = line.split()
            if len(cols) > 3 and cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                return True
    return False


TIME_REQ = b"stampede-time\n"


def serve_time(c, tally, lock):
    """Answer TIME_REQ lines on one connection. Anything else (agents dialing
    the port with ZeroMQ) is closed at its first wrong byte, unanswered."""
    answered, buf = 0, b""
    with c:
        c.settimeout(5)
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                data = c.recv(64)
                if not data:
                    break
                buf += data
                while buf.startswith(TIME_REQ):
                    buf = buf[len(TIME_REQ):]
                    c.sendall(repr(time.time()).encode() + b"\n")
                    answered += 1
                if not TIME_REQ.startswith(buf):
                    break
        except OSError:
            pass
    with lock:
        tally["served" if answered else "other"] += 1


def timeserver(a):
    """Serve time until `clients` askers were answered or `seconds` passed."""
    port, clients = int(a["port"]), int(a.get("clients", "0"))
    until = time.monotonic() + float(a.get("seconds", "60"))
    tally, lock = {"served": 0, "other": 0}, threading.Lock()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", port))
        s.listen(64)
        s.settimeout(0.2)
        while time.monotonic() < until:
            with lock:
                if tally["served"] >= clients:
                    break
            try:
                c, _ = s.accept()
            except socket.timeout:
                continue
            threading.Thread(target=serve_time, args=(c, tally, lock), daemon=True).start()
    print(json.dumps(tally))


def clock_to(host, port, samples=8):
    """(offset_ms, err_ms) of this clock minus the time server's, or an error."""
    best = None
    try:
        with socket.create_connection((host, int(port)), timeout=3) as c:
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            f = c.makefile("rb")
            for _ in range(samples):
                t0 = time.time()
                c.sendall(TIME_REQ)
                line = f.readline()
                t1 = time.time()
                if not line:
                    break
                rtt = t1 - t0
                if best is None or rtt < best[1]:
                    best = ((t0 + t1) / 2 - float(line), rtt)
    except (OSError, ValueError) as e:
        return None, None, str(e) or e.__class__.__name__
    if best is None:
        return None, None, "no answer"
    return round(best[0] * 1000, 2), round(best[1] * 500, 2), None


def main():
    a = dict(arg.split("=", 1) for arg in sys.argv[1:])
    if a.get("mode") == "timeserver":
        timeserver(a)
        return
    hard, warn = [], []
    need = int(a.get("connections", "0"))
    r = {"role": a.get("role", "agent")}

    # Open-file limit: the running agent's own limit when it runs.
    pid = agent_pid(a) if r["role"] == "agent" else None
    r["agent_pid"] = pid
    if pid:
        r["nofile"], r["nofile_source"] = nofile_of(pid), "agent"
    else:
        r["nofile"], r["nofile_source"] = resource.getrlimit(resource.RLIMIT_NOFILE)[1], "hard"
        if r["role"] == "agent" and a.get("manager") == "systemd":
            rc, out = run(["systemctl", "show", "-p", "LimitNOFILE", "--value",
                           "stampede-agent.service"])
            if rc == 0 and out.isdigit():
                r["nofile"], r["nofile_source"] = int(out), "unit"
    if r["role"] == "agent" and not pid and a.get("want_running", "true") == "true":
        hard.append("stampede-agent is not running")
    if r["nofile"] is not None and r["nofile"] < need + 64:
        hard.append(f"open-file limit {r['nofile']} < {need} connections + 64")
    elif r["nofile"] is not None and r["nofile"] < int(a.get("nofile_warn", "65536")):
        warn.append(f"open-file limit {r['nofile']} is low")

    # Ephemeral ports: one per connection to the same DB host:port.
    rng = (read("/proc/sys/net/ipv4/ip_local_port_range") or "0 0").split()
    lo, hi = int(rng[0]), int(rng[1])
    r["ports"] = f"{lo}-{hi}"
    r["port_count"] = hi - lo + 1
    if r["port_count"] < need:
        hard.append(f"ephemeral port range {lo}-{hi} < {need} connections")
    elif r["port_count"] < 2 * need:
        warn.append(f"ephemeral port range {lo}-{hi} is tight for {need} connections")

    # CPU frequency governor, where the kernel exposes one.
    govs = sorted({(read(p) or "").strip() for p in
                   glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor")})
    r["governor"] = ",".join(govs) if govs else "n/a"
    if govs and govs != ["performance"]:
        warn.append(f"CPU governor {r['governor']}: performance gives steadier latency")

    # Clock synchronisation, where a tool can tell.
    rc, out = run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"])
    r["ntp"] = {"yes": "synced", "no": "unsynced"}.get(out, "unknown") if rc == 0 else "unknown"
    if r["ntp"] == "unsynced":
        warn.append("clock not NTP-synchronised")

    # The database, from this host.
    if a.get("db_host"):
        ms, err = tcp_reach(a["db_host"], a.get("db_port", "3306"))
        r["db"] = f"{ms} ms" if err is None else f"FAIL {err}"
        r["db_connect_ms"] = ms
        if err is not None:
            hard.append(f"cannot reach the database {a['db_host']}:{a.get('db_port')}: {err}")
    else:
        r["db"] = "n/a"

    # Clock offset to the coordinator host, through its control port.
    if a.get("coord_host"):
        off, err, why = clock_to(a["coord_host"], a["coord_port"])
        r["clock_offset_ms"], r["clock_err_ms"] = off, err
        if why is not None:
            hard.append(f"cannot reach the coordinator host {a['coord_host']}:{a['coord_port']}"
                        f" (clock check): {why}")
        elif abs(off) - err > float(a.get("clock_fail_ms", "1000")):
            hard.append(f"clock {off:+.1f} ms (+-{err}) off the coordinator host")
        elif abs(off) - err > float(a.get("clock_warn_ms", "50")):
            warn.append(f"clock {off:+.1f} ms (+-{err}) off the coordinator host")

    # Keys.
    if r["role"] == "agent":
        ok = check_key_file(a["secret"], a.get("user"), hard, "agent secret key")
        r["public_key"] = first_token(a["public"])
        r["coordinator_key"] = first_token(a["coordinator_pub"])
        if not r["public_key"] or len(r["public_key"]) != 40:
            hard.append(f"agent public key {a['public']} missing or malformed")
            ok = False
        if not r["coordinator_key"] or len(r["coordinator_key"]) != 40:
            hard.append(f"coordinator public key {a['coordinator_pub']} missing or malformed")
            ok = False
        if not os.access(a.get("conf", ""), os.R_OK):
            hard.append(f"agent config {a.get('conf')} missing")
            ok = False
        r["keys"] = "ok" if ok else "BAD"
    else:
        ok = check_key_file(a["secret"], a.get("user"), hard, "coordinator secret key")
        r["public_key"] = first_token(a["public"])
        keys = []
        text = read(a["authorized"])
        if text is None:
            hard.append(f"authorized agent keys {a['authorized']} missing")
            ok = False
        else:
            for line in text.splitlines():
                line = line.strip()
                if line and not line.startswith("#"):
                    keys.append(line.split()[0])
        r["authorized_keys"] = keys
        r["keys"] = f"ok/{len(keys)}" if ok else "BAD"
        port = int(a.get("port", "0"))
        if port and port_in_use(port):
            warn.append(f"something already listens on port {port}")

    r["hard"], r["warn"] = hard, warn
    print(json.dumps(r))


if __name__ == "__main__":
    main()
