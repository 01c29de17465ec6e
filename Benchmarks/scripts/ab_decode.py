#!/usr/bin/env python3
"""Whole-path decode throughput of two runtime-bench builds, in adjacent pairs.

    python3 Benchmarks/scripts/ab_decode.py <before>/runtime-bench <after>/runtime-bench [--pairs 10] [--models License,Role] [--step]

`--step` measures the payload step alone (`codec --fast-only`: the fast path, one thread) instead
of the whole path; both builds need that option.

This VM's speed drifts by up to 2x over minutes, so medians of separate runs say little about a
10 % difference. Here each pair runs the two builds back to back (which goes first alternates),
and the figure is the median of the per-pair ratios after / before, with its interquartile range.
"""
import argparse
import re
import statistics
import subprocess

MODELS = "DevicePresence,DeviceRecording,DeviceFirmware,ArchiveState,LicenseState,PlanState,AISettings,RoleChange,UserTokenRevoke"


def events_per_second(binary, model, events, step=False):
    command = ["codec", "--fast-only", "--frames", str(events), "--runs", "1"] if step else \
        ["decode", "--events", str(events), "--runs", "1", "--warmup", "1", "--ours-only"]
    out = subprocess.run([binary] + command + ["--model", model], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        match = re.match(r"\| (\w+) \| (?:fast path )?([0-9 ]+)(?:/s)? \|", line)
        if match and model in match.group(1):
            return float(match.group(2).replace(" ", ""))
    raise SystemExit(f"no figure for {model} in:\n{out}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--events", type=int, default=30000)
    parser.add_argument("--models", default=MODELS)
    parser.add_argument("--step", action="store_true", help="the payload step alone (codec --fast-only)")
    args = parser.parse_args()
    print("| model | before (median, events/s) | after (median) | after / before (median of pairs) | interquartile range |")
    print("|---|---:|---:|---:|---:|")
    for model in args.models.split(","):
        before, after, ratios = [], [], []
        for index in range(args.pairs):
            if index % 2 == 0:
                b = events_per_second(args.before, model, args.events, args.step)
                a = events_per_second(args.after, model, args.events, args.step)
            else:
                a = events_per_second(args.after, model, args.events, args.step)
                b = events_per_second(args.before, model, args.events, args.step)
            before.append(b)
            after.append(a)
            ratios.append(a / b)
        low, _, high = statistics.quantiles(ratios, n=4)
        print(f"| {model} | {statistics.median(before):.0f} | {statistics.median(after):.0f} | {statistics.median(ratios):.2f} | {low:.2f}–{high:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
