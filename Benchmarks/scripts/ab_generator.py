#!/usr/bin/env python3
"""A/B of the channelgen generator between two checkouts, interleaved on the same inputs.

    python3 Benchmarks/scripts/ab_generator.py --before /path/to/old-checkout --after . [--runs 11]

Builds `channelgen` in release in each checkout (scratch folder .build-ab/), then alternates
before/after runs on the Vortex spec and synthetic specs (make_specs.py), printing median wall
seconds, the after/before ratio, and whether the outputs are byte-identical.
"""
import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def build(checkout):
    scratch = os.path.join(checkout, ".build-ab")
    subprocess.run(["swift", "build", "-c", "release", "--product", "channelgen", "--scratch-path", scratch],
                   cwd=checkout, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(scratch, "release", "channelgen")


def once(tool, config, output):
    start = time.monotonic()
    subprocess.run([tool, "generate", "--config", config, "--output", output, "--quiet"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--channels", type=int, nargs="*", default=[504, 2000])
    args = parser.parse_args()
    tools = {"before": build(os.path.abspath(args.before)), "after": build(os.path.abspath(args.after))}
    work = tempfile.mkdtemp(prefix="channelgen-ab-")
    cases = [("Vortex (9 channels)", os.path.join(os.path.abspath(args.after), "Sources", "VortexEvents", "channelgen.yaml"))]
    for count in args.channels:
        folder = os.path.join(work, f"synthetic-{count}")
        subprocess.run([sys.executable, os.path.join(HERE, "make_specs.py"), "--channels", str(count), "--out", folder], check=True,
                       stdout=subprocess.DEVNULL)
        cases.append((f"synthetic ({count} channels)", os.path.join(folder, "channelgen.yaml")))
    print(f"| input | before | after | after / before | same output |\n|---|---:|---:|---:|---|")
    for name, config in cases:
        times = {"before": [], "after": []}
        for run in range(args.runs):
            for label in (["before", "after"] if run % 2 == 0 else ["after", "before"]):
                times[label].append(once(tools[label], config, os.path.join(work, f"{label}-{run}")))
        same = all(filecmp.cmp(os.path.join(work, "before-0", f), os.path.join(work, "after-0", f), shallow=False)
                   for f in os.listdir(os.path.join(work, "after-0")))
        b, a = statistics.median(times["before"]), statistics.median(times["after"])
        print(f"| {name} | {b:.3f} s | {a:.3f} s | {a / b:.2f} | {'yes' if same else 'no (renderer changed the layout)'} |")


if __name__ == "__main__":
    main()
