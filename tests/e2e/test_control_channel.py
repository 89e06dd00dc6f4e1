#!/usr/bin/env python3
"""e2e: the coordinator's listening port under hostile traffic.

  - CURVE (`stampede keygen`): an agent whose key is not in
    --authorized-keys is refused and named (its public key and address on
    stderr, measured from its start); binary garbage sent to the port is
    counted and ignored; the authorized agent then runs to the end (exit 0,
    JSON control.refused_agents >= 1 and bad_frames == the garbage
    connections, the 'Control channel:' line says the same);
  - plain text on loopback: a test ZMTP client sends malformed msgpack
    frames before and during the run and an HTTP request hits the port;
    each is counted (bad_frames exactly) and the run still succeeds.
"""
import os
import re
import socket
import time

import e2elib as e
import zmtp


def garbage(port, data):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(data)
    time.sleep(0.2)
    s.close()


def control_line(p):
    m = re.search(r"^Control channel: (\d+) malformed frames ignored, (\d+) agents refused$",
                  p.text("out"), re.M)
    return (int(m.group(1)), int(m.group(2))) if m else None


def keygen(d, name):
    p = e.Proc([e.STAMPEDE, "keygen", d, name], name="keygen")
    e.check(p.wait(10) == 0, "stampede keygen %s: exit 0" % name)
    with open(os.path.join(d, name + ".pub")) as f:
        return f.read().strip()


def run_json(co, ag, j, what, then=None):
    """Waits for coordinator co (then calls then()), checks it succeeded
    (what); the JSON it wrote to j, or None (co's and agent ag's output
    shown)."""
    rc = co.wait(60)
    if then is not None:
        then()
    e.check(rc == 0, "%s: exit %s" % (what, rc))
    if rc != 0 or not os.path.exists(j):
        co.dump()
        ag.dump()
        return None
    return e.load_json(j)


def curve_case():
    kd = e.path("keys")
    coord_pub = keygen(kd, "coordinator")
    keygen(kd, "good")
    bad_pub = keygen(kd, "intruder")
    auth = os.path.join(kd, "authorized")
    with open(auth, "w") as f, open(os.path.join(kd, "good.pub")) as g:
        f.write(g.read())
    port = e.free_port()
    ep = "tcp://127.0.0.1:%d" % port
    j = e.path("curve.json")
    co = e.stampede(["oltp_read_write", "run", "--tables=2", "--table-size=5000", "--threads=2",
                     "--time=3", "--report-interval=1", "--agents=1", "--listen=" + ep,
                     "--secret-key-file=" + os.path.join(kd, "coordinator.secret"),
                     "--authorized-keys=" + auth, "--agent-wait=20", "--json=" + j] + e.db_opts())
    time.sleep(0.3)
    key_opts = ["--coordinator=" + ep, "--coordinator-key=" + os.path.join(kd, "coordinator.pub")]
    t = time.monotonic()
    bad = e.agent(key_opts + ["--secret-key-file=" + os.path.join(kd, "intruder.secret"),
                              "--workers=1"], "intruder")
    got = co.wait_line(r"refused an agent with an unauthorized key (\S+) from (\S+):", timeout=10,
                       after=t)
    if got:
        e.info("intruder refused %.3f s after it started: %s" % (got[0] - t, got[1]))
    e.check(got and got[2].group(1) == bad_pub and got[2].group(2).startswith("127.0.0.1"),
            "CURVE: the unauthorized agent is refused and named by key %s and address: %r" %
            (bad_pub, got and got[1]))
    garbage(port, bytes(range(256)) * 4)
    garbage(port, b"\xff" + bytes(range(100)))
    good = e.agent(key_opts + ["--secret-key-file=" + os.path.join(kd, "good.secret"),
                               "--workers=1", "--once"], "good")
    d = run_json(co, good, j, "CURVE: the run with the authorized agent succeeded")
    if d is None:
        return
    e.info("CURVE: control %r; intruder said %r" % (d["control"], bad.text("err").splitlines()[-2:]))
    e.check([a["name"] for a in d["agents"]] == ["good"] and d["totals"]["transactions"] > 0,
            "CURVE: only the authorized agent ran: %r, %d transactions" %
            ([a["name"] for a in d["agents"]], d["totals"]["transactions"]))
    e.check(d["control"]["refused_agents"] >= 1, "CURVE: JSON control.refused_agents %d >= 1" %
            d["control"]["refused_agents"])
    e.check(d["control"]["bad_frames"] == 2,
            "CURVE: the 2 garbage connections (binary bytes, no ZMTP greeting) are counted: "
            "bad_frames %d (want 2)" % d["control"]["bad_frames"])
    line = control_line(co)
    e.check(line == (d["control"]["bad_frames"], d["control"]["refused_agents"]),
            "CURVE: 'Control channel:' line %r matches the JSON" % (line,))
    e.info("CURVE: the refused agent is %s" % ("still running (dialing)" if bad.alive() else
                                                 "gone (exit %s)" % bad.p.returncode))


def plaintext_case():
    port = e.free_port()
    ep = "tcp://127.0.0.1:%d" % port
    j = e.path("plain.json")
    co = e.stampede(["oltp_read_write", "run", "--tables=2", "--table-size=5000", "--threads=2",
                     "--time=3", "--report-interval=1", "--agents=1", "--listen=" + ep,
                     "--plaintext", "--agent-wait=20", "--json=" + j] + e.db_opts())
    e.check(co.wait_line(r"PLAIN TEXT", timeout=10) is not None,
            "plain: stderr warns that the control traffic is plain text")
    # The warning comes just before the bind: the garbage needs the listener.
    e.check(e.wait_listening(port), "plain: the coordinator listens on port %d" % port)
    garbage(port, b"GET / HTTP/1.1\r\nHost: stampede\r\n\r\n")
    z = zmtp.Session(port)
    z.send(b"\xc1")  # a byte msgpack never uses
    z.send(b"\x85\xa1v")  # a map cut short
    ag = e.agent(["--coordinator=" + ep, "--plaintext", "--workers=1", "--once"], "plain-agent")
    if e.check(co.wait_line(r"^\[ 1s \]", which="out", timeout=30) is not None,
               "plain: the run reached its 1 s interval line"):
        z.send(b"hello, world")  # not msgpack at all, in the middle of the run
        z.send(b"\x81\xa1v\x01", b"extra")  # a message of two frames
    d = run_json(co, ag, j, "plain: the run succeeded despite the frames", z.close)
    if d is None:
        return
    e.info("plain: control %r, %d transactions" % (d["control"], d["totals"]["transactions"]))
    e.check(d["control"]["bad_frames"] == 5,
            "plain: HTTP request + 4 malformed messages counted: bad_frames %d (want 5)" %
            d["control"]["bad_frames"])
    e.check(d["control"]["refused_agents"] == 0, "plain: no agent refused")
    e.check(d["exit"]["status"] == 0 and d["totals"]["transactions"] > 0 and
            [a["name"] for a in d["agents"]] == ["plain-agent"] and d["agents"][0]["done"],
            "plain: the real agent ran to the end: %d transactions" % d["totals"]["transactions"])
    line = control_line(co)
    e.check(line == (d["control"]["bad_frames"], 0),
            "plain: 'Control channel:' line %r matches the JSON" % (line,))


def main():
    e.need_sandbox()
    e.prepare(tables=2, table_size=5000)
    plaintext_case()
    curve_case()
    e.finish()


main()
