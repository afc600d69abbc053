"""A device's `hello` gets an `availability` message from the gateway (paho-mqtt, MQTT 5)."""

import json
import queue
import uuid

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

HELLO = {
    "model": "Apple Watch Series 9",
    "platform": "watchOS",
    "osVersion": "10.1",
    "app": "com.example.python",
    "authorization": "authorized",
    "wristLocation": "left",
    "crownOrientation": "right",
}


def connect(testbed, on_message=None):
    client = mqtt.Client(
        mqtt.CallbackAPIVersion.VERSION2, client_id=f"pytest-{uuid.uuid4().hex[:8]}", protocol=mqtt.MQTTv5
    )
    connected = queue.Queue()
    client.on_connect = lambda c, userdata, flags, reason, properties: connected.put(reason)
    if on_message:
        client.on_message = on_message
    client.connect(testbed["host"], testbed["port"])
    client.loop_start()
    assert not connected.get(timeout=10).is_failure
    return client


def test_hello_gets_availability(testbed):
    received = queue.Queue()
    observer = connect(testbed, lambda c, userdata, message: received.put(message))
    subscribed = queue.Queue()
    observer.on_subscribe = lambda c, userdata, mid, reasons, properties: subscribed.put(reasons)
    observer.subscribe("gateway/py-watch-1/availability", qos=1)
    assert not subscribed.get(timeout=10)[0].is_failure

    device = connect(testbed)
    properties = Properties(PacketTypes.PUBLISH)
    properties.ContentType = "application/json"
    device.publish("wearables/py-watch-1/hello", json.dumps(HELLO), qos=1, retain=True, properties=properties).wait_for_publish(10)

    message = received.get(timeout=20)  # a deadline, not a sleep
    availability = json.loads(message.payload)
    assert availability["deviceId"] == "py-watch-1"
    for client in (device, observer):
        client.loop_stop()
        client.disconnect()
