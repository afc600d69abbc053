#!/usr/bin/env python3
"""Checks contract/openapi.yaml, the HTTP API's OpenAPI 3.1 document; exits 1 naming every problem.

1. the document against the OpenAPI 3.1 schema (openapi-spec-validator, pinned in scripts/contract-requirements.txt),
   its external `$ref`s (the wire contract's schemas/outbound/) resolved; every example validates against its schema;
2. the routes: every route a route group registers in Sources/TelemetryGateway/Operations/*.swift (`group(.api).get("…")`)
   is a GET operation of the document with that group as its `x-route-group`, and every operation is a registered route;
3. the live server: a private mosquitto on a free port, `wearable-gateway run` with `http.listen`, `http.metricsListen`,
   `http.maxLiveClients=1` and the event history on a SQLite recorder file, `wearable-sim publish` devices; then every
   documented GET route is asked and its status, content type, `Cache-Control` and body must be a documented response
   (JSON bodies validated against the document's schemas, the wire contract's payload schemas included). The history
   route is asked with values drawn from its parameters' schemas (seeded; pages followed through `next`) and with
   invalid ones, which must be 400 `Problem`s; /api/events is read until its first events validate, and a second
   client must end the first stream with `event: superseded`; undocumented paths and methods are 404; the metrics
   listener serves /metrics alone; a gateway with `history.enabled=false` answers the history route 404 `Problem`.
   Every wait polls an observable state under a deadline.

    python3 scripts/check-openapi.py [--bin .build/debug] [--static]

Runs itself in .build/pytest-venv (scripts/wg_venv.py). --static skips part 3 (no build needed).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "scripts"))
from wg_venv import in_virtual_environment  # noqa: E402

in_virtual_environment(__file__, REPOSITORY / "scripts/contract-requirements.txt", ["openapi_spec_validator", "jsonschema", "yaml"])

import jsonschema  # noqa: E402
import yaml  # noqa: E402
from openapi_spec_validator.validation.validators import OpenAPIV31SpecValidator  # noqa: E402
from referencing import Registry, Resource  # noqa: E402
from referencing.jsonschema import DRAFT202012  # noqa: E402

sys.path.insert(0, str(REPOSITORY / "contract"))
from wg_contract import CONTRACT_DIR, ID_BASE  # noqa: E402

DOCUMENT = CONTRACT_DIR / "openapi.yaml"
DOCUMENT_URI = ID_BASE + "openapi.yaml"
ROUTE_SOURCES = REPOSITORY / "Sources/TelemetryGateway/Operations"
# A route is registered on a route group: `group(.api).get("…")`, or `let api = group(.api)` and `api.get("…")`.
ROUTE = re.compile(r'\b(\w+|group\(\.\w+\))\.(get|post|put|patch|delete|head|options|on)\(\s*"([^"]*)"')
GROUP_VARIABLE = re.compile(r'\blet (\w+) = group\(\.(\w+)\)')
GROUP_CALL = re.compile(r'group\(\.(\w+)\)')
TOKEN_GROUPS = ("metrics", "api", "page", "health")
SEED = 63


class Check:
    def __init__(self):
        self.problems: list[str] = []
        self.passed = 0

    def ok(self, what):
        self.passed += 1
        print(f"    ok   {what}")

    def fail(self, what):
        self.problems.append(what)
        print(f"    FAIL {what}", file=sys.stderr)

    def expect(self, condition, what, detail=""):
        if condition:
            self.ok(what)
        else:
            self.fail(f"{what}{': ' + detail if detail else ''}")
        return condition


def load_document():
    return yaml.safe_load(DOCUMENT.read_text())


def registry(document) -> Registry:
    """The document under DOCUMENT_URI and every contract schema under its $id, so the document's relative `$ref`s
    (./schemas/outbound/…) resolve to the wire contract's files."""
    resources = [(DOCUMENT_URI, DRAFT202012.create_resource(document))]
    for path in sorted((CONTRACT_DIR / "schemas").rglob("*.json")):
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], Resource.from_contents(schema, default_specification=DRAFT202012)))
    return Registry().with_resources(resources)


class Schemas:
    def __init__(self, document):
        self.registry = registry(document)

    def errors(self, pointer: str, instance) -> list[str]:
        """The validation errors of `instance` against the schema at the document's JSON pointer `pointer`."""
        validator = jsonschema.Draft202012Validator({"$ref": DOCUMENT_URI + "#" + pointer}, registry=self.registry,
                                                    format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        found = []
        for error in validator.iter_errors(instance):
            causes = [error] if not error.context else sorted(error.context, key=lambda e: -len(e.absolute_path))[:3]
            for cause in causes:
                found.append(f"{'/'.join(map(str, cause.absolute_path)) or '(root)'}: {cause.message[:200]}")
        return found


def pointer(*parts) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


# --- 1. The document itself ---------------------------------------------------------------------------------------

def check_document(document, schemas: Schemas, check: Check):
    errors = list(OpenAPIV31SpecValidator(document, base_uri=DOCUMENT.resolve().as_uri()).iter_errors())
    check.expect(not errors, "contract/openapi.yaml is a valid OpenAPI 3.1 document (openapi-spec-validator)",
                 "; ".join(e.message[:300] for e in errors[:5]))
    check.expect(document.get("openapi") == "3.1.0", "openapi: 3.1.0")
    description = document["info"]["description"]
    keys = [f"http.auth.{group}TokenFile" for group in TOKEN_GROUPS] + ["http.tls.certFile", "http.tls.keyFile"]
    check.expect(all(key in description for key in keys), "info.description names every access and TLS key",
                 f"missing: {[key for key in keys if key not in description]}")
    count = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method not in ("get", "post", "put", "patch", "delete", "head", "options"):
                continue
            for status, response in operation["responses"].items():
                for media, content in response.get("content", {}).items():
                    if media != "application/json":
                        continue
                    where = pointer("paths", path, method, "responses", status, "content", media)
                    examples = [(name, example["value"]) for name, example in content.get("examples", {}).items()]
                    if "example" in content:
                        examples.append(("example", content["example"]))
                    check.expect(examples, f"{method.upper()} {path} {status}: at least one example")
                    for name, value in examples:
                        count += 1
                        errors = schemas.errors(where + "/schema", value)
                        if errors:
                            check.fail(f"{method.upper()} {path} {status} example {name}: {'; '.join(errors)}")
    for name, schema in document["components"]["schemas"].items():
        for index, value in enumerate(schema.get("examples", [])):
            count += 1
            errors = schemas.errors(pointer("components", "schemas", name), value)
            if errors:
                check.fail(f"components.schemas.{name} example {index}: {'; '.join(errors)}")
    check.ok(f"{count} JSON examples checked against their schemas")


# --- 2. Routes: sources against the document ----------------------------------------------------------------------

def source_routes() -> set[tuple[str, str, str]]:
    """(method, path, route group) of every route the sources register on a route group."""
    routes = set()
    for file in sorted(ROUTE_SOURCES.glob("*.swift")):
        text = file.read_text()
        variables = dict(GROUP_VARIABLE.findall(text))
        for receiver, method, path in ROUTE.findall(text):
            call = GROUP_CALL.fullmatch(receiver)
            group = call.group(1) if call else variables.get(receiver)
            if group is None:
                continue
            path = "/" + path.strip("/")
            path = re.sub(r":([A-Za-z_][A-Za-z0-9_]*)", r"{\1}", path)
            routes.add((method.upper(), path, group))
    return routes


def document_routes(document) -> set[tuple[str, str, str]]:
    return {(method.upper(), path, operation.get("x-route-group", "(none)")) for path, item in document["paths"].items()
            for method, operation in item.items() if method in ("get", "post", "put", "patch", "delete", "head", "options")}


def check_routes(document, check: Check):
    in_sources, in_document = source_routes(), document_routes(document)
    check.expect(len(in_sources) >= 8, f"found {len(in_sources)} route registrations in {ROUTE_SOURCES.relative_to(REPOSITORY)}")
    missing = sorted(in_sources - in_document)
    extra = sorted(in_document - in_sources)
    check.expect(not missing, "every route the sources register is in the document, in its route group", f"undocumented: {missing}")
    check.expect(not extra, "every route of the document is registered in the sources, in its route group", f"not registered: {extra}")


# --- 3. The live server -------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(seconds, what, probe, interval=0.1):
    """Polls `probe` until it returns a true value (returned), failing after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            value = probe()
        except (OSError, http.client.HTTPException, ValueError):
            value = None
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{what} (not within {seconds} s)")
        time.sleep(interval)


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)


def request(port, target, method="GET", timeout=10.0, headers=None) -> Response:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, target, headers=headers or {})
        answer = connection.getresponse()
        body = answer.read()
        return Response(answer.status, {k.lower(): v for k, v in answer.getheaders()}, body)
    finally:
        connection.close()


class Processes:
    def __init__(self, work: Path):
        self.work = work
        self.running: list[subprocess.Popen] = []

    def start(self, name, arguments) -> subprocess.Popen:
        log = open(self.work / f"{name}.log", "wb")
        process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.running.append(process)
        return process

    def stop(self, process, seconds=10.0):
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(seconds)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process in self.running:
            self.running.remove(process)

    def stop_all(self):
        for process in reversed(list(self.running)):
            self.stop(process)


class Live:
    """What the live checks share: the document, its schemas, the gateway's ports."""

    def __init__(self, document, schemas: Schemas, check: Check, port: int, metrics_port: int):
        self.document, self.schemas, self.check = document, schemas, check
        self.port, self.metrics_port = port, metrics_port

    def operation(self, path):
        return self.document["paths"][path]["get"]

    def conforms(self, path, target, response: Response, port=None, expected_status=None) -> bool:
        """Whether `response` is a documented response of GET `path`; names every difference."""
        label = f"GET {target}" + (f" (port {port})" if port else "")
        responses = self.operation(path)["responses"]
        status = str(response.status)
        if expected_status is not None and response.status != expected_status:
            self.check.fail(f"{label}: status {response.status}, expected {expected_status}: {response.body[:200]!r}")
            return False
        if status not in responses:
            self.check.fail(f"{label}: undocumented status {status}: {response.body[:200]!r}")
            return False
        documented = self.resolve(responses[status])
        content_type = response.headers.get("content-type", "")
        media = documented.get("content", {})
        if not media:
            if response.body:
                self.check.fail(f"{label}: {status} documents no body, got {response.body[:200]!r}")
                return False
        elif content_type not in media:
            self.check.fail(f"{label}: content type {content_type!r}, documented: {sorted(media)}")
            return False
        for name, header in documented.get("headers", {}).items():
            header = self.resolve(header)
            value = response.headers.get(name.lower())
            if value is None or (header["schema"].get("const") not in (None, value)):
                self.check.fail(f"{label}: header {name}: {value!r}")
                return False
        if content_type == "application/json":
            try:
                body = response.json()
            except ValueError as error:
                self.check.fail(f"{label}: not JSON ({error}): {response.body[:200]!r}")
                return False
            errors = self.schemas.errors(pointer("paths", path, "get", "responses", status, "content", content_type, "schema"), body)
            if errors:
                self.check.fail(f"{label} {status}: body does not match the schema: {'; '.join(errors[:5])}")
                return False
        return True

    def resolve(self, node):
        return resolve_local(self.document, node)


def node_path(reference):
    return [part.replace("~1", "/").replace("~0", "~") for part in reference.lstrip("#/").split("/")]


def resolve_local(document, node):
    while isinstance(node, dict) and "$ref" in node and node["$ref"].startswith("#/"):
        target = document
        for part in node_path(node["$ref"]):
            target = target[part]
        node = target
    return node


def read_events(port, seconds, want, started=None):
    """Opens /api/events and reads it until `want(events)` is true or `seconds` pass; returns (status, content type,
    events as (name, data) pairs, comment lines, ended). `started` is set once the headers are read."""
    deadline = time.monotonic() + seconds
    sock = socket.create_connection(("127.0.0.1", port), timeout=seconds)
    sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    reader = sock.makefile("rb")
    status_line = reader.readline().decode()
    headers = {}
    while (line := reader.readline().decode()) not in ("\r\n", "\n", ""):
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if started:
        started.set()
    chunked = headers.get("transfer-encoding", "").lower() == "chunked"
    buffer, events, comments, ended = b"", [], [], False

    def more():
        if chunked:
            size = int(reader.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                return None
            data = reader.read(size)
            reader.readline()
            return data
        data = reader.read1(65536)
        return data or None

    try:
        while (not want(events) or (events and events[-1][0] == "superseded")) and time.monotonic() < deadline:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                data = more()
            except (socket.timeout, TimeoutError):
                break
            if data is None:
                ended = True
                break
            buffer += data
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                name, lines = "message", []
                for line in block.decode().split("\n"):
                    if line.startswith(":"):
                        comments.append(line)
                    elif line.startswith("event:"):
                        name = line[6:].strip()
                    elif line.startswith("data:"):
                        lines.append(line[5:].lstrip(" "))
                    elif line:
                        comments.append("unexpected field: " + line)
                if lines:
                    events.append((name, "\n".join(lines)))
    finally:
        reader.close()
        sock.close()
    return int(status_line.split()[1]), headers.get("content-type", ""), events, comments, ended


def check_events(live: Live, simulate):
    """The first stream must show the comment, then FleetUpdates; a second client must supersede it."""
    check = live.check
    results = {}
    started = threading.Event()

    def first():
        results["first"] = read_events(live.port, 60, lambda events: any(name == "superseded" for name, _ in events) or len(events) >= 100_000, started)

    reader = threading.Thread(target=first, daemon=True)
    reader.start()
    check.expect(started.wait(15), "GET /api/events answers with headers at once")
    simulate()
    # The first stream has events once the simulator has published: then a second client takes its place.
    second = read_events(live.port, 30, lambda events: len(events) >= 1)
    reader.join(70)
    status, content_type, events, comments, ended = results.get("first", (0, "", [], [], False))
    media = live.operation("/api/events")["responses"]["200"]["content"]
    check.expect(status == 200 and content_type in media, "GET /api/events: 200 text/event-stream", f"{status} {content_type!r}")
    check.expect(comments[:1] == [": fleet updates"], "the stream opens with the comment ': fleet updates'", f"{comments[:3]}")
    updates = [data for name, data in events if name == "message"]
    check.expect(updates, "the stream carries fleet updates while devices publish", f"{len(events)} events")
    bad = []
    for data in updates:
        errors = live.schemas.errors("/components/schemas/FleetUpdate", json.loads(data))
        if errors:
            bad.append(f"{data[:120]}: {'; '.join(errors[:3])}")
    check.expect(not bad, f"{len(updates)} update(s) validate against FleetUpdate", "; ".join(bad[:3]))
    names = [name for name, _ in events]
    check.expect(names and names[-1] == "superseded" and names.count("superseded") == 1,
                 "a second client (http.maxLiveClients=1) ends the first stream with one last 'event: superseded'", f"{names[-3:]}")
    if names and names[-1] == "superseded":
        errors = live.schemas.errors("/components/schemas/SupersededNotice", json.loads(events[-1][1]))
        check.expect(not errors, "the superseded event's data validates against SupersededNotice", "; ".join(errors))
        check.expect(ended, "the superseded stream ends")
    check.expect(second[0] == 200 and second[3][:1] == [": fleet updates"], "the second client's stream opens")


def history_cases(device_ids, families, rng):
    """(target, expected status) pairs: valid values drawn from the parameters' schemas, and invalid ones."""
    valid, invalid = [], []
    route = "/api/devices/{}/events"
    for device in device_ids:
        valid.append(route.format(device))
        valid.append(route.format(device) + "?limit=1")
        valid.append(route.format(device) + "?limit=1000")
        valid.append(route.format(device) + "?family=&from=&to=&limit=&after=")
    for family in families:
        valid.append(route.format(rng.choice(device_ids)) + "?" + urllib.parse.urlencode({"family": family}, safe="/"))
    for _ in range(12):
        query = {}
        if rng.random() < 0.5:
            query["family"] = rng.choice(families)
        low, high = sorted(rng.uniform(0, 2e9) for _ in range(2))
        if rng.random() < 0.5:
            query["from"] = repr(low)
        if rng.random() < 0.5:
            query["to"] = repr(high)
        if rng.random() < 0.7:
            query["limit"] = str(rng.randint(1, 1000))
        if rng.random() < 0.3:
            query["after"] = f"{rng.uniform(0, 2e9)!r}:{rng.getrandbits(64):016x}"
        valid.append(route.format(rng.choice(device_ids)) + "?" + urllib.parse.urlencode(query, safe="/:"))
    valid.append(route.format("no-such-device") + "?limit=5")
    valid.append(route.format("x" * 64))
    device = device_ids[0]
    for query in ["limit=0", "limit=1001", "limit=-1", "limit=abc", "limit=1.5", "family=zzz", "family=dead-letter",
                  "family=headphone%2Freset-pose", "family=recorder%2Fquery", "from=nan", "from=abc", "to=inf", "from=5&to=1",
                  "after=zz", "after=1:xyz", "after=%3A", "after=1%3A", "after=abc%3A12"]:
        invalid.append(route.format(device) + "?" + query)
    for bad_id in ["bad%20id", "a*b", "x" * 65, "caf%C3%A9"]:
        invalid.append(route.format(bad_id))
    return [(target, 200) for target in valid] + [(target, 400) for target in invalid]


def check_history(live: Live, device_ids, rng):
    check = live.check
    path = "/api/devices/{id}/events"
    parameters = {p["name"]: p for p in live.operation(path)["parameters"]}
    families = resolve_local(live.document, parameters["family"]["schema"])["enum"]
    cases = history_cases(device_ids, families, rng)
    failures_before = len(check.problems)
    for target, expected in cases:
        response = request(live.port, target)
        if live.conforms(path, target, response, expected_status=expected) and expected == 200:
            page = response.json()
            times = [event["eventTime"] for event in page["events"]]
            if times != sorted(times, reverse=True):
                check.fail(f"GET {target}: events not newest first")
    bad = len(check.problems) - failures_before
    check.expect(bad == 0, f"{len(cases)} history requests ({sum(1 for _, s in cases if s == 400)} invalid, answered 400 Problem) "
                 "match the document")
    # Every page of one device, through `next`: no event twice, the last page's next is null.
    device = max(device_ids, key=lambda d: len(request(live.port, f"/api/devices/{d}/events?limit=1000").json()["events"]))
    target, seen, pages = f"/api/devices/{device}/events?limit=2", [], 0
    while pages < 200:
        response = request(live.port, target)
        if not live.conforms(path, target, response, expected_status=200):
            break
        page = response.json()
        pages += 1
        seen += [(event["eventTime"], event["eventId"]) for event in page["events"]]
        if page["next"] is None:
            break
        if len(page["events"]) != 2:
            check.fail(f"GET {target}: a page with a next cursor is not full")
        target = f"/api/devices/{device}/events?limit=2&after={urllib.parse.quote(page['next'], safe=':')}"
    everything = [(e["eventTime"], e["eventId"]) for e in request(live.port, f"/api/devices/{device}/events?limit=1000").json()["events"]]
    check.expect(seen == everything and len(seen) > 0, f"{device}'s history read 2 at a time through next ({pages} pages, "
                 f"{len(seen)} events) equals one page of 1000", f"{len(seen)} vs {len(everything)}")


def check_routes_live(live: Live, device_ids):
    check = live.check
    for path in live.document["paths"]:
        if "{" in path or path == "/api/events":
            continue
        response = request(live.port, path)
        check.expect(live.conforms(path, path, response, expected_status=200), f"GET {path}: 200, documented content type and body")
        if path == "/api/fleet":
            ids = [device["deviceId"] for device in response.json()["devices"]]
            check.expect(ids == sorted(ids) and set(device_ids) <= set(ids), "/api/fleet lists the simulated devices sorted by id")
        if path == "/metrics":
            check.expect(b"# TYPE gateway_" in response.body, "/metrics is Prometheus text with the gateway's metrics")
    # The metrics listener: /metrics alone.
    response = request(live.metrics_port, "/metrics")
    check.expect(live.conforms("/metrics", "/metrics", response, port=live.metrics_port, expected_status=200),
                 "http.metricsListen: GET /metrics 200 text/plain")
    others = [path.replace("{id}", device_ids[0]) for path in live.document["paths"] if path != "/metrics"]
    statuses = {path: request(live.metrics_port, path, timeout=3).status for path in others if path != "/api/events"}
    check.expect(all(status == 404 for status in statuses.values()), "http.metricsListen: every other documented path is 404", f"{statuses}")
    # Undocumented paths and methods.
    undocumented = [("GET", "/nope"), ("GET", "/api"), ("GET", "/api/devices/x"), ("GET", "/api/devices//events"),
                    ("GET", "/api/devices/a/b/events"), ("POST", "/api/fleet"), ("DELETE", "/readyz"), ("HEAD", "/healthz"),
                    ("PUT", "/metrics")]
    answers = {f"{method} {path}": request(live.port, path, method=method, timeout=3) for method, path in undocumented}
    wrong = {what: (r.status, r.body[:80]) for what, r in answers.items() if r.status != 404 or r.body}
    check.expect(not wrong, f"{len(undocumented)} undocumented paths and methods are 404 with an empty body", f"{wrong}")


def check_tokens(live: Live, processes, gateway, broker_port, http_port, work: Path, device_id):
    """A gateway with a token file for every group but health: each documented route answers a request without the
    token with the documented 401 (empty body, the challenge) and one with it with its documented 200."""
    check = live.check
    suffix = f"{random.Random(SEED).getrandbits(64):016x}"
    tokens = {group: f"{group}-token-{suffix}" for group in TOKEN_GROUPS if group != "health"}
    settings = []
    for group, token in tokens.items():
        (work / f"{group}.tokens").write_text(f"# {group}\n{token}\n")
        settings += ["--set", f"http.auth.{group}TokenFile={work / (group + '.tokens')}"]
    process = processes.start("gateway-tokens", gateway_arguments(gateway, broker_port, http_port, work, [
        *settings, "--set", f"recorder.database={work}/recorder-tokens.sqlite", "--set", "history.enabled=true"]))
    wait_until(60, "gateway (tokens) /readyz answers 200 without a token",
               lambda: process.poll() is None and request(http_port, "/readyz", timeout=2).status == 200)
    for path, item in live.document["paths"].items():
        group = item["get"]["x-route-group"]
        target = path.replace("{id}", device_id)
        if group == "health":
            check.expect(request(http_port, target).status == 200, f"GET {target}: health stays open with every other group closed")
            continue
        if path == "/api/events":
            continue  # a stream: its 200 is read by check_events; only its refusal is asked here
        check.expect(live.conforms(path, target, request(http_port, target), expected_status=401), f"GET {target} without a token: documented 401")
        other = tokens["page" if group != "page" else "metrics"]
        check.expect(request(http_port, target, headers={"Authorization": f"Bearer {other}"}).status == 401,
                     f"GET {target} with another group's token: 401")
        answer = request(http_port, target, headers={"Authorization": f"Bearer {tokens[group]}"})
        check.expect(live.conforms(path, target, answer, expected_status=200), f"GET {target} with its group's token: documented 200")
    events = request(http_port, "/api/events", timeout=3)
    check.expect(events.status == 401 and not events.body, "GET /api/events without a token: 401, empty body")
    processes.stop(process)


def gateway_arguments(binary, broker_port, http_port, work, extra):
    return [str(binary), "run", "--broker", f"mqtt://127.0.0.1:{broker_port}", "--set", f"http.listen=127.0.0.1:{http_port}",
            "--set", "mqtt.reconnect.maxDelay=0.5", "--set", f"state.path={work}/state.sqlite",
            "--set", f"journal.path={work}/journal.bin", *extra]


def check_live(document, schemas: Schemas, check: Check, bin_dir: Path, keep: bool):
    gateway, simulator = bin_dir / "wearable-gateway", bin_dir / "wearable-sim"
    mosquitto = os.environ.get("MOSQUITTO_BIN") or shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    for program in (gateway, simulator, Path(mosquitto)):
        if not os.access(program, os.X_OK):
            check.fail(f"{program} missing (build first, or pass --bin)")
            return
    work = Path(tempfile.mkdtemp(prefix="wg-check-openapi."))
    processes = Processes(work)
    failed_before = len(check.problems)
    try:
        broker_port, http_port, metrics_port = free_port(), free_port(), free_port()
        (work / "mosquitto.conf").write_text(f"listener {broker_port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                                             "log_dest stderr\nlog_type error\nlog_type warning\n")
        broker = processes.start("broker", [mosquitto, "-c", str(work / "mosquitto.conf")])
        wait_until(10, f"mosquitto accepts connections on {broker_port}",
                   lambda: broker.poll() is None and socket.create_connection(("127.0.0.1", broker_port), timeout=1).close() is None)
        print(f"==> live server: mosquitto on 127.0.0.1:{broker_port}, gateway on 127.0.0.1:{http_port} "
              f"(metrics listener {metrics_port}), work in {work}")
        process = processes.start("gateway", gateway_arguments(gateway, broker_port, http_port, work, [
            "--set", f"http.metricsListen=127.0.0.1:{metrics_port}", "--set", "http.maxLiveClients=1",
            "--set", f"recorder.database={work}/recorder.sqlite", "--set", "history.enabled=true"]))
        wait_until(60, "gateway /readyz answers 200", lambda: process.poll() is None and request(http_port, "/readyz", timeout=2).status == 200)
        live = Live(document, schemas, check, http_port, metrics_port)

        def simulate():
            sim = processes.start("sim", [str(simulator), "publish", "--broker", f"mqtt://127.0.0.1:{broker_port}",
                                          "--devices", "4", "--duration", "3"])
            try:
                sim.wait(60)
            except subprocess.TimeoutExpired:
                check.fail("wearable-sim publish --duration 3 did not end within 60 s")
            processes.stop(sim)

        check_events(live, simulate)
        fleet = wait_until(30, "4 devices in /api/fleet", lambda: (lambda d: d if len(d) >= 4 else None)(
            request(http_port, "/api/fleet").json()["devices"]))
        device_ids = sorted(device["deviceId"] for device in fleet)
        wait_until(30, "the event history holds events of every simulated device", lambda: all(
            request(http_port, f"/api/devices/{d}/events?limit=1").json()["events"] for d in device_ids))
        check_routes_live(live, device_ids)
        check_history(live, device_ids, random.Random(SEED))
        processes.stop(process)
        check.expect(process.returncode in (0, 75), f"the gateway stopped on SIGTERM (exit {process.returncode})")

        # History off: the route answers 404 with a Problem.
        off = processes.start("gateway-history-off", gateway_arguments(gateway, broker_port, http_port, work, [
            "--set", "history.enabled=false", "--set", f"recorder.database={work}/recorder-off.sqlite"]))
        wait_until(60, "gateway (history off) /readyz answers 200", lambda: off.poll() is None and request(http_port, "/readyz", timeout=2).status == 200)
        target = f"/api/devices/{device_ids[0]}/events"
        check.expect(live.conforms("/api/devices/{id}/events", target, request(http_port, target), expected_status=404),
                     "history.enabled=false: the history route is 404 with a Problem body")
        processes.stop(off)
        check_tokens(live, processes, gateway, broker_port, http_port, work, device_ids[0])
    except TimeoutError as error:
        check.fail(str(error))
    finally:
        processes.stop_all()
        if len(check.problems) > failed_before or keep:
            print(f"logs kept in {work}", file=sys.stderr)
            for log in sorted(work.glob("gateway*.log")):
                print(f"--- {log.name} (last lines)", file=sys.stderr)
                print("\n".join(log.read_text(errors="replace").splitlines()[-15:]), file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=Path(os.environ.get("WG_BIN_DIR") or REPOSITORY / ".build/debug"),
                        help="directory of wearable-gateway and wearable-sim (default: $WG_BIN_DIR or .build/debug)")
    parser.add_argument("--static", action="store_true", help="check the document and the routes only, not a live server")
    parser.add_argument("--keep", action="store_true", help="keep the live run's logs")
    arguments = parser.parse_args()
    document = load_document()
    schemas = Schemas(document)
    check = Check()
    print("==> the document (OpenAPI 3.1 schema, examples)")
    check_document(document, schemas, check)
    print("==> routes: Swift sources against the document")
    check_routes(document, check)
    if not arguments.static:
        check_live(document, schemas, check, arguments.bin.resolve(), arguments.keep)
    print(f"check-openapi: {check.passed} passed, {len(check.problems)} failed")
    if check.problems:
        for problem in check.problems:
            print(f"  {problem}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
