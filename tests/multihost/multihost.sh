#!/usr/bin/env bash
# multihost.sh: the multihost suite (issue 5). Builds a rig of network
# namespaces (net.sh, hosts.sh), deploys agents (Ansible from the coordinator
# host over SSH, deploy.sh) and runs the fleet scenarios (scenarios.sh), each
# printing its measured timings.
#
#   multihost.sh BUILD_DIR SOURCE_DIR [SCENARIO...]
#
# SCENARIOs: infra (always first), 1..7, fleet (the playbook phases of
# fleet.sh: fleet-preflight fleet-run fleet-tls fleet-dbdown fleet-tpcc
# fleet-lua fleet-teardown,
# each also alone; teardown last); default all. Environment:
#   MH_DEPLOY=ansible|direct   how agents get deployed (default ansible)
#   MH_ANSIBLE_RERUN=0         skip the second deploy.yml run (idempotence)
#   MH_PREFLIGHT=1             also run ansible/preflight.yml
#   MH_KEEP=1                  leave the rig up on exit (debugging; then run
#                              `multihost.sh --down` to remove it)
# Exits 77 (skip) when not root or `ip netns` is unavailable, 0 when every
# selected scenario passed, 1 otherwise. Teardown (trap) removes every
# namespace, route, process and temporary directory the run made.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=net.sh
. "$here/net.sh"
# shellcheck source=hosts.sh
. "$here/hosts.sh"
# shellcheck source=deploy.sh
. "$here/deploy.sh"
# shellcheck source=scenarios.sh
. "$here/scenarios.sh"
# shellcheck source=fleet.sh
. "$here/fleet.sh"

MH_T0=$(mh_now)

skip() {
    echo "multihost: SKIP: $*"
    exit 77
}

if [ "${1:-}" = --down ]; then
    mh_net_down
    exit 0
fi
[ $# -ge 2 ] || {
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}
MH_BUILD=$(cd "$1" && pwd)
MH_SRC=$(cd "$2" && pwd)
shift 2
MH_SCENARIOS=("$@")
[ ${#MH_SCENARIOS[@]} -gt 0 ] || MH_SCENARIOS=(1 2 3 4 5 7 6 fleet)
# `fleet`: the playbook phases of fleet.sh, in their order (teardown last).
mh_expanded=()
for s in "${MH_SCENARIOS[@]}"; do
    if [ "$s" = fleet ]; then mh_expanded+=("${MH_FLEET_PHASES[@]}"); else mh_expanded+=("$s"); fi
done
MH_SCENARIOS=("${mh_expanded[@]}")
[ "${MH_SCENARIOS[*]}" != infra ] || MH_SCENARIOS=()

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
ip netns list >/dev/null 2>&1 || skip "'ip netns' is unavailable"
for tool in nft sshd ssh-keygen mariadbd mariadb-install-db python3; do
    command -v "$tool" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "$tool" >/dev/null ||
        skip "$tool is not installed (deploy/install-deps installs it)"
done
[ "${MH_DEPLOY:-ansible}" = direct ] || command -v ansible-playbook >/dev/null ||
    skip "ansible-playbook is not installed (deploy/install-deps installs it)"
MH_STAMPEDE="$MH_BUILD/coordinator/stampede"
MH_AGENT_BIN="$MH_BUILD/agent/stampede-agent"
[ -x "$MH_AGENT_BIN" ] || mh_die "no agent binary at $MH_AGENT_BIN"
[ -x "$MH_STAMPEDE" ] || mh_die "no coordinator binary at $MH_STAMPEDE"

# One run at a time: names and addresses are fixed.
mkdir -p "$(dirname "$MH_LOCK")"
exec 9>"$MH_LOCK"
flock -w 600 9 || mh_die "another multihost run holds $MH_LOCK"

MH_B=$(mktemp -d /tmp/smh.XXXXXX)
chmod 755 "$MH_B"
MH_FAILED=()
MH_PASSED=()


cleanup() {
    local rc=$?
    if [ "${MH_KEEP:-0}" = 1 ]; then
        mh_log "MH_KEEP=1: rig left up, work dir $MH_B"
        return
    fi
    mh_log "teardown"
    local t
    t=$(mh_now)
    if [ "$rc" -ne 0 ] || [ ${#MH_FAILED[@]} -gt 0 ]; then
        # Keep what explains the failure where CI keeps its logs.
        local keep="$MH_BUILD/meson-logs/multihost-artifacts"
        rm -rf "$keep"
        mkdir -p "$keep"
        cp -r "$MH_B/runs" "$MH_B/ansible" "$MH_B/results" "$keep/" 2>/dev/null
        rm -f "$keep"/ansible/*.vars.json # they hold the DB password
        rm -rf "$keep/ansible/cp" "$keep/ansible/home" "$keep/ansible/tmp-local"
        for f in "$MH_B"/hosts/*/log/agent.log "$MH_B"/proxy.log "$MH_B"/db/err.log; do
            [ -f "$f" ] && cp "$f" "$keep/$(echo "${f#"$MH_B"/}" | tr / _)"
        done
        mh_log "artifacts of the failed run kept in $keep"
    fi
    mh_db_stop
    mh_net_down
    rm -rf "$MH_B"
    local left
    left=$(ip netns list | grep -c "^$MH_PFX-" || true)
    mh_log "teardown done in $(mh_since "$t") s (namespaces left: $left)"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A killed earlier run may have left its namespaces.
mh_net_down

# mh_phase NAME FUNCTION: run one phase in a fresh `bash -e` (so a failing
# command stops it wherever it is), record pass/fail and its time.
mh_phase() {
    local name=$1 fn=$2 t rc
    mh_log "=== $name"
    t=$(mh_now)
    MH_PHASE_FN=$fn bash -euo pipefail -c '
        . "$MH_HERE/net.sh"; . "$MH_HERE/hosts.sh"; . "$MH_HERE/deploy.sh"
        . "$MH_HERE/scenarios.sh"; . "$MH_HERE/fleet.sh"
        [ ! -f "$MH_B/state" ] || . "$MH_B/state"
        trap "rc=\$?; set +e; mh_phase_cleanup \$rc; exit \$rc" EXIT
        "$MH_PHASE_FN"'
    rc=$?
    if [ $rc -eq 0 ]; then
        MH_PASSED+=("$name")
        mh_log "=== $name: PASS ($(mh_since "$t") s)"
    else
        MH_FAILED+=("$name")
        mh_log "=== $name: FAIL ($(mh_since "$t") s)"
    fi
    return $rc
}
export MH_HERE="$here" MH_B MH_SRC MH_BUILD MH_T0 MH_STAMPEDE MH_AGENT_BIN

mh_phase infra mh_infra_up || {
    mh_log "infrastructure failed: no scenario can run"
    exit 1
}
mh_phase deploy mh_deploy || {
    mh_log "deploy failed: no scenario can run"
    exit 1
}
for s in "${MH_SCENARIOS[@]+"${MH_SCENARIOS[@]}"}"; do
    mh_phase "scenario $s" "mh_scenario_${s//-/_}"
done

echo
echo "multihost summary:"
for line in "$MH_B"/summary.*; do
    [ -f "$line" ] && cat "$line"
done
echo "passed: ${MH_PASSED[*]:-none}"
echo "failed: ${MH_FAILED[*]:-none}"
[ ${#MH_FAILED[@]} -eq 0 ]
