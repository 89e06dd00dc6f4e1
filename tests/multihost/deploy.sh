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
    mkdir -p "$d/run" "$d/log"
    mh_spawn "$h" "$d/run/agent.pid" "$d/log/agent.log" unshare --uts -- sh -c \
        'hostname "$0" && exec "$@"' "$h" "$MH_AGENT_BIN" --config="$d/agent.conf"
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

# A tarball in deploy/package's "tar" layout, made from the build under
# test (so the suite deploys the very binaries CI built, sanitizers and all,
# without a second build): bin/, share/stampede/.
mh_make_tarball() {
    local tree="$MH_B/pkg/tree"
    mkdir -p "$tree/bin" "$tree/share/stampede"
    cp "$MH_STAMPEDE" "$MH_AGENT_BIN" "$tree/bin/"
    cp "$MH_SRC/deploy/stampede-agent.service" "$MH_SRC/deploy/agent.conf.example" \
        "$tree/share/stampede/"
    cp "$MH_SRC/deploy/stampede-agent.init" "$tree/share/stampede/stampede-agent.init"
    echo "multihost-test" >"$tree/share/stampede/VERSION"
    tar -C "$tree" --owner=0 --group=0 --numeric-owner --sort=name \
        -czf "$MH_B/pkg/stampede-test.tar.gz" .
}

# Per-host paths: every "host" shares one filesystem, so each gets its own
# prefix, config, cache, pidfile and log under $MH_B/hosts/HOST.
mh_host_vars() {
    local d="$MH_B/hosts/$1"
    cat <<EOF
          stampede_tarball_prefix: $d/opt
          stampede_conf_dir: $d/etc
          stampede_cache_dir: $d/cache
EOF
}

mh_write_inventory() {
    local a="$MH_B/ansible" h d
    mkdir -p "$a/tmp-local" "$a/cp" "$a/home"
    cat >"$a/ansible.cfg" <<EOF
[defaults]
host_key_checking = False
local_tmp = $a/tmp-local
remote_tmp = $MH_B/ansible-remote-tmp
interpreter_python = /usr/bin/python3
forks = 5
timeout = 10
retry_files_enabled = False
[ssh_connection]
control_path_dir = $a/cp
ssh_args = -o ControlMaster=auto -o ControlPersist=60s -o ServerAliveInterval=2 -o ServerAliveCountMax=3 -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o LogLevel=ERROR
pipelining = True
EOF
    {
        cat <<EOF
all:
  vars:
    ansible_user: root
    ansible_python_interpreter: /usr/bin/python3
    ansible_ssh_private_key_file: $MH_B/ssh/id_ed25519
    stampede_package: $MH_B/pkg/stampede-test.tar.gz
    stampede_user: root
    stampede_group: root
    # Per-host prefixes (tarball), no dpkg: nothing to serialise.
    stampede_install_throttle: 0
    stampede_coordinator_port: $MH_COORD_PORT
    stampede_db_port: $MH_DB_PORT
  children:
    stampede_coordinator:
      hosts:
        coord:
          ansible_host: ${MH_IP[coord]}
          ansible_connection: local
          stampede_run_results_dir: $MH_B/hosts/coord/results
          stampede_run_fetch_dir: $MH_B/results
EOF
        mh_host_vars coord
        cat <<EOF
    stampede_agents:
      vars:
        stampede_agent_workers: 1
        # One shared filesystem: the coordinator host's apt check covers it.
        stampede_runtime_packages: []
        # The rig's CA and client certificate for the TLS run; one
        # directory for all agents (the paths travel in the plan).
        stampede_agent_tls_files: [$MH_B/pki/ca.pem, $MH_B/pki/client-cert.pem, $MH_B/pki/client-key.pem]
        stampede_agent_tls_dir: $MH_B/agent-tls
        stampede_agent_tls_throttle: 1
        # fleet-lua: the agents run the Lua scripts plans carry.
        stampede_agent_allow_scripts: on
      hosts:
EOF
        for h in "${MH_AGENTS[@]}"; do
            d="$MH_B/hosts/$h"
            cat <<EOF
        $h:
          ansible_host: ${MH_IP[$h]}
          stampede_agent_region: $([ "$h" = a1 ] && echo far || echo near)
          stampede_agent_defaults_file: $d/etc/stampede-agent.defaults
          stampede_agent_pidfile: $d/run/agent.pid
          stampede_agent_log_file: $d/log/agent.log
EOF
            mh_host_vars "$h"
        done
        cat <<EOF
    databases:
      hosts:
        db:
          ansible_host: ${MH_IP[db]}
EOF
    } >"$a/inventory.yml"
}

# mh_playbook NAME [ARGS...]: ansible-playbook from the coordinator host;
# output in $MH_B/ansible/NAME.N.log; prints the PLAY RECAP lines.
mh_playbook() {
    local pb=$1 n=1 log
    shift
    while [ -e "$MH_B/ansible/$pb.$n.log" ]; do n=$((n + 1)); done
    log="$MH_B/ansible/$pb.$n.log"
    if ! mh_in coord env ANSIBLE_CONFIG="$MH_B/ansible/ansible.cfg" \
        ANSIBLE_HOME="$MH_B/ansible/home" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 \
        ansible-playbook -i "$MH_B/ansible/inventory.yml" "$MH_SRC/ansible/$pb.yml" "$@" \
        >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        mh_log "ansible-playbook $pb.yml failed (log: $log)" >&2
        return 1
    fi
    sed -n '/PLAY RECAP/,$p' "$log" | grep -E '^[a-z0-9]+ +:'
}

# mh_agent_pid HOST: the pid of HOST's agent (from its pidfile)
mh_agent_pid() { cat "$MH_B/hosts/$1/run/agent.pid" 2>/dev/null; }
mh_agent_running() {
    local pid
    pid=$(mh_agent_pid "$1") && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

mh_deploy_ansible() {
    local t recap changed h d1
    mh_make_tarball
    mh_write_inventory
    t=$(mh_now)
    recap=$(mh_playbook deploy)
    echo "$recap"
    d1=$(mh_since "$t")
    mh_log "ansible deploy.yml (1st run, from smh-coord over SSH) took $d1 s"
    for h in "${MH_AGENTS[@]}"; do
        mh_wait 20 "the agent on $h" mh_agent_running "$h"
        [ "$(ip netns identify "$(mh_agent_pid "$h")")" = "$MH_PFX-$h" ] ||
            mh_die "the agent of $h does not run in namespace $MH_PFX-$h"
    done
    mh_log "agents running, each in its own host namespace"
    if [ "${MH_PREFLIGHT:-0}" = 1 ]; then
        t=$(mh_now)
        mh_playbook preflight
        sed -n '/Preflight summary/,/^TASK\|^PLAY RECAP/p' "$MH_B/ansible/preflight.1.log" || true
        mh_log "ansible preflight.yml took $(mh_since "$t") s"
    fi
    if [ "${MH_ANSIBLE_RERUN:-1}" = 0 ]; then
        mh_summary 1deploy "ansible deploy.yml: $d1 s (second run skipped)"
        mh_save_coord_state
        return 0
    fi
    t=$(mh_now)
    recap=$(mh_playbook deploy)
    echo "$recap"
    changed=$(echo "$recap" | sed -n 's/.*changed=\([0-9]*\).*/\1/p' |
        awk '{s += $1} END {print s + 0}')
    mh_log "ansible deploy.yml (2nd run) took $(mh_since "$t") s, changed=$changed"
    mh_summary 1deploy "ansible deploy.yml: 1st run $d1 s, 2nd run $(mh_since "$t") s" \
        "(changed=$changed)"
    [ "$changed" -eq 0 ] || mh_die "a second deploy.yml run changed $changed things"
    mh_save_coord_state
}

mh_save_coord_state() {
    printf 'MH_COORD_SECRET=%q\nMH_COORD_AUTH=%q\nMH_STAMPEDE=%q\n' \
        "$MH_B/hosts/coord/etc/keys/coordinator.secret" \
        "$MH_B/hosts/coord/etc/keys/authorized_agents" \
        "$MH_B/hosts/coord/opt/bin/stampede" >>"$MH_B/state"
}
