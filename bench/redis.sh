#!/usr/bin/env bash
# The Redis filter's benchmark on real local servers: starts one standalone redis-server and a
# Redis Cluster of 3 masters (scripts/redis-cluster.sh, throwaway servers without persistence on
# free loopback ports), runs BUILD_DIR/bench/redis_bench against both in one run — the naive
# hiredis client (k SETBIT / GETBIT round trips per key), the same pipelined, bloomkit::redis, and
# the module bloomkit.so's BF.MADD/BF.MEXISTS when it is built (the standalone server loads it);
# then bloomkit on the cluster against one server; then redis-benchmark's BF.ADD and BF.EXISTS —
# and stops the servers whatever happens.
# Prints redis_bench's Markdown tables; exits 1 if any answer was wrong.
#
#   bench/redis.sh [BUILD_DIR] [redis_bench options...]   e.g. bench/redis.sh build/release --keys 1e6
set -euo pipefail
build=${1:-build/release}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
servers=$root/scripts/redis-cluster.sh
bench=$build/bench/redis_bench
if [[ ! -x $bench ]]; then
    if grep -qs '^BLOOMKIT_BUILD_REDIS:BOOL=OFF' "$build/CMakeCache.txt"; then
        echo "redis.sh: skipped: $build was configured without bloomkit::redis (no libhiredis-dev, or -DBLOOMKIT_BUILD_REDIS=OFF)" >&2
        exit 0
    fi
    echo "redis.sh: $bench not found: build it (cmake --build $build --target redis_bench)" >&2
    exit 1
fi
bench=$(cd "$(dirname "$bench")" && pwd)/redis_bench

work=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-redis-bench.XXXXXX")
stop_servers() {
    "$servers" stop "$work/standalone" || true
    "$servers" stop "$work/cluster" || true
    rm -rf "$work"
}
trap stop_servers EXIT
bench_pid=""
# On a signal: stop the bench at once (bash would otherwise wait for it), then the servers.
trap '[[ -n $bench_pid ]] && kill "$bench_pid" 2>/dev/null; exit 130' INT TERM
# --owner: should this script be killed outright (no trap), the servers stop by themselves.
module=$build/src/redis_module/bloomkit.so  # the standalone server loads the module when it is built
module_arguments=()
[[ -f $module ]] && module_arguments=(-- --loadmodule "$(cd "$(dirname "$module")" && pwd)/bloomkit.so")
one=$("$servers" start "$work/standalone" --standalone --owner $$ "${module_arguments[@]}")
ports=$("$servers" start "$work/cluster" --masters 3 --owner $$)
seeds=$(tr ' ' '\n' <<<"$ports" | sed 's/^/127.0.0.1:/' | paste -sd, -)

"$bench" --url "redis://127.0.0.1:$one" --cluster "$seeds" "$@" &
bench_pid=$!
wait "$bench_pid"

# The module's single commands as redis-benchmark drives them: 50 clients, random items, pipelines
# of 16 (requests per second, each BF.ADD or BF.EXISTS one key).
if [[ -f $module ]] && command -v redis-benchmark >/dev/null; then
    echo
    echo "redis-benchmark, bloomkit.so (50 clients, -P 16, 1M random items):"
    redis-cli -p "$one" BF.RESERVE rb 0.01 1000000 NONSCALING >/dev/null
    redis-benchmark -p "$one" -n 1000000 -r 1000000 -P 16 -q BF.ADD rb __rand_int__ | tr '\r' '\n' | grep -v '^$' | tail -n 1
    redis-benchmark -p "$one" -n 1000000 -r 1000000 -P 16 -q BF.EXISTS rb __rand_int__ | tr '\r' '\n' | grep -v '^$' | tail -n 1
    redis-cli -p "$one" DEL rb >/dev/null
fi
