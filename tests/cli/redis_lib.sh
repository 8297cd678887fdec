# tests/cli/redis_lib.sh — throwaway real Redis servers for the CLI tests that talk to Redis, on
# top of lib.sh (scripts/redis-cluster.sh does the work). A test script starts with
#
#   source "$(dirname "$0")/lib.sh" "$@"
#   source "$(dirname "$0")/redis_lib.sh"
#   redis_start_cluster R 3 1 || finish     # 3 masters with 1 replica each; R: their directory
#
# The servers live in a directory under $T and are stopped on exit, whether the script passes,
# fails or dies (the EXIT trap; for a killed script, the watcher of redis-cluster.sh --owner).
# After a start, these describe the servers last started:
#   REDIS_DIR      their directory (DIR/<port>/redis.log: each server's log)
#   REDIS_PORTS    all ports, space-separated: masters first (in slot order), then replicas
#   REDIS_PORT     the first port;  REDIS_URL  redis://127.0.0.1:$REDIS_PORT
#   REDIS_SEEDS    127.0.0.1:P1,127.0.0.1:P2,... (every node)
#   REDIS_MASTERS, REDIS_REPLICAS   space-separated ports (redis_roles re-reads them)
# A start that fails reports "not ok - fixture redis ..." (saying to run scripts/install-deps.sh
# when redis-server is missing) and returns 1.

REDIS_CLUSTER_SH=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)/redis-cluster.sh
_redis_dirs=()

# redis_start_standalone VAR [--] [REDIS-SERVER ARGS...]: one non-cluster server; VAR gets its directory.
redis_start_standalone() {
    local var=$1
    shift
    [[ ${1:-} == -- ]] && shift
    _redis_start "$var" standalone --standalone -- "$@"
}

# redis_start_cluster VAR MASTERS REPLICAS [--] [REDIS-SERVER ARGS...]: a cluster, all slots covered,
# every node ok and every replica in sync; VAR gets its directory.
redis_start_cluster() {
    local var=$1 masters=$2 replicas=$3
    shift 3
    [[ ${1:-} == -- ]] && shift
    _redis_start "$var" "cluster-$masters+$replicas" --masters "$masters" --replicas "$replicas" -- "$@"
}

_redis_start() {
    local var=$1 name=$2 dir rc ports port
    shift 2
    dir=$(mktemp -d "$T/redis.XXXXXX") || { fail "fixture redis $name" "mktemp failed"; return 1; }
    _redis_dirs+=("$dir")
    { ports=$(bash "$REDIS_CLUSTER_SH" start "$dir" --owner $$ "$@" 2>"$T/redis-start.err"); } 2>/dev/null
    rc=$?
    if [[ $rc -eq 3 ]]; then
        fail "fixture redis $name" "redis-server / redis-cli not installed; run scripts/install-deps.sh"
        return 1
    elif [[ $rc -ne 0 ]]; then
        fail "fixture redis $name" "redis-cluster.sh start exited $rc: $(head -c 300 "$T/redis-start.err")"
        return 1
    fi
    printf -v "$var" '%s' "$dir"
    REDIS_DIR=$dir
    REDIS_PORTS=$ports
    REDIS_PORT=${ports%% *}
    REDIS_URL=redis://127.0.0.1:$REDIS_PORT
    REDIS_SEEDS=""
    for port in $ports; do REDIS_SEEDS+=${REDIS_SEEDS:+,}127.0.0.1:$port; done
    redis_roles "$dir"
    export REDIS_DIR REDIS_PORTS REDIS_PORT REDIS_URL REDIS_SEEDS
}

# redis_roles DIR: sets REDIS_MASTERS and REDIS_REPLICAS from DIR (they change after a failover).
redis_roles() {
    REDIS_MASTERS=$(tr '\n' ' ' <"$1/masters")
    REDIS_MASTERS=${REDIS_MASTERS% }
    REDIS_REPLICAS=$(tr '\n' ' ' <"$1/replicas")
    REDIS_REPLICAS=${REDIS_REPLICAS% }
    export REDIS_MASTERS REDIS_REPLICAS
}

# redis_cli PORT ARGS...: redis-cli against one node ("-c" first follows cluster redirections).
redis_cli() {
    local port=$1
    shift
    redis-cli -h 127.0.0.1 -p "$port" --no-auth-warning "$@"
}

# redis_kill DIR PORT, redis_wait_failover DIR PORT, redis_reshard DIR FROM TO SLOTS (run it with &
# to keep writing meanwhile), redis_stop DIR: see scripts/redis-cluster.sh.
redis_kill() { bash "$REDIS_CLUSTER_SH" kill "$@"; }
redis_wait_failover() { bash "$REDIS_CLUSTER_SH" wait-failover "$@" && redis_roles "$1"; }
redis_reshard() { bash "$REDIS_CLUSTER_SH" reshard "$@"; }
redis_stop() { bash "$REDIS_CLUSTER_SH" stop "$1"; }

# On exit: stop every server started here, then whatever lib.sh does (removing $T).
_redis_cleanup() {
    local dir
    for dir in "${_redis_dirs[@]}"; do bash "$REDIS_CLUSTER_SH" stop "$dir" >/dev/null 2>&1 || true; done
}
_redis_previous_trap=$(trap -p EXIT)
_redis_previous_trap=${_redis_previous_trap#"trap -- "}
_redis_previous_trap=${_redis_previous_trap%" EXIT"}
eval "_redis_previous_trap=${_redis_previous_trap:-''}"
trap '_redis_cleanup; eval "$_redis_previous_trap"' EXIT
