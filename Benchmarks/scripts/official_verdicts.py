#!/usr/bin/env python3
"""Whether the official AsyncAPI JSON Schemas call each document valid, for the corpus check in `swift test`.

    python3 Benchmarks/scripts/official_verdicts.py --schemas DIR DOC... > Tests/ChannelCodegenTests/Fixtures/official-verdicts.txt

The fixtures' documents, as `OfficialVerdictTests` lists them (fragments in shared/common folders left out):

    F=Tests/ChannelCodegenTests/Fixtures
    python3 Benchmarks/scripts/official_verdicts.py --schemas DIR spec/vortex-events.asyncapi.yaml \
        $(find $F/corpus/asyncapi $F/bad $F/validity -name '*.y*ml' | grep -Ev '/(shared|common|commons)/') > $F/official-verdicts.txt

DIR holds the bundled schemas of asyncapi/spec-json-schemas as `<version>.json` (the repository's
`schemas/<version>-without-$id.json`, which need nothing else). Each document is checked the way the
official parser does it: its `$ref`s are resolved (local and relative files; a reference that does
not resolve makes the document invalid; a cycle is left as a reference, which the schemas allow) and
the result validated against the schema of its `asyncapi` version (2.x.y → 2.x.0), where 3.x
asks for a Reference the object it names (as parser-js's `documentStructure` does).

One line per document: `<path relative to the repository>\t<valid|invalid|unknown>\t<first reason>`
(`unknown`: the document names a remote `$ref`, which this script does not fetch). The
reason is for people reading a diff; the Swift check reads only the verdict.

Needs jsonschema and PyYAML: `python3 -m pip install jsonschema pyyaml` (pip's packages, not wheels
kept in this repository).
"""
import argparse
import json
import os
import sys
import urllib.parse

import jsonschema
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class Loader(yaml.SafeLoader):
    """YAML as the official parser reads it (timestamps stay strings, as in JSON)."""


def construct_mapping(loader, node):
    loader.flatten_mapping(node)
    keys = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in keys:  # js-yaml, which the official parser uses, refuses them
            raise yaml.constructor.ConstructorError(None, None, f"duplicated mapping key '{key}'", key_node.start_mark)
        keys.add(key)
    return loader.construct_mapping(node)


Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
Loader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class Unresolved(Exception):
    pass


class Remote(Exception):
    pass


def load(path, cache):
    if path not in cache:
        with open(path, encoding="utf-8") as file:
            cache[path] = yaml.load(file, Loader=Loader)
    return cache[path]


def pointer_target(document, path, fragment, reference, cache, depth=0):
    """The node `fragment` names in `document` (read from `path`) and the file it lives in. A
    pointer passing through a `$ref` continues in its target, as json-schema-ref-parser does."""
    node = document
    if fragment in ("", "/"):
        return node, path
    for token in fragment.lstrip("/").split("/"):
        token = urllib.parse.unquote(token).replace("~1", "/").replace("~0", "~")
        while isinstance(node, dict) and token not in node and isinstance(node.get("$ref"), str):
            if depth > 64:
                raise Unresolved(f"$ref '{reference}' passes through too many references")
            file_part, _, inner = node["$ref"].partition("#")
            if "://" in file_part:
                raise Remote(f"remote $ref '{node['$ref']}'")
            path = os.path.normpath(os.path.join(os.path.dirname(path), urllib.parse.unquote(file_part))) if file_part else path
            try:
                inner_document = load(path, cache)
            except (OSError, ValueError):
                raise Unresolved(f"unresolved $ref '{node['$ref']}' (no file)")
            node, path = pointer_target(inner_document, path, inner, node["$ref"], cache, depth + 1)
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise Unresolved(f"unresolved $ref '{reference}'")
    return node, path


def dereference(node, path, cache, stack):
    if isinstance(node, list):
        return [dereference(item, path, cache, stack) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if isinstance(reference, str):
        file_part, _, fragment = reference.partition("#")
        if "://" in file_part:
            raise Remote(f"remote $ref '{reference}' (the official parser fetches it; nothing here does)")
        target_path = os.path.normpath(os.path.join(os.path.dirname(path), urllib.parse.unquote(file_part))) if file_part else path
        key = (target_path, fragment)
        if key in stack:
            return node  # a cycle stays a reference
        try:
            document = load(target_path, cache)
        except (OSError, ValueError):
            raise Unresolved(f"unresolved $ref '{reference}' (no file)")
        target, target_path = pointer_target(document, target_path, fragment, reference, cache)
        return dereference(target, target_path, cache, stack | {key})
    return {key: dereference(value, path, cache, stack) for key, value in node.items()}


def resolved_schema(schema, version):
    """As the official parser validates a resolved 3.x document: where the schema asks for a
    Reference (an operation's channel and messages, a reply's, a channel's servers), the object it
    points at is checked instead."""
    if not version.startswith("3."):
        return schema  # 2.x: references are allowed wherever their objects are
    definitions = schema["definitions"]
    definitions["channel"]["properties"]["servers"]["items"] = {"$ref": "#/definitions/server"}
    for name in ("operation", "operationReply"):
        properties = definitions[name]["properties"]
        properties["channel"] = {"$ref": "#/definitions/channel"}
        properties["messages"]["items"] = {"$ref": "#/definitions/messageObject"}
    return schema


def verdict(path, schemas):
    cache = {}
    try:
        document = load(path, cache)
    except Exception as error:
        return "invalid", f"not YAML: {type(error).__name__}"
    if not isinstance(document, dict):
        return "invalid", "not a mapping"
    version = str(document.get("asyncapi", ""))
    parts = version.split(".")
    if len(parts) != 3:
        return "invalid", f"asyncapi version '{version}'"
    schema_name = f"{parts[0]}.{parts[1]}.0" if parts[0] == "2" else version
    if schema_name not in schemas:
        return "invalid", f"no official schema for {version}"
    try:
        resolved = dereference(document, path, cache, frozenset())
    except Unresolved as error:
        return "invalid", str(error)
    except Remote as error:
        return "unknown", str(error)
    except RecursionError:
        return "invalid", "references nest too deep"
    validator = jsonschema.Draft7Validator(schemas[schema_name])
    first = jsonschema.exceptions.best_match(validator.iter_errors(resolved))
    if first is not None:
        while first.context:  # a oneOf/anyOf failure: name the branch that came closest, not the Reference one
            branches = [e for e in first.context if not (e.validator == "required" and "'$ref'" in e.message)]
            first = jsonschema.exceptions.best_match(branches or first.context)
        where = "/" + "/".join(str(p) for p in first.absolute_path)
        return "invalid", f"{where}: {first.message[:160]}".replace("\t", " ").replace("\n", " ")
    return "valid", ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--schemas", required=True)
    parser.add_argument("documents", nargs="+")
    arguments = parser.parse_args()
    schemas = {}
    for name in os.listdir(arguments.schemas):
        if name.endswith(".json"):
            with open(os.path.join(arguments.schemas, name), encoding="utf-8") as file:
                version = name[: -len(".json")]
                schemas[version] = resolved_schema(json.load(file), version)
    for document in sorted(arguments.documents):
        result, reason = verdict(document, schemas)
        relative = os.path.relpath(os.path.abspath(document), ROOT)
        print(f"{relative}\t{result}\t{reason}")


if __name__ == "__main__":
    sys.exit(main())
