#!/usr/bin/env python3
"""Generator and tool-build benchmarks: channelgen vs swift-openapi-generator (types mode).

Run from anywhere:  python3 Benchmarks/scripts/bench_generators.py [--runs 7] [--skip-builds]
Prints markdown tables (medians). Build folders go to .build-bench/ (git-ignored).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BENCH = os.path.join(ROOT, ".build-bench")
OPENAPI_TOOL = os.path.join(BENCH, "openapi-generator-tool")
OPENAPI_VERSION = "1.14.3"


def run(cmd, cwd=None, quiet=True):
    result = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE if quiet else None, stderr=subprocess.STDOUT if quiet else None, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stdout or ''}")
    return result.stdout


def timed_build(cmd, cwd, scratch):
    shutil.rmtree(scratch, ignore_errors=True)
    start = time.monotonic()
    run(cmd + ["--scratch-path", scratch], cwd=cwd)
    return time.monotonic() - start


def write_openapi_wrapper():
    os.makedirs(OPENAPI_TOOL, exist_ok=True)
    with open(os.path.join(OPENAPI_TOOL, "Package.swift"), "w") as f:
        f.write(f"""// swift-tools-version: 6.1
// Builds swift-openapi-generator {OPENAPI_VERSION} for the benchmark (not part of swift-channelgen).
import PackageDescription
let package = Package(
    name: "openapi-generator-tool",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", exact: "{OPENAPI_VERSION}")],
    targets: []
)
""")


def measure(cmd, runs):
    """Median wall seconds and median peak RSS (KB) of `cmd` over `runs` runs: the clock around the
    child, and its peak from `wait4` (GNU time's wall clock has 10 ms steps, a whole Vortex run)."""
    walls, peaks = [], []
    for _ in range(runs):
        command = cmd()
        with tempfile.TemporaryFile() as errors:
            start = time.perf_counter()
            child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
            _, status, usage = os.wait4(child.pid, 0)
            walls.append(time.perf_counter() - start)
            child.returncode = os.waitstatus_to_exitcode(status)
            if child.returncode != 0:
                errors.seek(0)
                sys.exit(f"failed: {' '.join(command)}\n{errors.read().decode(errors='replace')}")
        peaks.append(usage.ru_maxrss)
    return statistics.median(walls), statistics.median(peaks)


def generated_lines(folder):
    return sum(sum(1 for _ in open(os.path.join(folder, name))) for name in os.listdir(folder) if name.endswith(".swift"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--channels", type=int, default=504)
    parser.add_argument("--skip-builds", action="store_true", help="reuse existing release builds; no clean-build timing")
    parser.add_argument("--samples", action="store_true", help="also print every timed run of the synthetic ratio (ms)")
    args = parser.parse_args()
    os.makedirs(BENCH, exist_ok=True)
    write_openapi_wrapper()

    builds = {}
    timings = os.path.join(BENCH, "build-timings.json")
    ours_release = os.path.join(BENCH, "channelgen-release")
    theirs_release = os.path.join(BENCH, "openapi-release")
    if not args.skip_builds:
        run(["swift", "package", "resolve"], cwd=OPENAPI_TOOL)  # fetch outside the timing
        for config in ["debug", "release"]:
            builds[("channelgen", config)] = timed_build(
                ["swift", "build", "-c", config, "--product", "channelgen"], ROOT, os.path.join(BENCH, f"channelgen-{config}"))
            builds[("swift-openapi-generator", config)] = timed_build(
                ["swift", "build", "-c", config, "--product", "swift-openapi-generator"], OPENAPI_TOOL, os.path.join(BENCH, f"openapi-{config}"))
        with open(timings, "w") as f:
            json.dump({f"{tool}/{config}": seconds for (tool, config), seconds in builds.items()}, f)
    elif os.path.exists(timings):
        with open(timings) as f:
            builds = {tuple(key.split("/")): value for key, value in json.load(f).items()}
    ours = os.path.join(ours_release, "release", "channelgen")
    theirs = os.path.join(theirs_release, "release", "swift-openapi-generator")
    for tool in [ours, theirs]:
        if not os.path.exists(tool):
            sys.exit(f"missing {tool}; run without --skip-builds first")

    work = tempfile.mkdtemp(prefix="channelgen-bench-")
    # Inputs: the Vortex spec (9 channels) and a synthetic spec; the same schemas as OpenAPI for theirs.
    vortex_openapi = os.path.join(work, "vortex-openapi")
    os.makedirs(vortex_openapi)
    shutil.copy(os.path.join(ROOT, "spec", "openapi-schemas.yaml"), os.path.join(vortex_openapi, "openapi.yaml"))
    with open(os.path.join(vortex_openapi, "openapi-generator-config.yaml"), "w") as f:
        f.write("generate:\n  - types\naccessModifier: public\n")
    synthetic = os.path.join(work, f"synthetic-{args.channels}")
    run([sys.executable, os.path.join(os.path.dirname(__file__), "make_specs.py"), "--channels", str(args.channels), "--out", synthetic])
    cases = [
        ("Vortex (9 channels)", os.path.join(ROOT, "Sources", "VortexEvents", "channelgen.yaml"), vortex_openapi),
        (f"synthetic ({args.channels} channels)", os.path.join(synthetic, "channelgen.yaml"), synthetic),
    ]

    counter = [0]

    made = []

    def fresh():
        # Older output folders go before the next run: hundreds of megabytes of dirty pages
        # being written back would land in whichever run comes next.
        while len(made) > 2:
            shutil.rmtree(made.pop(0), ignore_errors=True)
        counter[0] += 1
        made.append(os.path.join(work, f"out-{counter[0]}"))
        return made[-1]

    print(f"## Generator: cold run, median of {args.runs} (wall s / peak RSS MB)\n")
    print("| input | channelgen | swift-openapi-generator (types) | ours / theirs (time) | ours / theirs (memory) | generated lines (ours / theirs) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, config, openapi_dir in cases:
        ours_wall, ours_peak = measure(lambda: [ours, "generate", "--config", config, "--output", fresh(), "--quiet"], args.runs)
        theirs_wall, theirs_peak = measure(lambda: [theirs, "generate", os.path.join(openapi_dir, "openapi.yaml"),
                                                    "--config", os.path.join(openapi_dir, "openapi-generator-config.yaml"),
                                                    "--output-directory", fresh()], args.runs)
        ours_out, theirs_out = fresh(), fresh()
        run([ours, "generate", "--config", config, "--output", ours_out, "--quiet"])
        run([theirs, "generate", os.path.join(openapi_dir, "openapi.yaml"), "--config", os.path.join(openapi_dir, "openapi-generator-config.yaml"), "--output-directory", theirs_out])
        synthetic_case = (config, openapi_dir)
        print(f"| {name} | {ours_wall:.3f} s / {ours_peak / 1024:.1f} MB | {theirs_wall:.3f} s / {theirs_peak / 1024:.1f} MB "
              f"| {ours_wall / theirs_wall:.2f} | {ours_peak / theirs_peak:.2f} | {generated_lines(ours_out)} / {generated_lines(theirs_out)} |")

    # The two generator ratios, on their own lines: channelgen / swift-openapi-generator on the
    # synthetic spec, and a Vortex run / a bare Swift + Foundation process (startup included).
    bare_source = os.path.join(work, "bare.swift")
    with open(bare_source, "w") as f:
        f.write("import Foundation\nprint(FileManager.default.currentDirectoryPath.count)\n")
    bare = os.path.join(work, "bare")
    run(["swiftc", "-O", bare_source, "-o", bare])
    # The synthetic ratio from runs taken in turns (ours, theirs, ours, …) and timed with
    # perf_counter: GNU time's 10 ms resolution is 7 % of a 0.14 s run, and a machine whose speed
    # drifts between two blocks of runs would move the ratio; in turns, both see the same drift.
    config, openapi_dir = synthetic_case
    ours_samples, theirs_samples = [], []
    for _ in range(max(args.runs, 11)):
        for samples, cmd in ((ours_samples, lambda: [ours, "generate", "--config", config, "--output", fresh(), "--quiet"]),
                             (theirs_samples, lambda: [theirs, "generate", os.path.join(openapi_dir, "openapi.yaml"),
                                                       "--config", os.path.join(openapi_dir, "openapi-generator-config.yaml"),
                                                       "--output-directory", fresh()])):
            command = cmd()
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            samples.append(time.perf_counter() - start)
    ours_s, theirs_s = statistics.median(ours_samples), statistics.median(theirs_samples)
    if args.samples: print("samples ours", [round(x * 1000) for x in ours_samples], "theirs", [round(x * 1000) for x in theirs_samples])
    synthetic_ratio = ours_s / theirs_s
    # The Vortex ratio in turns too (ours, bare, ours, …): a few milliseconds each, so a drift
    # between two blocks of runs would move it more than anything the tool does.
    vortex_samples, bare_samples = [], []
    for _ in range(31):
        for samples, cmd in ((vortex_samples, lambda: [ours, "generate", "--config", cases[0][1], "--output", fresh(), "--quiet"]),
                             (bare_samples, lambda: [bare])):
            command = cmd()
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            samples.append(time.perf_counter() - start)
    vortex_ms, bare_ms = statistics.median(vortex_samples) * 1000, statistics.median(bare_samples) * 1000
    print(f"\nratio: synthetic, channelgen / swift-openapi-generator: {synthetic_ratio:.3f} "
          f"({ours_s * 1000:.0f} ms / {theirs_s * 1000:.0f} ms, median of {len(ours_samples)} runs in turns; goal <= 0.10)")
    print(f"ratio: Vortex, channelgen / bare Swift + Foundation process: {vortex_ms / bare_ms:.2f} "
          f"({vortex_ms:.1f} ms / {bare_ms:.1f} ms, median of {len(vortex_samples)} runs in turns; goal <= 2)")

    if builds:
        print("\n## Clean build of the generator tool (what a build plugin compiles in every user's build)\n")
        print("| configuration | channelgen | swift-openapi-generator | ours / theirs |")
        print("|---|---:|---:|---:|")
        for config in ["debug", "release"]:
            a, b = builds[("channelgen", config)], builds[("swift-openapi-generator", config)]
            print(f"| {config} | {a:.0f} s | {b:.0f} s | {a / b:.2f} |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
