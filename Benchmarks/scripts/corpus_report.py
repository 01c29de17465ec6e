#!/usr/bin/env python3
"""Receive operations served per AsyncAPI document and transport, for documents channelgen never saw.

    python3 Benchmarks/scripts/corpus_report.py [--tool .build/release/channelgen] DOC...

For each document and each transport (appsync, sse) it runs `channelgen generate` into a scratch
folder and counts the notifier's streams (`func …() async -> AsyncStream<…>` in the protocol, or
`func …(for subscription: …)` alone for a channel whose address is open)
against the document's receive operations (3.x: `action: receive`; 2.x: channels' `subscribe`).
It also runs the models mode. Any exit other than 0/1, any error without `file:line:col`, and
any output that does not compile is a defect: `--typecheck` type-checks every client generated
(against `.build/debug/Modules`: run `swift build` first) and reports what does not compile.

Needs PyYAML: `python3 -m pip install pyyaml`.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def receive_operations(path):
    try:
        document = yaml.safe_load(open(path, encoding="utf-8"))
    except Exception as error:  # the tool reports such files itself
        return None, f"python yaml: {type(error).__name__}"
    if not isinstance(document, dict):
        return None, "not a mapping"
    version = str(document.get("asyncapi", ""))
    if version.startswith("2"):
        channels = document.get("channels") or {}
        return sum(1 for c in channels.values() if isinstance(c, dict) and "subscribe" in c), version
    operations = document.get("operations") or {}
    return sum(1 for o in operations.values() if isinstance(o, dict) and o.get("action") == "receive"), version


CLIENT_FILES = ["Models.swift", "Channels.swift", "Subscriptions.swift", "Notifier.swift"]


def typechecks(output):
    files = [os.path.join(output, name) for name in CLIENT_FILES if os.path.exists(os.path.join(output, name))]
    if not files:
        return True
    modules = os.path.join(ROOT, ".build", "debug", "Modules")
    result = subprocess.run(["swiftc", "-typecheck", "-swift-version", "6", "-package-name", "channelgen", "-I", modules] + files,
                            capture_output=True, text=True)
    return result.returncode == 0


def generate(tool, spec, mode, work, cwd, typecheck=False):
    folder = tempfile.mkdtemp(dir=work)
    config = os.path.join(folder, "channelgen.yaml")
    lines = [f"spec: {os.path.relpath(spec, folder)}"]
    if mode == "models":
        lines.append("generate: models")
    else:
        lines.append(f"transport: {mode}")
    open(config, "w").write("\n".join(lines) + "\n")
    output = os.path.join(folder, "out")
    # Run from the documents' common folder: outside a package, that is the folder `$ref`s may read.
    result = subprocess.run([tool, "generate", "--config", config, "--output", output], capture_output=True, text=True, timeout=120, cwd=cwd)
    notifier = os.path.join(output, "Notifier.swift")
    streams = 0
    if os.path.exists(notifier):
        text = open(notifier, encoding="utf-8").read()
        streams = len({name for name in re.findall(r"func (\w+)\((?:for subscription: \w+)?\) async -> AsyncStream<", text) if not name.endswith("Envelopes")})
    if typecheck and result.returncode == 0 and mode != "models" and not typechecks(output):
        return result.returncode, streams, ["x:0:0: error: DEFECT: the generated client does not compile"], ["the generated client does not compile"]
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    unlocated = [line for line in result.stderr.splitlines() if "error:" in line and not re.match(r"^.+:\d+:\d+: error: ", line)]
    return result.returncode, streams, errors, unlocated


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", default=os.path.join(ROOT, ".build", "release", "channelgen"))
    # Absolute, as the tool runs from the documents' folder.
    parser.add_argument("--typecheck", action="store_true", help="type-check every client generated")
    parser.add_argument("documents", nargs="+")
    args = parser.parse_args()
    args.tool = os.path.abspath(args.tool)
    work = tempfile.mkdtemp(prefix="channelgen-corpus-")
    totals = {"appsync": [0, 0], "sse": [0, 0]}
    print("| document | version | appsync | sse | models | first error |\n|---|---|---:|---:|---|---|")
    common = os.path.commonpath([os.path.dirname(os.path.abspath(d)) for d in args.documents])
    for spec in args.documents:
        spec = os.path.abspath(spec)
        receives, version = receive_operations(spec)
        cells, first_error = [], ""
        for mode in ["appsync", "sse", "models"]:
            status, streams, errors, unlocated = generate(args.tool, spec, mode, work, common, args.typecheck)
            if status not in (0, 1) or unlocated:
                first_error = f"DEFECT exit {status} {unlocated[:1]}"
            elif errors and not first_error:
                first_error = errors[0].split(": error: ", 1)[1][:90]
            if mode == "models":
                cells.append("ok" if status == 0 else "rejected")
            else:
                cells.append(f"{streams}/{receives}" if receives is not None else f"{streams}/?")
                if receives:
                    totals[mode][0] += min(streams, receives)
                    totals[mode][1] += receives
        name = os.path.relpath(spec, os.path.commonpath(args.documents) if len(args.documents) > 1 else os.path.dirname(spec))
        print(f"| {name} | {version} | {' | '.join(cells)} | {first_error} |")
    print(f"| total | | {totals['appsync'][0]}/{totals['appsync'][1]} | {totals['sse'][0]}/{totals['sse'][1]} | | |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
