#!/usr/bin/env bash
# scripts/redis-cluster.sh — throwaway real Redis servers (one standalone server, or a Redis Cluster
# with replicas) on free loopback ports, for the Redis filter's tests, benchmarks and examples
# (tests/redis/servers.hpp and tests/cli/redis_lib.sh call it). Nothing is persisted: every server
# runs with --save '' --appendonly no and lives in its own subdirectory DIR/<port> of a fresh DIR.
#
#   redis-cluster.sh start DIR [--masters N] [--replicas R] [--standalone] [--owner PID]
#                              [-- extra redis-server args...]
#       Starts the servers (a cluster of N masters, default 3, with R replicas each, default 0; or
#       one non-cluster server with --standalone) and waits until they are ready: every node
#       answers, reports cluster_state:ok, sees the whole topology, and every replica's link to
#       its master is up. DIR must not exist or be empty. Writes DIR/ports (masters first, then
#       replicas), DIR/masters (ordered by their first slot) and DIR/replicas (in the order of
#       their masters); prints the ports, space-separated, as the one line on stdout.
#       --owner PID: a detached watcher stops the servers (and removes DIR) once PID has exited,
#       so that a crashed or killed test does not leave servers running.
#       Exits 3 when redis-server or redis-cli is missing, 1 on any other failure; it then stops
#       whatever it started and removes DIR.
#   redis-cluster.sh stop DIR
#       Shuts down every server in DIR (SHUTDOWN NOSAVE, then SIGTERM / SIGKILL by pidfile) and
#       removes DIR. Idempotent: a missing DIR or dead servers are fine.
#   redis-cluster.sh kill DIR PORT
#       SIGKILLs one server (for failover tests) and waits until it is gone.
#   redis-cluster.sh wait-failover DIR PORT
#       After `kill` of master PORT: waits (<= 20 s) until a replica has taken over its slots and
#       every surviving node reports cluster_state:ok. Needs >= 3 masters and a replica of PORT.
#   redis-cluster.sh reshard DIR FROM_PORT TO_PORT SLOTS
#       Moves SLOTS slots from master FROM_PORT to master TO_PORT (redis-cli --cluster reshard),
#       then waits until all nodes agree on the slot map. Safe to run in the background while a
#       client writes.
#
# Ports: the base port is random, below the kernel's ephemeral range (so that client sockets
# cannot hold them) together with the cluster bus ports (port + 10000); ports in use are skipped
# and a start that loses a race for a port is retried on other ports.
# Environment: REDIS_SERVER, REDIS_CLI override the programs (default: from PATH). For servers
# with a password (-- --requirepass PW --masterauth PW), export REDISCLI_AUTH=PW for every call.
set -euo pipefail

REDIS_SERVER=${REDIS_SERVER:-redis-server}
REDIS_CLI=${REDIS_CLI:-redis-cli}
NODE_TIMEOUT=15     # s: each server must answer within this
CLUSTER_TIMEOUT=30  # s: the cluster must be complete and ok within this
FAILOVER_TIMEOUT=20 # s
MARKER=.redis-cluster  # in DIR: only such directories are ever removed

me=$(basename "$0")
self=$(cd "$(dirname "$0")" && pwd -P)/$me  # for the watcher, which may run from elsewhere
die() { echo "$me: $*" >&2; exit 1; }
note() { echo "$me: $*" >&2; }

# cli PORT ARGS...: redis-cli against one node, bounded in time (a stopped node must not hang us).
cli() { local port=$1; shift; timeout 5 "$REDIS_CLI" -h 127.0.0.1 -p "$port" --no-auth-warning "$@"; }

# now_ms: a monotonic-enough clock for timeouts and timings.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# ---------------------------------------------------------------------------------------------
# Ports

# The listening TCP ports on this machine, one per line (ss, or nothing when ss is missing; then
# port_free falls back to connecting).
listening_ports() {
    if command -v ss >/dev/null; then
        ss -Htln 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }' || true
    fi
}

declare -A busy=()
port_free() {
    local p=$1
    [[ -z ${busy[$p]:-} ]] || return 1
    # Nothing listening: the connection is refused at once on loopback.
    ! (: <>"/dev/tcp/127.0.0.1/$p") 2>/dev/null
}

# pick_base COUNT CLUSTER: a base port such that base .. base+COUNT-1 (and, for a cluster, their
# bus ports + 10000) are all free.
pick_base() {
    local count=$1 cluster=$2 lo hi eph_lo attempt base p ok
    read -r eph_lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || eph_lo=32768
    lo=15000
    hi=$(( eph_lo - 10000 - count ))
    if (( hi - lo < 1000 )); then lo=20000; hi=40000; fi
    busy=()
    while read -r p; do [[ $p =~ ^[0-9]+$ ]] && busy[$p]=1; done < <(listening_ports)
    for ((attempt = 0; attempt < 100; attempt++)); do
        base=$(( lo + (RANDOM * 32768 + RANDOM) % (hi - lo) ))
        ok=1
        for ((p = base; p < base + count; p++)); do
            if ! port_free "$p" || { [[ $cluster == 1 ]] && ! port_free $((p + 10000)); }; then
                ok=0; break
            fi
        done
        if [[ $ok == 1 ]]; then echo "$base"; return 0; fi
    done
    die "no free ports found in $lo-$hi"
}

# ---------------------------------------------------------------------------------------------
# Processes

# pid_of DIR PORT: the pid of DIR's server on PORT if it is still running, else nothing and status
# 1. The process must work in DIR/PORT (redis-server chdirs to its --dir): a stale pidfile's pid
# may have been reused by another process.
pid_of() {
    local dir=$1 port=$2 pid
    [[ -r $dir/$port/redis.pid ]] || return 1
    read -r pid <"$dir/$port/redis.pid" 2>/dev/null || return 1
    [[ $pid =~ ^[0-9]+$ && $(readlink "/proc/$pid/cwd" 2>/dev/null) == "$dir/$port" ]] || return 1
    echo "$pid"
}

# wait_gone PID SECONDS: waits until PID has exited (status 1 when it has not).
wait_gone() {
    local pid=$1 deadline=$(( $(now_ms) + $2 * 1000 ))
    while kill -0 "$pid" 2>/dev/null; do
        [[ -e /proc/$pid && $(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) == Z ]] && return 0
        (( $(now_ms) < deadline )) || return 1
        sleep 0.05
    done
}

# The ports of DIR's servers: the subdirectories named by a number.
dir_ports() {
    local d
    for d in "$1"/*/; do
        d=${d%/}; d=${d##*/}
        [[ $d =~ ^[0-9]+$ ]] && echo "$d"
    done
    return 0
}

stop_node() {
    local dir=$1 port=$2 pid out
    pid=$(pid_of "$dir" "$port") || return 0
    # SHUTDOWN prints nothing when it works; on an error (a password, say) or a hung or stopped
    # server, signals do it.
    if out=$(timeout 2 "$REDIS_CLI" -h 127.0.0.1 -p "$port" SHUTDOWN NOSAVE 2>&1) && [[ -z $out ]]; then
        wait_gone "$pid" 3 && return 0
    fi
    kill -TERM "$pid" 2>/dev/null || true
    kill -CONT "$pid" 2>/dev/null || true
    wait_gone "$pid" 2 && return 0
    kill -KILL "$pid" 2>/dev/null || true
    wait_gone "$pid" 5 || note "server $port (pid $pid) did not exit"
}

# stop_dir DIR: stops all its servers (in parallel) and its watcher, and removes DIR.
stop_dir() {
    local dir=$1 port pid cmd
    [[ -d $dir ]] || return 0
    dir=$(cd "$dir" && pwd -P)
    if [[ ! -e $dir/$MARKER ]]; then
        [[ -z $(ls -A "$dir") ]] || die "$dir was not made by $me start; not removing it"
    fi
    for port in $(dir_ports "$dir"); do stop_node "$dir" "$port" & done
    wait
    if [[ -r $dir/watcher.pid ]] && read -r pid <"$dir/watcher.pid" && [[ $pid != "${BASHPID}" ]]; then
        cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || cmd=""
        if [[ $cmd == *"$me _watch "* ]]; then kill "$pid" 2>/dev/null || true; fi
    fi
    rm -rf "$dir"
}

# ---------------------------------------------------------------------------------------------
# Cluster state

# nodes_view PORT: CLUSTER NODES of one node.
nodes_view() { cli "$1" CLUSTER NODES 2>/dev/null; }

# cluster_ok PORT: PORT reports cluster_state:ok. (No `| grep -q` here and below: under pipefail,
# grep's early exit may fail the writer with SIGPIPE.)
cluster_ok() { [[ $(cli "$1" CLUSTER INFO 2>/dev/null) == *cluster_state:ok* ]]; }

# node_ready PORT MASTERS REPLICAS: PORT reports cluster_state:ok and sees exactly MASTERS masters
# with slots and MASTERS*REPLICAS replicas, all connected, none failing or in handshake.
node_ready() {
    local port=$1 masters=$2 replicas=$3
    cluster_ok "$port" || return 1
    nodes_view "$port" | awk -v m="$masters" -v r=$((masters * replicas)) '
        $3 ~ /fail|handshake|noaddr/ || $8 != "connected" { bad = 1 }
        $3 ~ /master/ && NF > 8 { nm++ }
        $3 ~ /slave/ && $4 != "-" { nr++ }
        END { exit !(!bad && nm == m && nr == r) }'
}

# replication_ready PORT ROLE REPLICAS: a master has REPLICAS connected replicas; a replica's link
# to its master is up (its initial sync is done).
replication_ready() {
    local info
    info=$(cli "$1" INFO replication 2>/dev/null | tr -d '\r') || return 1
    if [[ $2 == master ]]; then
        [[ $info =~ connected_slaves:([0-9]+) ]] && (( BASH_REMATCH[1] >= $3 ))
    else
        [[ $info == *master_link_status:up* ]]
    fi
}

# Writes DIR/masters (by first slot) and DIR/replicas (by their masters' order), as they are now.
record_roles() {
    local dir=$1 port=$2
    nodes_view "$port" | awk -v dir="$dir" '
        { split($2, a, "[:@]"); port[$1] = a[2] }
        $3 ~ /master/ && NF > 8 { split($9, s, "-"); first[$1] = s[1] + 0 }
        $3 ~ /slave/ { master_of[$1] = $4 }
        END {
            n = 0
            for (id in first) order[n++] = id
            for (i = 1; i < n; i++)  # insertion sort by first slot
                for (j = i; j > 0 && first[order[j]] < first[order[j - 1]]; j--) {
                    t = order[j]; order[j] = order[j - 1]; order[j - 1] = t }
            for (i = 0; i < n; i++) print port[order[i]] > (dir "/masters.new")
            for (i = 0; i < n; i++) {
                k = 0
                for (id in master_of) if (master_of[id] == order[i]) reps[k++] = port[id]
                for (a1 = 1; a1 < k; a1++)  # replicas of one master by port
                    for (b = a1; b > 0 && reps[b] + 0 < reps[b - 1] + 0; b--) {
                        t = reps[b]; reps[b] = reps[b - 1]; reps[b - 1] = t }
                for (j = 0; j < k; j++) print reps[j] > (dir "/replicas.new")
            }
        }'
    touch "$dir/masters.new" "$dir/replicas.new"
    mv "$dir/masters.new" "$dir/masters"
    mv "$dir/replicas.new" "$dir/replicas"
}

# ---------------------------------------------------------------------------------------------
# start

# launch DIR PORT CLUSTER EXTRA...: starts one daemonized server.
launch() {
    local dir=$1 port=$2 cluster=$3
    shift 3
    local args=(--port "$port" --bind 127.0.0.1 --dir "$dir/$port" --save '' --appendonly no
                --daemonize yes --pidfile "$dir/$port/redis.pid" --logfile "$dir/$port/redis.log"
                --enable-debug-command local)
    if [[ $cluster == 1 ]]; then
        args+=(--cluster-enabled yes --cluster-config-file "$dir/$port/nodes.conf"
               --cluster-node-timeout 1000 --repl-diskless-sync-delay 0)
    fi
    mkdir -p "$dir/$port"
    "$REDIS_SERVER" "${args[@]}" "$@" >"$dir/$port/stdout.log" 2>&1
}

# wait_up DIR PORTS...: each server answers within NODE_TIMEOUT, and is the one of DIR (not some
# other server that had taken the port). Status 2 when a port was taken, 1 on other failures.
wait_up() {
    local dir=$1 port pid reply deadline
    shift
    deadline=$(( $(now_ms) + NODE_TIMEOUT * 1000 ))
    for port in "$@"; do
        while :; do
            if pid=$(pid_of "$dir" "$port"); then
                reply=$(cli "$port" INFO server 2>/dev/null | tr -d '\r') || reply=""
                [[ $reply == *$'\n'process_id:$pid$'\n'* ]] && break
            fi
            if grep -qs 'Address already in use' "$dir/$port/redis.log" "$dir/$port/stdout.log"; then
                return 2
            fi
            if (( $(now_ms) >= deadline )); then
                note "server on port $port did not come up within ${NODE_TIMEOUT} s; its log:"
                tail -n 15 "$dir/$port/redis.log" "$dir/$port/stdout.log" >&2 2>/dev/null || true
                return 1
            fi
            sleep 0.05
        done
    done
}

# Cluster of fewer than 3 masters (redis-cli --cluster create refuses): by hand.
create_small() {
    local dir=$1 masters=$2 replicas=$3
    shift 3
    local ports=("$@") first=$1 i j p id per lo hi
    for ((i = 0; i < masters; i++)); do cli "${ports[i]}" CLUSTER SET-CONFIG-EPOCH $((i + 1)) >/dev/null; done
    for p in "${ports[@]:1}"; do cli "$first" CLUSTER MEET 127.0.0.1 "$p" >/dev/null; done
    per=$(( 16384 / masters ))
    for ((i = 0; i < masters; i++)); do
        lo=$(( i * per )); hi=$(( i == masters - 1 ? 16383 : (i + 1) * per - 1 ))
        cli "${ports[i]}" CLUSTER ADDSLOTSRANGE "$lo" "$hi" >/dev/null
    done
    # A replica can follow its master once it has heard of it.
    for ((i = 0; i < masters; i++)); do
        id=$(cli "${ports[i]}" CLUSTER MYID)
        for ((j = 0; j < replicas; j++)); do
            p=${ports[masters + i * replicas + j]}
            local deadline=$(( $(now_ms) + CLUSTER_TIMEOUT * 1000 ))
            until [[ $(cli "$p" CLUSTER REPLICATE "$id" 2>&1) == OK ]]; do
                (( $(now_ms) < deadline )) || { note "node $p could not replicate $id"; return 1; }
                sleep 0.1
            done
        done
    done
}

start() {
    local dir="" masters=3 replicas=0 standalone=0 owner="" extra=()
    while [[ $# -gt 0 ]]; do
        case $1 in
            --masters) masters=${2:?}; shift 2 ;;
            --replicas) replicas=${2:?}; shift 2 ;;
            --standalone) standalone=1; shift ;;
            --owner) owner=${2:?}; shift 2 ;;
            --) shift; extra=("$@"); break ;;
            -*) die "start: unknown option $1" ;;
            *) [[ -z $dir ]] || die "start: one DIR only"; dir=$1; shift ;;
        esac
    done
    [[ -n $dir ]] || die "start: DIR missing"
    [[ $masters =~ ^[1-9][0-9]*$ && $replicas =~ ^[0-9]+$ ]] || die "start: bad --masters / --replicas"
    for prog in "$REDIS_SERVER" "$REDIS_CLI"; do
        command -v "$prog" >/dev/null || {
            echo "$me: $prog not found; install it with scripts/install-deps.sh" \
                 "(Debian: redis-server redis-tools)" >&2
            exit 3
        }
    done
    if [[ -e $dir ]]; then
        [[ -d $dir && -z $(ls -A "$dir") ]] || die "start: $dir exists and is not empty"
    fi
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd -P)
    : >"$dir/$MARKER"
    # From here on, any failure stops what was started and removes DIR.
    START_DIR=$dir
    trap 'stop_dir "$START_DIR" 2>/dev/null || true' EXIT

    local cluster=1 count
    [[ $standalone == 1 ]] && { cluster=0; masters=1; replicas=0; }
    count=$(( masters * (1 + replicas) ))
    local t0 base port ports=() attempt status
    t0=$(now_ms)
    for ((attempt = 1; ; attempt++)); do
        base=$(pick_base "$count" "$cluster")
        ports=()
        for ((port = base; port < base + count; port++)); do
            ports+=("$port")
            launch "$dir" "$port" "$cluster" "${extra[@]}" || {
                note "redis-server failed to start on port $port:"
                cat "$dir/$port/stdout.log" >&2
                exit 1
            }
        done
        status=0
        wait_up "$dir" "${ports[@]}" || status=$?
        [[ $status == 0 ]] && break
        [[ $status == 2 && $attempt -lt 5 ]] || exit 1
        note "a port was taken meanwhile; retrying on other ports"
        for port in "${ports[@]}"; do stop_node "$dir" "$port"; rm -rf "${dir:?}/$port"; done
    done

    if [[ $cluster == 1 ]]; then
        if (( masters >= 3 )); then
            local hosts=()
            for port in "${ports[@]}"; do hosts+=("127.0.0.1:$port"); done
            "$REDIS_CLI" --cluster create "${hosts[@]}" --cluster-replicas "$replicas" --cluster-yes \
                >"$dir/create.log" 2>&1 || { note "redis-cli --cluster create failed:"; cat "$dir/create.log" >&2; exit 1; }
        else
            create_small "$dir" "$masters" "$replicas" "${ports[@]}" || exit 1
        fi
        local deadline=$(( $(now_ms) + CLUSTER_TIMEOUT * 1000 ))
        for port in "${ports[@]}"; do
            until node_ready "$port" "$masters" "$replicas"; do
                if (( $(now_ms) >= deadline )); then
                    note "cluster not ready within ${CLUSTER_TIMEOUT} s; node $port sees:"
                    { cli "$port" CLUSTER INFO | grep cluster_state; nodes_view "$port"; } >&2 || true
                    exit 1
                fi
                sleep 0.1
            done
        done
        record_roles "$dir" "${ports[0]}"
        cat "$dir/masters" "$dir/replicas" >"$dir/ports"
        if (( replicas > 0 )); then
            for port in $(<"$dir/masters"); do
                until replication_ready "$port" master "$replicas"; do
                    (( $(now_ms) < deadline )) || { note "master $port: replicas not connected"; exit 1; }
                    sleep 0.1
                done
            done
            for port in $(<"$dir/replicas"); do
                until replication_ready "$port" replica; do
                    (( $(now_ms) < deadline )) || { note "replica $port: link to master not up"; exit 1; }
                    sleep 0.1
                done
            done
        fi
    else
        echo "${ports[0]}" >"$dir/masters"
        : >"$dir/replicas"
        echo "${ports[0]}" >"$dir/ports"
    fi

    if [[ -n $owner ]]; then
        local detach=()  # its own session: a kill of the owner's process group spares it
        command -v setsid >/dev/null && detach=(setsid)
        "${detach[@]}" bash "$self" _watch "$dir" "$owner" </dev/null >/dev/null 2>&1 &
        echo $! >"$dir/watcher.pid"
    fi
    trap - EXIT
    echo "$(( $(now_ms) - t0 ))" >"$dir/startup-ms"
    tr '\n' ' ' <"$dir/ports" | sed 's/ $//'
    echo
}

# _watch DIR PID: (internal) stops DIR once PID has exited; ends when DIR is gone.
watch() {
    local dir=$1 owner=$2
    while [[ -d $dir ]] && kill -0 "$owner" 2>/dev/null; do sleep 1; done
    stop_dir "$dir" 2>/dev/null || true
}

# ---------------------------------------------------------------------------------------------
# kill, wait-failover, reshard

# need_dir VAR: the directory in $VAR was made by start; makes it absolute (as pid_of needs).
need_dir() {
    [[ -e ${!1}/$MARKER ]] || die "${!1}: not a directory made by $me start"
    printf -v "$1" '%s' "$(cd "${!1}" && pwd -P)"
}

kill_node() {
    local dir=$1 port=$2 pid
    need_dir dir
    pid=$(pid_of "$dir" "$port") || die "kill: no running server on port $port in $dir"
    kill -KILL "$pid"
    wait_gone "$pid" 5 || die "kill: server $port (pid $pid) did not exit"
}

# The ports of DIR's servers that are running and answer.
alive_ports() {
    local port
    for port in $(<"$1/ports"); do
        pid_of "$1" "$port" >/dev/null && [[ $(cli "$port" PING 2>/dev/null) == PONG ]] && echo "$port"
    done
    return 0
}

wait_failover() {
    local dir=$1 port=$2 alive t0 deadline p id view
    need_dir dir
    t0=$(now_ms)
    deadline=$(( t0 + FAILOVER_TIMEOUT * 1000 ))
    mapfile -t alive < <(alive_ports "$dir")
    [[ ${#alive[@]} -gt 0 ]] || die "wait-failover: no server is running"
    view=$(nodes_view "${alive[0]}") || die "wait-failover: CLUSTER NODES failed on ${alive[0]}"
    id=$(awk -v a="127.0.0.1:$port@" 'index($2, a) == 1 { print $1 }' <<<"$view")
    [[ -n $id ]] || die "wait-failover: port $port is not a node of this cluster"
    # A replica of PORT, or one already promoted (PORT failed and holds no slots any more).
    if ! awk -v id="$id" '$4 == id { found = 1 } $1 == id && $3 ~ /fail/ && $3 !~ /fail\?/ && NF <= 8 { found = 1 }
            END { exit !found }' <<<"$view"; then
        die "wait-failover: node $port has no replica, no failover can happen"
    fi
    # Done when every surviving node is ok and sees PORT failed and without slots.
    local ready
    while :; do
        ready=1
        for p in "${alive[@]}"; do
            cluster_ok "$p" || { ready=0; break; }
            nodes_view "$p" | awk -v id="$id" '$1 == id { ok = ($3 ~ /fail/ && $3 !~ /fail\?/ && NF <= 8) }
                END { exit !ok }' || { ready=0; break; }
        done
        [[ $ready == 1 ]] && break
        if (( $(now_ms) >= deadline )); then
            note "no failover of $port within ${FAILOVER_TIMEOUT} s; node ${alive[0]} sees:"
            nodes_view "${alive[0]}" >&2 || true
            exit 1
        fi
        sleep 0.1
    done
    # The new masters (a replica was promoted).
    record_roles "$dir" "${alive[0]}"
    note "failover of $port done in $(( $(now_ms) - t0 )) ms"
}

reshard() {
    local dir=$1 from=$2 to=$3 slots=$4 from_id to_id log deadline p
    need_dir dir
    [[ $slots =~ ^[1-9][0-9]*$ ]] || die "reshard: bad SLOTS '$slots'"
    from_id=$(cli "$from" CLUSTER MYID) || die "reshard: node $from does not answer"
    to_id=$(cli "$to" CLUSTER MYID) || die "reshard: node $to does not answer"
    log=$dir/reshard-$from-$to.log
    if ! "$REDIS_CLI" --cluster reshard "127.0.0.1:$from" --cluster-from "$from_id" \
            --cluster-to "$to_id" --cluster-slots "$slots" --cluster-yes >"$log" 2>&1; then
        note "redis-cli --cluster reshard failed:"
        tail -n 20 "$log" >&2
        exit 1
    fi
    # Wait until every node agrees on the new slot map.
    deadline=$(( $(now_ms) + CLUSTER_TIMEOUT * 1000 ))
    until [[ $("$REDIS_CLI" --cluster check "127.0.0.1:$from" 2>&1) == *"All nodes agree about slots"* ]]; do
        (( $(now_ms) < deadline )) || die "reshard: nodes do not agree on the slots after ${CLUSTER_TIMEOUT} s"
        sleep 0.1
    done
}

# ---------------------------------------------------------------------------------------------

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

[[ $# -ge 1 ]] || usage
command=$1
shift
case $command in
    start) start "$@" ;;
    stop) [[ $# -eq 1 ]] || usage; stop_dir "$1" ;;
    kill) [[ $# -eq 2 ]] || usage; kill_node "$1" "$2" ;;
    wait-failover) [[ $# -eq 2 ]] || usage; wait_failover "$1" "$2" ;;
    reshard) [[ $# -eq 4 ]] || usage; reshard "$@" ;;
    _watch) [[ $# -eq 2 ]] || usage; watch "$1" "$2" ;;
    -h | --help | help) usage ;;
    *) usage ;;
esac
