# shellcheck shell=bash
# shellcheck disable=SC2034 # MH_FLEET_PHASES is used by multihost.sh
# fleet.sh: an SRE's day with the playbooks, end to end, over real SSH from
# the coordinator host (issue 16). Phases of multihost.sh, in this order
# (`fleet` selects all seven; teardown must come last):
#
#   fleet-preflight  preflight.yml with two bad hosts (a2: no route to the
#                    database; a3: its agent's open-file limit 256) fails and
#                    names both; fixed, it passes with a row per agent
#   fleet-run        run.yml: oltp_read_write over the three agents, results
#                    fetched to results/ID/, the JSON checked against the
#                    server's counters, the CSV and latency log against the
#                    JSON, the coordinator's --prometheus endpoint scraped by
#                    a real Prometheus on another host
#   fleet-tls        run.yml with prepare,run as the TLS-only user (REQUIRE
#                    X509) with the CA/cert/key deploy.yml put on the agents
#   fleet-dbdown     run.yml with the database stopped: the play fails with
#                    stampede's own reason; the report is still fetched
#   fleet-tpcc       run.yml: tpcc prepare,run,check over the three agents
#                    (3 warehouses); the JSON's New-Order commits against the
#                    server's sum(d_next_o_id) growth, its server cross-check,
#                    all three agents working, check passing
#   fleet-lua        run.yml with stampede_run_script: a small Lua point-select
#                    script (the agents allow scripts: the inventory's
#                    stampede_agent_allow_scripts); its statements against the
#                    server's Com_stmt_execute delta; no script file lands on
#                    an agent host (it travels in the PLAN)
#   fleet-teardown   teardown.yml: agents stopped, binaries, keys, TLS files
#                    and package copy gone, the DB keeps its data, the
#                    coordinator host keeps its own; a second run changes
#                    nothing

MH_FLEET_PHASES=(fleet-preflight fleet-run fleet-tls fleet-dbdown fleet-tpcc fleet-lua fleet-teardown)
MH_PROM_PORT=9464
MH_PROM_HOST=a1 # the "monitoring host": a real Prometheus scrapes the coordinator

# mh_fleet_pb NAME PLAYBOOK [ARGS...]: ansible-playbook PLAYBOOK.yml from the
# coordinator host, log in $MH_B/ansible/fleet-NAME.log; prints the recap
# and the time taken (also kept in fleet-NAME.secs); returns its status.
mh_fleet_pb() {
    local name=$1 pb=$2 log="$MH_B/ansible/fleet-$1.log" t rc=0
    shift 2
    t=$(mh_now)
    mh_in coord env ANSIBLE_CONFIG="$MH_B/ansible/ansible.cfg" \
        ANSIBLE_HOME="$MH_B/ansible/home" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 \
        ansible-playbook -i "$MH_B/ansible/inventory.yml" "$MH_SRC/ansible/$pb.yml" "$@" \
        >"$log" 2>&1 || rc=$?
    mh_since "$t" >"$MH_B/ansible/fleet-$name.secs"
    sed -n '/PLAY RECAP/,$p' "$log" | grep -E '^[a-z0-9]+ +:' || true
    mh_log "ansible-playbook $pb.yml ($name): exit $rc in $(cat "$MH_B/ansible/fleet-$name.secs") s"
    return $rc
}
mh_fleet_log() { echo "$MH_B/ansible/fleet-$1.log"; }
mh_fleet_secs() { cat "$MH_B/ansible/fleet-$1.secs"; }
# mh_fleet_changed NAME: the sum of changed= over the recap
mh_fleet_changed() {
    sed -n '/PLAY RECAP/,$p' "$(mh_fleet_log "$1")" | sed -n 's/.*changed=\([0-9]*\).*/\1/p' |
        awk '{s += $1} END {print s + 0}'
}
# mh_fleet_vars NAME: write the JSON extra vars from stdin to a 0600 file
# (it may hold the DB password) and print its path
mh_fleet_vars() {
    local f="$MH_B/ansible/fleet-$1.vars.json"
    (
        umask 077
        cat >"$f"
    )
    echo "$f"
}
# mh_fj FILE EXPR: a value of a fetched JSON file (EXPR over `j`)
mh_fj() { python3 "$MH_HERE/mhtool.py" json "$1" "$2"; }
# mh_fleet_table LOG: the preflight table lines of a preflight.yml log
mh_fleet_table() {
    sed -n '/TASK \[Preflight summary\]/,/^TASK \[\|^PLAY RECAP/p' "$1" | grep '^ *"' |
        sed 's/^ *"//; s/",\{0,1\}$//'
}

# A host scenario 6 killed (sshd and agent) comes back: sshd restarted,
# deploy.yml for that host only starts its agent again.
mh_fleet_revive() {
    local h dead=()
    for h in "${MH_AGENTS[@]}"; do
        if ! mh_tcp_open coord "${MH_IP[$h]}" 22; then
            mh_sshd_start "$h"
            mh_wait 20 "sshd on $h" mh_tcp_open coord "${MH_IP[$h]}" 22
        fi
        mh_agent_running "$h" || dead+=("$h")
    done
    [ ${#dead[@]} -gt 0 ] || return 0
    local IFS=,
    mh_fleet_pb "revive-${dead[*]}" deploy --limit "${dead[*]}" ||
        mh_die "deploy.yml could not bring back ${dead[*]} (log: $(mh_fleet_log "revive-${dead[*]}"))"
    for h in "${dead[@]}"; do mh_wait 20 "the agent on $h" mh_agent_running "$h"; done
    mh_log "revived ${dead[*]} (sshd restarted, deploy.yml --limit ${dead[*]})"
}

mh_scenario_fleet_preflight() {
    mh_fleet_revive
    local pid lim rc=0 log h row
    # Two bad hosts: a2 cannot reach the database, a3's running agent may
    # open only 256 files (preflight checks the agent's own limit).
    mh_in a2 ip route add unreachable "${MH_IP[db]}/32"
    pid=$(mh_agent_pid a3)
    # The soft limit only: raising a hard limit again needs CAP_SYS_RESOURCE.
    lim=$(prlimit --pid "$pid" --nofile --output SOFT --noheadings | tr -d ' ')
    prlimit --pid "$pid" --nofile=256:
    mh_fleet_pb preflight-bad preflight -e stampede_preflight_connections=1000 || rc=$?
    mh_in a2 ip route del unreachable "${MH_IP[db]}/32"
    prlimit --pid "$pid" --nofile="$lim:"
    log=$(mh_fleet_log preflight-bad)
    mh_fleet_table "$log" | sed 's/^/    /'
    mh_check "preflight.yml fails with the two bad hosts (exit $rc)" [ "$rc" -ne 0 ]
    mh_check "it names a2 and its unreachable database" \
        grep -q "HARD  a2: cannot reach the database ${MH_IP[db]}:$MH_DB_PORT" "$log"
    mh_check "it names a3 and its open-file limit" \
        grep -q "HARD  a3: open-file limit 256 < 1000 connections" "$log"
    mh_check "a1 has no hard problem" sh -c "! grep -q 'HARD  a1:' '$log'"
    mh_check "the play fails with the count of problems" grep -q "fatal: .*2 hard problem(s)" "$log"
    rc=0
    mh_fleet_pb preflight-good preflight -e stampede_preflight_connections=1000 || rc=$?
    log=$(mh_fleet_log preflight-good)
    mh_fleet_table "$log" | sed 's/^/    /'
    mh_check "fixed, preflight.yml passes (exit $rc)" [ "$rc" -eq 0 ]
    mh_check "... with no hard problems" grep -q '"no hard problems"' "$log"
    for h in "${MH_AGENTS[@]}"; do
        row=$(mh_fleet_table "$log" | awk -v h="$h" '$1 == h')
        mh_check "the table has a measured row for $h: '$row'" awk -v r="$row" 'BEGIN {
            n = split(r, f, / +/)
            exit !(n >= 9 && f[2] ~ /^[+-][0-9.]+\+-[0-9.]+$/ && f[3] + 0 >= 1064 &&
                   f[6] ~ /^[0-9.]+$/ && f[7] == "ok" && f[8] == "pid" && f[9] ~ /^[0-9]+$/) }'
    done
    mh_summary u1 "fleet preflight: bad a2 (db route) + a3 (nofile 256) named, exit non-zero in" \
        "$(mh_fleet_secs preflight-bad) s; fixed, clean in $(mh_fleet_secs preflight-good) s"
}

# A real Prometheus on the monitoring host, scraping the coordinator's
# --prometheus endpoint every second.
mh_fleet_prom_start() {
    local d="$MH_B/prom"
    mkdir -p "$d"
    cat >"$d/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: stampede
    static_configs:
      - targets: ['${MH_IP[coord]}:$MH_PROM_PORT']
EOF
    mh_spawn "$MH_PROM_HOST" "$MH_B/prom.pid" "$d/prometheus.log" prometheus \
        --config.file="$d/prometheus.yml" --storage.tsdb.path="$d/db" \
        --web.listen-address="${MH_IP[$MH_PROM_HOST]}:9090" --log.level=warn
    mh_in "$MH_PROM_HOST" python3 "$MH_HERE/mhtool.py" promready "http://${MH_IP[$MH_PROM_HOST]}:9090"
}
mh_fleet_prom() {
    mh_in "$MH_PROM_HOST" python3 "$MH_HERE/mhtool.py" promquery \
        "http://${MH_IP[$MH_PROM_HOST]}:9090" "$1"
}

mh_scenario_fleet_run() {
    mh_fleet_revive
    mh_ensure_tables
    local v r="$MH_B/results/fleet-rw" s0 s1 rc=0 f total tx ptx pag ag rows
    mh_fleet_prom_start
    v=$(mh_fleet_vars run <<EOF
{"stampede_run_db_password": "$MH_DB_PASSWORD", "stampede_run_id": "fleet-rw",
 "stampede_run_workload": "oltp_read_write", "stampede_run_commands": ["run"],
 "stampede_run_options": ["--tables=$MH_TABLES", "--table-size=$MH_TABLE_SIZE", "--threads=6",
                          "--time=5", "--report-interval=1"],
 "stampede_run_prometheus": "${MH_IP[coord]}:$MH_PROM_PORT", "stampede_run_prometheus_linger": 4}
EOF
    )
    s0=$(mh_stmt_count)
    mh_fleet_pb run run -e "@$v" || rc=$?
    s1=$(mh_stmt_count)
    mh_check "run.yml succeeds (exit $rc)" [ "$rc" -eq 0 ]
    for f in report.txt result.json intervals.csv latency.hlog; do
        mh_check "fetched to the control machine: results/fleet-rw/$f ($(wc -c <"$r/$f" 2>/dev/null) bytes)" \
            [ -s "$r/$f" ]
    done
    sed -n '/^SQL statistics/,/^ *transactions:/p' "$r/report.txt" | sed 's/^/    /'
    mh_check "report.txt is stampede's report" grep -q '^SQL statistics' "$r/report.txt"
    # Every statement the server executed: the successful ones and those
    # that failed with an ignored error (a deadlock, the transaction retried).
    total=$(mh_fj "$r/result.json" "j['totals']['queries']['total'] + j['totals']['ignored_errors']")
    mh_log "statements: fetched JSON $total (queries + ignored errors" \
        "$(mh_fj "$r/result.json" "j['totals']['ignored_errors']")), server Com_stmt_execute" \
        "delta $((s1 - s0))"
    mh_check "the fetched JSON's statements equal the server's counter" [ "$total" -eq $((s1 - s0)) ]
    mh_check "the coordinator's own server cross-check matches" \
        [ "$(mh_fj "$r/result.json" "j['server']['match']")" = True ]
    ag=$(mh_fj "$r/result.json" "' '.join(sorted(a['name'] for a in j['agents'] if a['transactions'] > 0))")
    mh_check "all three agents did work ($ag)" [ "$ag" = "a1 a2 a3" ]
    python3 "$MH_HERE/mhtool.py" hdrcheck "$r/result.json" "$r/latency.hlog"
    rows=$(python3 - "$r/intervals.csv" "$r/result.json" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
j = json.load(open(sys.argv[2]))
want = [float(i["t_s"]) for i in j["intervals"]]
got = [float(r["t_s"]) for r in rows]
print(len(got), "rows", "match" if got == want else "DIFFER from the JSON's %s" % want)
EOF
    )
    mh_check "intervals.csv has the JSON's intervals ($rows)" [ "${rows##* }" = match ]
    # The last scrape (the endpoint lingers 4 s after the final report).
    tx=$(mh_fj "$r/result.json" "j['totals']['transactions']")
    ptx=$(mh_fleet_prom 'last_over_time(stampede_transactions_total[10m])' | awk '{print $NF}')
    pag=$(mh_fleet_prom 'last_over_time(stampede_agent_transactions_total[10m])' |
        sed 's/.*"agent": "\([^"]*\)".* \([0-9]*\)$/\1=\2/' | sort | tr '\n' ' ')
    mh_log "Prometheus on $MH_PROM_HOST: stampede_transactions_total $ptx (JSON $tx); per agent $pag" \
        "(JSON $(mh_fj "$r/result.json" "' '.join('%s=%d' % (a['name'], a['transactions']) for a in sorted(j['agents'], key=lambda a: a['name']))"))"
    mh_check "Prometheus scraped the run's final transaction count" [ "${ptx:-none}" = "$tx" ]
    mh_check "... and each agent's" [ "$pag" = "$(mh_fj "$r/result.json" \
        "''.join('%s=%d ' % (a['name'], a['transactions']) for a in sorted(j['agents'], key=lambda a: a['name']))")" ]
    mh_stop_pidfile "$MH_B/prom.pid"
    mh_summary u2 "fleet run.yml oltp_read_write: $(mh_fleet_secs run) s; fetched JSON statements" \
        "$total = server $((s1 - s0)); Prometheus final transactions $ptx = JSON $tx"
}

mh_scenario_fleet_tls() {
    mh_fleet_revive
    local v r="$MH_B/results/fleet-tls" tls="$MH_B/agent-tls" a0 a1 rc=0 ag n threads=6
    mh_sql -e "CREATE DATABASE IF NOT EXISTS fleet_tls"
    v=$(mh_fleet_vars tls <<EOF
{"stampede_run_db_password": "$MH_DB_PASSWORD", "stampede_run_id": "fleet-tls",
 "stampede_run_db_user": "$MH_TLS_USER", "stampede_run_db_name": "fleet_tls",
 "stampede_run_workload": "oltp_read_write", "stampede_run_commands": "prepare,run",
 "stampede_run_options": ["--tables=2", "--table-size=1000", "--threads=$threads", "--time=4"],
 "stampede_run_mysql_ssl": "verify_identity", "stampede_run_mysql_ssl_ca": "$tls/ca.pem",
 "stampede_run_mysql_ssl_cert": "$tls/client-cert.pem", "stampede_run_mysql_ssl_key": "$tls/client-key.pem"}
EOF
    )
    a0=$(mh_db_status Ssl_accepts)
    mh_fleet_pb tls run -e "@$v" || rc=$?
    a1=$(mh_db_status Ssl_accepts)
    mh_check "run.yml prepare,run over TLS as the TLS-only user succeeds (exit $rc)" [ "$rc" -eq 0 ]
    mh_check "each command's results are fetched (prepare/, run/)" \
        test -s "$r/prepare/report.txt" -a -s "$r/run/result.json" -a -s "$r/run/latency.hlog"
    n=$(mh_sql -e "SELECT COUNT(*) FROM fleet_tls.sbtest2")
    mh_check "prepare made the tables (fleet_tls.sbtest2: $n rows)" [ "$n" -eq 1000 ]
    ag=$(mh_fj "$r/run/result.json" "' '.join(sorted(a['name'] for a in j['agents'] if a['transactions'] > 0))")
    mh_check "all three agents did work ($ag)" [ "$ag" = "a1 a2 a3" ]
    mh_log "TLS handshakes at the server (Ssl_accepts) during the play: $((a1 - a0)); the run's" \
        "connections: $threads threads + 3 agent probes"
    mh_check "the server accepted at least the run's connections over TLS" [ $((a1 - a0)) -ge $((threads + 3)) ]
    mh_summary u3 "fleet run.yml TLS (verify_identity, REQUIRE X509 user) prepare+run:" \
        "$(mh_fleet_secs tls) s, $((a1 - a0)) TLS handshakes, $(mh_fj "$r/run/result.json" \
            "j['totals']['transactions']") transactions"
}

mh_scenario_fleet_dbdown() {
    mh_fleet_revive
    local v r="$MH_B/results/fleet-down" rc=0 log why
    v=$(mh_fleet_vars down <<EOF
{"stampede_run_db_password": "$MH_DB_PASSWORD", "stampede_run_id": "fleet-down",
 "stampede_run_commands": ["run"], "stampede_run_workload": "oltp_point_select",
 "stampede_run_options": ["--tables=$MH_TABLES", "--table-size=$MH_TABLE_SIZE", "--threads=3", "--time=3"]}
EOF
    )
    mh_db_stop
    mh_fleet_pb down run -e "@$v" || rc=$?
    mh_db_restart
    log=$(mh_fleet_log down)
    why=$(grep -m1 -o 'stampede exited .*' "$log" | cut -c1-400 || true)
    mh_log "the play's failure: $why"
    mh_check "run.yml fails with the database down (exit $rc)" [ "$rc" -ne 0 ]
    mh_check "the failure carries stampede's own message about the database" \
        sh -c "grep -q 'fatal: .*stampede exited 1 (run failed): .*stampede: .*${MH_IP[db]}' '$log'"
    mh_check "not a bare 'non-zero return code'" sh -c "! grep -q 'non-zero return code' '$log'"
    mh_check "the report is fetched all the same (results/fleet-down/report.txt)" [ -s "$r/report.txt" ]
    mh_check "the database is back" [ "$(mh_sql -e 'SELECT 1')" = 1 ]
    mh_summary u4 "fleet run.yml, database down: play fails in $(mh_fleet_secs down) s with: ${why:0:160}"
}

# A TPC-C day: prepare (each agent loads its warehouse), run, check, one
# play. The server's side of New-Order: sum(d_next_o_id) grows by one per
# committed New-Order; prepare leaves it at ORD_PER_DIST + 1 = 3001 in each
# of the DIST_PER_WARE = 10 districts of a warehouse (tpcc_load,
# docs/design.md §13.2), which the play's check also holds it to.
MH_TPCC_W=3
mh_scenario_fleet_tpcc() {
    mh_fleet_revive
    local v r="$MH_B/results/fleet-tpcc" rc=0 c cmd no rb commits dsum grow ag sc
    mh_sql -e "DROP DATABASE IF EXISTS fleet_tpcc; CREATE DATABASE fleet_tpcc;
        GRANT ALL ON fleet_tpcc.* TO 'sbtest'@'%'"
    v=$(mh_fleet_vars tpcc <<EOF
{"stampede_run_db_password": "$MH_DB_PASSWORD", "stampede_run_id": "fleet-tpcc",
 "stampede_run_workload": "tpcc", "stampede_run_commands": "prepare,run,check",
 "stampede_run_db_name": "fleet_tpcc",
 "stampede_run_options": ["--warehouses=$MH_TPCC_W", "--threads=3", "--time=5", "--warmup-time=1",
                          "--report-interval=1"]}
EOF
    )
    c=$(mh_db_status Com_commit)
    mh_fleet_pb tpcc run -e "@$v" || rc=$?
    mh_check "run.yml tpcc prepare,run,check succeeds (exit $rc; check exited 0 or the play fails)" \
        [ "$rc" -eq 0 ]
    for cmd in prepare run check; do
        mh_check "results/fleet-tpcc/$cmd/ fetched (report.txt $(wc -c <"$r/$cmd/report.txt" 2>/dev/null) bytes)" \
            test -s "$r/$cmd/report.txt" -a -s "$r/$cmd/result.json"
    done
    grep -E '^ *\[[0-4]\] sc:|TpmC|whole run|server cross-check' "$r/run/report.txt" | sed 's/^/    /'
    no=$(mh_fj "$r/run/result.json" "j['totals']['kinds']['new_order']['count']")
    rb=$(mh_fj "$r/run/result.json" "j['totals']['kinds']['rollback']['count']")
    commits=$((no - rb))
    dsum=$(mh_sql -e "SELECT SUM(d_next_o_id), COUNT(*) FROM fleet_tpcc.district")
    grow=$((${dsum%%[[:space:]]*} - 3001 * ${dsum##*[[:space:]]}))
    mh_log "New-Order: JSON $no sent, $rb rolled back on purpose, $commits committed;" \
        "server sum(d_next_o_id) grew by $grow over ${dsum##*[[:space:]]} districts"
    mh_check "the loaded districts ($((10 * MH_TPCC_W)))" [ "${dsum##*[[:space:]]}" -eq $((10 * MH_TPCC_W)) ]
    mh_check "New-Order commits in the JSON equal the server's d_next_o_id growth" \
        [ "$commits" -gt 0 -a "$commits" -eq "$grow" ]
    sc=$(mh_fj "$r/run/result.json" "'%s %s client=%s server=%s' % tuple(j['tpcc']['server_check'][k] for k in ('checked', 'match', 'client', 'server'))")
    mh_log "the run's server cross-check (checked, match, commit+rollback statements): $sc"
    mh_check "the JSON's tpcc server_check was made and matches" [ "${sc%% client=*}" = "True True" ]
    ag=$(mh_fj "$r/run/result.json" "' '.join(sorted(a['name'] for a in j['tpcc']['agents'] if a['transactions']['new_order']['sc'] + a['transactions']['new_order']['lt'] > 0))")
    mh_check "all three agents ran New-Orders in the window ($ag)" [ "$ag" = "a1 a2 a3" ]
    mh_check "prepare loaded over the three agents" \
        grep -q "^load: warehouses 1..$MH_TPCC_W (.*) over 3 agent(s)" "$r/prepare/report.txt"
    mh_check "check (exit 0, or the play fails) checked every warehouse over the three agents" \
        grep -q "^Checking TPC-C consistency conditions 1-4 for warehouses 1..$MH_TPCC_W over 3 agent(s)" \
        "$r/check/report.txt"
    mh_summary u5 "fleet run.yml tpcc prepare,run,check ($MH_TPCC_W warehouses): $(mh_fleet_secs tpcc) s;" \
        "New-Order commits $commits = server d_next_o_id growth $grow;" \
        "TpmC $(mh_fj "$r/run/result.json" "j['tpcc']['tpmC']"); Com_commit delta $(($(mh_db_status Com_commit) - c))"
}

# A Lua workload through run.yml: the script exists only on the control
# machine (and the coordinator host run.yml copies it to); the agents get
# it in the PLAN (allow-scripts = on from the inventory). JSON and CSV
# are what the step checks (e2e_lua covers a Lua run's HdrHistogram log).
mh_scenario_fleet_lua() {
    mh_fleet_revive
    mh_ensure_tables
    local v r="$MH_B/results/fleet-lua" d="$MH_B/lua" rc=0 s0 s1 sel0 sel1 total ag h left
    mkdir -p "$d"
    cat >"$d/fleet_point.lua" <<'EOF'
-- fleet_point.lua: one prepared point select per event (multihost fleet-lua)
sysbench.cmdline.options = {
    tables = {"Number of tables", 1},
    table_size = {"Rows per table", 10000},
}
function thread_init()
    drv = sysbench.sql.driver()
    con = drv:connect()
    stmt = {}
    param = {}
    for t = 1, sysbench.opt.tables do
        stmt[t] = con:prepare(string.format("SELECT c FROM sbtest%d WHERE id=?", t))
        param[t] = stmt[t]:bind_create(sysbench.sql.type.INT)
        stmt[t]:bind_param(param[t])
    end
end
function event()
    local t = sysbench.rand.uniform(1, sysbench.opt.tables)
    param[t]:set(sysbench.rand.uniform(1, sysbench.opt.table_size))
    stmt[t]:execute()
end
function thread_done()
    con:disconnect()
end
EOF
    v=$(mh_fleet_vars lua <<EOF
{"stampede_run_db_password": "$MH_DB_PASSWORD", "stampede_run_id": "fleet-lua",
 "stampede_run_script": "$d/fleet_point.lua", "stampede_run_commands": ["run"],
 "stampede_run_outputs": ["json", "csv"],
 "stampede_run_options": ["--tables=$MH_TABLES", "--table-size=$MH_TABLE_SIZE", "--threads=3", "--time=3"]}
EOF
    )
    s0=$(mh_stmt_count)
    sel0=$(mh_db_status Com_select)
    mh_fleet_pb lua run -e "@$v" || rc=$?
    s1=$(mh_stmt_count)
    sel1=$(mh_db_status Com_select)
    mh_check "run.yml with a Lua script succeeds (exit $rc)" [ "$rc" -eq 0 ]
    mh_check "results/fleet-lua/ fetched" test -s "$r/report.txt" -a -s "$r/result.json"
    total=$(mh_fj "$r/result.json" "j['totals']['queries']['total'] + j['totals']['ignored_errors']")
    mh_log "Lua statements: JSON $total, server Com_stmt_execute delta $((s1 - s0)), Com_select delta" \
        "$((sel1 - sel0))"
    mh_check "the JSON's statements equal the server's Com_stmt_execute delta" \
        [ "$total" -gt 0 -a "$total" -eq $((s1 - s0)) ]
    mh_check "... and were selects (Com_select delta >= $total)" [ $((sel1 - sel0)) -ge "$total" ]
    ag=$(mh_fj "$r/result.json" "' '.join(sorted(a['name'] for a in j['agents'] if a['transactions'] > 0))")
    mh_check "all three agents ran the script ($ag)" [ "$ag" = "a1 a2 a3" ]
    for h in "${MH_AGENTS[@]}"; do
        left=$(find "$MH_B/hosts/$h" -name '*.lua' 2>/dev/null | head -3)
        mh_check "no script file on $h (${left:-none})" [ -z "$left" ]
    done
    mh_summary u6 "fleet run.yml Lua script: $(mh_fleet_secs lua) s; JSON statements $total =" \
        "server Com_stmt_execute $((s1 - s0)); no .lua on the agent hosts"
}

# What the DB host holds (tables and their checksums), to compare.
mh_fleet_db_digest() {
    mh_sql -e "CHECKSUM TABLE sbtest.sbtest1, sbtest.sbtest2, sbtest.sbtest3, fleet_tls.sbtest1, fleet_tpcc.district, fleet_tpcc.orders" |
        tr '\t' ' ' | tr '\n' ';'
}

mh_scenario_fleet_teardown() {
    mh_fleet_revive
    local before after rc=0 h d p left f changed
    before=$(mh_fleet_db_digest)
    mh_fleet_pb teardown teardown -e stampede_agent_remove_keys=true || rc=$?
    mh_check "teardown.yml succeeds (exit $rc)" [ "$rc" -eq 0 ]
    for h in "${MH_AGENTS[@]}"; do
        d="$MH_B/hosts/$h"
        left=""
        for p in $(ip netns pids "$MH_PFX-$h"); do
            [ "$(cat "/proc/$p/comm" 2>/dev/null)" != stampede-agent ] || left="$left $p"
        done
        mh_check "no agent process left on $h" [ -z "$left" ]
        for f in opt/bin/stampede-agent opt/bin/stampede opt/share/stampede etc/agent.conf \
            etc/keys/agent.secret etc/keys/agent.pub etc/keys/coordinator.pub cache run/agent.pid \
            etc/stampede-agent.defaults; do
            [ ! -e "$d/$f" ] || mh_die "teardown left $h's $f"
        done
        mh_log "ok: $h: agent stopped; binaries, config, keys, package copy, pidfile gone"
    done
    mh_check "the agents' TLS files are gone" [ ! -e "$MH_B/agent-tls" ]
    mh_check "the coordinator host keeps its binary and keys" \
        test -x "$MH_B/hosts/coord/opt/bin/stampede" -a -s "$MH_B/hosts/coord/etc/keys/coordinator.secret"
    rc=0
    mh_fleet_pb teardown2 teardown -e stampede_agent_remove_keys=true || rc=$?
    changed=$(mh_fleet_changed teardown2)
    mh_check "a second teardown.yml succeeds and changes nothing (exit $rc, changed=$changed)" \
        [ "$rc" -eq 0 -a "$changed" -eq 0 ]
    after=$(mh_fleet_db_digest)
    mh_log "DB tables before: $before"
    mh_check "the DB host keeps its data (same tables and checksums after)" [ "$after" = "$before" ]
    mh_summary u7 "fleet teardown.yml: $(mh_fleet_secs teardown) s, second run" \
        "$(mh_fleet_secs teardown2) s changed=$changed; DB data kept"
}
