#!/usr/bin/python3
"""mhtool: small helpers of the multihost suite (stdlib only).

  mhtool.py echo ADDR PORT            TCP echo server (prints "ready" once listening)
  mhtool.py rtt ADDR PORT [N]         N small request/response round trips; prints
                                      "rtt_ms min=.. median=.. max=.." and the median alone
                                      on the last line
  mhtool.py selftest DELAYPROXY       loopback check of the delay proxy: RTT through it vs
                                      direct, 4 MiB echoed intact, EOF carried both ways
  mhtool.py json FILE EXPR            print a value of a JSON file (EXPR is a Python
                                      expression over `j`), e.g. "j['totals']['tps']"
  mhtool.py hdrcheck JSON HDRLOG     check that the coordinator's merged latency is exact: the
                                      per-agent histograms of the --hdr-log, pooled here, give the
                                      JSON's transactions and percentiles (to the bucket), and each
                                      interval's merged line is the sum of its agents' lines
  mhtool.py promquery BASE QUERY      one instant query to a Prometheus server at BASE; prints
                                      "LABELS VALUE" lines (LABELS as JSON), exit 1 on an error
  mhtool.py promready BASE            exit 0 once BASE/-/ready answers 200 (within 30 s)
  mhtool.py z85key                    a random 32-byte key in Z85 (only for checks before the
                                      coordinator's keygen exists)
"""
import base64
import json
import math
import os
import struct
import zlib
import socket
import statistics
import subprocess
import sys
import threading
import time


def echo_conn(c):
    with c:
        while True:
            try:
                b = c.recv(65536)
            except OSError:
                return
            if not b:
                try:
                    c.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return
            c.sendall(b)


def echo_server(addr, port, ready=None):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(64)
    if ready is not None:
        ready.append(s.getsockname()[1])
    else:
        print("ready", flush=True)
    while True:
        c, _ = s.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=echo_conn, args=(c,), daemon=True).start()


def rtts(addr, port, n):
    out = []
    with socket.create_connection((addr, port), timeout=10) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(n):
            t = time.monotonic()
            s.sendall(b"x" * 16)
            got = 0
            while got < 16:
                b = s.recv(16 - got)
                if not b:
                    raise OSError("EOF during rtt")
                got += len(b)
            out.append((time.monotonic() - t) * 1000)
    return out


def cmd_rtt(addr, port, n=20):
    r = rtts(addr, int(port), int(n))
    print("rtt_ms min=%.3f median=%.3f max=%.3f n=%d" % (min(r), statistics.median(r), max(r), len(r)))
    print("%.3f" % statistics.median(r))


def start_proxy(binary, listen, connect, delay_ms):
    p = subprocess.Popen([binary, "--listen=" + listen, "--connect=" + connect,
                          "--delay-ms=%g" % delay_ms],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if "listening on" not in line:
        p.kill()
        raise SystemExit("delayproxy did not start: %r %s" % (line, p.stderr.read()))
    return p, int(line.rsplit(":", 1)[1])


def bulk_echo(port, size):
    data = os.urandom(size)
    got = bytearray()
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        def sender():
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
        t = threading.Thread(target=sender)
        t.start()
        while True:
            b = s.recv(65536)
            if not b:
                break
            got += b
        t.join()
    return bytes(got) == data, len(got)


def eof_roundtrip(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        t = time.monotonic()
        s.shutdown(socket.SHUT_WR)
        b = s.recv(1)
        return b == b"", (time.monotonic() - t) * 1000


def cmd_selftest(binary):
    delay = 20.0
    ready = []
    threading.Thread(target=echo_server, args=("127.0.0.1", 0, ready), daemon=True).start()
    deadline = time.monotonic() + 5
    while not ready and time.monotonic() < deadline:
        time.sleep(0.01)
    eport = ready[0]
    proxy, pport = start_proxy(binary, "127.0.0.1:0", "127.0.0.1:%d" % eport, delay)
    fails = []
    try:
        direct = statistics.median(rtts("127.0.0.1", eport, 20))
        via = rtts("127.0.0.1", pport, 20)
        med = statistics.median(via)
        added = med - direct
        print("delayproxy: delay %.0f ms each way: direct RTT %.3f ms, through proxy median %.3f "
              "ms (min %.3f, max %.3f), added %.3f ms (expected %.0f)"
              % (delay, direct, med, min(via), max(via), added, 2 * delay))
        if not 2 * delay - 1 <= min(via) - direct:
            fails.append("a round trip took less than 2 x delay: %.3f ms" % min(via))
        if not added <= 2 * delay + 15:
            fails.append("added RTT %.3f ms is far above %.0f ms" % (added, 2 * delay))
        t = time.monotonic()
        ok, n = bulk_echo(pport, 4 << 20)
        print("delayproxy: 4 MiB echoed through it: %s (%d bytes, %.2f s)"
              % ("intact" if ok else "CORRUPTED", n, time.monotonic() - t))
        if not ok:
            fails.append("bulk data was not echoed intact")
        ok, ms = eof_roundtrip(pport)
        print("delayproxy: half-close carried to the server and back: %s in %.1f ms" % (ok, ms))
        if not ok or ms < 2 * delay - 1:
            fails.append("EOF was not carried both ways with the delay")
    finally:
        proxy.terminate()
        try:
            _, err = proxy.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            proxy.kill()
            _, err = proxy.communicate()
    if proxy.returncode != 0:
        fails.append("delayproxy exited %d on SIGTERM: %s" % (proxy.returncode, err))
    for f in fails:
        print("FAIL:", f)
    sys.exit(1 if fails else 0)


class Hist:
    """An HdrHistogram decoded from a V2 compressed record (values in us)."""

    def __init__(self, b64):
        raw = base64.b64decode(b64)
        cookie, clen = struct.unpack(">ii", raw[:8])
        if cookie & ~0xF0 != 0x1C849304 & ~0xF0:
            raise ValueError("not a compressed V2 histogram (cookie %x)" % cookie)
        body = zlib.decompress(raw[8:8 + clen])
        (_, plen, self.norm, digits, lowest, self.highest,
         _) = struct.unpack(">iiiiqqd", body[:40])
        self.unit = int(math.floor(math.log2(lowest)))
        sub_count_mag = int(math.ceil(math.log2(2 * 10 ** digits)))
        self.half_mag = sub_count_mag - 1
        self.half = 1 << self.half_mag
        self.counts = {}
        pos, idx, payload = 40, 0, body[40:40 + plen]
        pos = 0
        while pos < len(payload):
            v, shift = 0, 0
            while True:
                b = payload[pos]
                pos += 1
                v |= (b & 0x7F) << shift
                shift += 7
                if b < 0x80 or shift >= 56:
                    if shift >= 56 and b >= 0x80:
                        v |= payload[pos] << 56
                        pos += 1
                    break
            v = (v >> 1) ^ -(v & 1)
            if v < 0:
                idx += -v
            else:
                if v:
                    self.counts[idx] = self.counts.get(idx, 0) + v
                idx += 1

    def bucket_range(self, i):
        """[lowest, highest] equivalent values of counts index i."""
        b = (i >> self.half_mag) - 1
        sub = (i & (self.half - 1)) + self.half
        if b < 0:
            sub -= self.half
            b = 0
        lo = sub << (b + self.unit)
        return lo, lo + (1 << (b + self.unit)) - 1


def pooled(hists):
    """Sum several histograms (same layout) into {index: count}."""
    out = {}
    for h in hists:
        for i, c in h.counts.items():
            out[i] = out.get(i, 0) + c
    return out


def pct_range(counts, layout, p):
    """The value range a p-th percentile may take: from the bucket of rank
    floor(p N) to that of rank ceil(p N) (both conventions exist)."""
    total = sum(counts.values())
    ranks = {max(1, math.floor(p / 100 * total)), max(1, math.ceil(p / 100 * total)),
             max(1, int(p / 100 * total + 0.5))}
    lo, hi = None, None
    for r in ranks:
        cum = 0
        for i in sorted(counts):
            cum += counts[i]
            if cum >= r:
                a, b = layout.bucket_range(i)
                lo = a if lo is None else min(lo, a)
                hi = b if hi is None else max(hi, b)
                break
    return lo, hi


def cmd_hdrcheck(json_path, hdr_path):
    with open(json_path) as f:
        j = json.load(f)
    merged, tagged = [], {}
    layout = None
    with open(hdr_path) as f:
        for line in f:
            if line.startswith("#") or line.startswith('"') or not line.strip():
                continue
            tag = None
            if line.startswith("Tag="):
                tag, line = line[4:].split(",", 1)
            start = line.split(",")[0]
            h = Hist(line.strip().rsplit(",", 1)[1])
            layout = layout or h
            if tag is None:
                merged.append((start, h))
            elif not tag.startswith("kind:"):  # per statement kind lines are not agents
                tagged.setdefault(tag, []).append((start, h))
    fails = []
    # Each interval's merged line is the sum of its agents' lines.
    for start, m in merged:
        parts = [h for t in tagged.values() for s, h in t if s == start]
        if pooled(parts) != m.counts:
            fails.append("interval at %s s: merged histogram != sum of its agents'" % start)
    # Per agent: the histogram count is its transaction count.
    for a in j["agents"]:
        n = sum(sum(h.counts.values()) for _, h in tagged.get(a["name"], []))
        print("hdrcheck: agent %s: %d samples in the log, %d transactions in the JSON"
              % (a["name"], n, a["transactions"]))
        if n != a["transactions"]:
            fails.append("agent %s: %d samples in the log vs %d transactions"
                         % (a["name"], n, a["transactions"]))
    # The JSON's merged percentiles are those of the pooled samples.
    allc = pooled(h for t in tagged.values() for _, h in t)
    for key, p in (("p50", 50), ("p95", 95), ("p99", 99)):
        lo, hi = pct_range(allc, layout, p)
        got = j["totals"]["latency_ms"][key] * 1000
        ok = lo * 0.999 - 1 <= got <= hi * 1.001 + 1
        print("hdrcheck: merged %s: JSON %.3f ms, pooled agents' samples give %.3f..%.3f ms: %s"
              % (key, got / 1000, lo / 1000, hi / 1000, "exact" if ok else "WRONG"))
        if not ok:
            fails.append("merged %s %.3f ms is not the pooled %s (%.3f..%.3f ms)"
                         % (key, got / 1000, key, lo / 1000, hi / 1000))
    for f in fails:
        print("FAIL:", f)
    sys.exit(1 if fails else 0)


Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"


def z85(data):
    out = []
    for i in range(0, len(data), 4):
        v = int.from_bytes(data[i:i + 4], "big")
        chunk = []
        for _ in range(5):
            chunk.append(Z85[v % 85])
            v //= 85
        out.extend(reversed(chunk))
    return "".join(out)


def promquery(base, q):
    import urllib.parse
    import urllib.request
    url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
    with urllib.request.urlopen(url, timeout=10) as r:
        d = json.loads(r.read().decode())
    if d.get("status") != "success":
        raise SystemExit("query %r: %s" % (q, d))
    for row in d["data"]["result"]:
        print(json.dumps(row["metric"], sort_keys=True), row["value"][1])


def promready(base):
    import urllib.request
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/-/ready", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("prometheus at %s not ready within 30 s" % base)


def main():
    a = sys.argv[1:]
    if not a:
        print(__doc__)
        sys.exit(2)
    if a[0] == "echo":
        echo_server(a[1], int(a[2]))
    elif a[0] == "rtt":
        cmd_rtt(*a[1:])
    elif a[0] == "selftest":
        cmd_selftest(a[1])
    elif a[0] == "json":
        with open(a[1]) as f:
            j = json.load(f)
        v = eval("(" + a[2] + "\n)", {"j": j})
        print(json.dumps(v) if isinstance(v, (dict, list)) else v)
    elif a[0] == "hdrcheck":
        cmd_hdrcheck(a[1], a[2])
    elif a[0] == "promquery":
        promquery(a[1], a[2])
    elif a[0] == "promready":
        promready(a[1])
    elif a[0] == "z85key":
        print(z85(os.urandom(32)))
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
