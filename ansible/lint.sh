#!/bin/sh
# Lint the stampede Ansible content: ansible-lint (production profile, see
# .ansible-lint) over the roles and playbooks, plus a syntax check of every
# playbook. Exits non-zero on any finding. Needs ansible-lint and ansible-core
# (deploy/install-deps installs both). Runs offline.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
# Keep ansible-lint's caches out of the tree and of $HOME.
work=$(mktemp -d "${TMPDIR:-/tmp}/stampede-lint.XXXXXX")
trap 'rm -rf "$work"' EXIT
export ANSIBLE_LOCAL_TEMP="$work/tmp" ANSIBLE_HOME="$work/home" XDG_CACHE_HOME="$work/cache"
export ANSIBLE_ROLES_PATH="$here/roles" ANSIBLE_NOCOLOR=1 NO_COLOR=1
rc=0
for pb in deploy.yml preflight.yml run.yml teardown.yml; do
    ansible-playbook --syntax-check -i inventory.example.yml "$pb" >"$work/syntax.log" 2>&1 || {
        echo "lint.sh: syntax check failed: $pb" >&2
        cat "$work/syntax.log" >&2
        rc=1
    }
done
ansible-lint --offline -c .ansible-lint deploy.yml preflight.yml run.yml teardown.yml \
    inventory.example.yml roles || rc=1
if [ "$rc" -eq 0 ]; then
    echo "lint.sh: ansible-lint and syntax checks clean"
fi
exit "$rc"
