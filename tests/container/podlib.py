"""Shared helpers of the container suite (issue 29): podman as root on this
tree's image, beside e2elib (server counters, sandbox environment, checks).

podman runs with runc and cgroupfs and no default ulimits (the CI box's
cgroup layout is refused by crun, and podman's default ulimits exceed its
hard limits): a containers.conf written to a temporary file, named by
CONTAINERS_CONF for every podman call. Every container and pod started here
carries the label stampede-test=PID and is removed at exit.
"""
import atexit
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

import e2elib as e

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LABEL = "stampede-test=%d" % os.getpid()
UID = 10001  # the image's user (deploy/image)
_conf = None


def podman_env():
    global _conf
    if _conf is None:
        # Not in e.tmpdir(): e.finish() removes it before the atexit cleanup.
        _conf = os.path.join(tempfile.gettempdir(), "stampede-containers-%d.conf" % os.getpid())
    if not os.path.exists(_conf):
        with open(_conf, "w") as f:
            f.write('[containers]\ndefault_ulimits = []\n'
                    '[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\n')
    env = dict(os.environ)
    env["CONTAINERS_CONF"] = _conf
    return env


def podman(*args, timeout=120, check=True):
    """Run podman ARGS; (returncode, stdout, stderr)."""
    p = subprocess.run(["podman", "--runtime=runc", "--cgroup-manager=cgroupfs"] + list(args),
                       env=podman_env(), capture_output=True, text=True,
                       timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError("podman %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                        p.stderr.strip()[-2000:]))
    return p.returncode, p.stdout, p.stderr


def need_podman():
    if shutil.which("podman") is None or shutil.which("runc") is None:
        print("SKIP: podman or runc is not installed (deploy/install-deps installs them)")
        sys.exit(e.SKIP)
    if os.geteuid() != 0:
        print("SKIP: the container suite runs podman as root")
        sys.exit(e.SKIP)


def tree_key():
    """A key of the sources the image is built from: the git trees of the
    folders deploy/package and deploy/image read, plus any uncommitted change
    in them (untracked files by name and content). A commit touching only
    tests/ or docs/ keeps the key."""
    parts = ["agent", "coordinator", "proto", "families", "meson.build", "meson_options.txt",
             "deploy"]
    parts = [p for p in parts if os.path.exists(os.path.join(TOP, p))]
    git = lambda *a: subprocess.run(["git", "-C", TOP] + list(a), capture_output=True,
                                    text=True).stdout
    h = hashlib.sha256()
    h.update(git("rev-parse", *["HEAD:" + p for p in parts]).encode())
    h.update(git("diff", "HEAD", "--", *parts).encode())
    for f in git("ls-files", "--others", "--exclude-standard", "--", *parts).splitlines():
        h.update(f.encode() + b"\0")
        try:
            with open(os.path.join(TOP, f), "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
        except OSError:
            pass
    return h.hexdigest()[:12]


def ensure_image(out_dir):
    """The image of this tree, built with deploy/image unless a podman image
    tagged with its tree key is loaded; its name. out_dir keeps the release
    build (deploy/package's build dir) between runs."""
    tag = "localhost/stampede:test-" + tree_key()
    rc, _, _ = podman("image", "exists", tag, check=False)
    if rc == 0:
        e.info("image %s already loaded: not rebuilt" % tag)
        return tag
    t = time.monotonic()
    p = subprocess.run([os.path.join(TOP, "deploy", "image"), "--out", out_dir, "--tag", tag],
                       env=podman_env(), capture_output=True, text=True, timeout=1200)
    e.info("deploy/image took %.1f s (exit %d): %s" %
           (time.monotonic() - t, p.returncode, " | ".join(p.stdout.strip().splitlines()[-3:])))
    if not e.check(p.returncode == 0, "deploy/image built and loaded %s" % tag):
        print(p.stderr[-4000:])
        e.finish()
    return tag


def keygen(stampede, d, name):
    """stampede keygen D NAME, the files owned by the image's user (0600
    secret): (secret path, public path)."""
    subprocess.run([stampede, "keygen", d, name], check=True, capture_output=True)
    sec, pub = os.path.join(d, name + ".secret"), os.path.join(d, name + ".pub")
    for f in (sec, pub):
        os.chown(f, UID, UID)
    return sec, pub


def run(image, args, name, extra=(), detach=True):
    """podman run (host network, the test's label) of image; the container
    id when detached, else (rc, out, err)."""
    argv = ["run", "--network=host", "--label", LABEL, "--name", name] + list(extra)
    if detach:
        argv.append("-d")
        return podman(*(argv + [image] + list(args)))[1].strip()
    return podman(*(["--rm"] + argv + [image] + list(args)), timeout=300, check=False)


def wait(name, timeout):
    """The container's exit status, or None if still running at timeout."""
    try:
        rc, out, _ = podman("wait", name, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None
    return int(out.strip()) if rc == 0 and out.strip().lstrip("-").isdigit() else None


def logs(name):
    _, out, err = podman("logs", name, check=False)
    return out, err


def cleanup():
    podman("pod", "rm", "-f", "--filter", "label=" + LABEL, check=False)
    _, out, _ = podman("ps", "-aq", "--filter", "label=" + LABEL, check=False)
    ids = out.split()
    if ids:
        podman("rm", "-f", "-t", "0", *ids, check=False)


def _remove_conf():
    if _conf is not None and os.path.exists(_conf):
        os.unlink(_conf)


atexit.register(_remove_conf)  # atexit runs in reverse: after cleanup
atexit.register(cleanup)
