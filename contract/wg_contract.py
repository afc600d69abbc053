"""Reads contract/asyncapi.yaml and the JSON Schemas it references, and validates MQTT messages.

    from wg_contract import Contract
    contract = Contract()                                   # the contract/ this file is in
    channel = contract.channel_for("gateway/watch-1/swing")   # the AsyncAPI channel of a topic
    problems = contract.problems("gateway/watch-1/swing", payload_bytes)   # [] when valid

Needs PyYAML, jsonschema (>= 4.18) and referencing. Besides JSON Schema 2020-12 it checks the
contract's own keywords (contract/README.md), rules JSON Schema cannot state:

- ``x-maxMagnitude: L``: an object with numbers x, y, z has sqrt(x²+y²+z²) ≤ L;
- ``x-unitNorm: T``: an object with numbers x, y, z, w has |sqrt(x²+y²+z²+w²) − 1| ≤ T;
- ``x-nonDecreasing: "name"``: in an array of objects, member ``name`` never decreases;
- ``x-notBefore: {"later": "earlier"}``: member ``later`` is not less than member ``earlier``.

and, below JSON Schema, that the payload's text holds no integer literal outside
[-2^63, 2^64 − 1] (the gateway's JSON parser rejects the whole payload then).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

CONTRACT_DIR = Path(__file__).resolve().parent


def _numbers(instance, names):
    values = [instance.get(name) for name in names]
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return values
    return None


def _max_magnitude(validator, limit, instance, schema):
    if isinstance(instance, dict) and (values := _numbers(instance, "xyz")) is not None:
        magnitude = math.sqrt(sum(v * v for v in values))
        if magnitude > limit:
            yield jsonschema.ValidationError(f"magnitude {magnitude} exceeds {limit}")


def _unit_norm(validator, tolerance, instance, schema):
    if isinstance(instance, dict) and (values := _numbers(instance, "xyzw")) is not None:
        norm = math.sqrt(sum(v * v for v in values))
        if abs(norm - 1) > tolerance:
            yield jsonschema.ValidationError(f"quaternion norm {norm} is outside 1 ± {tolerance}")


def _non_decreasing(validator, name, instance, schema):
    if not isinstance(instance, list):
        return
    previous = -math.inf
    for index, item in enumerate(instance):
        value = item.get(name) if isinstance(item, dict) else None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        if value < previous:
            yield jsonschema.ValidationError(f"[{index}].{name} {value} is earlier than the previous {previous}")
        previous = value


def _not_before(validator, pairs, instance, schema):
    if not isinstance(instance, dict):
        return
    for later, earlier in pairs.items():
        values = _numbers(instance, [later, earlier])
        if values is not None and values[0] < values[1]:
            yield jsonschema.ValidationError(f"{later} {values[0]} is before {earlier} {values[1]}")


def _bounded_integer(text):
    """An integer literal within [-2^63, 2^64 - 1]: the gateway's JSON parser takes no larger one, anywhere."""
    value = int(text)
    if not -(2**63) <= value <= 2**64 - 1:
        raise ValueError(f"integer {text} is outside [-2^63, 2^64 - 1]")
    return value


#: What a topic level of a channel parameter may be (any one level when not listed).
_PARAMETER_PATTERNS = {"{deviceId}": "[A-Za-z0-9._-]{1,64}"}

#: Draft 2020-12 plus the contract's keywords.
ContractValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    {"x-maxMagnitude": _max_magnitude, "x-unitNorm": _unit_norm, "x-nonDecreasing": _non_decreasing, "x-notBefore": _not_before},
)


@dataclass
class Channel:
    """One AsyncAPI channel with what the contract says about its messages."""

    id: str
    address: str
    #: "receive" (the gateway receives: devices' and apps' messages) or "send" (the gateway's).
    action: str
    qos: int
    retain: bool | None
    content_type: str
    #: The payload schema's file below contract/, or None for a payload that is not JSON.
    schema_file: str | None
    pattern: re.Pattern
    #: Literal levels of the address: the more, the more specific when two addresses match.
    literal_levels: int


class Contract:
    """The AsyncAPI document and its schemas, loaded once."""

    def __init__(self, directory: Path = CONTRACT_DIR):
        self.directory = Path(directory)
        self.document = yaml.safe_load((self.directory / "asyncapi.yaml").read_text())
        self.registry = Registry()
        self.schemas = {}
        for path in sorted((self.directory / "schemas").rglob("*.json")):
            schema = json.loads(path.read_text())
            uri = path.resolve().as_uri()
            self.schemas[path.relative_to(self.directory).as_posix()] = schema
            self.registry = self.registry.with_resource(uri, Resource.from_contents(schema, default_specification=DRAFT202012))
        self.channels = self._channels()
        self._validators = {}

    def _resolve(self, node):
        """Follows a local `$ref` ('#/components/...') of the AsyncAPI document."""
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
            target = self.document
            for part in node["$ref"][2:].split("/"):
                target = target[part]
            node = target
        return node

    def _channels(self):
        operations = {}
        for operation in self.document.get("operations", {}).values():
            channel_id = operation["channel"]["$ref"].split("/")[-1]
            operations[channel_id] = operation
        channels = []
        for channel_id, channel in self.document["channels"].items():
            operation = operations.get(channel_id, {})
            mqtt = operation.get("bindings", {}).get("mqtt", {})
            (message,) = [self._resolve(m) for m in channel["messages"].values()]
            payload = message.get("payload", {})
            schema_file = payload["$ref"].removeprefix("./") if "$ref" in payload else None
            levels = channel["address"].split("/")
            regex = "/".join(_PARAMETER_PATTERNS.get(level, "[^/]+") if level.startswith("{") else re.escape(level) for level in levels)
            channels.append(
                Channel(
                    id=channel_id,
                    address=channel["address"],
                    action=operation.get("action", ""),
                    qos=mqtt.get("qos"),
                    retain=mqtt.get("retain"),
                    content_type=message.get("contentType", self.document.get("defaultContentType")),
                    schema_file=schema_file,
                    pattern=re.compile(regex + "$"),
                    literal_levels=sum(not level.startswith("{") for level in levels),
                )
            )
        return channels

    def channel_for(self, topic: str) -> Channel | None:
        """The channel whose address matches `topic`; the most specific one when several do."""
        matches = [c for c in self.channels if c.pattern.match(topic)]
        return max(matches, key=lambda c: c.literal_levels, default=None)

    def validator(self, schema_file: str):
        """A validator for one schema file (e.g. 'schemas/inbound/hello.json')."""
        if schema_file not in self._validators:
            uri = (self.directory / schema_file).resolve().as_uri()
            schema = dict(self.schemas[schema_file], **{"$id": uri})
            self._validators[schema_file] = ContractValidator(schema, registry=self.registry)
        return self._validators[schema_file]

    def problems(self, topic: str, payload: bytes | str) -> list[str]:
        """Why a message does not conform to the contract; empty when it does."""
        channel = self.channel_for(topic)
        if channel is None:
            return [f"no channel for topic {topic}"]
        if channel.schema_file is None:
            return []
        try:
            document = json.loads(payload, parse_int=_bounded_integer)
        except ValueError as error:
            return [f"payload is not JSON: {error}"]
        return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in self.validator(channel.schema_file).iter_errors(document)]
