#!/usr/bin/env python3
"""How the generator's front end grows with input size: it must be linear.

    python3 Benchmarks/scripts/bench_scaling.py [--runs 3] [--tool .build/release/channelgen]

Builds channelgen in release unless --tool is given, then times (median of --runs):
  - `generate` on synthetic specs of 500, 1k, 2k, 4k and 8k channels (make_specs.py);
  - `lint` on a spec with 20k and 40k extra top-level keys (`x-k<n>`), the loader's worst case before;
  - `lint` on a 5 000-long `$ref` chain (S0 → S1 → … → S4999);
  - `lint` on one-file specs of 1k, 2k and 4k channels where every `$ref` goes into a mapping of
    thousands (`#/channels/cN`, `#/components/messages/MN`, `#/components/schemas/SN`): plain
    addresses, addresses with a parameter and address-less channels, a third each;
  - `check` on a package whose Generated/ differs from the spec in every one of N files' lines.
Prints a markdown table with seconds and seconds per 1 000 units; linear growth keeps the last
column flat.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
HEADER = """asyncapi: 3.0.0
info: {title: Scaling, version: 1.0.0}
channels:
  c:
    address: app/c
    messages: {m: {payload: {$ref: '#/components/schemas/S0'}}}
operations:
  cValues: {action: receive, channel: {$ref: '#/channels/c'}}
"""


def timed(cmd, runs, cwd=None, ok=(0,), expect=None):
    """Median wall time; exits when the command ends otherwise than `ok`, or its stderr lacks `expect`."""
    times = []
    for _ in range(runs):
        start = time.monotonic()
        result = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        times.append(time.monotonic() - start)
        if result.returncode not in ok or (expect and expect not in result.stderr):
            sys.exit(f"failed ({result.returncode}): {' '.join(cmd)}\n{result.stderr[-2000:]}")
    return statistics.median(times)


def one_file_spec(count):
    """Channels, operations, messages and schemas in one document, each `$ref` into a mapping of `count`."""
    lines = ["asyncapi: 3.0.0", "info: {title: One file, version: 1.0.0}", "channels:"]
    for i in range(count):
        message = f"    messages: {{m{i}: {{$ref: '#/components/messages/M{i}'}}}}"
        if i % 3 == 0:
            lines += [f"  c{i}:", f"    address: app/c{i}", message]
        elif i % 3 == 1:
            lines += [f"  c{i}:", f"    address: app/user/{{userId}}/c{i}", "    parameters: {userId: {$ref: '#/components/parameters/userId'}}", message]
        else:
            lines += [f"  c{i}:", message]
    lines.append("operations:")
    lines += [f"  on{i}: {{action: receive, channel: {{$ref: '#/channels/c{i}'}}, messages: [{{$ref: '#/channels/c{i}/messages/m{i}'}}]}}"
              for i in range(count)]
    lines += ["components:", "  parameters:", "    userId: {description: The user.}", "  messages:"]
    lines += [f"    M{i}: {{name: m{i}, payload: {{$ref: '#/components/schemas/S{i}'}}}}" for i in range(count)]
    lines.append("  schemas:")
    lines += [f"    S{i}: {{type: object, required: [id], properties: {{id: {{type: string}}, n{i}: {{type: integer}}}}}}" for i in range(count)]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tool")
    args = parser.parse_args()
    tool = args.tool
    if not tool:
        subprocess.run(["swift", "build", "-c", "release", "--product", "channelgen"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        tool = os.path.join(ROOT, ".build", "release", "channelgen")
    work = tempfile.mkdtemp(prefix="channelgen-scaling-")
    rows = []

    for count in [500, 1000, 2000, 4000, 8000]:
        folder = os.path.join(work, f"channels-{count}")
        subprocess.run([sys.executable, os.path.join(HERE, "make_specs.py"), "--channels", str(count), "--out", folder], check=True,
                       stdout=subprocess.DEVNULL)
        seconds = timed([tool, "generate", "--config", os.path.join(folder, "channelgen.yaml"), "--output", os.path.join(folder, "out"), "--quiet"], args.runs)
        rows.append((f"generate, {count} channels", count, seconds))

    for count in [1000, 2000, 4000]:
        path = os.path.join(work, f"one-file-{count}.yaml")
        with open(path, "w") as f:
            f.write(one_file_spec(count))
        rows.append((f"lint, {count} channels in one file", count, timed([tool, "lint", path], args.runs)))

    for count in [20000, 40000]:
        path = os.path.join(work, f"keys-{count}.yaml")
        with open(path, "w") as f:
            f.write(HEADER.replace("info:", "".join(f"x-k{i}: {i}\n" for i in range(count)) + "info:", 1))
            f.write("components:\n  schemas:\n    S0: {type: object, properties: {a: {type: string}}}\n")
        rows.append((f"lint, {count} top-level keys", count, timed([tool, "lint", path], args.runs)))

    for count in [2500, 5000]:
        path = os.path.join(work, f"chain-{count}.yaml")
        with open(path, "w") as f:
            f.write(HEADER + "components:\n  schemas:\n")
            for i in range(count - 1):
                f.write(f"    S{i}: {{$ref: '#/components/schemas/S{i + 1}'}}\n")
            f.write(f"    S{count - 1}: {{type: object, properties: {{a: {{type: string}}}}}}\n")
        rows.append((f"lint, {count}-long $ref chain", count, timed([tool, "lint", path], args.runs)))

    for count in [1000, 4000]:
        package = os.path.join(work, f"check-{count}")
        folder = os.path.join(package, "Sources", "Events")
        os.makedirs(folder)
        open(os.path.join(package, "Package.swift"), "w").write("// swift-tools-version: 6.1\n")
        subprocess.run([sys.executable, os.path.join(HERE, "make_specs.py"), "--channels", str(count), "--out", os.path.join(package, "spec")],
                       check=True, stdout=subprocess.DEVNULL)
        os.remove(os.path.join(package, "spec", "channelgen.yaml"))  # one config, the target's
        open(os.path.join(folder, "channelgen.yaml"), "w").write("spec: ../../spec/asyncapi.yaml\n")
        open(os.path.join(folder, "Events.swift"), "w").write("@_exported import ChannelRuntime\n")
        generated = os.path.join(package, "Generated", "Events")
        subprocess.run([tool, "generate", "--config", os.path.join(folder, "channelgen.yaml"), "--output", generated, "--quiet"], check=True)
        # Every line of Models.swift changed: the worst case for a diff.
        models = os.path.join(generated, "Models.swift")
        text = open(models).read()
        open(models, "w").write("".join(line + " // edited\n" for line in text.splitlines()))
        lines = text.count("\n")
        rows.append((f"check, {lines} changed lines", lines, timed([tool, "check"], args.runs, cwd=package, ok=(1,), expect="Generated/ is out of date")))

    print(f"| input | median of {args.runs} | per 1 000 units |\n|---|---:|---:|")
    for name, units, seconds in rows:
        print(f"| {name} | {seconds:.3f} s | {seconds / units * 1000:.4f} s |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
