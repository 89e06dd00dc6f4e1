"""e2e: TLS, compression and authentication plugins against a real MariaDB
that serves TLS with certificates this test makes with openssl.

The suite's sandbox (tests/run) serves no TLS; this test starts a second
sandbox (deploy/sandbox-db --tls, performance_schema on, so the server can
say per session whether it is encrypted and compressed) and checks:
  - verify_identity against a certificate for another name fails at setup
    and names the reason; verify_ca accepts the same certificate;
  - a user created REQUIRE SSL is refused without TLS (with the hint) and
    connects with --mysql-ssl=required;
  - every connection of every agent is encrypted and compressed: the
    server's Ssl_accepts delta equals the connections the agents opened
    (threads + one probe per agent), and performance_schema shows an
    Ssl_cipher and Compression=ON on every sbtest session mid-run;
  - --mysql-ssl=on reads sysbench's fixed file names from the working
    directory, and says which one is missing;
  - reconnects after a server restart renegotiate TLS;
  - 200 TLS connects on one loop leave it free (tests/mysql/tls_loop.c: the
    handshakes run on the thread pool, agent/engine/ag_tlsconn.h), by name too;
    then 20 queries on each make no EAGAIN read after a send (ag_pvio.h);
  - --mysql-ssl-crl: a CRL that revokes the server's certificate (made with
    openssl ca) refuses it at setup, naming the CRL; an empty CRL passes;
  - a client certificate revoked by the server's ssl_crl (openssl ca, then
    FLUSH SSL) fails at setup, naming the reason; another one passes;
  - --mysql-ssl-cipher: the server's Ssl_cipher is the TLS 1.3 suite or TLS
    1.2 cipher asked for; a cipher OpenSSL lacks fails at setup with a hint;
  - an ed25519 user connects (mysql_native_password is every other test's);
  - --mysql-ssl=required against the suite's plain server fails at setup;
    preferred runs there without TLS.
"""
import os
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib as e  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SANDBOX = os.path.join(HERE, "..", "..", "deploy", "sandbox-db")


def openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, capture_output=True)


def make_cert(d, name, cn, san, ca="ca", key_type="rsa:2048"):
    """d/NAME-key.pem and d/NAME-cert.pem signed by d/CA. The servers'
    keys are RSA (the TLS 1.2 cipher checked is ECDHE-RSA); the others are
    EC P-256, made in a millisecond instead of a fraction of a second."""
    key, csr, cert = (os.path.join(d, name + s) for s in ("-key.pem", ".csr", "-cert.pem"))
    if key_type == "ec":
        openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key)
        key_args = ["-new", "-key", key]
    else:
        key_args = ["-newkey", key_type, "-nodes", "-keyout", key]
    openssl("req", *key_args, "-subj", "/CN=" + cn, "-out", csr)
    ext = os.path.join(d, name + ".ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=%s\n" % san if san else "basicConstraints=CA:FALSE\n")
    openssl("x509", "-req", "-in", csr, "-CA", os.path.join(d, ca + ".pem"), "-CAkey",
            os.path.join(d, ca + "-key.pem"), "-CAcreateserial", "-days", "2", "-extfile", ext,
            "-out", cert)


def loop_name():
    """This host's name when it resolves to 127.0.0.1 (a name the library must
    look up, unlike localhost, which it takes for the Unix socket), else None."""
    try:
        name = socket.gethostname()
        return name if socket.gethostbyname(name) == "127.0.0.1" else None
    except OSError:
        return None


def make_certs(d):
    os.makedirs(d)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-days", "2", "-subj", "/CN=stampede test CA", "-keyout", os.path.join(d, "ca-key.pem"), "-out",
            os.path.join(d, "ca.pem"))
    name = loop_name()
    make_cert(d, "good", "127.0.0.1",
              "IP:127.0.0.1,DNS:localhost" + (",DNS:" + name if name else ""))
    make_cert(d, "other", "db.other.invalid", "DNS:db.other.invalid")
    make_cert(d, "client", "stampede client", None, key_type="ec")
    make_cert(d, "revoked-client", "stampede revoked client", None, key_type="ec")
    # The server starts with the certificate for another name, and checks
    # client certificates against server-crl.pem (empty until step 3e).
    serve(d, "other")
    make_crl(d, "server-crl.pem")


def serve(d, name):
    shutil.copy(os.path.join(d, name + "-cert.pem"), os.path.join(d, "server-cert.pem"))
    shutil.copy(os.path.join(d, name + "-key.pem"), os.path.join(d, "server-key.pem"))


def make_crl(d, out, revoke=None):
    """d/OUT: a CRL signed by d's CA, revoking d/REVOKE-cert.pem first if given
    (openssl ca with its own index in d/crl-db)."""
    db = os.path.join(d, "crl-db")
    if not os.path.isdir(db):
        os.makedirs(db)
        open(os.path.join(db, "index.txt"), "w").close()
        with open(os.path.join(db, "crlnumber"), "w") as f:
            f.write("01\n")
        with open(os.path.join(db, "ca.cnf"), "w") as f:
            f.write("[ca]\ndefault_ca=CA\n[CA]\ndatabase=%s/index.txt\ncrlnumber=%s/crlnumber\n"
                    "default_md=sha256\ndefault_crl_days=2\n" % (db, db))
    ca = ["-config", os.path.join(db, "ca.cnf"), "-keyfile", os.path.join(d, "ca-key.pem"),
          "-cert", os.path.join(d, "ca.pem")]
    if revoke:
        openssl("ca", *ca, "-revoke", os.path.join(d, revoke + "-cert.pem"))
    openssl("ca", *ca, "-gencrl", "-out", os.path.join(d, out))
    return os.path.join(d, out)


class Server:
    """The TLS sandbox: root SQL over its socket, its port, restart."""

    def __init__(self, d, certs):
        self.d, self.certs = d, certs
        self.start()

    def start(self):
        out = subprocess.run([SANDBOX, "start", self.d, "--tls=" + self.certs,
                              "--mariadbd-arg=--performance-schema=ON", "--max-connections=500",
                              "--mariadbd-arg=--ssl-crl=" +
                              os.path.join(self.certs, "server-crl.pem")],
                             capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            print(out.stdout + out.stderr)
            e.check(False, "TLS sandbox started")
            e.finish()
        envs = dict(l.replace("export ", "").split("=", 1) for l in out.stdout.splitlines()
                    if l.startswith("export "))
        self.port = envs["STAMPEDE_TEST_MYSQL_PORT"]
        self.password = envs["STAMPEDE_TEST_MYSQL_PASSWORD"]

    def stop(self):
        subprocess.run([SANDBOX, "stop", self.d], capture_output=True, timeout=60)

    def sql(self, q):
        # --skip-ssl: the client would encrypt even this socket and count in Ssl_accepts.
        out = subprocess.run(["mariadb", "--no-defaults", "--skip-ssl", "-uroot", "-S",
                              self.d + "/sock", "-N", "-B", "-e", q], capture_output=True, text=True, timeout=30,
                             env={k: v for k, v in os.environ.items() if k != "MYSQL_PWD"})
        if out.returncode != 0:
            raise RuntimeError("mariadb: %s: %s" % (q, out.stderr.strip()))
        return [line.split("\t") for line in out.stdout.splitlines()]

    def ssl_accepts(self):
        return int(self.sql("SHOW GLOBAL STATUS LIKE 'Ssl_accepts'")[0][1])

    def sessions(self, user="sbtest"):
        """(sessions, with an Ssl_cipher, with Compression=ON) of user's
        connections, from one performance_schema query."""
        rows = self.sql(
            "SELECT t.THREAD_ID, SUM(s.VARIABLE_NAME='Ssl_cipher' AND s.VARIABLE_VALUE<>''), "
            "SUM(s.VARIABLE_NAME='Compression' AND s.VARIABLE_VALUE='ON') "
            "FROM performance_schema.threads t LEFT JOIN performance_schema.status_by_thread s "
            "ON s.THREAD_ID=t.THREAD_ID AND s.VARIABLE_NAME IN ('Ssl_cipher','Compression') "
            "WHERE t.PROCESSLIST_USER='%s' GROUP BY t.THREAD_ID" % user)
        return (len(rows), sum(1 for r in rows if r[1] not in ("0", "NULL")),
                sum(1 for r in rows if r[2] not in ("0", "NULL")))

    def ciphers(self, want, p, user="sbtest", timeout=20):
        """The distinct Ssl_cipher values of user's sessions once want of them
        show one (or p ends, or timeout)."""
        q = ("SELECT s.VARIABLE_VALUE FROM performance_schema.threads t JOIN "
             "performance_schema.status_by_thread s ON s.THREAD_ID=t.THREAD_ID AND "
             "s.VARIABLE_NAME='Ssl_cipher' WHERE t.PROCESSLIST_USER='%s'" % user)
        rows = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and p.alive():
            rows = [r[0] for r in self.sql(q) if r and r[0]]
            if len(rows) >= want:
                break
            time.sleep(0.2)
        return sorted(set(rows)), len(rows)

    def wait_sessions(self, want, p, timeout=20):
        """Sample sessions() until want sessions all show a cipher (and
        compression when any does), p ends or timeout; the last sample."""
        seen = (0, 0, 0)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and p.alive():
            seen = self.sessions()
            if seen[0] >= want and seen[1] == seen[0] and seen[2] in (0, seen[0]):
                break
            time.sleep(0.2)
        return seen


def db(srv, user="sbtest"):
    return ["--mysql-host=127.0.0.1", "--mysql-port=" + srv.port, "--mysql-user=" + user,
            "--mysql-db=sbtest"]


def run(srv, args, what, ok=True, password=None, timeout=90, cwd=None):
    """Run the coordinator to its end; (exit status, stdout + stderr)."""
    argv = [e.STAMPEDE, "oltp_point_select", "run", "--tables=1", "--table-size=1000"] + \
        e.local_opts() + args
    env = dict(os.environ)
    env["MYSQL_PWD"] = srv.password if password is None else password
    t0 = time.monotonic()
    out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
    e.info("%s: %.1f s" % (what, time.monotonic() - t0))
    text = out.stdout + out.stderr
    if ok and not e.check(out.returncode == 0, "%s: exit %d (want 0)" % (what, out.returncode)):
        print(text)
    if not ok:
        e.check(out.returncode != 0, "%s: refused, exit %d" % (what, out.returncode))
    return out.returncode, text


def main():
    e.need_sandbox()
    if shutil.which("openssl") is None:
        print("SKIP: openssl is not installed")
        sys.exit(e.SKIP)
    certs = e.path("certs")
    t0 = time.monotonic()
    make_certs(certs)
    e.info("certificates made in %.1f s" % (time.monotonic() - t0))
    ca = os.path.join(certs, "ca.pem")
    t0 = time.monotonic()
    srv = Server(e.path("db"), certs)
    e.info("TLS sandbox up in %.1f s on port %s" % (time.monotonic() - t0, srv.port))
    try:
        checks(srv, certs, ca)
    finally:
        srv.stop()
    e.finish()


T0 = time.monotonic()


def lap(step):
    """Print when a step starts (seconds since the test began)."""
    e.info("at %.1f s: %s" % (time.monotonic() - T0, step))


def checks(srv, certs, ca):
    env = dict(os.environ, MYSQL_PWD=srv.password)
    p = subprocess.run([e.STAMPEDE, "oltp_point_select", "prepare", "--tables=1",
                        "--table-size=1000", "--agents=1", "--mysql-ssl=required"] +
                       e.local_opts() + db(srv), capture_output=True, text=True, timeout=90, env=env)
    e.check(p.returncode == 0, "prepare over TLS: exit %d" % p.returncode) or print(p.stderr)

    lap("step 1")
    # 1. verify_identity against a certificate for db.other.invalid.
    base = ["--agents=1", "--threads=2", "--time=1"] + db(srv)
    rc, text = run(srv, base + ["--mysql-ssl=verify_identity", "--mysql-ssl-ca=" + ca],
                   "verify_identity, certificate for another name", ok=False)
    e.check("does not name the host" in text and "setup failed" in text and "queries:" not in text,
            "verify_identity failure names the reason at setup: %s" %
            [l for l in text.splitlines() if "error 2026" in l][:1])
    run(srv, base + ["--mysql-ssl=verify_ca", "--mysql-ssl-ca=" + ca],
        "verify_ca accepts the chain of the same certificate")
    rc, text = run(srv, base + ["--mysql-ssl=verify_ca",
                                "--mysql-ssl-ca=" + os.path.join(certs, "other-cert.pem")],
                   "verify_ca with a CA that did not sign the server's certificate", ok=False)
    e.check("error 2026" in text and "certificate" in text,
            "verify_ca failure says why: %s" % [l for l in text.splitlines() if "2026" in l][:1])
    serve(certs, "good")
    srv.sql("FLUSH SSL")

    lap("step 2")
    # 2. A user created REQUIRE SSL.
    srv.sql("CREATE USER 'tlsuser'@'%' IDENTIFIED BY 'tlspw' REQUIRE SSL; "
            "GRANT ALL ON sbtest.* TO 'tlsuser'@'%'")
    base_t = ["--agents=1", "--threads=2", "--time=1"] + db(srv, "tlsuser")
    rc, text = run(srv, base_t, "REQUIRE SSL user without TLS", ok=False, password="tlspw")
    e.check("error 1045" in text and "REQUIRE SSL needs --mysql-ssl=required" in text,
            "the refusal says what to do: %s" % [l for l in text.splitlines() if "1045" in l][:1])
    run(srv, base_t + ["--mysql-ssl=required"], "REQUIRE SSL user with --mysql-ssl=required",
        password="tlspw")

    lap("step 3")
    # 3. Every connection of every agent encrypted and compressed.
    agents, threads = 2, 8
    j = e.path("tls.json")
    before = srv.ssl_accepts()
    env = dict(os.environ, MYSQL_PWD=srv.password)
    p = e.Proc([e.STAMPEDE, "oltp_point_select", "run", "--tables=1", "--table-size=1000",
                "--agents=%d" % agents, "--threads=%d" % threads, "--time=4", "--json=" + j,
                "--report-interval=1",
                "--mysql-ssl=verify_identity", "--mysql-ssl-ca=" + ca, "--mysql-compression"] +
               e.local_opts() + db(srv), env=env, name="stampede-tls")
    seen = srv.wait_sessions(threads + agents, p)
    rc = p.wait(60)
    after = srv.ssl_accepts()
    e.check(rc == 0, "run with verify_identity + compression: exit %s" % rc) or p.dump()
    # Connector/C leaves a TLS socket blocking after the handshake (pr_tls_nonblock):
    # the loops then never reach epoll and every interval comes late and empty.
    lines = [l for l in p.text("out").splitlines() if l.startswith("[ ")]
    late = [l for l in lines if "[late]" in l or "qps: 0.00" in l]
    e.check(len(lines) >= 3 and not late, "%d interval lines over TLS, %d late or empty: %s"
            % (len(lines), len(late), late[:1]))
    e.check(seen[0] >= threads + agents and seen[1] == seen[0] and seen[2] == seen[0],
            "mid-run sbtest sessions %d: %d with an Ssl_cipher, %d with Compression=ON "
            "(performance_schema.status_by_thread)" % seen)
    want = threads + agents  # each agent's probe connection, then its share of the threads
    e.check(after - before == want,
            "Ssl_accepts delta %d == connections opened by all agents (%d threads + %d probes)"
            % (after - before, threads, agents))
    if os.path.exists(j):
        q = e.load_json(j)["totals"]["queries"]["total"]
        e.check(q > 0, "queries over TLS and compression: %d" % q)

    lap("step 3b")
    # 3b. Handshakes off the loop (agent/engine/ag_tlsconn.h): many TLS connects on one
    # loop while a 1 ms timer measures its lag; by name with verify_identity too
    # (the library's own name lookup then runs off the loop as well).
    loop_helper = os.path.join(os.path.dirname(os.path.dirname(e.STAMPEDE)), "tests", "mysql",
                               "tls_loop")
    name = loop_name()
    if name is None:
        e.info("this host's name does not resolve to 127.0.0.1: verify_identity by address")
    # The first also runs 20 queries on each connection: no EAGAIN read after a
    # send over TLS either (the read skip, agent/engine/ag_pvio.h).
    for host, n, mode, q in (("127.0.0.1", 200, "verify_ca", 20),
                             (name or "127.0.0.1", 200, "verify_identity", 0)):
        out = subprocess.run([loop_helper, host, srv.port, ca, str(n), mode, str(q)],
                             capture_output=True,
                             text=True, timeout=120, env=env)
        for line in out.stdout.strip().splitlines()[:2] or ["tls_loop: no output"]:
            e.info(line)
        e.check(out.returncode == 0, "%d TLS connects (%s) keep their loop free: exit %d" %
                (n, mode, out.returncode)) or print(out.stdout + out.stderr)

    lap("step 3c")
    # 3c. --mysql-ssl-crl: a CRL revoking nothing lets the connection through; one
    # revoking the server's certificate refuses it at setup, saying so.
    crl = make_crl(certs, "crl-empty.pem")
    run(srv, base + ["--mysql-ssl=verify_ca", "--mysql-ssl-ca=" + ca, "--mysql-ssl-crl=" + crl],
        "--mysql-ssl-crl with a CRL that revokes nothing")
    crl = make_crl(certs, "crl-revoked.pem", revoke="good")
    rc, text = run(srv, base + ["--mysql-ssl=verify_ca", "--mysql-ssl-ca=" + ca,
                                "--mysql-ssl-crl=" + crl],
                   "--mysql-ssl-crl revoking the server's certificate", ok=False)
    e.check("certificate revoked" in text and "revoked by the CRL in --mysql-ssl-crl" in text and
            "setup failed" in text and "queries:" not in text,
            "the revoked certificate is refused at setup, naming the CRL: %s" %
            [l for l in text.splitlines() if "2026" in l][:1])

    lap("step 3e")
    # 3e. A revoked client certificate: the server's ssl_crl (reloaded by FLUSH
    # SSL) revokes it; the connection fails at setup, naming the reason.
    make_crl(certs, "server-crl.pem", revoke="revoked-client")
    srv.sql("FLUSH SSL")
    cl = ["--mysql-ssl=verify_ca", "--mysql-ssl-ca=" + ca]
    rc, text = run(srv, base + cl + ["--mysql-ssl-cert=" +
                                     os.path.join(certs, "revoked-client-cert.pem"),
                                     "--mysql-ssl-key=" +
                                     os.path.join(certs, "revoked-client-key.pem")],
                   "a client certificate the server's CRL revokes", ok=False)
    # TLS 1.3: the server checks the certificate after the client's handshake
    # is done; the client reads its alert (2026 "alert certificate revoked"),
    # or its reset overtakes the alert (2013, reset at the authentication).
    e.check(("revoked this client's certificate" in text or
             "rejects this client's certificate (revoked by the server's ssl_crl" in text) and
            "setup failed" in text and "queries:" not in text,
            "the revoked client certificate is refused at setup, naming the reason: %s" %
            [l for l in text.splitlines() if "error" in l][:1])
    run(srv, base + cl + ["--mysql-ssl-cert=" + os.path.join(certs, "client-cert.pem"),
                          "--mysql-ssl-key=" + os.path.join(certs, "client-key.pem")],
        "a client certificate the same CRL does not revoke")

    lap("step 3d")
    # 3d. --mysql-ssl-cipher: the server's Ssl_cipher is the one asked for, a TLS 1.3
    # suite or a TLS 1.2 cipher (which holds the connection to TLS 1.2: else
    # Connector/C leaves TLS 1.3's suites on and the server picks one of them).
    for cipher in ("TLS_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"):
        p = e.Proc([e.STAMPEDE, "oltp_point_select", "run", "--tables=1", "--table-size=1000",
                    "--agents=1", "--threads=2", "--time=2", "--mysql-ssl=required",
                    "--mysql-ssl-cipher=" + cipher] + e.local_opts() + db(srv), env=env,
                   name="stampede-cipher")
        seen, n = srv.ciphers(2, p)
        rc = p.wait(60)
        e.check(rc == 0 and seen == [cipher] and n >= 2,
                "--mysql-ssl-cipher=%s: exit %s, %d sessions, server's Ssl_cipher %s" %
                (cipher, rc, n, seen)) or p.dump()
    rc, text = run(srv, base + ["--mysql-ssl=required", "--mysql-ssl-cipher=NO-SUCH-CIPHER"],
                   "--mysql-ssl-cipher naming no cipher", ok=False)
    e.check("no cipher match" in text and "openssl ciphers" in text and "setup failed" in text,
            "an impossible cipher fails at setup, saying what to give: %s" %
            [l for l in text.splitlines() if "2026" in l][:1])

    lap("step 4")
    # 4. --mysql-ssl=on: sysbench's file names in the working directory.
    wd = e.path("sysbench-wd")
    os.makedirs(wd)
    rc, text = run(srv, base + ["--mysql-ssl=on"], "--mysql-ssl=on without the files", ok=False,
                   cwd=wd)
    e.check("'cacert.pem'" in text and wd in text and "stampede_agent_tls_files" in text,
            "the missing file is named with the agent's directory: %s" %
            [l for l in text.splitlines() if "cacert.pem" in l][:1])
    shutil.copy(ca, os.path.join(wd, "cacert.pem"))
    shutil.copy(os.path.join(certs, "client-cert.pem"), os.path.join(wd, "client-cert.pem"))
    shutil.copy(os.path.join(certs, "client-key.pem"), os.path.join(wd, "client-key.pem"))
    before = srv.ssl_accepts()
    run(srv, base + ["--mysql-ssl=on"], "--mysql-ssl=on with the files", cwd=wd)
    e.check(srv.ssl_accepts() - before == 3, "--mysql-ssl=on: Ssl_accepts delta %d == 2 threads "
            "+ 1 probe" % (srv.ssl_accepts() - before))

    lap("step 5")
    # 5. Reconnects after a server restart renegotiate TLS.
    j = e.path("restart.json")
    p = e.Proc([e.STAMPEDE, "oltp_point_select", "run", "--tables=1", "--table-size=1000",
                "--agents=1", "--threads=4", "--time=12", "--json=" + j, "--mysql-ssl=required",
                "--mysql-ssl-ca=" + ca] + e.local_opts() + db(srv), env=env, name="stampede-restart")
    time.sleep(3)
    srv.stop()
    time.sleep(0.5)
    srv.start()
    seen = srv.wait_sessions(4, p)
    accepts = srv.ssl_accepts()  # counted from the restart
    rc = p.wait(60)
    e.check(rc == 0, "run across a server restart: exit %s" % rc) or p.dump()
    e.check(seen[0] >= 4 and seen[1] == seen[0],
            "after the restart %d sbtest sessions, %d with an Ssl_cipher" % seen[:2])
    e.check(accepts >= 4, "Ssl_accepts since the restart %d >= 4 reconnected connections" % accepts)
    if os.path.exists(j):
        rec = e.load_json(j).get("totals", {}).get("reconnects")
        e.check(rec is not None and rec >= 4, "reconnects in the report: %s (want >= 4)" % rec)

    lap("step 6")
    # 6. An ed25519 user.
    srv.sql("INSTALL SONAME 'auth_ed25519'")
    srv.sql("CREATE USER 'eduser'@'%' IDENTIFIED VIA ed25519 USING PASSWORD('edpw'); "
            "GRANT ALL ON sbtest.* TO 'eduser'@'%'")
    plugin = srv.sql("SELECT plugin FROM mysql.user WHERE user='eduser'")[0][0]
    e.check(plugin == "ed25519", "eduser's plugin: %s" % plugin)
    plugin = srv.sql("SELECT plugin FROM mysql.user WHERE user='sbtest' LIMIT 1")[0][0]
    e.check(plugin == "mysql_native_password", "sbtest's plugin: %s" % plugin)
    run(srv, ["--agents=1", "--threads=2", "--time=1"] + db(srv, "eduser"), "ed25519 user connects",
        password="edpw")
    run(srv, ["--agents=1", "--threads=2", "--time=1", "--mysql-ssl=required"] +
        db(srv, "eduser"), "ed25519 user connects over TLS", password="edpw")

    lap("step 7")
    # 7. required against the suite's plain server.
    e.prepare(tables=1, table_size=1000)
    argv = [e.STAMPEDE, "oltp_point_select", "run", "--tables=1", "--table-size=1000",
            "--agents=1", "--threads=1",
            "--time=1", "--mysql-ssl=required"] + e.local_opts() + e.db_opts()
    out = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=e.db_env())
    text = out.stdout + out.stderr
    e.check(out.returncode != 0 and "did not offer TLS" in text,
            "required against a server without TLS: exit %d, %s" %
            (out.returncode, [l for l in text.splitlines() if "TLS" in l][:1]))
    argv[argv.index("--mysql-ssl=required")] = "--mysql-ssl=preferred"
    out = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=e.db_env())
    e.check(out.returncode == 0 and "queries:" in out.stdout,
            "preferred against a server without TLS runs plain: exit %d" % out.returncode) or \
        print(out.stdout + out.stderr)


if __name__ == "__main__":
    main()
