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
  mhtool.py z85key                    a random 32-byte key in Z85 (only for checks before the
                                      coordinator's keygen exists)
"""
import json
import os
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
            j = json.load(f)  # noqa: F841 (used by the expression)
        v = eval(a[2])
        print(json.dumps(v) if isinstance(v, (dict, list)) else v)
    elif a[0] == "z85key":
        print(z85(os.urandom(32)))
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
