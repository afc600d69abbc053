"""Typed models generated from contract/schemas hold what the gateway publishes.

conftest.py's `generated_models` runs contract/README.md's `datamodel-codegen` command on the
committed schemas into a temporary directory (no generated copy is committed, so none goes
stale); `samples` are the messages test_contract.py checks. Every outbound sample must parse,
strictly, into the generated model of its channel and give back exactly its payload (a member
the model dropped or changed fails), and every outbound channel with a JSON Schema needs a
model. The frames the gateway accepted parse into the inbound models too.
"""

import json

import pytest
from pydantic import ValidationError

from test_contract import ACCESS_ERRORS, NOT_SAMPLED_OFFLINE


def parse_problems(models, channel, payload):
    """Why the payload does not parse into its channel's model and round-trip; empty when it does."""
    try:
        event = models.parse(channel, payload)
    except (LookupError, ValidationError) as error:
        return [str(error)[:400]]
    dumped = event.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if dumped != json.loads(payload):
        return [f"parsed as {json.dumps(dumped)[:300]}"]
    return []


def test_every_outbound_channel_has_a_model(contract, generated_models):
    missing = []
    for channel in contract.channels:
        if channel.action == "send":
            try:
                generated_models.model_for(channel)
            except LookupError as error:
                missing.append(str(error))
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("direction", ["outbound", "inbound"])
def test_every_sample_parses_into_its_model(contract, samples, generated_models, direction):
    parsed, problems = set(), []
    for sample in samples:
        channel = contract.channel_for(sample["topic"])
        # Inbound: only the frames whose payload the gateway accepted (it checks access after that).
        if sample["direction"] != direction or channel is None or sample.get("rejectedAs") not in (None, *ACCESS_ERRORS):
            continue
        if channel.schema_file is None:
            continue  # not JSON: Prometheus text, a dead letter's original frame
        problems += [f"{sample['topic']}: {problem}  in {sample['payload'][:200]}" for problem in parse_problems(generated_models, channel, sample["payload"])]
        parsed.add(channel.id)
    assert not problems, "\n".join(problems[:20])
    action = "send" if direction == "outbound" else "receive"
    expected = {channel.id for channel in contract.channels if channel.action == action and channel.schema_file}
    assert expected - set(NOT_SAMPLED_OFFLINE) <= parsed, f"no sample parsed: {sorted(expected - set(NOT_SAMPLED_OFFLINE) - parsed)}"


def mistyped(value):
    """A JSON value of another type than `value`."""
    if isinstance(value, bool):
        return "true"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return 1
    return [] if value is None or isinstance(value, dict) else {}


def test_models_type_every_member(contract, samples, generated_models):
    """Each member of the first sample per outbound channel, given another JSON type, fails to
    parse: no member is typed Any (as an unresolved $ref would make it) and parsing is strict."""
    firsts = {}
    for sample in samples:
        channel = contract.channel_for(sample["topic"])
        if sample["direction"] == "outbound" and channel and channel.schema_file and channel.id not in firsts:
            firsts[channel.id] = (channel, json.loads(sample["payload"]))
    accepted = []
    for channel, payload in firsts.values():
        for name, value in payload.items():
            candidate = json.dumps(dict(payload, **{name: mistyped(value)}))
            if not parse_problems(generated_models, channel, candidate):
                accepted.append(f"{channel.id}: {name} = {mistyped(value)!r}")
    assert len(firsts) >= 20
    assert not accepted, "the models accept mistyped members:\n" + "\n".join(accepted)
