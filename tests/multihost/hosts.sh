# shellcheck shell=bash
# hosts.sh: the services of the multihost rig — the DB host's sandbox MariaDB,
# sshd on the agent hosts, the delay proxy, and checks that each is reachable
# from where it should be. Sourced by multihost.sh after net.sh. Uses MH_B
# (the run's private directory), MH_SRC (source tree), MH_BUILD (build tree).

# Root's client on the DB host's Unix socket (works from any namespace: the
# filesystem is shared; no network involved).
mh_sql() { env -u MYSQL_PWD mariadb --no-defaults -S "$MH_B/db/sock" -uroot -N -B "$@"; }

# The DB server listens on 10.77.0.10:3306. deploy/sandbox-db binds it when
# it has --bind-address; otherwise the server listens on 127.0.0.1:3306 of
# the DB namespace and an nft DNAT rule there sends 10.77.0.10:3306 to it
# (route_localnet). DNAT keeps the source address, so the processlist still
# shows each client's own address.
mh_db_up() {
    local dir="$MH_B/db" opts=(--port="$MH_DB_PORT" --max-connections=1000)
    # TLS is served too (certificates made here), for the fleet's TLS run.
    mh_tls_certs
    opts+=(--tls="$MH_B/pki")
    if grep -q -- '--bind-address=\*)' "$MH_SRC/deploy/sandbox-db"; then
        opts+=(--bind-address="${MH_IP[db]}")
        MH_DB_UPSTREAM="${MH_IP[db]}:$MH_DB_PORT"
    else
        MH_DB_UPSTREAM="127.0.0.1:$MH_DB_PORT"
        mh_in db sysctl -qw net.ipv4.conf.all.route_localnet=1 \
            net.ipv4.conf.eth0.route_localnet=1
        mh_in db nft -f - <<EOF
table ip smh_db {
    chain pre {
        type nat hook prerouting priority dstnat; policy accept;
        ip daddr ${MH_IP[db]} tcp dport $MH_DB_PORT dnat to $MH_DB_UPSTREAM
    }
}
EOF
    fi
    SANDBOX_BUFFER_POOL=128M mh_in db "$MH_SRC/deploy/sandbox-db" start "$dir" "${opts[@]}" \
        >"$MH_B/db.start.log" 2>&1 || {
        cat "$MH_B/db.start.log"
        return 1
    }
    MH_DB_PASSWORD=$(cat "$dir/password")
    printf '%q ' "${opts[@]}" >"$MH_B/db.opts"
    # The DB host's TLS-only user: a client certificate signed by the rig's
    # CA is required (REQUIRE X509), so a run without the TLS files fails.
    mh_sql -e "CREATE USER IF NOT EXISTS '$MH_TLS_USER'@'10.77.0.%' IDENTIFIED BY
        '$MH_DB_PASSWORD' REQUIRE X509; GRANT ALL ON *.* TO '$MH_TLS_USER'@'10.77.0.%'"
}

# mh_db_restart: start the DB host's server again with the options of
# mh_db_up (after mh_db_stop; the data directory is kept).
mh_db_restart() {
    local opts
    eval "opts=($(cat "$MH_B/db.opts"))"
    SANDBOX_BUFFER_POOL=128M mh_in db "$MH_SRC/deploy/sandbox-db" start "$MH_B/db" "${opts[@]}" \
        >"$MH_B/db.restart.log" 2>&1 || {
        cat "$MH_B/db.restart.log"
        return 1
    }
}

# A CA, a server certificate for the DB host's address and a client
# certificate, made with openssl in $MH_B/pki (server-*.pem for sandbox-db
# --tls, ca.pem + client-*.pem for the agents).
MH_TLS_USER=fleettls
mh_tls_certs() {
    local d="$MH_B/pki" n
    mkdir -p "$d"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=smh test CA" \
        -keyout "$d/ca-key.pem" -out "$d/ca.pem" 2>/dev/null
    for n in server client; do
        openssl req -newkey rsa:2048 -nodes -subj "/CN=smh $n" -keyout "$d/$n-key.pem" \
            -out "$d/$n.csr" 2>/dev/null
        if [ $n = server ]; then
            echo "subjectAltName=IP:${MH_IP[db]}" >"$d/$n.ext"
        else
            echo "basicConstraints=CA:FALSE" >"$d/$n.ext"
        fi
        openssl x509 -req -in "$d/$n.csr" -CA "$d/ca.pem" -CAkey "$d/ca-key.pem" \
            -CAcreateserial -days 2 -extfile "$d/$n.ext" -out "$d/$n-cert.pem" 2>/dev/null
    done
    chmod 644 "$d"/*.pem
}

mh_db_stop() {
    [ -d "$MH_B/db" ] && "$MH_SRC/deploy/sandbox-db" stop "$MH_B/db" >/dev/null 2>&1 || true
}

# mh_db_login HOST: sbtest logs in over TCP from HOST; prints USER()
mh_db_login() {
    MYSQL_PWD=$MH_DB_PASSWORD mh_in "$1" mariadb --no-defaults -h "${2:-${MH_IP[db]}}" \
        -P "$MH_DB_PORT" -u sbtest --connect-timeout=5 -N -B -e 'SELECT USER()'
}

# Client connections of user sbtest per client address, "ADDR COUNT" lines.
# SHOW PROCESSLIST, not a SELECT on information_schema: a SELECT would count
# in the server's Com_select, which the coordinator's cross-check compares.
mh_db_clients() {
    mh_sql -e 'SHOW PROCESSLIST' | awk -F'\t' '$2 == "sbtest" { split($3, h, ":"); n[h[1]]++ }
        END { for (a in n) print a, n[a] }' | sort
}
# mh_db_conns_from ADDR: how many sbtest connections come from ADDR
mh_db_conns_from() {
    mh_sql -e 'SHOW PROCESSLIST' | awk -F'\t' -v a="$1" '$2 == "sbtest" && index($3, a ":") == 1 { n++ }
        END { print n + 0 }'
}
mh_db_status() { mh_sql -e "SHOW GLOBAL STATUS LIKE '$1'" | awk '{print $2}'; }

# sshd on every agent host, key-only root login with a throwaway key, a
# private config and host key per host, its own hostname (UTS namespace).
mh_sshd_up() {
    local s="$MH_B/ssh" h
    mkdir -p "$s" /run/sshd
    chmod 700 "$s"
    ssh-keygen -q -t ed25519 -N '' -C smh-client -f "$s/id_ed25519"
    cp "$s/id_ed25519.pub" "$s/authorized_keys"
    chmod 600 "$s/authorized_keys"
    for h in "${MH_AGENTS[@]}"; do
        ssh-keygen -q -t ed25519 -N '' -C "smh-$h" -f "$s/hostkey_$h"
        # StrictModes no: the files live under /tmp (mode 1777).
        cat >"$s/sshd_config.$h" <<EOF
ListenAddress ${MH_IP[$h]}
Port 22
HostKey $s/hostkey_$h
PidFile $s/sshd.$h.pid
PermitRootLogin prohibit-password
PubkeyAuthentication yes
AuthorizedKeysFile $s/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
StrictModes no
PrintMotd no
MaxStartups 50:30:100
ClientAliveInterval 5
ClientAliveCountMax 2
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
        /usr/sbin/sshd -t -f "$s/sshd_config.$h"
        mh_sshd_start "$h"
    done
    for h in "${MH_AGENTS[@]}"; do
        mh_wait 20 "sshd on $h" mh_tcp_open coord "${MH_IP[$h]}" 22 || return 1
    done
}

# mh_sshd_start HOST: start HOST's sshd (config from mh_sshd_up), e.g. again
# after the host was killed
mh_sshd_start() {
    local s="$MH_B/ssh" h=$1
    mh_in "$h" unshare --uts -- sh -c \
        "hostname $h && exec /usr/sbin/sshd -f '$s/sshd_config.$h' -E '$s/sshd.$h.log'"
}

mh_ssh_opts() {
    echo "-i $MH_B/ssh/id_ed25519 -o BatchMode=yes -o UserKnownHostsFile=/dev/null" \
        "-o StrictHostKeyChecking=no -o LogLevel=ERROR -o ConnectTimeout=5"
}
# mh_ssh HOST CMD: run CMD on an agent host over SSH from the coordinator host
mh_ssh() {
    local h=$1
    shift
    # shellcheck disable=SC2046
    mh_in coord ssh $(mh_ssh_opts) "root@${MH_IP[$h]}" "$@"
}

# mh_proxy_start DELAY_MS [LISTEN_PORT [UPSTREAM]]: the delay proxy on the DB
# host, listening on 10.77.0.11:LISTEN_PORT (default 3306), forwarding to
# UPSTREAM (default the DB server) with DELAY_MS each way. Its pid is kept in
# $MH_B/proxy.pid (phases run as separate processes).
mh_proxy_start() {
    local port=${2:-$MH_DB_PORT} up=${3:-$MH_DB_UPSTREAM}
    mh_proxy_stop
    : >"$MH_B/proxy.out"
    mh_spawn db "$MH_B/proxy.pid" "$MH_B/proxy.log" sh -c 'exec "$@" >"$0"' "$MH_B/proxy.out" \
        "$MH_BUILD/tests/multihost/delayproxy" --listen="$MH_PROXY_IP:$port" --connect="$up" \
        --delay-ms="$1"
    mh_wait 10 "the delay proxy" grep -q 'listening on' "$MH_B/proxy.out"
}
mh_proxy_stop() { mh_stop_pidfile "$MH_B/proxy.pid"; }

# mh_divert HOST on|off: send HOST's DB connections (10.77.0.10:3306) to the
# delay proxy's address instead (nft DNAT in HOST's own namespace). Affects
# new connections only.
mh_divert() {
    local h=$1
    mh_in "$h" nft delete table ip smh_divert 2>/dev/null || true
    [ "$2" = on ] || return 0
    mh_in "$h" nft -f - <<EOF
table ip smh_divert {
    chain out {
        type nat hook output priority -100; policy accept;
        ip daddr ${MH_IP[db]} tcp dport $MH_DB_PORT dnat to $MH_PROXY_IP:$MH_DB_PORT
    }
}
EOF
}

# mh_summary KEY TEXT: one line of the final summary
mh_summary() { echo "  ${*:2}" >"$MH_B/summary.$1"; }

# The infrastructure phase: network, DB, sshd, and checks of each, timed.
mh_infra_up() {
    local t h
    t=$(mh_now)
    mh_net_up
    mh_log "network: 6 namespaces, bridge, switch filter in $(mh_since "$t") s"
    # The safety route: the root namespace cannot reach the subnet.
    if timeout 3 bash -c "exec 3<>/dev/tcp/${MH_IP[db]}/$MH_DB_PORT" 2>/dev/null; then
        mh_die "the root namespace reached ${MH_IP[db]}: the unreachable route is missing"
    fi
    t=$(mh_now)
    mh_db_up
    printf 'MH_DB_PASSWORD=%q\nMH_DB_UPSTREAM=%q\n' "$MH_DB_PASSWORD" "$MH_DB_UPSTREAM" \
        >"$MH_B/state"
    mh_log "MariaDB up on ${MH_IP[db]}:$MH_DB_PORT (server socket $MH_DB_UPSTREAM) in" \
        "$(mh_since "$t") s"
    for h in coord "${MH_AGENTS[@]}"; do
        local who
        who=$(mh_db_login "$h")
        [ "$who" = "sbtest@${MH_IP[$h]}" ] || mh_die "DB login from $h gave '$who'"
    done
    mh_log "sbtest logs in over TCP from coord, a1, a2, a3 (USER() shows each address)"
    t=$(mh_now)
    mh_sshd_up
    for h in "${MH_AGENTS[@]}"; do
        local name
        name=$(mh_ssh "$h" hostname)
        [ "$name" = "$h" ] || mh_die "ssh to $h landed on '$name'"
    done
    mh_log "sshd on a1..a3, key login from coord checked, in $(mh_since "$t") s"
    mh_proxy_rtt_check
}

# The delay proxy between namespaces: an echo server on the DB host, RTT from
# a1 direct and through the proxy (20 ms each way).
mh_proxy_rtt_check() {
    local direct via
    mh_spawn db "$MH_B/echo.pid" "$MH_B/echo.out" python3 "$MH_HERE/mhtool.py" echo \
        "${MH_IP[db]}" 7777
    mh_wait 10 "the echo server" grep -q ready "$MH_B/echo.out"
    mh_proxy_start 20 7777 "${MH_IP[db]}:7777"
    direct=$(mh_in a1 python3 "$MH_HERE/mhtool.py" rtt "${MH_IP[db]}" 7777 20 | tail -n 1)
    via=$(mh_in a1 python3 "$MH_HERE/mhtool.py" rtt "$MH_PROXY_IP" 7777 20 | tail -n 1)
    mh_proxy_stop
    mh_stop_pidfile "$MH_B/echo.pid"
    mh_log "delay proxy (20 ms each way): RTT a1->db direct $direct ms, through the proxy" \
        "$via ms"
    mh_summary 0proxy "delay proxy 20 ms/way: RTT direct $direct ms, via proxy $via ms"
    awk -v d="$direct" -v v="$via" 'BEGIN { exit !(v - d >= 39 && v - d <= 60) }' ||
        mh_die "the proxy added $via - $direct ms, not about 40"
}
