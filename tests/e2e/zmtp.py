"""A minimal ZMTP 3.0 client (NULL mechanism), stdlib only: enough to open a
plain-text session with the coordinator's ROUTER as a DEALER and send it
arbitrary frames (RFC 23/ZMTP)."""
import socket
import struct


def greeting(mechanism=b"NULL"):
    """Signature, version 3.0, mechanism, as-server 0, filler: 64 bytes."""
    return (b"\xff" + b"\x00" * 7 + b"\x01" + b"\x7f" + b"\x03\x00" + mechanism.ljust(20, b"\x00") +
            b"\x00" + b"\x00" * 31)


def frame(body, more=False, command=False):
    flags = (0x01 if more else 0) | (0x04 if command else 0)
    if len(body) > 255:
        return bytes([flags | 0x02]) + struct.pack(">Q", len(body)) + body
    return bytes([flags, len(body)]) + body


def _prop(name, value):
    return bytes([len(name)]) + name + struct.pack(">I", len(value)) + value


def _recvn(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError("peer closed after %d of %d bytes" % (len(b), n))
        b += c
    return b


def _recv_frame(s):
    flags = _recvn(s, 1)[0]
    n = struct.unpack(">Q", _recvn(s, 8))[0] if flags & 0x02 else _recvn(s, 1)[0]
    return flags, _recvn(s, n)


class Session:
    """A handshaken plain-text DEALER session to 127.0.0.1:port."""

    def __init__(self, port, timeout=5.0):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.s.sendall(greeting())
        peer = _recvn(self.s, 64)
        if peer[0] != 0xFF or peer[9] != 0x7F or peer[10] != 3:
            raise ValueError("not a ZMTP 3 peer: %r" % peer[:12])
        self.s.sendall(frame(b"\x05READY" + _prop(b"Socket-Type", b"DEALER"), command=True))
        flags, body = _recv_frame(self.s)
        if not flags & 0x04 or not body.startswith(b"\x05READY"):
            raise ValueError("expected READY, got %r" % body[:40])
        self.peer_ready = body

    def send(self, *parts):
        """One message of parts (MORE on all but the last)."""
        for i, p in enumerate(parts):
            self.s.sendall(frame(p, more=i < len(parts) - 1))

    def close(self):
        self.s.close()
