#!/bin/sh
# Interleaved A/B of the runtime benchmarks: two builds of runtime-bench, two rounds.
# usage: scripts/ab_runtime.sh <before>/Benchmarks/.build/release/runtime-bench .build/release/runtime-bench
B=$1
A=$2
for round in 1 2; do
  for side in before after; do
    if [ $side = before ]; then X=$B; else X=$A; fi
    echo "== round $round $side"
    for m in License Role Plan; do $X decode --events 100000 --runs 3 --model $m 2>&1 | grep "^| $m"; done
    $X loopback --runs 3 2>&1 | tail -4
    for n in 9 200; do $X memory --subscriptions $n 2>&1 | tail -1; done
  done
done
for side in before after; do
  if [ $side = before ]; then X=$B; else X=$A; fi
  echo "== stall $side"; $X stall --events 1000000 2>&1 | tail -13
done
