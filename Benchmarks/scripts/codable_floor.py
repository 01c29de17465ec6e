#!/usr/bin/env python3
"""What the Swift compiler charges for synthesized `Codable`, with no generator involved.

    python3 Benchmarks/scripts/codable_floor.py [--types 500] [--runs 3]

Writes `--types` plain structs shaped like the 500-channel payloads (a `String`, a `Date`, two
optional `String`s and an optional `Bool`), once with no conformance, once `Encodable`, once
`Decodable`, once `Codable`, once `Codable` with `Equatable`, once with `Hashable`, and type-checks each file
(`swift-frontend -typecheck`, `-swift-version 6`) in turns, printing the median CPU seconds. The
difference between the first and the others is what synthesized conformances cost per type: the
floor under any generator that keeps one field list per model and lets Swift write the coding.
"""
import argparse
import os
import statistics
import subprocess
import tempfile

VARIANTS = {
    "no conformance": "Sendable",
    "Encodable": "Encodable, Sendable",
    "Decodable": "Decodable, Sendable",
    "Codable": "Codable, Sendable",
    "Codable, Equatable": "Codable, Equatable, Sendable",
    "Codable, Hashable": "Codable, Hashable, Sendable",
}


def source(count, conformances):
    parts = ["import Foundation\n"]
    for index in range(count):
        parts.append(f"""
public struct Event{index}: {conformances} {{
    public var eventType: String
    public var timestamp: Date
    public var orgId: String?
    public var thingName: String?
    public var online: Bool?
}}
""")
    return "".join(parts)


def cpu_seconds(path):
    result = subprocess.run(
        ["/usr/bin/time", "-f", "%U %S", "swiftc", "-frontend", "-typecheck", "-primary-file", path,
         "-swift-version", "6", "-module-name", "Floor"],
        capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(result.stderr[-2000:])
    user, system = result.stderr.strip().splitlines()[-1].split()
    return float(user) + float(system)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--types", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="codable-floor-") as work:
        paths = {}
        for name, conformances in VARIANTS.items():
            paths[name] = os.path.join(work, name.replace(", ", "-").replace(" ", "-") + ".swift")
            with open(paths[name], "w") as f:
                f.write(source(args.types, conformances))
        times = {name: [] for name in VARIANTS}
        for _ in range(args.runs):  # in turns, so every variant sees the same machine
            for name, path in paths.items():
                times[name].append(cpu_seconds(path))
    print(f"| {args.types} structs of 5 properties | type-check CPU (s, median of {args.runs}) |")
    print("|---|---:|")
    for name in VARIANTS:
        print(f"| {name} | {statistics.median(times[name]):.2f} |")


if __name__ == "__main__":
    main()
