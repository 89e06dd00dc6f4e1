# shellcheck shell=bash
# deploy.sh: put stampede on the rig's hosts. MH_DEPLOY=ansible (default):
# ansible-playbook, run from the coordinator host, deploys the agents over
# SSH with ansible/deploy.yml. MH_DEPLOY=direct: keys, configs and agents
# started here with `ip netns exec` (for debugging the rig without Ansible).
# Either way the coordinator host ends with a secret key and an
# authorized-keys file, recorded in $MH_B/state as MH_COORD_SECRET and
# MH_COORD_AUTH.

mh_deploy() {
    if [ "${MH_DEPLOY:-ansible}" = direct ]; then
        mh_deploy_direct
    else
        mh_deploy_ansible
    fi
}

# mh_agent_start HOST: start HOST's agent directly (direct mode)
mh_agent_start() {
    local h=$1 d="$MH_B/hosts/$1"
    mh_in "$h" unshare --uts -- sh -c "hostname $h && exec setsid '$MH_AGENT_BIN' \
        --config='$d/agent.conf'" </dev/null >>"$d/agent.log" 2>&1 &
    echo $! >"$d/agent.pid"
}

mh_deploy_direct() {
    local t h d
    t=$(mh_now)
    mkdir -p "$MH_B/hosts/coord/keys"
    "$MH_STAMPEDE" keygen "$MH_B/hosts/coord/keys" coordinator >/dev/null
    : >"$MH_B/hosts/coord/authorized_keys"
    for h in "${MH_AGENTS[@]}"; do
        d="$MH_B/hosts/$h"
        mkdir -p "$d/keys"
        "$MH_STAMPEDE" keygen "$d/keys" agent >/dev/null
        echo "$(head -n 1 "$d/keys/agent.pub" | awk '{print $1}') $h" \
            >>"$MH_B/hosts/coord/authorized_keys"
        cat >"$d/agent.conf" <<CONF
coordinator = tcp://${MH_IP[coord]}:$MH_COORD_PORT
coordinator-key = $MH_B/hosts/coord/keys/coordinator.pub
secret-key-file = $d/keys/agent.secret
name = $h
region = $([ "$h" = a1 ] && echo far || echo near)
workers = 1
CONF
        mh_agent_start "$h"
    done
    printf 'MH_COORD_SECRET=%q\nMH_COORD_AUTH=%q\n' "$MH_B/hosts/coord/keys/coordinator.secret" \
        "$MH_B/hosts/coord/authorized_keys" >>"$MH_B/state"
    mh_log "direct deploy: keys, configs, 3 agents started in $(mh_since "$t") s"
}

mh_deploy_ansible() {
    mh_die "ansible deploy: not written yet"
}
