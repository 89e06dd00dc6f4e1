"""HdrHistogram interval-log reader (V2 compressed histograms), stdlib only.

An independent reading of what the coordinator writes with --hdr-log: the
layout is HdrHistogram's (lowest 1, highest 3600000000, 3 significant
digits; values in microseconds), the percentile convention HdrHistogram's
(rank ceil(p/100*N - ulp), the highest value equivalent to the bucket
holding that rank), clamped to the exact max as pr_hist does. The exact max
comes from the Interval_Max column (max_us / 1000, three decimals).
"""
import base64
import math
import struct
import zlib

SUB_BUCKET_HALF = 1024
SUB_BUCKET_MASK = 2047
COMPRESSED_COOKIE = 0x1C849314
ENCODING_COOKIE = 0x1C849313


class Hist:
    """Bucket counts by counts-array index, plus the exact max."""

    def __init__(self):
        self.counts = {}
        self.max_us = 0

    def add(self, other):
        for i, c in other.counts.items():
            self.counts[i] = self.counts.get(i, 0) + c
        self.max_us = max(self.max_us, other.max_us)

    def total(self):
        return sum(self.counts.values())

    def value_at_percentile(self, p):
        n = self.total()
        if n == 0:
            return 0
        x = p / 100.0 * n
        r = math.ceil(x - math.ulp(x))
        rank = 1 if r < 1 else min(int(r), n)
        seen = 0
        for i in sorted(self.counts):
            seen += self.counts[i]
            if seen >= rank:
                return min(highest_equivalent(value_at_index(i)), self.max_us)
        return self.max_us


def value_at_index(i):
    bucket = (i >> 10) - 1
    sub = (i & (SUB_BUCKET_HALF - 1)) + SUB_BUCKET_HALF
    if bucket < 0:
        sub -= SUB_BUCKET_HALF
        bucket = 0
    return sub << bucket


def bucket_of(v):
    return (v | SUB_BUCKET_MASK).bit_length() - 11


def highest_equivalent(v):
    b = bucket_of(v)
    return ((v >> b) << b) + (1 << b) - 1


def _varint(buf, pos):
    """ZigZag LEB128-64b9B: 8 bytes of 7 bits, a 9th of 8 bits."""
    v = 0
    for k in range(8):
        byte = buf[pos]
        pos += 1
        v |= (byte & 0x7F) << (7 * k)
        if not byte & 0x80:
            break
    else:
        v |= buf[pos] << 56
        pos += 1
    return (v >> 1) ^ -(v & 1), pos


def decode(b64):
    raw = base64.b64decode(b64, validate=True)
    cookie, zlen = struct.unpack(">iI", raw[:8])
    if cookie & ~0xF0 != COMPRESSED_COOKIE & ~0xF0:
        raise ValueError("not a V2 compressed histogram (cookie %#x)" % cookie)
    body = zlib.decompress(raw[8:8 + zlen])
    cookie, plen, offset, digits, lowest, highest, ratio = struct.unpack(">iiiiqqd", body[:40])
    if cookie & ~0xF0 != ENCODING_COOKIE & ~0xF0 or (lowest, highest, digits) != (1, 3600000000, 3):
        raise ValueError("unexpected histogram layout %r" % ((cookie, lowest, highest, digits),))
    payload = body[40:40 + plen]
    h = Hist()
    pos = idx = 0
    while pos < len(payload):
        c, pos = _varint(payload, pos)
        if c < 0:
            idx += -c
        else:
            if c:
                h.counts[idx] = h.counts.get(idx, 0) + c
            idx += 1
    return h


def read_log(path):
    """[(tag or None, start_s, length_s, hist)] in file order."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith('"'):
                continue
            tag = None
            if line.startswith("Tag="):
                tag, line = line[4:].split(",", 1)
            start, length, imax, b64 = line.split(",")
            h = decode(b64)
            h.max_us = round(float(imax) * 1000)
            out.append((tag, float(start), float(length), h))
    return out
