"""Examples/python-consumer against a testbed gateway: every message it receives conforms to contract/.

A device (paho-mqtt) says hello, goes online, sends data and one broken frame; the consumer,
subscribed to gateway/#, must receive the gateway's status, metrics, probe, the device's
availability, connection and error report, and find every message valid. It is the typed
consumer (a ValidatingConsumer that also parses), so every JSON payload must parse into the
model generated from its schema too, among them the runtime's status and probe, which
`wearable-sim contract-samples` cannot produce.
"""

import json
import sys
import time
from pathlib import Path

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from test_availability import HELLO, connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python-consumer"))
from typed_consumer import TypedConsumer  # noqa: E402

EXPECTED = {"gatewayStatus", "gatewayMetrics", "probe", "availability", "connection", "deviceErrors"}
ALTIMETER = {"timestamp": 40213.52, "relativeAltitude": 3.6, "pressure": 100.87}


def test_consumer_validates_what_the_gateway_sends(testbed, generated_models):
    consumer = TypedConsumer(testbed["host"], testbed["port"], generated_models)
    consumer.start()
    assert consumer.subscribed.wait(10)
    device = connect(testbed)
    properties = Properties(PacketTypes.PUBLISH)
    properties.ContentType = "application/json"
    frames = [
        ("hello", HELLO, True),
        ("status", {"state": "online", "date": time.time()}, True),
        ("authorization", {"status": "authorized", "date": time.time()}, False),
        ("altimeter", ALTIMETER, False),
        ("altimeter", dict(ALTIMETER, pressure=-1), False),  # out of bounds: an error report
    ]
    for stream, payload, retain in frames:
        device.publish(f"wearables/py-consumer-1/{stream}", json.dumps(payload), qos=1, retain=retain, properties=properties).wait_for_publish(10)

    deadline = time.monotonic() + 30  # a deadline, not a sleep: polls until everything arrived
    while time.monotonic() < deadline and not (EXPECTED <= set(consumer.valid) or consumer.invalid):
        time.sleep(0.05)
    device.loop_stop()
    device.disconnect()
    consumer.stop()
    assert consumer.invalid == []
    assert EXPECTED <= set(consumer.valid), f"received only {sorted(consumer.valid)}"
    assert consumer.unparsed == []
    # Every valid message of a JSON channel became a model; Prometheus text has none.
    assert set(consumer.events) == set(consumer.valid) - {"gatewayMetrics"}
    (status,) = {event.state.value for event in consumer.events["gatewayStatus"]}
    assert status == "online"
