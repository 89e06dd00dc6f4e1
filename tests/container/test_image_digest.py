#!/usr/bin/env python3
"""container: deploy/image is reproducible. The image is built twice in a row
from the same .deb (deploy/package's, in build-image/pkg) with the same
SOURCE_DATE_EPOCH, each time with a fresh mmdebstrap root, and the two OCI
archives must be byte for byte the same (so the manifest digests too). The
uncompressed root file system must stay within 60 MB.
"""
import hashlib
import os
import re
import subprocess
import time

import e2elib as e
import podlib as pl


def build(deb, out, env):
    t = time.monotonic()
    p = subprocess.run([os.path.join(pl.TOP, "deploy", "image"), "--no-load", "--deb", deb,
                        "--out", out], env=env, capture_output=True, text=True, timeout=600)
    e.info("deploy/image --no-load (%s): %.1f s, exit %d" % (out, time.monotonic() - t,
                                                             p.returncode))
    if not e.check(p.returncode == 0, "deploy/image built %s" % out):
        print(p.stderr[-3000:])
        e.finish()
    m = re.search(r"root file system (\d+) MB uncompressed, manifest (sha256:\w+)", p.stdout)
    with open(os.path.join(out, "stampede-image.oci.tar"), "rb") as f:
        return int(m.group(1)), m.group(2), hashlib.sha256(f.read()).hexdigest()


def main():
    pl.need_podman()
    out_dir = os.environ.get("STAMPEDE_TEST_IMAGE_DIR") or os.path.join(pl.TOP, "build-image")
    env = dict(os.environ)
    env.setdefault("SOURCE_DATE_EPOCH", subprocess.run(
        ["git", "-C", pl.TOP, "log", "-1", "--format=%ct"], capture_output=True,
        text=True).stdout.strip() or "0")
    p = subprocess.run([os.path.join(pl.TOP, "deploy", "package"), "--build-dir",
                        os.path.join(out_dir, "pkg"), "--out", e.path("deb")], env=env,
                       capture_output=True, text=True, timeout=1200)
    if not e.check(p.returncode == 0, "deploy/package made the .deb"):
        print(p.stderr[-3000:])
        e.finish()
    deb = p.stdout.strip().splitlines()[-1]
    a = build(deb, e.path("one"), env)
    b = build(deb, e.path("two"), env)
    e.info("image: %d MB uncompressed, manifest %s, archive sha256 %s" % a)
    e.check(a[1] == b[1], "two builds, same manifest digest: %s / %s" % (a[1], b[1]))
    e.check(a[2] == b[2], "two builds, same OCI archive bytes: %s / %s" % (a[2], b[2]))
    e.check(a[0] <= 60, "root file system %d MB uncompressed (goal <= 60 MB)" % a[0])
    e.finish()


if __name__ == "__main__":
    main()
