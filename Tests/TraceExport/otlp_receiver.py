"""A minimal OTLP/HTTP trace receiver: what an OpenTelemetry collector's `otlp` receiver does
for `POST /v1/traces` with `application/x-protobuf`, decoded with the official protobuf
definitions (PyPI `opentelemetry-proto`), and nothing else.

Used by test_trace_export.py, and runnable on its own to watch the gateway's spans
(docs/operations.md, "Traces"):

    python3 Tests/TraceExport/otlp_receiver.py --port 4318

prints one line per span received: trace id, span id, parent span id, name, attributes.
"""

import argparse
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse


@dataclass
class ReceivedSpan:
    """One span of an export request, with the resource attributes it was sent under."""

    trace_id: str  # 32 lower-case hex digits
    span_id: str  # 16 lower-case hex digits
    parent_span_id: str  # "" for a root span
    name: str
    kind: int  # opentelemetry.proto.trace.v1.Span.SpanKind
    attributes: dict
    resource: dict
    status_code: int
    start_unix_nano: int
    end_unix_nano: int


@dataclass
class ReceivedRequest:
    """Any HTTP request that reached the receiver (decoded or not)."""

    method: str
    path: str
    content_type: str
    body_bytes: int


def _value(any_value):
    """An OTLP AnyValue as a Python value (strings, numbers, booleans; others as text)."""
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind in ("string_value", "int_value", "double_value", "bool_value") else str(any_value)


def _attributes(key_values):
    return {kv.key: _value(kv.value) for kv in key_values}


@dataclass
class OTLPReceiver:
    """Listens on 127.0.0.1 (port 0: any free port) in a background thread."""

    port: int = 0
    #: Seconds each export request is held before its answer (a slow collector).
    answer_delay: float = 0
    spans: list = field(default_factory=list)
    requests: list = field(default_factory=list)

    def __post_init__(self):
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                content_type = self.headers.get("Content-Type", "")
                receiver._record(ReceivedRequest("POST", self.path, content_type, len(body)))
                if self.path != "/v1/traces" or content_type != "application/x-protobuf":
                    self.send_error(404 if self.path != "/v1/traces" else 415)
                    return
                try:
                    request = ExportTraceServiceRequest.FromString(body)
                except Exception:  # noqa: BLE001 (a malformed body is the sender's fault: 400)
                    self.send_error(400)
                    return
                if receiver.answer_delay:
                    time.sleep(receiver.answer_delay)  # the slow collector itself, not a wait for anything
                receiver._add(request)
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                try:
                    self.wfile.write(answer)
                except BrokenPipeError:
                    pass  # the exporter gave up waiting (or exited): nothing to answer

            def do_GET(self):  # noqa: N802
                receiver._record(ReceivedRequest("GET", self.path, "", 0))
                self.send_error(405)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def endpoint(self):
        """The base URL the gateway's `tracing.otlpEndpoint` takes."""
        return f"http://127.0.0.1:{self.port}"

    def _record(self, request):
        with self._changed:
            self.requests.append(request)
            self._changed.notify_all()

    def _add(self, request):
        received = []
        for resource_spans in request.resource_spans:
            resource = _attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    received.append(
                        ReceivedSpan(
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_span_id=span.parent_span_id.hex(),
                            name=span.name,
                            kind=span.kind,
                            attributes=_attributes(span.attributes),
                            resource=resource,
                            status_code=span.status.code,
                            start_unix_nano=span.start_time_unix_nano,
                            end_unix_nano=span.end_time_unix_nano,
                        )
                    )
        with self._changed:
            self.spans.extend(received)
            self._changed.notify_all()
        return received

    def wait_for_span(self, predicate, timeout):
        """The first span matching `predicate`, waiting up to `timeout` seconds; None if none came."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for span in self.spans:
                    if predicate(span):
                        return span
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._changed.wait(remaining)

    def span_count(self):
        with self._changed:
            return len(self.spans)

    def wait_for_more_spans(self, than, timeout):
        """Waits up to `timeout` seconds for more than `than` spans; returns how many there are."""
        with self._changed:
            self._changed.wait_for(lambda: len(self.spans) > than, timeout)
            return len(self.spans)

    def stop(self):
        self._server.shutdown()
        self._server.server_close()


def main():
    parser = argparse.ArgumentParser(description="Print the spans an OTLP/HTTP exporter sends (POST /v1/traces, protobuf).")
    parser.add_argument("--port", type=int, default=4318, help="port on 127.0.0.1 (default 4318, OTLP/HTTP's)")
    arguments = parser.parse_args()
    receiver = OTLPReceiver(port=arguments.port)
    print(f"listening on {receiver.endpoint}/v1/traces", flush=True)
    printed = 0
    try:
        while True:
            with receiver._changed:
                receiver._changed.wait_for(lambda: len(receiver.spans) > printed)
                new = receiver.spans[printed:]
            printed += len(new)
            for span in new:
                parent = span.parent_span_id or "-" * 16
                print(f"trace {span.trace_id} span {span.span_id} parent {parent} {span.name!r} {span.attributes}", flush=True)
    except KeyboardInterrupt:
        receiver.stop()


if __name__ == "__main__":
    main()
