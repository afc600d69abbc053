r"""A consumer of the Wearable Gateway that checks what it receives against contract/.

It subscribes to `gateway/#` (MQTT 5, paho-mqtt), finds each message's AsyncAPI channel by its
topic and validates the payload with the channel's JSON Schema (contract/wg_contract.py).
Against the compose stack (docker-compose.yml: the broker's TLS listener on 127.0.0.1:8883, the
default port here), as the `monitor` identity, which may read `gateway/#`:

    python Examples/python-consumer/consumer.py --cafile config/mosquitto/pki/ca.crt \
        --cert config/mosquitto/pki/clients/monitor.crt --key config/mosquitto/pki/clients/monitor.key

Against scripts/demo.sh's broker (plain MQTT on the free port it prints, "starting mosquitto on
127.0.0.1:PORT"): `--port PORT`, no TLS options. It
prints one line per message, `ok <channel> <topic>` or `INVALID <channel> <topic>: <problems>`,
and exits with status 1 on Ctrl-C if anything was invalid. Needs paho-mqtt, jsonschema and
PyYAML (Examples/pytest/requirements.txt). Examples/pytest/test_python_consumer.py runs it
against a testbed gateway.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import uuid
from pathlib import Path

import paho.mqtt.client as mqtt

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "contract"))
from wg_contract import Contract  # noqa: E402


class ValidatingConsumer:
    """Subscribes to the gateway's topics and validates every message it receives."""

    def __init__(self, host: str, port: int, topic_filter: str = "gateway/#", contract: Contract | None = None, on_message=None,
                 tls: dict | None = None):
        """`tls`: None for plain MQTT, else paho-mqtt's `tls_set` arguments (`tls_options`)."""
        self.contract = contract or Contract()
        self.on_message = on_message
        #: channel id -> number of valid messages received.
        self.valid: dict[str, int] = {}
        #: (topic, problems) of every invalid message.
        self.invalid: list[tuple[str, list[str]]] = []
        self.lock = threading.Lock()
        self.subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"consumer-{uuid.uuid4().hex[:8]}", protocol=mqtt.MQTTv5)
        self.client.on_connect = lambda client, userdata, flags, reason, properties: client.subscribe(topic_filter, qos=1)
        self.client.on_subscribe = lambda client, userdata, mid, reasons, properties: self.subscribed.set()
        self.client.on_message = self._received
        if tls is not None:
            self.client.tls_set(**tls)
        self.client.connect(host, port)

    def _received(self, client, userdata, message):
        channel = self.contract.channel_for(message.topic)
        problems = self.contract.problems(message.topic, message.payload)
        content_type = getattr(message.properties, "ContentType", None)
        if channel is not None and channel.content_type.startswith("application/json") and content_type != channel.content_type:
            problems.append(f"content type {content_type!r}, the contract says {channel.content_type}")
        with self.lock:
            if problems:
                self.invalid.append((message.topic, problems))
            else:
                self.valid[channel.id] = self.valid.get(channel.id, 0) + 1
        if self.on_message:
            self.on_message(channel.id if channel else None, message.topic, problems)

    def start(self):
        self.client.loop_start()

    def stop(self):
        self.client.loop_stop()
        self.client.disconnect()


def argument_parser(description: str) -> argparse.ArgumentParser:
    """--host, --port, --filter and the TLS files: where to subscribe (typed_consumer.py adds its own)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host", default="localhost")
    parser.add_argument("--port", type=int, default=8883, help="default: the compose stack's TLS listener (docker-compose.yml)")
    parser.add_argument("--filter", default="gateway/#")
    parser.add_argument("--cafile", help="PEM file of the CA that signed the broker's certificate; turns TLS on")
    parser.add_argument("--cert", help="client certificate (PEM) for mutual TLS, e.g. config/mosquitto/pki/clients/monitor.crt")
    parser.add_argument("--key", help="the client certificate's private key (PEM)")
    return parser


def tls_options(arguments: argparse.Namespace) -> dict | None:
    """paho-mqtt `tls_set` arguments from --cafile/--cert/--key; None (plain MQTT) when none is given."""
    if bool(arguments.cert) != bool(arguments.key):
        raise SystemExit("error: --cert and --key go together")
    if not (arguments.cafile or arguments.cert):
        return None
    return {"ca_certs": arguments.cafile, "certfile": arguments.cert, "keyfile": arguments.key}


def run_until_interrupted(consumer: ValidatingConsumer):
    """Receives on this thread until Ctrl-C."""
    try:
        consumer.client.loop_forever()
    except KeyboardInterrupt:
        pass


def main():
    arguments = argument_parser(__doc__.splitlines()[0]).parse_args()

    def report(channel, topic, problems):
        if problems:
            print(f"INVALID {channel} {topic}: {json.dumps(problems)}", flush=True)
        else:
            print(f"ok {channel} {topic}", flush=True)

    consumer = ValidatingConsumer(arguments.host, arguments.port, arguments.filter, on_message=report, tls=tls_options(arguments))
    run_until_interrupted(consumer)
    sys.exit(1 if consumer.invalid else 0)


if __name__ == "__main__":
    main()
