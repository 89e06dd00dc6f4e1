#!/usr/bin/env bash
# ansible_bools: the agent role takes stampede's boolean spellings and
# refuses any other word before it changes anything (issue 27 §4: Ansible's
# bool filter read 'maybe' as false, silently). Runs the role on localhost
# with connection=local; it stops at the check (a bad word) or at the
# package check that follows (no .deb here): nothing is installed.
set -u
roles=${1:?usage: ansible_bools.sh ANSIBLE_ROLES_DIR}
fails=0
t=$(mktemp -d /tmp/stampede-ansible-bools.XXXXXX)
trap 'rm -rf "$t"' EXIT
play() { # play VALUE: the playbook's output
    cat >"$t/pb.yml" <<PB
- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - ansible.builtin.include_role:
        name: stampede_agent
      vars:
        stampede_agent_once: "$1"
        stampede_agent_name: a1
        stampede_package: /nonexistent/stampede.deb
PB
    ANSIBLE_ROLES_PATH="$roles" ANSIBLE_NOCOLOR=1 ansible-playbook "$t/pb.yml" 2>&1
}
for w in on off yes no true false 1 0 YES Off; do
    if play "$w" | grep -q "ok: \[localhost\] => (item=stampede_agent_once)"; then
        echo "ok - stampede_agent_once=$w passes the check"
    else
        echo "FAIL - stampede_agent_once=$w passes the check"; fails=$((fails + 1))
    fi
done
out=$(play maybe)
if echo "$out" | grep -q "stampede_agent_once: 'maybe' is not a boolean (on/off, yes/no, true/false or 1/0)" &&
    ! echo "$out" | grep -q "TASK \[Install stampede\]"; then
    echo "ok - stampede_agent_once=maybe is refused before anything is installed"
else
    echo "FAIL - stampede_agent_once=maybe is refused before anything is installed:"
    echo "$out" | tail -n 5; fails=$((fails + 1))
fi
echo "$fails failed"
[ $fails -eq 0 ]
