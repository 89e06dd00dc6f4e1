#!/usr/bin/env bash
# sandbox_db: deploy/sandbox-db keeps its secrets to its user and starts
# whatever the caller's shell exports (issue 27 §4). A fresh sandbox is
# started with MYSQL_PWD=junk exported (it used to fail: the root login
# sent it, "Access denied (using password: YES)"); its directory is 0700,
# its password and env files 0600 (they were 0755 and 0644); it serves the
# sbtest user; it stops. ~10 s.
set -u
sandbox=${1:?usage: sandbox_db.sh DEPLOY/sandbox-db}
fails=0
check() { # check COND-STATUS WHAT
    if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "FAIL - $2"; fails=$((fails + 1)); fi
}
top=$(mktemp -d /tmp/stampede-sandbox-test.XXXXXX)
trap '"$sandbox" stop "$top/sb" >/dev/null 2>&1; rm -rf "$top"' EXIT
MYSQL_PWD=junk "$sandbox" start "$top/sb" >"$top/start.out" 2>&1
rc=$?
check $rc "starts with MYSQL_PWD=junk exported (status $rc: $(tail -n 2 "$top/start.out" | tr '\n' ' '))"
mode() { stat -c %a "$1" 2>/dev/null || echo missing; }
[ "$(mode "$top/sb")" = 700 ]; check $? "its directory is 0700 ($(mode "$top/sb"))"
[ "$(mode "$top/sb/password")" = 600 ]; check $? "password is 0600 ($(mode "$top/sb/password"))"
[ "$(mode "$top/sb/env")" = 600 ]; check $? "env is 0600 ($(mode "$top/sb/env"))"
if [ $rc -eq 0 ]; then
    # shellcheck disable=SC1091
    . "$top/sb/env"
    out=$(MYSQL_PWD="$STAMPEDE_TEST_MYSQL_PASSWORD" mariadb --no-defaults -h127.0.0.1 \
        -P"$STAMPEDE_TEST_MYSQL_PORT" -usbtest -N -e 'SELECT CURRENT_USER()' 2>&1)
    [ "${out%%@*}" = sbtest ]; check $? "the sbtest user logs in with the env's password ($out)"
fi
"$sandbox" stop "$top/sb" >/dev/null 2>&1
check $? "stops"
echo "$fails failed"
[ $fails -eq 0 ]
