# shellcheck shell=bash
# shellcheck disable=SC2034 # constants used by the files sourced after this one
# net.sh: the multihost rig — network namespaces standing in for hosts on one
# machine (docs/design.md §12). Sourced by multihost.sh; needs root.
#
# Topology (subnet 10.77.0.0/24, which the root namespace routes to
# "unreachable" first, so a command run outside a namespace by mistake fails
# locally instead of leaving the machine):
#
#   smh-sw     switch: bridge br0, one veth per host, an nft table `smh` whose
#              sets cut hosts (`cut`) or host pairs (`cutpair`) silently
#   smh-db     10.77.0.10 sandbox MariaDB (deploy/sandbox-db) on port 3306;
#              10.77.0.11 the delay proxy's address (DB traffic diverted there
#              crosses it)
#   smh-coord  10.77.0.20 coordinator host and Ansible controller
#   smh-a1..3  10.77.0.31..33 agent hosts, each with its own sshd
#
# Every process on the subnet runs inside one of these namespaces; teardown
# kills what `ip netns pids` lists, deletes the veths and namespaces and the
# route. Names and addresses are fixed, so a lock serialises runs and a new
# run first removes what a killed run left.

MH_SUBNET=10.77.0.0/24
MH_PFX=smh
MH_HOSTS=(db coord a1 a2 a3)
MH_AGENTS=(a1 a2 a3)
declare -A MH_IP=([db]=10.77.0.10 [coord]=10.77.0.20 [a1]=10.77.0.31 [a2]=10.77.0.32
    [a3]=10.77.0.33)
MH_PROXY_IP=10.77.0.11
MH_DB_PORT=3306
MH_COORD_PORT=5570
MH_LOCK=/run/lock/stampede-multihost.lock

mh_log() { printf '[%6.1fs] %s\n' "$(mh_elapsed)" "$*"; }
mh_die() {
    mh_log "FAIL: $*"
    exit 1
}
mh_now() { date +%s.%N; }
mh_elapsed() { awk -v a="$MH_T0" -v b="$(mh_now)" 'BEGIN { printf "%.1f", b - a }'; }
# mh_since T: seconds (3 decimals) since the mh_now value T
mh_since() { awk -v a="$1" -v b="$(mh_now)" 'BEGIN { printf "%.3f", b - a }'; }

# mh_wait SECONDS DESCRIPTION CMD...: poll CMD every 0.1 s until it succeeds;
# 0, or 1 after the deadline (with a message).
mh_wait() {
    local limit=$1 what=$2
    shift 2
    local deadline
    deadline=$(awk -v n="$(mh_now)" -v l="$limit" 'BEGIN { printf "%.3f", n + l }')
    while :; do
        "$@" >/dev/null 2>&1 && return 0
        if awk -v n="$(mh_now)" -v d="$deadline" 'BEGIN { exit !(n > d) }'; then
            mh_log "timed out after ${limit}s waiting for $what"
            return 1
        fi
        sleep 0.1
    done
}

mh_ns() { echo "$MH_PFX-$1"; }
# mh_in HOST CMD...: run CMD inside HOST's namespace
mh_in() {
    local h=$1
    shift
    ip netns exec "$MH_PFX-$h" "$@"
}
# mh_spawn HOST PIDFILE OUT CMD...: start CMD as a daemon in HOST's namespace
# (own session, stdin /dev/null, stdout+stderr appended to OUT) and write its
# real pid to PIDFILE (the process writes it itself before exec, so no
# wrapper's pid is recorded). Returns once PIDFILE exists.
mh_spawn() {
    local h=$1 pidfile=$2 out=$3
    shift 3
    rm -f "$pidfile"
    ip netns exec "$MH_PFX-$h" setsid sh -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@" \
        </dev/null >>"$out" 2>&1 &
    mh_wait 10 "$1 to start in $h" test -s "$pidfile"
}
# mh_stop_pidfile PIDFILE: TERM the process, KILL it after 5 s, remove PIDFILE
mh_stop_pidfile() {
    local pid
    pid=$(cat "$1" 2>/dev/null || true)
    rm -f "$1"
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    mh_wait 5 "pid $pid to stop" sh -c "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null
    return 0
}

mh_mac() { printf '02:77:00:00:00:%02x' "${MH_IP[$1]##*.}"; }

# mh_tcp_open HOST ADDR PORT: a TCP connect from HOST's namespace succeeds
mh_tcp_open() {
    mh_in "$1" timeout 3 bash -c "exec 3<>/dev/tcp/$2/$3" 2>/dev/null
}

# Kill every process in our namespaces (TERM, then KILL after 5 s), delete
# veths (so sockets orphaned in a namespace cannot keep it alive) and the
# namespaces, and the route. Safe to call repeatedly and on a partial rig.
mh_net_down() {
    local ns pids dev left
    local all
    all=$(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$MH_PFX-" || true)
    for ns in $all; do
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        [ -z "$pids" ] || kill -TERM $pids 2>/dev/null || true
    done
    for _ in $(seq 50); do
        left=""
        for ns in $all; do
            left="$left$(ip netns pids "$ns" 2>/dev/null || true)"
        done
        [ -z "$left" ] && break
        sleep 0.1
    done
    for ns in $all; do
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
    done
    for ns in $all; do
        for dev in $(ip -n "$ns" -o link show type veth 2>/dev/null |
            awk -F': ' '{print $2}' | cut -d@ -f1); do
            ip -n "$ns" link del "$dev" 2>/dev/null || true
        done
        ip netns del "$ns" 2>/dev/null || true
    done
    ip route del unreachable "$MH_SUBNET" 2>/dev/null || true
}

mh_sw_rules() {
    cat <<EOF
table bridge smh {
    set cut { type ipv4_addr; }
    set cutpair { type ipv4_addr . ipv4_addr; }
    chain forward {
        type filter hook forward priority 0; policy accept;
        ip saddr @cut counter drop
        ip daddr @cut counter drop
        ip saddr . ip daddr @cutpair counter drop
        arp saddr ip @cut drop
        arp daddr ip @cut drop
    }
}
EOF
}

# Build the switch and the hosts. Fails on the first error.
mh_net_up() {
    ip route replace unreachable "$MH_SUBNET"
    ip netns add "$MH_PFX-sw"
    ip -n "$MH_PFX-sw" link set lo up
    ip -n "$MH_PFX-sw" link add br0 type bridge
    ip -n "$MH_PFX-sw" link set br0 up
    local h
    for h in "${MH_HOSTS[@]}"; do
        ip netns add "$MH_PFX-$h"
        ip -n "$MH_PFX-$h" link set lo up
        # Both ends are created in their namespaces: the root namespace never
        # holds an interface on the subnet. Fixed MACs: a re-created host
        # keeps its peers' ARP entries valid.
        ip link add eth0 address "$(mh_mac "$h")" netns "$MH_PFX-$h" type veth \
            peer name "v-$h" netns "$MH_PFX-sw"
        ip -n "$MH_PFX-sw" link set "v-$h" master br0 up
        ip -n "$MH_PFX-$h" addr add "${MH_IP[$h]}/24" dev eth0
        ip -n "$MH_PFX-$h" link set eth0 up
    done
    ip -n "$MH_PFX-db" addr add "$MH_PROXY_IP/24" dev eth0
    mh_sw_rules | ip netns exec "$MH_PFX-sw" nft -f -
}

# Silent partitions in the switch (both directions, packets dropped).
mh_cut_host() { mh_in sw nft add element bridge smh cut "{ ${MH_IP[$1]} }"; }
mh_heal_host() { mh_in sw nft delete element bridge smh cut "{ ${MH_IP[$1]} }"; }
mh_cut_pair() {
    mh_in sw nft add element bridge smh cutpair \
        "{ ${MH_IP[$1]} . ${MH_IP[$2]}, ${MH_IP[$2]} . ${MH_IP[$1]} }"
}
mh_heal_pair() {
    mh_in sw nft delete element bridge smh cutpair \
        "{ ${MH_IP[$1]} . ${MH_IP[$2]}, ${MH_IP[$2]} . ${MH_IP[$1]} }"
}

# Kill every process in a host's namespace at once (a host "dies"; its kernel
# stays, so peers get FIN/RST).
mh_kill_host() {
    local pids
    pids=$(ip netns pids "$MH_PFX-$1" 2>/dev/null || true)
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
}
