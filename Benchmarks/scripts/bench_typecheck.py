#!/usr/bin/env python3
"""Type-check time and peak memory of generated code: the cost every app build pays for it.

    swift build --product channelgen && swift build --target VortexEvents   # the tool and the runtime modules
    python3 Benchmarks/scripts/bench_typecheck.py [--tool .build/debug/channelgen] [--runs 3] [--cases vortex,channels500,...]

For each case it generates a client with `--tool` into a scratch folder and runs
`swiftc -typecheck -swift-version 6` over the client files (Models, Channels, Subscriptions, Notifier;
`Decoders.swift` too where an older `--tool` writes it) against `.build/debug/Modules`, measuring wall time and peak resident memory of the
compiler (`/usr/bin/time`), median of `--runs`. Cases:

- vortex: the Vortex spec (nine channels)
- channels500, channels2000: `make_specs.py` specs (a payload per channel, the nine Vortex shapes)
- object1000 (or objectN): one channel whose payload has 1 000 properties (strings, integers,
  numbers, booleans, dates; every fifth required)
- enum5000 (or enumN): one channel whose payload has a 5 000-value enum property

To compare two generators, run it once per `--tool` (e.g. a build of an older checkout) in one session.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLIENT = ["Models.swift", "Channels.swift", "Subscriptions.swift", "Notifier.swift", "Decoders.swift"]


def one_channel_spec(name, schema):
    """A spec with one channel whose payload is component `name`, of the YAML `schema` (indented 6)."""
    lower = name.lower()
    return f"""asyncapi: 3.0.0
info: {{title: {name}, version: 1.0.0}}
channels:
  {lower}:
    address: app/{lower}
    messages: {{{lower}: {{payload: {{$ref: '#/components/schemas/{name}'}}}}}}
operations:
  {lower}Values: {{action: receive, channel: {{$ref: '#/channels/{lower}'}}}}
components:
  schemas:
    {name}:
{schema}"""


def object_spec(count):
    kinds = ["{type: string}", "{type: integer}", "{type: number}", "{type: boolean}", "{type: string, format: date-time}"]
    properties = "".join(f"        field{i}: {kinds[i % len(kinds)]}\n" for i in range(count))
    required = ", ".join(f"field{i}" for i in range(0, count, 5))
    return one_channel_spec("Wide", f"      type: object\n      required: [{required}]\n      properties:\n{properties}")


def enum_spec(count):
    values = ", ".join(f"VALUE_{i}" for i in range(count))
    return one_channel_spec("Many", f"      type: object\n      required: [state]\n      properties:\n        state: {{type: string, enum: [{values}]}}\n")


def prepare(case, work):
    """Writes the case's spec and config into `work`; returns the config's path."""
    if case == "vortex":
        return os.path.join(ROOT, "Sources", "VortexEvents", "channelgen.yaml")
    if case.startswith("channels"):
        subprocess.run([sys.executable, os.path.join(HERE, "make_specs.py"), "--channels", case[len("channels"):], "--out", work], check=True)
        return os.path.join(work, "channelgen.yaml")
    count = int(case.lstrip("abcdefghijklmnopqrstuvwxyz"))
    text = object_spec(count) if case.startswith("object") else enum_spec(count)
    with open(os.path.join(work, "spec.yaml"), "w") as f:
        f.write(text)
    with open(os.path.join(work, "channelgen.yaml"), "w") as f:
        f.write("spec: spec.yaml\n")
    return os.path.join(work, "channelgen.yaml")


def typecheck(files, modules):
    """Wall seconds and peak resident MB of one `swiftc -typecheck`."""
    result = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", "swiftc", "-typecheck", "-swift-version", "6", "-package-name", "channelgen", "-I", modules] + files,
        capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"the generated code does not type-check:\n{result.stderr[-3000:]}")
    seconds, kilobytes = result.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kilobytes) / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", default=os.path.join(ROOT, ".build", "debug", "channelgen"))
    parser.add_argument("--modules", default=os.path.join(ROOT, ".build", "debug", "Modules"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cases", default="vortex,channels500,channels2000,object1000,enum5000")
    args = parser.parse_args()
    print("| case | generated lines | type-check (s) | peak memory (MB) |")
    print("|---|---:|---:|---:|")
    for case in args.cases.split(","):
        work = tempfile.mkdtemp(prefix=f"typecheck-{case}-")
        try:
            config = prepare(case, work)
            output = os.path.join(work, "out")
            subprocess.run([args.tool, "generate", "--config", config, "--output", output, "--quiet"], check=True)
            files = [os.path.join(output, name) for name in CLIENT if os.path.exists(os.path.join(output, name))]
            lines = sum(sum(1 for _ in open(path, encoding="utf-8")) for path in files)
            runs = [typecheck(files, args.modules) for _ in range(args.runs)]
            print(f"| {case} | {lines} | {statistics.median(r[0] for r in runs):.2f} | {statistics.median(r[1] for r in runs):.0f} |", flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
