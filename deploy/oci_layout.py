#!/usr/bin/env python3
"""Write a root file system as a deterministic one-layer OCI image archive.

usage: oci_layout.py ROOT OUT.tar VERSION SOURCE_DATE_EPOCH

Every layer entry gets mtime SOURCE_DATE_EPOCH and numeric owners from the
tree (names dropped); entries are sorted, the layer is stored uncompressed so
the digest does not depend on a compressor's version. Used by deploy/image.
"""
import hashlib
import io
import json
import os
import sys
import tarfile


def layer_bytes(root, epoch):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        paths = []
        for d, dirs, files in os.walk(root):
            dirs.sort()
            for n in sorted(dirs + files):
                paths.append(os.path.join(d, n))
        for p in sorted(paths, key=lambda p: os.path.relpath(p, root)):
            ti = tar.gettarinfo(p, arcname=os.path.relpath(p, root))
            ti.mtime = epoch
            ti.uname = ti.gname = ""
            ti.pax_headers = {}
            if ti.isreg():
                with open(p, "rb") as f:
                    tar.addfile(ti, f)
            else:
                tar.addfile(ti)
    return buf.getvalue()


def blob(files, data):
    d = hashlib.sha256(data).hexdigest()
    files["blobs/sha256/" + d] = data
    return {"digest": "sha256:" + d, "size": len(data)}


def main():
    root, out, version, epoch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    files = {}
    layer = layer_bytes(root, epoch)
    created = __import__("time").strftime("%Y-%m-%dT%H:%M:%SZ", __import__("time").gmtime(epoch))
    config = {
        "architecture": "amd64" if os.uname().machine == "x86_64" else os.uname().machine,
        "os": "linux",
        "created": created,
        "config": {
            "Entrypoint": ["/usr/bin/stampede"],
            "User": "10001:10001",
            "WorkingDir": "/work",
            "Env": ["PATH=/usr/bin:/bin", "HOME=/work"],
            "Labels": {"org.opencontainers.image.version": version},
        },
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(layer).hexdigest()]},
        "history": [{"created": created, "created_by": "deploy/image"}],
    }
    cfg = blob(files, json.dumps(config, sort_keys=True, separators=(",", ":")).encode())
    lay = blob(files, layer)
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": dict(mediaType="application/vnd.oci.image.config.v1+json", **cfg),
        "layers": [dict(mediaType="application/vnd.oci.image.layer.v1.tar", **lay)],
    }
    man = blob(files, json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode())
    index = {
        "schemaVersion": 2,
        "manifests": [dict(mediaType="application/vnd.oci.image.manifest.v1+json", **man)],
    }
    files["index.json"] = json.dumps(index, sort_keys=True).encode()
    files["oci-layout"] = b'{"imageLayoutVersion":"1.0.0"}'
    with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as tar:
        for name in ["blobs", "blobs/sha256"]:
            ti = tarfile.TarInfo(name)
            ti.type, ti.mode, ti.mtime = tarfile.DIRTYPE, 0o755, epoch
            tar.addfile(ti)
        for name in sorted(files):
            ti = tarfile.TarInfo(name)
            ti.size, ti.mode, ti.mtime = len(files[name]), 0o644, epoch
            tar.addfile(ti, io.BytesIO(files[name]))


if __name__ == "__main__":
    main()
