#!/bin/sh
# bench/instructions.sh BUILD_DIR [CALLS] — instructions per call, counted by valgrind
# (cachegrind's instruction count, no cache simulation): each row runs
# bench/instruction_count once with CALLS calls and once with none, and divides the difference
# by CALLS. "net" subtracts the cost of the loop around the call (the row "loop"). Two builds:
# baseline x86-64 (what a plain build gives: kernels chosen at run time, called) and x86-64-v3
# (-march=x86-64-v3, AVX2 at compile time: the kernels inline). Valgrind's virtual CPU has
# AVX2 but no AVX-512: these are counts of the AVX2 kernels. Where the bench was built with the
# peers (instruction_count_peers, -mavx2 -mbmi2 as peer_bench), a second table puts bloomkit's
# calls beside Boost.Bloom's and fastfilter_cpp's, counted the same way in the same loop.
set -eu
build=${1:?usage: bench/instructions.sh BUILD_DIR [CALLS]}
calls=${2:-1000000}
program=$build/bench/instruction_count
v3=$build/bench/instruction_count_v3
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed (scripts/install-deps.sh bench)" >&2; exit 2; }
[ -x "$program" ] || { echo "instructions.sh: $program is missing (build the bench)" >&2; exit 2; }

# Instructions one run executes, from cachegrind's summary ("I refs: 123,456").
instructions() {  # PROGRAM ARGS...
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*I *refs: *//p' | tr -d ,
}
per_call() {  # PROGRAM KIND OPERATION
    with=$(instructions "$1" "$2" "$3" "$calls")
    without=$(instructions "$1" "$2" "$3" 0)
    echo $(( (with - without) * 10 / calls ))  # tenths
}
tenths() { printf '%d.%d' $(( $1 / 10 )) $(( $1 % 10 )); }

loop=$(per_call "$program" block loop)
[ -x "$v3" ] && loop_v3=$(per_call "$v3" block loop)
echo "Instructions per call ($calls calls, 1M-key filters at 1%, absent 8-byte integer keys; valgrind $(valgrind --version | sed 's/valgrind-//')):"
echo
echo "| structure | operation | per call | net of the loop ($(tenths "$loop")) | x86-64-v3 build: per call | net of its loop (${loop_v3:+$(tenths "$loop_v3")}) |"
echo "|---|---|---:|---:|---:|---:|"
for row in block:contains block:insert block:contains-bulk split-block:contains split-block:insert \
           classic:contains counting:contains cuckoo:contains scalable:contains fuse8:contains \
           hash:u64 hash:string8 hash:string60; do
    kind=${row%%:*} operation=${row#*:}
    n=$(per_call "$program" "$kind" "$operation")
    if [ -x "$v3" ]; then
        m=$(per_call "$v3" "$kind" "$operation")
        echo "| $kind | $operation | $(tenths "$n") | $(tenths $(( n - loop ))) | $(tenths "$m") | $(tenths $(( m - loop_v3 ))) |"
    else
        echo "| $kind | $operation | $(tenths "$n") | $(tenths $(( n - loop ))) | – | – |"
    fi
done

peers=$build/bench/instruction_count_peers
[ -x "$peers" ] || exit 0
loop_peers=$(per_call "$peers" block loop)
echo
echo "Against the peers (the same loop and keys; built with -mavx2 -mbmi2, as peer_bench):"
echo
echo "| operation | bloomkit | per call | net of the loop ($(tenths "$loop_peers")) | peer | per call | net of the loop |"
echo "|---|---|---:|---:|---|---:|---:|"
for row in contains:block:boost contains:block:fastfilter-block insert:block:boost insert:block:fastfilter-block \
           contains-bulk:block:boost contains:split-block:fastfilter-block insert:split-block:fastfilter-block \
           contains:fuse8:fastfilter-fuse8; do
    operation=${row%%:*} rest=${row#*:}
    ours=${rest%%:*} peer=${rest#*:}
    n=$(per_call "$peers" "$ours" "$operation")
    m=$(per_call "$peers" "$peer" "$operation")
    echo "| $operation | $ours | $(tenths "$n") | $(tenths $(( n - loop_peers ))) | $peer | $(tenths "$m") | $(tenths $(( m - loop_peers ))) |"
done
