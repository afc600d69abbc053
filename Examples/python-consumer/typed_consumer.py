"""A consumer of the Wearable Gateway that parses what it receives into typed models generated from contract/schemas.

Generate the models first (pydantic v2, one module per schema, each payload's model named
`Payload`; the command is in contract/README.md, "Typed models"):

    datamodel-codegen --input contract/schemas ... --output .build/wg_models

then

    python Examples/python-consumer/typed_consumer.py --models .build/wg_models --port PORT

(consumer.py's connection options: `--host`, `--port`, and `--cafile`/`--cert`/`--key` for the
compose stack's TLS broker; consumer.py's docstring has the command for each shipped stack)
validates every message on `gateway/#` against its channel's JSON Schema as consumer.py does,
parses each JSON payload into its channel's model and prints one line per model, e.g.
`connection gateway/watch-1/connection Payload(deviceId='watch-1', …, state=<State.connected: 'connected'>, …)`, or
`INVALID <channel> <topic>: <problems>` (nothing for Prometheus text). Needs Examples/pytest/requirements.txt.
Examples/pytest/test_typed_models.py parses every outbound sample the gateway's code produces
into these models; test_python_consumer.py runs this consumer against a testbed gateway.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

from pydantic import BaseModel, ValidationError

from consumer import ValidatingConsumer, argument_parser, run_until_interrupted, tls_options


class GeneratedModels:
    """The models datamodel-codegen wrote into a package directory, found by AsyncAPI channel."""

    def __init__(self, package: str | Path):
        package = Path(package).resolve()
        if not (package / "__init__.py").is_file():
            raise FileNotFoundError(f"{package} holds no generated models (contract/README.md: Typed models)")
        # The generated modules import each other relatively (`from .. import common`), so they
        # are imported as the package they were written as.
        if str(package.parent) not in sys.path:
            sys.path.insert(0, str(package.parent))
        self.package = package.name

    def model_for(self, channel) -> type[BaseModel] | None:
        """The model of the channel's payload; None for a payload the contract gives no schema
        (Prometheus text, dead letters' raw frames). Raises LookupError when the schema has none."""
        if channel.schema_file is None:
            return None
        # schemas/outbound/device-errors.json -> <package>.outbound.device_errors
        parts = Path(channel.schema_file).with_suffix("").parts[1:]
        name = ".".join((self.package, *parts)).replace("-", "_")
        try:
            return importlib.import_module(name).Payload
        except (ImportError, AttributeError) as error:
            raise LookupError(f"{channel.id}: no generated model for {channel.schema_file} ({error})") from error

    def parse(self, channel, payload: bytes | str) -> BaseModel | None:
        """The payload as its channel's model, strictly: a string is no number, a number no string."""
        model = self.model_for(channel)
        return None if model is None else model.model_validate_json(payload, strict=True)


class TypedConsumer(ValidatingConsumer):
    """Validates every message as ValidatingConsumer does and parses each JSON payload into its model."""

    def __init__(self, host: str, port: int, models: GeneratedModels, topic_filter: str = "gateway/#", on_event=None, on_message=None,
                 tls: dict | None = None):
        self.models = models
        self.on_event = on_event
        #: channel id -> the models parsed from its messages.
        self.events: dict[str, list[BaseModel]] = {}
        #: (topic, error) of every JSON payload that did not parse into its model.
        self.unparsed: list[tuple[str, str]] = []
        super().__init__(host, port, topic_filter, on_message=on_message, tls=tls)

    def _received(self, client, userdata, message):
        super()._received(client, userdata, message)
        channel = self.contract.channel_for(message.topic)
        if channel is None:
            return
        try:
            event = self.models.parse(channel, message.payload)
        except (LookupError, ValidationError) as error:
            with self.lock:
                self.unparsed.append((message.topic, str(error)))
            return
        if event is None:
            return
        with self.lock:
            self.events.setdefault(channel.id, []).append(event)
        if self.on_event:
            self.on_event(channel.id, message.topic, event)


def main():
    parser = argument_parser(__doc__.splitlines()[0])
    parser.add_argument("--models", default=".build/wg_models", help="the package datamodel-codegen wrote")
    arguments = parser.parse_args()

    def report_invalid(channel, topic, problems):
        if problems:
            print(f"INVALID {channel} {topic}: {json.dumps(problems)}", flush=True)

    def report_event(channel, topic, event):
        print(f"{channel} {topic} {event!r}", flush=True)

    consumer = TypedConsumer(
        arguments.host, arguments.port, GeneratedModels(arguments.models), arguments.filter, on_event=report_event, on_message=report_invalid,
        tls=tls_options(arguments),
    )
    run_until_interrupted(consumer)
    sys.exit(1 if consumer.invalid or consumer.unparsed else 0)


if __name__ == "__main__":
    main()
