"""OpenTelemetry export of frame spans (`tracing.*`), end to end on the real parts: a private
mosquitto, the `wearable-gateway` executable, and an OTLP/HTTP receiver decoding what arrives
with the official protobuf definitions (otlp_receiver.py).

- Export on: a frame published with a known W3C `traceparent` (MQTT 5 user property) gives a
  span with that trace id whose parent is the frame's span id; the event the frame produced
  carries a `traceparent` naming that exported span (same trace id, the span's id). A frame
  without one starts a trace of its own, its event continuing it. The span ended last is
  exported by the shutdown's flush at the latest (received before the process exits).
- Export off (the default), with the standard OTEL_* variables pointing at the receiver: no
  request reaches it, and the event carries the frame's own `traceparent`, as without tracing.
- A wrong endpoint is a configuration error naming the key.
- Spans swift-otel drops (its queue full behind a slow receiver) are counted by
  `gateway_tracing_spans_dropped_total`: every span is received or counted, none both.

Every wait is on a condition under a deadline (a message, a span, a process exit); no sleeps.
Run by scripts/test.sh; by hand:
    WEARABLE_GATEWAY=$(swift build --show-bin-path)/wearable-gateway MOSQUITTO_BIN=/usr/sbin/mosquitto \
        python -m pytest -q Tests/TraceExport
"""

import json
import os
import queue
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from otlp_receiver import OTLPReceiver

REPOSITORY = Path(__file__).resolve().parents[2]
GATEWAY = os.environ.get("WEARABLE_GATEWAY", str(REPOSITORY / ".build/debug/wearable-gateway"))
MOSQUITTO = os.environ.get("MOSQUITTO_BIN", "/usr/sbin/mosquitto")

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
FRAME_SPAN_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{FRAME_SPAN_ID}-01"

#: Seconds for anything to happen (start, a message, a span); CI machines are slow and shared.
DEADLINE = 60


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Process:
    """A child process whose output lines are queued, so a test can wait for one."""

    def __init__(self, arguments, log, env=None, cwd=None):
        self.log = log
        self.lines = queue.Queue()
        self.popen = subprocess.Popen(
            arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, env=env, cwd=cwd
        )
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        with open(self.log, "w") as log:
            for line in self.popen.stdout:
                log.write(line)
                log.flush()
                self.lines.put(line)
        self.lines.put(None)  # end of output: the process is exiting

    def wait_for_line(self, text, timeout):
        """Waits until an output line contains `text`; fails on exit or at the deadline."""
        try:
            while True:
                line = self.lines.get(timeout=timeout)
                if line is None:
                    pytest.fail(f"{self.popen.args[0]} exited with {self.popen.wait()} before printing {text!r} (log {self.log})")
                if text in line:
                    return line
        except queue.Empty:
            pytest.fail(f"{self.popen.args[0]} printed no line with {text!r} within {timeout} s (log {self.log})")

    def terminate(self, timeout):
        """SIGTERM, then the exit status (within `timeout` seconds)."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        return self.popen.wait(timeout=timeout)

    def kill(self):
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait()


@pytest.fixture
def broker(tmp_path):
    port = free_port()
    config = tmp_path / "mosquitto.conf"
    config.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\nlog_type all\n")
    process = Process([MOSQUITTO, "-c", str(config)], tmp_path / "mosquitto.log")
    try:  # a broker that failed to come up is stopped too
        process.wait_for_line(f"Opening ipv4 listen socket on port {port}", DEADLINE)
        process.wait_for_line("running", DEADLINE)
        yield port
    finally:
        process.kill()


@pytest.fixture
def receiver():
    otlp = OTLPReceiver()
    yield otlp
    otlp.stop()


def client(port, on_message=None):
    """A connected MQTT 5 client with its network loop running."""
    connection = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"trace-{uuid.uuid4().hex[:8]}", protocol=mqtt.MQTTv5)
    connected = queue.Queue()
    connection.on_connect = lambda c, userdata, flags, reason, properties: connected.put(reason)
    if on_message:
        connection.on_message = on_message
    connection.connect("127.0.0.1", port)
    connection.loop_start()
    assert not connected.get(timeout=DEADLINE).is_failure
    return connection


class Observer:
    """Subscribes to the gateway's outputs and queues what arrives, per topic."""

    def __init__(self, port):
        self.messages = queue.Queue()
        self.connection = client(port, lambda c, userdata, message: self.messages.put(message))
        subscribed = queue.Queue()
        self.connection.on_subscribe = lambda c, userdata, mid, reasons, properties: subscribed.put(reasons)
        self.connection.subscribe([("gateway/status", 1), ("gateway/+/connection", 1)])
        assert not any(reason.is_failure for reason in subscribed.get(timeout=DEADLINE))

    def wait(self, topic, predicate=lambda message: True):
        """The next message on `topic` matching `predicate` (others on it are skipped)."""
        while True:
            try:
                message = self.messages.get(timeout=DEADLINE)
            except queue.Empty:
                pytest.fail(f"nothing on {topic} within {DEADLINE} s")
            if message.topic == topic and predicate(message):
                return message

    def close(self):
        self.connection.loop_stop()
        self.connection.disconnect()


def traceparent_of(message):
    values = [value for name, value in getattr(message.properties, "UserProperty", []) if name == "traceparent"]
    assert len(values) <= 1, f"several traceparent properties: {values}"
    return values[0] if values else None


def publish_status(port, device, traceparent=None):
    """A device's status frame (which produces its gateway/{id}/connection event), QoS 1."""
    properties = Properties(PacketTypes.PUBLISH)
    properties.ContentType = "application/json"
    if traceparent:
        properties.UserProperty = ("traceparent", traceparent)
    sender = client(port)
    payload = json.dumps({"state": "online", "date": 1800000000})
    sender.publish(f"wearables/{device}/status", payload, qos=1, properties=properties).wait_for_publish(DEADLINE)
    sender.loop_stop()
    sender.disconnect()


def start_gateway(tmp_path, broker_port, settings, env=None):
    """`wearable-gateway run` on the private broker, its files in tmp_path; waits for online."""
    arguments = [GATEWAY, "run", "--broker", f"mqtt://127.0.0.1:{broker_port}"]
    defaults = {
        "registry.file": "null",
        "http.listen": "off",
        "mqtt.clientId": f"gw-{uuid.uuid4().hex[:8]}",
        "journal.path": str(tmp_path / "journal.bin"),
        "journal.sizeBytes": "4194304",
        "state.path": str(tmp_path / "state.sqlite"),
        "recorder.database": str(tmp_path / "recorder.sqlite"),
    }
    for key, value in {**defaults, **settings}.items():
        arguments += ["--set", f"{key}={value}"]
    environment = {name: value for name, value in os.environ.items() if not name.startswith(("WG_", "OTEL_"))}
    environment.update(env or {})
    return Process(arguments, tmp_path / "gateway.log", env=environment, cwd=REPOSITORY)


def online(message):
    return json.loads(message.payload).get("state") == "online"


def test_export_on_spans_continue_the_frames_trace(tmp_path, broker, receiver):
    observer = Observer(broker)
    gateway = start_gateway(
        tmp_path, broker, {"tracing.otlpEndpoint": receiver.endpoint, "tracing.serviceName": "gateway-under-test"}
    )
    try:
        observer.wait("gateway/status", online)

        # A traced frame: its span is a child of the frame's span, in the frame's trace.
        publish_status(broker, "traced-1", TRACEPARENT)
        event = observer.wait("gateway/traced-1/connection")
        span = receiver.wait_for_span(lambda s: s.trace_id == TRACE_ID, DEADLINE)
        assert span is not None, f"no span of trace {TRACE_ID} within {DEADLINE} s (requests: {receiver.requests})"
        assert span.parent_span_id == FRAME_SPAN_ID
        assert span.span_id not in (FRAME_SPAN_ID, "0" * 16)
        assert span.name == "frame status"
        assert span.kind == Span.SpanKind.SPAN_KIND_CONSUMER
        assert span.attributes["wearable.device.id"] == "traced-1"
        assert span.attributes["wearable.stream"] == "status"
        assert span.attributes["wearable.frame.outcome"] == "accepted"
        assert span.attributes["messaging.destination.name"] == "wearables/traced-1/status"
        assert span.attributes["messaging.message.body.size"] == len(json.dumps({"state": "online", "date": 1800000000}))
        assert span.attributes["wearable.events.count"] >= 1
        assert span.resource["service.name"] == "gateway-under-test"
        assert 0 < span.start_unix_nano <= span.end_unix_nano
        # The event continues the trace from the gateway's span (W3C: version-trace-parent-flags).
        assert traceparent_of(event) == f"00-{TRACE_ID}-{span.span_id}-01"

        # An untraced frame starts a trace; its event carries it. SIGTERM right after the event:
        # the span must have been exported by the time the process has exited (shutdown flush).
        publish_status(broker, "untraced-1")
        event = observer.wait("gateway/untraced-1/connection")
        carried = traceparent_of(event)
        assert carried is not None, "an untraced frame's event carries the gateway span's traceparent when export is on"
        version, trace_id, span_id, flags = carried.split("-")
        assert (version, flags) == ("00", "01") and trace_id != TRACE_ID
        assert gateway.terminate(timeout=DEADLINE) == 0
        root = receiver.wait_for_span(lambda s: s.trace_id == trace_id, 0)
        assert root is not None, f"the span of trace {trace_id} was not exported before the gateway exited"
        assert root.span_id == span_id and root.parent_span_id == ""
        assert root.attributes["wearable.device.id"] == "untraced-1"
        assert all(request.path == "/v1/traces" and request.content_type == "application/x-protobuf" for request in receiver.requests)
    finally:
        gateway.kill()
        observer.close()


def test_export_off_sends_nothing_and_keeps_the_frames_traceparent(tmp_path, broker, receiver):
    observer = Observer(broker)
    # The standard variables alone must not turn export on: only tracing.otlpEndpoint does.
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "10"}
    gateway = start_gateway(tmp_path, broker, {}, env=env)
    try:
        observer.wait("gateway/status", online)
        publish_status(broker, "traced-2", TRACEPARENT)
        event = observer.wait("gateway/traced-2/connection")
        assert traceparent_of(event) == TRACEPARENT
        publish_status(broker, "untraced-2")
        assert traceparent_of(observer.wait("gateway/untraced-2/connection")) is None
        assert gateway.terminate(timeout=DEADLINE) == 0
        assert receiver.requests == [], f"export is off but the receiver got {receiver.requests}"
    finally:
        gateway.kill()
        observer.close()


def wait_for_http(http_port):
    """Waits until the gateway's HTTP server answers: it starts beside the MQTT connections, so
    `gateway/status` online may come before it listens."""
    deadline = time.monotonic() + DEADLINE
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/healthz", timeout=DEADLINE):
                return
        except urllib.error.HTTPError:
            return  # it answered (unhealthy is still an answer)
        except OSError:
            assert time.monotonic() < deadline, f"the gateway's HTTP server did not listen on {http_port} within {DEADLINE} s"
            time.sleep(0.05)


def dropped_spans(http_port):
    """`gateway_tracing_spans_dropped_total` by reason, from the gateway's /metrics."""
    with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/metrics", timeout=DEADLINE) as response:
        text = response.read().decode()
    return {
        reason: float(value)
        for reason, value in re.findall(r'^gateway_tracing_spans_dropped_total\{reason="(\w+)"\} (\S+)$', text, re.MULTILINE)
    }


def test_spans_dropped_behind_a_slow_receiver_are_counted(tmp_path, broker):
    """A queue of 4 spans and a receiver answering each export after 1 s: a burst of frames
    overflows the queue. Every frame's span is then either received or counted as dropped."""
    receiver = OTLPReceiver(answer_delay=1.0)
    http_port = free_port()
    env = {"OTEL_BSP_MAX_QUEUE_SIZE": "4", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "4", "OTEL_BSP_SCHEDULE_DELAY": "200"}
    settings = {"tracing.otlpEndpoint": receiver.endpoint, "http.listen": f"127.0.0.1:{http_port}", "logging.level": "error"}
    observer = Observer(broker)
    gateway = start_gateway(tmp_path, broker, settings, env=env)
    sender = client(broker)
    try:
        observer.wait("gateway/status", online)
        wait_for_http(http_port)
        payload = json.dumps({"state": "online", "date": 1800000000})
        burst = 100
        for index in range(burst):
            sender.publish(f"wearables/burst-{index}/status", payload, qos=1)
        frames = burst
        # swift-otel reports a drop at its next export round, which needs a span queued: if
        # the count stops short, one more frame makes that round happen.
        deadline = time.monotonic() + DEADLINE
        progress = (time.monotonic(), -1)
        sentinel = False
        while True:
            received = receiver.span_count()
            dropped = dropped_spans(http_port)
            accounted = received + dropped.get("queueFull", 0)
            if accounted == frames and dropped.get("queueFull", 0) > 0:
                break
            now = time.monotonic()
            assert now < deadline, f"{frames} frames: {received} spans received, dropped {dropped} (log {tmp_path / 'gateway.log'})"
            if accounted != progress[1]:
                progress = (now, accounted)
            elif not sentinel and now - progress[0] > 5:
                sender.publish("wearables/sentinel/status", payload, qos=1).wait_for_publish(DEADLINE)
                frames += 1
                sentinel = True
            receiver.wait_for_more_spans(received, 0.5)
        assert received + dropped["queueFull"] == frames
        assert dropped.get("exportFailed", 0) == 0, "no export failed: the receiver answers within the export timeout"
        # A logging level of error hides the warning but not the count.
        assert "Spans were dropped" not in (tmp_path / "gateway.log").read_text()
        assert gateway.terminate(timeout=DEADLINE) == 0
    finally:
        gateway.kill()
        sender.loop_stop()
        sender.disconnect()
        observer.close()
        receiver.stop()


@pytest.mark.parametrize("endpoint", ["ftp://127.0.0.1:4318", "127.0.0.1:4318", "http://", "http://host:4318/v1/traces?x=1"])
def test_wrong_endpoint_names_the_key(endpoint):
    result = subprocess.run(
        [GATEWAY, "check-config", "--set", f"tracing.otlpEndpoint={endpoint}"], capture_output=True, text=True, cwd=REPOSITORY, timeout=DEADLINE
    )
    assert result.returncode == 78, result.stdout + result.stderr
    assert "tracing.otlpEndpoint" in result.stdout + result.stderr


def test_grpc_asked_for_by_otel_variables_stops_the_start(tmp_path):
    """This build has no OTLP/gRPC exporter: swift-otel would trap; the gateway says why and exits 78."""
    arguments = [GATEWAY, "run", "--broker", "mqtt://127.0.0.1:1", "--set", "tracing.otlpEndpoint=http://127.0.0.1:4318"]
    for key in ("registry.file", "journal.path", "state.path", "recorder.database", "http.listen"):
        arguments += ["--set", f"{key}=null" if key != "http.listen" else f"{key}=off"]
    environment = {name: value for name, value in os.environ.items() if not name.startswith(("WG_", "OTEL_"))}
    environment["OTEL_EXPORTER_OTLP_PROTOCOL"] = "grpc"
    result = subprocess.run(arguments, capture_output=True, text=True, cwd=REPOSITORY, env=environment, timeout=DEADLINE)
    assert result.returncode == 78, result.stdout + result.stderr
    assert "tracing.otlpEndpoint: OTEL_EXPORTER_OTLP_PROTOCOL=grpc" in result.stdout + result.stderr
