#!/usr/bin/env bash
# Runs a command while N busy-loop processes (default 6) load every core, then stops them.
# The suite must pass this way: a verdict may not depend on the machine's speed.
#
#   Benchmarks/scripts/under_load.sh swift test                # 6 busy loops
#   LOAD=12 RUNS=3 Benchmarks/scripts/under_load.sh swift test # 12, three runs in a row
#
# Prints each run's exit status and time; exits with the first failing run's status.
set -uo pipefail
load=${LOAD:-6}
runs=${RUNS:-1}
pids=()
for _ in $(seq "$load"); do
    ( while :; do :; done ) &
    pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
status=0
for run in $(seq "$runs"); do
    started=$(date +%s)
    "$@"
    rc=$?
    echo "== under load ($load busy loops): run $run of $runs exited $rc after $(( $(date +%s) - started )) s" >&2
    if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then status=$rc; fi
done
exit "$status"
