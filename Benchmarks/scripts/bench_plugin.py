#!/usr/bin/env python3
"""Build-plugin benchmark: a no-change `swift build` of VortexEvents vs one after touching the spec.

Run from anywhere:  python3 Benchmarks/scripts/bench_plugin.py [--runs 5]
Shows that generation does not run on a no-change build (SwiftPM prints the plugin command's
display name, "Generating channel client for VortexEvents", only when it runs).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SPEC = os.path.join(ROOT, "spec", "openapi-schemas.yaml")
MARKER = "Generating channel client for VortexEvents"


def build():
    start = time.monotonic()
    result = subprocess.run(["swift", "build", "--target", "VortexEvents"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit(result.stdout)
    return time.monotonic() - start, MARKER in result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    build()  # warm: everything built once
    unchanged, touched, edited = [], [], []
    ran_unchanged, ran_touched, ran_edited = 0, 0, 0
    original = open(SPEC).read()
    try:
        for run in range(args.runs):
            seconds, ran = build()
            unchanged.append(seconds)
            ran_unchanged += ran
            os.utime(SPEC, None)  # touch: same bytes, newer mtime
            seconds, ran = build()
            touched.append(seconds)
            ran_touched += ran
            # A real edit: a description changes, so Models.swift changes and VortexEvents recompiles.
            with open(SPEC, "w") as f:
                f.write(original.replace("Whether the device is online.", f"Whether the device is online ({run})."))
            seconds, ran = build()
            edited.append(seconds)
            ran_edited += ran
            with open(SPEC, "w") as f:
                f.write(original)
            build()
    finally:
        with open(SPEC, "w") as f:
            f.write(original)
        build()
    print(f"## Build plugin (median of {args.runs})\n")
    print("| build of VortexEvents | wall | generator ran |")
    print("|---|---:|---:|")
    print(f"| no change | {statistics.median(unchanged):.2f} s | {ran_unchanged} of {args.runs} |")
    print(f"| after touching spec/openapi-schemas.yaml (same bytes: outputs unchanged, nothing recompiles) | {statistics.median(touched):.2f} s | {ran_touched} of {args.runs} |")
    print(f"| after editing a description in it (Models.swift changes, VortexEvents recompiles) | {statistics.median(edited):.2f} s | {ran_edited} of {args.runs} |")


if __name__ == "__main__":
    main()
