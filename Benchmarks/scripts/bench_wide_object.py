#!/usr/bin/env python3
"""Debug compile time of one wide payload object: channelgen's model vs swift-openapi-generator's.

    python3 Benchmarks/scripts/bench_wide_object.py [--tool .build/debug/channelgen] [--timeout 600] N...

For each N, one object schema of N properties (string, integer and boolean in turn; every other one
required) goes through channelgen (`generate: models`) and, as an OpenAPI 3.1 document, through
swift-openapi-generator (types mode; built by `bench_generators.py` into .build-bench/). Each
model file is compiled as an app's debug build compiles it (`swiftc -Onone -parse-as-library
-emit-object`, one frontend job) and the CPU seconds (user + sys) and peak memory are printed; a
compile stopped by the timeout prints `>` its CPU seconds. swift-openapi-generator's file imports
OpenAPIRuntime only for types this schema does not use; the import is left out so the file compiles
alone.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
THEIRS = os.path.join(ROOT, ".build-bench", "openapi-generator-tool", ".build", "release", "swift-openapi-generator")


def properties(n):
    kinds = ["string", "integer", "boolean"]
    return [(f"p{i}", kinds[i % 3]) for i in range(n)], [f"p{i}" for i in range(0, n, 2)]


def asyncapi(n):
    props, required = properties(n)
    lines = [
        "asyncapi: 3.0.0", "info: {title: Wide, version: 1.0.0}", "channels:", "  wide:", "    address: wide",
        "    messages:", "      wide:", "        payload: {$ref: '#/components/schemas/Wide'}",
        "components:", "  schemas:", "    Wide:", "      type: object", f"      required: [{', '.join(required)}]", "      properties:",
    ] + [f"        {name}: {{type: {kind}}}" for name, kind in props]
    return "\n".join(lines) + "\n"


def openapi(n):
    props, required = properties(n)
    lines = [
        "openapi: 3.1.0", "info: {title: Wide, version: 1.0.0}", "paths: {}", "components:", "  schemas:", "    Wide:",
        "      type: object", f"      required: [{', '.join(required)}]", "      properties:",
    ] + [f"        {name}: {{type: {kind}}}" for name, kind in props]
    return "\n".join(lines) + "\n"


def compile_cpu(source, timeout):
    """CPU seconds (user + sys) and peak RSS (MB) of a debug compile of `source`, and whether the
    timeout stopped it."""
    child = subprocess.Popen(
        ["swiftc", "-Onone", "-parse-as-library", "-emit-object", "-module-name", "Wide", source, "-o", source + ".o"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + timeout
    stopped = False
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline and not stopped:
            os.killpg(child.pid, 9)  # the driver and its frontend job
            stopped = True
        time.sleep(0.2)
    if not stopped and os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{source} does not compile")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stopped


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", default=os.path.join(ROOT, ".build", "debug", "channelgen"))
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--only", choices=["channelgen", "openapi"], help="time one generator's output")
    parser.add_argument("sizes", type=int, nargs="+")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="channelgen-wide-")
    print("| properties | generator | CPU s | peak MB |")
    print("|---:|---|---:|---:|")
    for n in args.sizes:
        folder = os.path.join(work, str(n))
        os.makedirs(folder)
        sources = []
        if args.only != "openapi":
            with open(os.path.join(folder, "wide.yaml"), "w") as f:
                f.write(asyncapi(n))
            with open(os.path.join(folder, "channelgen.yaml"), "w") as f:
                f.write("spec: wide.yaml\ngenerate: models\n")
            subprocess.run([args.tool, "generate", "--config", os.path.join(folder, "channelgen.yaml"), "--output", os.path.join(folder, "ours"), "--quiet"], check=True)
            sources.append(("channelgen", os.path.join(folder, "ours", "Models.swift")))
        if args.only != "channelgen":
            theirs = os.path.join(folder, "theirs")
            os.makedirs(theirs)
            with open(os.path.join(theirs, "openapi.yaml"), "w") as f:
                f.write(openapi(n))
            with open(os.path.join(theirs, "openapi-generator-config.yaml"), "w") as f:
                f.write("generate:\n  - types\naccessModifier: public\n")
            subprocess.run([THEIRS, "generate", "--config", os.path.join(theirs, "openapi-generator-config.yaml"),
                            "--output-directory", os.path.join(theirs, "out"), os.path.join(theirs, "openapi.yaml")],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            text = open(os.path.join(theirs, "out", "Types+Components+Schemas.swift")).read()
            text = re.sub(r"@_spi\(Generated\) public import OpenAPIRuntime\n", "", text)
            single = os.path.join(theirs, "Schemas.swift")
            with open(single, "w") as f:
                f.write("public enum Components {}\n" + text)
            sources.append(("swift-openapi-generator", single))
        for name, source in sources:
            cpu, peak, stopped = compile_cpu(source, args.timeout)
            print(f"| {n} | {name} | {'>' if stopped else ''}{cpu:.1f} | {peak:.0f} |", flush=True)


if __name__ == "__main__":
    main()
