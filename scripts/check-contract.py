#!/usr/bin/env python3
"""Validates contract/ as a whole; exits 1 naming the file and the JSON path of every problem (contract/README.md).

- contract/asyncapi.yaml against the official AsyncAPI 3.0.0 JSON Schema (the AsyncAPI Initiative's
  3.0.0-without-$id.json, draft-07), taken from the PyPI source distribution pinned by hash in
  scripts/contract-asyncapi-schema.txt (the package's wheel leaves the file out);
- every schema file against the JSON Schema 2020-12 meta-schema, with its `$id` (wg_contract.ID_BASE + its path);
- every `$ref` of the schemas and of the AsyncAPI document resolves;
- contract/bundle/schemas.json is what scripts/bundle-contract.py writes, and resolves on its own;
- every message example: its payload validates against the message's payload schema (through the bundle alone, with the
  contract's own keywords) and is one of the JSON examples of docs/*.md; its headers against the message's headers;
- every message whose docs give an example has one (NO_DOCUMENTED_EXAMPLE lists the others);
- every `mqtts` server names a listener port of config/mosquitto/compose.conf and an X509 security scheme.

    .build/pytest-venv/bin/python -m pip install -q -r scripts/contract-requirements.txt
    .build/pytest-venv/bin/python scripts/check-contract.py

The source distribution is kept in .build/contract-cache/ (checked against its hash), so later runs need no network.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import jsonschema
import yaml
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT7, DRAFT202012

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "contract"))
from wg_contract import BUNDLE_FILE, CONTRACT_DIR, ID_BASE, ContractValidator, bundle_text, payload_schema  # noqa: E402

ASYNCAPI_SCHEMA_REQUIREMENT = REPOSITORY / "scripts/contract-asyncapi-schema.txt"
#: The official schema's file inside that source distribution.
ASYNCAPI_SCHEMA_MEMBER = "generator/definitions/3.0.0-without-$id.json"
CACHE = REPOSITORY / ".build/contract-cache"
JSON_SCHEMA_FORMAT = "application/schema+json;version=draft-2020-12"
#: Where the AsyncAPI document sits among the schemas' $ids (a name, never fetched).
DOCUMENT_URI = ID_BASE + "asyncapi.yaml"
#: Messages the docs give no example of: the Prometheus text (its metric names change), raw dead letters, the probe.
NO_DOCUMENTED_EXAMPLE = {"gatewayMetrics", "instanceMetrics", "deadLetter", "deadLetterUnattributed", "probe"}


class Problems(list):
    def add(self, file, path, message):
        self.append(f"{file}: {path}: {message}")


def json_path(parts) -> str:
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)


def leaves(error):
    """The errors without sub-errors below `error` (the branches of a failed oneOf or anyOf)."""
    if not error.context:
        yield error
    for branch in error.context:
        yield from leaves(branch)


def schema_errors(validator, instance, file, prefix, problems):
    """Every error of `instance` at its JSON path below `prefix`; of a failed oneOf or anyOf, the causes deepest in the
    instance (the branch that came nearest: a server's wrong member rather than "not a $ref")."""
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        causes = list(leaves(error))
        depth = max(len(cause.absolute_path) for cause in causes)
        reported = set()
        for cause in causes:
            where = json_path([*prefix, *cause.absolute_path])
            if len(cause.absolute_path) == depth and (where, cause.message) not in reported:
                reported.add((where, cause.message))
                problems.add(file, where, cause.message)


# MARK: The official AsyncAPI schema


def asyncapi_schema(python: str) -> dict:
    """The AsyncAPI 3.0.0 JSON Schema out of the pinned source distribution (downloaded once into CACHE by pip)."""
    requirement = ASYNCAPI_SCHEMA_REQUIREMENT.read_text()
    (name, version, digest), = re.findall(r"^([\w.-]+)==([\w.]+) --hash=sha256:([0-9a-f]{64})$", requirement, re.MULTILINE)
    CACHE.mkdir(parents=True, exist_ok=True)
    cached = [path for path in CACHE.glob("*.tar.gz") if hashlib.sha256(path.read_bytes()).hexdigest() == digest]
    if not cached:
        download = [python, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "--require-hashes",
                    "-r", str(ASYNCAPI_SCHEMA_REQUIREMENT), "-d", str(CACHE)]
        if subprocess.run(download, check=False).returncode != 0:
            sys.exit(f"{ASYNCAPI_SCHEMA_REQUIREMENT}: pip could not download the AsyncAPI schema's package: {' '.join(download)}")
        cached = [path for path in CACHE.glob("*.tar.gz") if hashlib.sha256(path.read_bytes()).hexdigest() == digest]
    if not cached:
        sys.exit(f"{ASYNCAPI_SCHEMA_REQUIREMENT}: pip downloaded no source distribution with sha256 {digest}")
    with tarfile.open(cached[0]) as archive:
        member = archive.extractfile(f"{name.replace('-', '_')}-{version}/{ASYNCAPI_SCHEMA_MEMBER}")
        schema = json.load(io.TextIOWrapper(member, encoding="utf-8"))
    if schema.get("title") != "AsyncAPI 3.0.0 schema.":
        sys.exit(f"{cached[0]}: {ASYNCAPI_SCHEMA_MEMBER} is not the AsyncAPI 3.0.0 schema (title {schema.get('title')!r})")
    return schema


# MARK: $refs


def refs(node, path=()):
    """(JSON path parts, value) of every `$ref` below `node`, examples left out (their payloads are data, not schemas)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield (*path, key), value
            elif key != "examples":
                yield from refs(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from refs(value, (*path, index))


def pointer(document, fragment: str):
    """The node at a JSON Pointer (`/a/b`); KeyError, IndexError or TypeError when there is none."""
    node = document
    for part in filter(None, fragment.split("/")):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def check_schema_refs(schemas, registry, problems):
    for file, schema in schemas.items():
        resolver = registry.resolver(base_uri=schema["$id"])
        for path, ref in refs(schema):
            try:
                resolver.lookup(ref)
            except Unresolvable:
                problems.add(file, json_path(path), f"$ref {ref!r} does not resolve")


def check_document_refs(document, schemas, problems):
    """The AsyncAPI document's `$ref`s: `#/…` into itself, `./schemas/….json#/…` into a schema file."""
    for path, ref in refs(document):
        target, _, fragment = ref.partition("#")
        try:
            pointer(document if not target else schemas[f"contract/{target.removeprefix('./')}"], fragment)
        except (KeyError, IndexError, TypeError, ValueError):
            problems.add("contract/asyncapi.yaml", json_path(path), f"$ref {ref!r} does not resolve")


# MARK: Examples


def canonical(value):
    """`value` with its JSON types kept apart (Python has True == 1 and 1 == 1.0; JSON examples should not)."""
    if isinstance(value, dict):
        return ("object", tuple(sorted((key, canonical(member)) for key, member in value.items())))
    if isinstance(value, list):
        return ("array", tuple(canonical(member) for member in value))
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, (int, float)):
        return ("number", value)  # 1 == 1.0, and a large integer stays exact
    return (type(value).__name__, value)


FENCE = re.compile(r"^ *```\w*[^\n`]*\n(.*?)^ *``` *$", re.DOTALL | re.MULTILINE)
INLINE = re.compile(r"`(\{[^`\n]*\})`")


def documented_examples() -> set:
    """Every JSON object or array docs/*.md shows: a whole code block, a line of one, or an inline `{…}`."""
    found = set()
    for path in sorted((REPOSITORY / "docs").glob("*.md")):
        text = path.read_text()
        candidates = [match.group(1) for match in INLINE.finditer(text)]
        for match in FENCE.finditer(text):
            candidates += [match.group(1), *match.group(1).splitlines()]
        for candidate in candidates:
            try:
                value = json.loads(candidate)
            except ValueError:
                continue
            if isinstance(value, (dict, list)):
                found.add(canonical(value))
    return found


def check_examples(document, bundle_registry, problems):
    """Each example against its message's schemas, and against the docs; returns how many were checked."""
    file = "contract/asyncapi.yaml"
    documented = documented_examples()
    document_registry = Registry().with_resource(DOCUMENT_URI, Resource.from_contents(document, default_specification=DRAFT7))
    count = 0
    for name, message in document["components"]["messages"].items():
        prefix = ("components", "messages", name)
        payload = message.get("payload", {})
        schema = payload_schema(message)
        if payload.get("schemaFormat", JSON_SCHEMA_FORMAT) == JSON_SCHEMA_FORMAT:
            # ./schemas/… relative to the document, which sits at ID_BASE as the schemas sit below it. Each target is made
            # the validator's root: a validator that enters a schema with its own $schema through a $ref goes on as that
            # draft's plain validator, without the contract's keywords.
            resolver = bundle_registry.resolver(base_uri=DOCUMENT_URI)
            branches = [schema] if "$ref" in schema else schema.get("anyOf", [])
            try:
                validators = [ContractValidator(resolver.lookup(branch["$ref"]).contents, registry=bundle_registry) for branch in branches]
            except (KeyError, Unresolvable):
                problems.add(file, json_path((*prefix, "payload", "schema")), "is no $ref, or anyOf of $refs, that the bundle resolves")
                continue
        else:
            validators = [jsonschema.Draft7Validator(schema)]
        # The message's headers schema where it is in the document, so that its `#/components/…` $refs (a
        # schema built with allOf on another) resolve against the document.
        headers = jsonschema.Draft7Validator(
            {"$ref": f"{DOCUMENT_URI}#/components/messages/{name}/headers"} if "headers" in message else {}, registry=document_registry)
        examples = message.get("examples", [])
        if not examples and name not in NO_DOCUMENTED_EXAMPLE:
            problems.add(file, json_path(prefix), "no examples (take them from docs/, or list the message in NO_DOCUMENTED_EXAMPLE)")
        if examples and name in NO_DOCUMENTED_EXAMPLE:
            problems.add(file, json_path(prefix), "has examples now: take it off NO_DOCUMENTED_EXAMPLE in scripts/check-contract.py")
        for index, example in enumerate(examples):
            at = (*prefix, "examples", index)
            count += 1
            if "payload" in example:
                # Valid under one of the branches (one for a plain $ref); else the errors of the nearest branch.
                outcomes = [Problems() for _ in validators]
                for validator, outcome in zip(validators, outcomes):
                    schema_errors(validator, example["payload"], file, (*at, "payload"), outcome)
                if all(outcomes):
                    problems += min(outcomes, key=len)
                if canonical(example["payload"]) not in documented:
                    problems.add(file, json_path((*at, "payload")), "is none of the JSON examples in docs/*.md (take them from the docs)")
            if "headers" in example:
                try:
                    schema_errors(headers, example["headers"], file, (*at, "headers"), problems)
                except jsonschema.exceptions.UnknownType as error:
                    # A broken headers schema, which the AsyncAPI schema or the $refs report where it is: one line here.
                    problems.add(file, json_path((*at, "headers")), f"cannot be checked: its schema has the unknown type {error.type!r}")
                except Unresolvable as error:
                    problems.add(file, json_path((*at, "headers")), f"cannot be checked: its schema's $ref {getattr(error, 'ref', '?')!r} does not resolve")
    return count


# MARK: Servers


def check_servers(document, problems):
    """An mqtts server is one of the shipped broker's TLS listeners and names an X509 scheme."""
    file = "contract/asyncapi.yaml"
    ports = set(re.findall(r"^listener (\d+)", (REPOSITORY / "config/mosquitto/compose.conf").read_text(), re.MULTILINE))
    secure = [(name, server) for name, server in document.get("servers", {}).items() if server.get("protocol") == "mqtts"]
    for name, server in secure:
        port = server.get("host", "").rpartition(":")[2]
        if port not in ports:
            problems.add(file, json_path(("servers", name, "host")),
                         f"port {port} is no listener of config/mosquitto/compose.conf {sorted(ports)}")
        types = []
        for requirement in server.get("security", []):
            try:
                scheme = pointer(document, requirement["$ref"].removeprefix("#")) if "$ref" in requirement else requirement
            except (KeyError, IndexError, TypeError):
                continue  # reported with the $refs
            types.append(scheme.get("type"))
        if "X509" not in types:
            problems.add(file, json_path(("servers", name, "security")), "names no security scheme of type X509")
    if not secure:
        problems.add(file, "$.servers", "no mqtts server")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the Python whose pip downloads the AsyncAPI schema (default: this one)")
    arguments = parser.parse_args()
    problems = Problems()

    document = yaml.safe_load((CONTRACT_DIR / "asyncapi.yaml").read_text())
    official = asyncapi_schema(arguments.python)
    schema_errors(jsonschema.Draft7Validator(official), document, "contract/asyncapi.yaml", (), problems)

    schemas, registry = {}, Registry()
    meta = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)
    for path in sorted((CONTRACT_DIR / "schemas").rglob("*.json")):
        file = path.relative_to(REPOSITORY).as_posix()
        schema = json.loads(path.read_text())
        schemas[file] = schema
        schema_errors(meta, schema, file, (), problems)
        expected = ID_BASE + path.relative_to(CONTRACT_DIR).as_posix()
        if schema.get("$id") != expected:
            problems.add(file, "$.$id", f"is {schema.get('$id')!r}, expected {expected!r}")
            schema["$id"] = expected
        if schema.get("$schema") != jsonschema.Draft202012Validator.META_SCHEMA["$id"]:
            problems.add(file, "$.$schema", f"is {schema.get('$schema')!r}, not JSON Schema 2020-12")
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema, default_specification=DRAFT202012))
    check_schema_refs(schemas, registry, problems)
    check_document_refs(document, schemas, problems)

    bundle_path = CONTRACT_DIR / BUNDLE_FILE
    bundle_file = bundle_path.relative_to(REPOSITORY).as_posix()
    bundle = json.loads(bundle_path.read_text()) if bundle_path.is_file() else {}
    if not bundle_path.is_file() or bundle_path.read_text() != bundle_text():
        problems.add(bundle_file, "$", "out of date with contract/schemas/: run python3 scripts/bundle-contract.py and commit it")
    schema_errors(meta, bundle, bundle_file, (), problems)
    # The bundle alone, no file: the examples resolve every $ref through it.
    bundle_resource = Resource.from_contents(bundle, default_specification=DRAFT202012)
    bundle_registry = Registry().with_resource(ID_BASE + BUNDLE_FILE, bundle_resource).crawl()
    examples = check_examples(document, bundle_registry, problems)
    check_servers(document, problems)

    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"contract: {len(problems)} problem(s) (above)", file=sys.stderr)
        return 1
    ref_count = sum(1 for schema in schemas.values() for _ in refs(schema)) + sum(1 for _ in refs(document))
    print(f"contract: asyncapi.yaml valid against AsyncAPI 3.0.0; {len(schemas)} schemas valid against 2020-12 with their $id; "
          f"{ref_count} $refs resolve; {BUNDLE_FILE} up to date; {examples} examples valid and found in docs/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
