"""contract/ (AsyncAPI 3 + JSON Schema 2020-12) checked against the code, not by hand.

- `wearable-sim contract-samples` (conftest.py's `samples`, shared with test_typed_models.py)
  runs the simulator's scenarios through the gateway's pure frame processor and writes every
  inbound frame and every outbound message they produce; each must validate against the schema
  of its channel, with the channel's QoS, retain flag and content type, and every channel needs
  a sample (a channel without one, or a message on a topic no channel matches, fails).
- `wearable-sim contract-check` gives the gateway's verdict (decoding and validation, the checks
  that reject a frame as invalidPayload) on payloads. `test_gateway_and_schemas_agree` mutates
  valid frames of every inbound stream (members removed, null, of another type, negative, zero,
  fractional, huge, at and just past every bound the schema states, arrays emptied and past
  their length, unknown members added) and requires the same verdict from both sides. So a
  validation rule added to ValidationRules/ValidationLimits or the decoder without the schema
  change, or a bound changed on one side only, fails here: the gateway rejects a mutation the
  schema accepts, or the reverse (a rule on a value the generic mutations never reach would not;
  the bounds the schema states are probed exactly).
"""

import copy
import json
import os
import re
import subprocess
from pathlib import Path

import jsonschema

from conftest import REPOSITORY, WEARABLE_SIM
from wg_contract import payload_schema

FIXTURES = REPOSITORY / "Tests/TelemetryCoreTests/Fixtures/json"

#: Channels the offline run cannot produce, each with the test that covers it instead.
NOT_SAMPLED_OFFLINE = {
    "gatewayStatus": "the gateway's runtime publishes it; test_python_consumer receives it from the testbed",
    "gatewayMetrics": "Prometheus text from the runtime; test_python_consumer receives it from the testbed",
    "probe": "the runtime's round-trip probe; test_python_consumer validates it when the testbed sends one",
    "instanceMetrics": "clustered modes only (IntegrationTests' cluster suites)",
}


#: Codes of topics the gateway rejects before it looks at the payload.
TOPIC_ERRORS = {"invalidTopic", "invalidDeviceId", "unknownStream"}
#: Codes of the access checks, which come after decoding and validation.
ACCESS_ERRORS = {"unknownDevice", "notAvailable", "notAuthorized", "notEntitled", "noActiveWorkout"}


def gateway_verdicts(queries):
    """The gateway's verdict on each (stream, payload text), in one `contract-check` process."""
    lines = "".join(json.dumps({"stream": stream, "payload": payload}) + "\n" for stream, payload in queries)
    output = subprocess.run([WEARABLE_SIM, "contract-check"], input=lines, capture_output=True, text=True, check=True).stdout
    verdicts = [json.loads(line) for line in output.splitlines()]
    assert len(verdicts) == len(queries)
    return verdicts


# MARK: The document


def test_document_structure(contract):
    """Every $ref resolves, every schema is a valid 2020-12 schema and used, operations match channels."""
    document = contract.document
    assert document["asyncapi"].startswith("3.")
    used = set()
    for channel in contract.channels:
        if channel.schema_file:
            assert channel.schema_file in contract.schemas, f"{channel.id}: {channel.schema_file} does not exist"
            used.add(channel.schema_file)
        assert channel.action in ("send", "receive"), f"{channel.id} has no operation"
        assert channel.retain is not None, f"{channel.id}: its operation states no retain flag"
        for parameter in re.findall(r"{(\w+)}", channel.address):
            assert parameter in document["channels"][channel.id].get("parameters", {}), f"{channel.id}: parameter {parameter} undeclared"
    for message in document["components"]["messages"].values():
        for schema in payload_schema(message).get("anyOf", []):
            used.add(schema["$ref"].removeprefix("./"))
    for name, schema in contract.schemas.items():
        jsonschema.Draft202012Validator.check_schema(schema)
        if name != "schemas/common.json":
            assert name in used, f"{name} is referenced by no channel"
            # Resolves every $ref of the schema (an unresolvable one raises).
            contract.validator(name).is_valid({})


def test_every_documented_topic_is_a_channel(contract):
    """docs/wire-contract.md's stream and topic tables, and TopicScheme.Leaf, against the channels."""
    text = (REPOSITORY / "docs/wire-contract.md").read_text()
    addresses = {channel.address for channel in contract.channels}
    inbound = text.split("## Inbound streams")[1].split("\n\n")[1]
    streams = re.findall(r"^\| `([a-z/-]+)` \|", inbound, re.MULTILINE)
    assert len(streams) == 16
    for stream in streams:
        assert f"wearables/{{deviceId}}/{stream}" in addresses, stream
    outbound = text.split("## Outbound topics")[1].split("### ")[0]
    for topics in re.findall(r"^\| (`gateway/[^|]+)\|", outbound, re.MULTILINE):
        for topic in re.findall(r"`([^`]+)`", topics):
            address = topic.replace("{id}", "{deviceId}")
            assert address in addresses, topic
    leaves = (REPOSITORY / "Sources/TelemetryCore/Topics/TopicScheme+Leaf.swift").read_text()
    for case in re.findall(r'^\s+case (\w+)(?: = "([^"]+)")?$', leaves, re.MULTILINE):
        leaf = case[1] or case[0]
        prefix = f"gateway/{{deviceId}}/{leaf}"
        assert any(address == prefix or address.startswith(prefix + "/{") for address in addresses), leaf


# MARK: Samples


def top_level_schemas(contract, schema_file):
    """The schema and every schema it applies at the top level (through $ref, oneOf, anyOf)."""

    def walk(schema, base):
        yield schema
        if "$ref" in schema:
            target, _, pointer = schema["$ref"].partition("#")
            file = os.path.normpath((Path(base).parent / target).as_posix()) if target else base
            node = contract.schemas[file]
            for part in filter(None, pointer.split("/")):
                node = node[part]
            yield from walk(node, file)
        for branch in schema.get("oneOf", []) + schema.get("anyOf", []):
            yield from walk(branch, base)

    return list(walk(contract.schemas[schema_file], schema_file))


def declared_properties(contract, schema_file):
    """Top-level member names a schema declares."""
    return {name for schema in top_level_schemas(contract, schema_file) for name in schema.get("properties", {})}


def test_every_sample_conforms(contract, samples):
    problems = []
    for sample in samples:
        topic = sample["topic"]
        channel = contract.channel_for(topic)
        rejected_as = sample.get("rejectedAs")
        if rejected_as in TOPIC_ERRORS:
            if channel is not None:
                problems.append(f"{topic}: the gateway rejects the topic ({rejected_as}), yet channel {channel.id} matches it")
            continue
        if channel is None:
            problems.append(f"{topic}: no channel")
            continue
        if rejected_as == "invalidPayload":
            if not contract.problems(topic, sample["payload"]):
                problems.append(f"{topic}: the gateway rejects the payload, the schema accepts it: {sample['payload'][:200]}")
            continue
        expected_action = "receive" if sample["direction"] == "inbound" else "send"
        if channel.action != expected_action:
            problems.append(f"{topic}: matched {channel.id}, which the gateway does not {expected_action}")
        if channel.qos is not None and sample["qos"] != channel.qos:
            problems.append(f"{topic}: QoS {sample['qos']}, the contract says {channel.qos}")
        if sample["retain"] != channel.retain:
            problems.append(f"{topic}: retain {sample['retain']}, the contract says {channel.retain}")
        content_type = sample.get("contentType")
        if sample["direction"] == "outbound" and channel.content_type != "application/octet-stream" and content_type != channel.content_type:
            problems.append(f"{topic}: content type {content_type}, the contract says {channel.content_type}")
        problems += [f"{topic}: {problem}  in {sample['payload'][:200]}" for problem in contract.problems(topic, sample["payload"])]
        if sample["direction"] == "outbound" and channel.schema_file:
            undeclared = set(json.loads(sample["payload"])) - declared_properties(contract, channel.schema_file)
            if undeclared:
                problems.append(f"{topic}: members {sorted(undeclared)} are not in {channel.schema_file}")
    assert not problems, "\n".join(problems[:40])


def test_every_channel_has_a_sample(contract, samples):
    sampled = {contract.channel_for(sample["topic"]).id for sample in samples if contract.channel_for(sample["topic"])}
    missing = {channel.id for channel in contract.channels} - sampled - set(NOT_SAMPLED_OFFLINE)
    assert not missing, f"channels without a sample: {sorted(missing)}"
    assert not sampled & set(NOT_SAMPLED_OFFLINE), "a channel listed as not sampled offline has samples now; take it off the list"


def test_fixtures_conform(contract):
    """The decoder's own test fixtures (one valid frame per stream) validate too."""
    for path in sorted(FIXTURES.glob("*.json")):
        two_levels = path.stem.startswith(("batched-", "headphone-", "submersion-", "pedometer-", "recorder-"))
        topic = "wearables/fixture-1/" + (path.stem.replace("-", "/", 1) if two_levels else path.stem)
        assert contract.problems(topic, path.read_bytes()) == [], path.name


# MARK: The gateway's validation rules against the inbound schemas

GENERIC_VALUES = [None, "text", True, [], {}, -1, 0, 0.5, 1e9, -1e9, 999, 2**64]
ABSENT = object()


def leaves(value, path=()):
    """Paths to every member and array element worth mutating: first and last array elements only."""
    if isinstance(value, dict):
        for key, member in value.items():
            yield path + (key,)
            yield from leaves(member, path + (key,))
    elif isinstance(value, list) and value:
        for index in sorted({0, len(value) - 1}):
            yield path + (index,)
            yield from leaves(value[index], path + (index,))


def mutated(document, path, value):
    copy_ = copy.deepcopy(document)
    node = copy_
    for part in path[:-1]:
        node = node[part]
    if value is ABSENT:
        if isinstance(node, list):
            node.pop(path[-1])
        else:
            node.pop(path[-1])
    else:
        node[path[-1]] = value
    return copy_


def bounds_at(validator, document, path):
    """The numeric bounds the schema states for the member at `path` (found by probing it)."""
    found = set()
    for probe in (1e300, -1e300, 1.5):
        for error in validator.iter_errors(mutated(document, path, probe)):
            for inner in [error] + list(error.context or []):
                if tuple(inner.absolute_path) == path and inner.validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                    found.add(inner.validator_value)
    return found


def array_lengths(schemas, name):
    """minItems and maxItems the schema states for the top-level array member `name`."""
    return {
        schema["properties"][name][keyword]
        for schema in schemas
        for keyword in ("minItems", "maxItems")
        if keyword in schema.get("properties", {}).get(name, {})
    }


def mutations(validator, schemas, document):
    """(description, mutated document) pairs for one valid frame; `schemas`: its top-level schemas."""
    yield "unknown member", dict(document, unknownMember=1)
    for path in leaves(document):
        yield f"{path} removed", mutated(document, path, ABSENT)
        for value in GENERIC_VALUES:
            yield f"{path} = {value!r}", mutated(document, path, value)
        for bound in bounds_at(validator, document, path):
            step = max(abs(bound) * 1e-9, 1e-6)
            for value in (bound, bound - step, bound + step):
                yield f"{path} = {value!r} (bound {bound})", mutated(document, path, value)
        if isinstance(path[-1], str):
            target = document
            for part in path:
                target = target[part]
            if isinstance(target, list) and target and len(path) == 1:
                for length in array_lengths(schemas, path[0]):
                    for count in (length - 1, length, length + 1):
                        if count >= 0:
                            yield f"{path} with {count} elements", mutated(document, path, (target * (count // len(target) + 1))[:count])
            if isinstance(target, dict):
                yield f"{path} + unknown member", mutated(document, path, dict(target, unknownMember=1))


def shortened(document):
    """The frame with at most 3 samples, so that the many mutations stay cheap to validate."""
    if isinstance(document.get("samples"), list):
        return dict(document, samples=document["samples"][:3])
    return document


def test_gateway_and_schemas_agree(contract, samples):
    channels = {channel.id: channel for channel in contract.channels if channel.address.startswith("wearables/")}
    bases = {}
    for sample in samples:
        channel = contract.channel_for(sample["topic"])
        if sample.get("rejectedAs") in (None, *ACCESS_ERRORS) and channel and channel.id in channels and channel.id not in bases:
            bases[channel.id] = [json.loads(sample["payload"])]
    for path in FIXTURES.glob("*.json"):
        channel = next(c for c in channels.values() if c.address.replace("/", "-").endswith("}-" + path.stem))
        bases.setdefault(channel.id, []).append(json.loads(path.read_text()))
    assert len(bases) == 16, sorted(bases)

    queries, expectations = [], []
    for channel_id, documents in bases.items():
        channel = channels[channel_id]
        stream = channel.address.removeprefix("wearables/{deviceId}/")
        validator = contract.validator(channel.schema_file)
        schemas = top_level_schemas(contract, channel.schema_file)
        for document in documents:
            document = shortened(document)
            assert contract.problems(f"wearables/x/{stream}", json.dumps(document)) == []
            for description, candidate in mutations(validator, schemas, document):
                text = json.dumps(candidate)
                queries.append((stream, text))
                expectations.append((stream, description, not contract.problems(f"wearables/x/{stream}", text), text))
    verdicts = gateway_verdicts(queries)
    disagreements = [
        f"{stream} {description}: gateway {'accepts' if verdict['accepted'] else 'rejects (' + verdict.get('detail', '') + ')'}, "
        f"schema {'accepts' if valid else 'rejects'}: {text[:160]}"
        for (stream, description, valid, text), verdict in zip(expectations, verdicts)
        if verdict["accepted"] != valid
    ]
    rejected = sum(not verdict["accepted"] for verdict in verdicts)
    assert rejected > len(verdicts) / 3, "the mutations hardly break anything; the test lost its teeth"
    assert not disagreements, f"{len(disagreements)} of {len(verdicts)} disagree:\n" + "\n".join(disagreements[:40])
