"""A minimal Chrome DevTools Protocol client (Python stdlib only): starts a
real headless Chromium on a fresh profile, opens one page, records console
errors, exceptions and every network request, evaluates JavaScript and
takes screenshots. Used by the report tests (tests/report/)."""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-default-apps", "--disable-extensions", "--mute-audio",
                  "--hide-scrollbars", "--remote-debugging-port=0", "--remote-allow-origins=*"]


def find_chromium():
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if p:
            return p
    return None


class WebSocket:
    """Just enough of RFC 6455 for a client: masked text frames out,
    unmasked (possibly fragmented) frames in."""

    def __init__(self, url, timeout):
        m = re.match(r"ws://([^:/]+):(\d+)(/.*)", url)
        self.sock = socket.create_connection((m.group(1), int(m.group(2))), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        req = ("GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
               % (m.group(3), m.group(1), m.group(2), key))
        self.sock.sendall(req.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise IOError("websocket handshake: connection closed")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise IOError("websocket handshake refused: %r" % head[:200])

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        hdr = bytes([0x81])
        if n < 126:
            hdr += bytes([0x80 | n])
        elif n < 65536:
            hdr += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            hdr += bytes([0x80 | 127]) + struct.pack(">Q", n)
        self.sock.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise IOError("websocket closed by the browser")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        msg = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7f
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(n)
            op = b0 & 0x0f
            if op == 8:
                raise IOError("websocket closed by the browser")
            if op in (0, 1, 2):
                msg += payload
                if b0 & 0x80:
                    return msg.decode()

    def close(self):
        self.sock.close()


class Browser:
    """One headless Chromium with one page attached (flat session)."""

    def __init__(self, exe, timeout=60):
        self.profile = tempfile.mkdtemp(prefix="stampede-chromium-")
        self.proc = subprocess.Popen([exe] + CHROMIUM_FLAGS + ["--user-data-dir=" + self.profile,
                                                               "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.timeout = timeout
        url = None
        deadline = time.monotonic() + timeout
        self.stderr_head = []
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline().decode(errors="replace")
            if not line:
                break
            self.stderr_head.append(line)
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                url = m.group(1)
                break
        if url is None:
            self.close()
            raise IOError("chromium did not print its DevTools endpoint:\n" + "".join(self.stderr_head))
        # Drain stderr so the browser never blocks on a full pipe.
        import threading
        threading.Thread(target=self._drain, daemon=True).start()
        self.ws = WebSocket(url, timeout)
        self.next_id = 0
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable", {}, session=True)

    def _drain(self):
        for _ in iter(self.proc.stderr.readline, b""):
            pass

    def call(self, method, params, session=False):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        self.ws.send(json.dumps(msg))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise IOError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method, timeout):
        deadline = time.monotonic() + timeout
        self.ws.sock.settimeout(timeout)
        while time.monotonic() < deadline:
            for i, e in enumerate(self.events):
                if e["method"] == method:
                    return self.events.pop(i)
            self.events.append(json.loads(self.ws.recv()))
        raise IOError("no %s within %s s" % (method, timeout))

    def open(self, url):
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_event("Page.loadEventFired", self.timeout)

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True}, session=True)
        if "exceptionDetails" in r:
            raise IOError("evaluate %s: %s" % (expr[:60], r["exceptionDetails"]))
        return r["result"].get("value")

    def errors(self):
        """Console errors, uncaught exceptions and error log entries so far."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.%s: %s" % (p["type"], [a.get("value", a.get("description"))
                                                            for a in p.get("args", [])]))
            elif e["method"] == "Runtime.exceptionThrown":
                out.append("exception: %s" % p["exceptionDetails"].get("exception", {}).get(
                    "description", p["exceptionDetails"].get("text")))
            elif e["method"] == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append("log: %s" % p["entry"].get("text"))
        return out

    def requests(self):
        """Every URL the page asked for."""
        return [e["params"]["request"]["url"] for e in self.events
                if e["method"] == "Network.requestWillBeSent"]

    def screenshot(self, path, width=1280, height=None):
        # Measured at a small viewport: the last page's full-height one would
        # make a short page as tall as the previous (blank below).
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": 800,
                                                          "deviceScaleFactor": 1, "mobile": False},
                  session=True)
        h = height or int(self.eval("document.documentElement.scrollHeight"))
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": min(h, 16000),
                                                          "deviceScaleFactor": 1, "mobile": False},
                  session=True)
        time.sleep(0.3)
        data = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                         session=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            if getattr(self, "ws", None):
                self.ws.close()
        finally:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)
