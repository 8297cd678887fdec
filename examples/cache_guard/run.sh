#!/usr/bin/env bash
# examples/cache_guard/run.sh — `make demo-redis`: the cache-penetration guard end to end, against
# a throwaway PostgreSQL (initdb + pg_ctl in a temp dir) and a throwaway standalone Redis
# (scripts/redis-cluster.sh), both on free loopback ports; both are stopped and the temp dir
# removed however the script ends.
#
#   examples/cache_guard/run.sh [BUILD_DIR] [-- CACHE_GUARD ARGS...]
#
# BUILD_DIR (default build/release) holds examples/cache_guard/cache_guard. Environment: ROWS
# (default 1000000) and REQUESTS (default 200000) size the run; PG_BIN, the directory of initdb
# and pg_ctl (default: PostgreSQL 15's, else the newest installed). PostgreSQL refuses to run as
# root: run as root, the script runs it as the user postgres (else nobody).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-build/release}
[[ $# -gt 0 ]] && shift
[[ ${1:-} == -- ]] && shift
program=$build/examples/cache_guard/cache_guard
rows=${ROWS:-1000000}
requests=${REQUESTS:-200000}
die() { echo "cache_guard/run.sh: $*" >&2; exit 1; }

[[ -x $program ]] || die "$program not found: build the target cache_guard (it needs libhiredis-dev and libpq-dev)"
if [[ -z ${PG_BIN:-} ]]; then
    for PG_BIN in /usr/lib/postgresql/15/bin $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V -r); do
        [[ -x $PG_BIN/pg_ctl ]] && break
    done
fi
[[ -x $PG_BIN/initdb && -x $PG_BIN/pg_ctl ]] || die "initdb / pg_ctl not found in $PG_BIN (Debian: postgresql)"

# Who runs PostgreSQL: the current user, or an unprivileged one when that is root.
as_pg=()
pg_user=$(id -un)
if [[ $(id -u) -eq 0 ]]; then
    pg_user=postgres
    id -u "$pg_user" >/dev/null 2>&1 || pg_user=nobody
    as_pg=(runuser -u "$pg_user" --)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/cache_guard.XXXXXX")
pg=$work/pg
redis_dir=$work/redis
# Stops both servers and removes the temp dir; run on any exit, and by the watcher below.
stop_all() {
    if [[ -f $pg/data/postmaster.pid ]]; then
        (cd / && "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$pg/data" -m immediate -w stop >/dev/null 2>&1) ||
            echo "cache_guard/run.sh: could not stop PostgreSQL (data in $pg/data)" >&2
    fi
    if [[ -d $redis_dir ]]; then "$root/scripts/redis-cluster.sh" stop "$redis_dir" || true; fi
    rm -rf "$work"
}
child="" watcher=""
# shellcheck disable=SC2317  # (reached through the traps)
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    set +e  # every step, whatever the one before did
    [[ -n $watcher ]] && kill "$watcher" 2>/dev/null
    [[ -n $child ]] && kill "$child" 2>/dev/null && wait "$child" 2>/dev/null
    stop_all
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# SIGKILL runs no trap: a watcher cleans up once this script is gone.
(while kill -0 $$ 2>/dev/null; do sleep 1; done; stop_all) </dev/null >/dev/null 2>&1 &
watcher=$!

# PostgreSQL: a cluster of its own, trust authentication on loopback only. The temp dir must be
# traversable by the PostgreSQL user; its own directory is owned by it.
chmod 711 "$work"
mkdir "$pg"
[[ ${#as_pg[@]} -gt 0 ]] && chown "$pg_user" "$pg"
echo "== PostgreSQL: initdb in $pg (as $pg_user)"
(cd / && "${as_pg[@]}" "$PG_BIN/initdb" -D "$pg/data" -A trust -U postgres -E UTF8 --locale=C --no-sync \
    >"$pg/initdb.log" 2>&1) || { cat "$pg/initdb.log" >&2; die "initdb failed"; }

# A free port: random, below the ephemeral range, nothing listening on it; a start that loses a
# race for it is retried on another. A throwaway database: fsync off (nothing must survive a
# crash; only the table's creation is faster for it — reads are the same).
started=""
for _ in 1 2 3 4 5; do
    port=$(( 20000 + RANDOM % 10000 ))
    (: <>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
    if (cd / && "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w -t 60 \
            -o "-h 127.0.0.1 -p $port -k $pg -c fsync=off -c full_page_writes=off" start >/dev/null 2>&1); then
        started=1
        break
    fi
    grep -qs "could not bind\|already in use" "$pg/server.log" || break
done
[[ -n $started ]] || { tail -n 20 "$pg/server.log" >&2 2>/dev/null; die "PostgreSQL did not start"; }
echo "== PostgreSQL on 127.0.0.1:$port"

# Redis: one standalone server (--owner: its script's own watcher, as a second line of defence).
redis_port=$("$root/scripts/redis-cluster.sh" start "$redis_dir" --standalone --owner $$)
redis_port=${redis_port%% *}
echo "== Redis on 127.0.0.1:$redis_port (standalone, nothing persisted)"
echo

# In the background, so that a signal is handled at once (bash runs traps only between
# commands): cleanup stops the program before the servers it talks to.
"$program" --pg "host=127.0.0.1 port=$port dbname=postgres user=postgres" \
    --redis "redis://127.0.0.1:$redis_port" --rows "$rows" --requests "$requests" "$@" &
child=$!
status=0
wait "$child" || status=$?
child=""
exit "$status"
