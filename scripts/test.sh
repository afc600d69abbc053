#!/usr/bin/env bash
# THE test command (README, CI): installs the Debian packages if missing, builds the
# package and its tests, runs every unit and integration test, then verifies the broker
# ACL with a real mosquitto and the operations features (HTTP, Prometheus, dead letters,
# JSON logs, the fleet page in headless Chromium) on the real executables. Exits non-zero
# on the first failure.
#
# Integration tests start their own brokers on free loopback ports; they find the broker
# binary and the repository through these exported variables:
#   MOSQUITTO_BIN  path of mosquitto (Debian: /usr/sbin/mosquitto, not on a user's PATH)
#   WG_REPO_ROOT   absolute path of the repository (config/mosquitto/ lives there)
#   WG_TEST_POSTGRES_URL  a private PostgreSQL started here (start_postgres of scripts/lib.sh,
#                  stopped on exit); each test makes its own database in it. Without it the
#                  PostgreSQL suites are skipped -- which this script does not accept.
# Extra compiler/build flags: WG_SWIFT_FLAGS="-Xswiftc -warnings-as-errors" scripts/test.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WG_REPO_ROOT"

# Seconds, before anything is installed or built: every place that names the version names
# ProductVersion.current (CHANGELOG.md, Dockerfile, Kubernetes manifests, docs, contract examples).
log "one version: ProductVersion.swift, CHANGELOG.md, Dockerfile, manifests, docs (scripts/check-version.py)"
python3 scripts/check-version.py || die "a file names another version than Sources/TelemetryCore/ProductVersion.swift (named above)"

# Flags shared by the build and the test run (the same flags, so `swift test` does not
# rebuild). Add e.g. -Xswiftc -warnings-as-errors here.
SWIFT_FLAGS=()
if [ -n "${WG_SWIFT_FLAGS:-}" ]; then
	read -r -a extra_flags <<<"$WG_SWIFT_FLAGS"
	SWIFT_FLAGS+=("${extra_flags[@]}")
fi

log "checking Debian packages (${WG_PACKAGES[*]})"
ensure_packages

MOSQUITTO_BIN=$(mosquitto_bin)
export MOSQUITTO_BIN
[ -x "$MOSQUITTO_BIN" ] || die "mosquitto not found at $MOSQUITTO_BIN"
log "broker for integration tests: $MOSQUITTO_BIN ($("$MOSQUITTO_BIN" -h 2>&1 | head -n 1))"

log "a private PostgreSQL for the store tests (start_postgres)"
start_postgres || die "PostgreSQL did not start"
trap 'rm -f "${build_log:-}" "${test_log:-}" "${python_log:-}"; stop_postgres' EXIT
export WG_TEST_POSTGRES_URL=$PG_URL
log "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT (data in $PG_DIR)"

# The Python environment of the later checks (the docs' PromQL, pytest testbed, contract, trace
# export, Kubernetes manifests, compose files) is made and filled while the package builds: pip
# waits on the network and the disk more than on the two cores (about 45 s alone, 25 s of CPU),
# and the build takes 15 minutes. checkov (scripts/check-kubernetes.py) gets an environment of its
# own, .build/checkov-venv: it requires packaging<24, which pytest 9 refuses (about 30 s more).
venv="$WG_REPO_ROOT/.build/pytest-venv"
checkov_venv="$WG_REPO_ROOT/.build/checkov-venv"
python_requirements=(Examples/pytest/requirements.txt scripts/contract-requirements.txt Tests/TraceExport/requirements.txt deploy/kubernetes/check-requirements.txt scripts/check-docs-requirements.txt)
python_log=$(mktemp)
log "the Python environments for the later checks, in the background (.build/pytest-venv: ${python_requirements[*]}; .build/checkov-venv: deploy/kubernetes/checkov-requirements.txt)"
(
	mkdir -p "$WG_REPO_ROOT/.build"
	[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
	requirement_args=()
	for file in "${python_requirements[@]}"; do requirement_args+=(-r "$file"); done
	"$venv/bin/python" -m pip install -q "${requirement_args[@]}"
	[ -x "$checkov_venv/bin/python" ] || python3 -m venv "$checkov_venv"
	"$checkov_venv/bin/python" -m pip install -q -r deploy/kubernetes/checkov-requirements.txt
) >"$python_log" 2>&1 &
python_pid=$!

log "building (swift build --build-tests${SWIFT_FLAGS[*]+ ${SWIFT_FLAGS[*]}})"
build_log=$(mktemp)
swift build --build-tests ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"} 2>&1 | tee "$build_log"
# The project builds without warnings (dependencies' warnings are suppressed by SwiftPM).
# Only a fresh build recompiles every file, so this catches all of them in CI's clean clone.
if grep -E "^$WG_REPO_ROOT/(Sources|Tests)/.*: warning:" "$build_log" | sort -u | grep .; then
	die "the build has warnings (listed above); fix them"
fi

# The checks from here on use it (check-docs.py parses PromQL with promql-parser).
wait "$python_pid" || {
	cat "$python_log" >&2
	die "the Python environment could not be made (pip's output above)"
}

log "docs against the code: configuration keys, metric names, flags, WG_* variables, the dashboard's and alerts' PromQL (scripts/check-docs.py)"
"$venv/bin/python" scripts/check-docs.py --bin "$(swift build --show-bin-path ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"})" ||
	die "the docs name keys, metrics, flags or variables the code does not have (listed above)"

log "docs' shape: relative links and anchors, the index docs/README.md, each doc's purpose, docs/performance.md ≤ 600 lines (scripts/check-doc-links.py)"
python3 scripts/check-doc-links.py ||
	die "a doc links a missing file or heading, is missing from docs/README.md or has no purpose line, or docs/performance.md grew past 600 lines (listed above)"

log "layers: no cycle among the gateway target's folders (scripts/check-folder-cycles.py)"
python3 scripts/check-folder-cycles.py >/dev/null || { python3 scripts/check-folder-cycles.py; die "the folders of Sources/TelemetryGateway depend on each other in a cycle (listed above)"; }

# The JSON batch decoders under libFuzzer with ASan and UBSan: the inputs that once failed
# (Fuzz/regressions) and a fixed run of 200,000 mutations, about a minute (scripts/fuzz.sh).
log "decoder fuzzing, a fixed run (scripts/fuzz.sh batch-decoders --runs 200000 --seed 1)"
bash scripts/fuzz.sh batch-decoders --runs 200000 --seed 1 ||
	die "the batch decoders failed under the fuzzer (the input and the log are named above)"

# Users depend on the package by URL and version (Examples/Package.swift): SwiftPM must accept it
# as such a dependency, unsafe flags included (resolution and graph only, no build).
bash scripts/check-versioned-dependency.sh ||
	die "SwiftPM refuses the package as a versioned dependency (scripts/check-versioned-dependency.sh)"

# The parallel suite runs in three test processes. The split was made when the MQTT client waited
# with select() and the clients that got descriptors numbered 1024 or more never connected; it
# waits with poll() now (HighDescriptorTests), and the whole suite in one process held up to
# ~1,300 descriptors with every client connecting. The split stays because one process on two
# cores queues every test behind the others on Swift's small cooperative pool: in that run a
# test's 0.05 s wait resumed after more than 60 s and it failed (docs/testing.md, Known
# problems). The PostgreSQL suites run in a step of their own (below): the store's and every
# clustered-mode suite (partitioned and shared mode need store.backend postgres).
# (The split lives in scripts/lib.sh: WG_PARALLEL_PARTS, WG_POSTGRES_PARTS.)
test_log=$(mktemp)
failed_parts=0
for part in "${WG_PARALLEL_PARTS[@]}"; do
	log "unit and integration tests (swift test $part, without the PostgreSQL suites)"
	read -r -a part_args <<<"$part"
	status=0
	swift_test_bounded 900 "$test_log" --skip-build ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"} "${part_args[@]}" --skip "$WG_POSTGRES_SUITES" || status=$?
	[ "$status" -ne 124 ] || die "a test part did not end within 15 minutes (the tests still running are named above)"
	# Every part runs (its failures are named at the end), but a failed one fails the run.
	[ "$status" -eq 0 ] || failed_parts=$((failed_parts + 1))
done
# One plain summary line for CI: Swift Testing's counts over the three processes.
total=0
while read -r count; do total=$((total + count)); done < <(grep -E "Test run with [0-9]+ tests? .* (passed|failed)" "$test_log" | sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/')
failed=$(grep -cE '^✘ Test ".*" failed after' "$test_log" || true)
[ "$total" -gt 0 ] || die "swift test printed no Swift Testing summary"
echo "swift-test: $((total - failed)) passed, $failed failed"
if [ "$failed" -ne 0 ] || [ "$failed_parts" -ne 0 ]; then
	grep -E '^✘ Test ".*" (recorded an issue|failed after)' "$test_log" >&2 || true
	die "$failed tests failed in $failed_parts of the test parts (named above)"
fi

# In three processes, one after the other: the suites that run several gateway processes each
# (the three-instance ones, ClusterTests and ClusterFaultTests with up to four) are kept apart
# from the timing-sensitive ones (a store outage's retries, a join's switch instant). All of
# them in one process made two of those fail once on two cores (docs/testing.md, Known
# problems). PostgresGatewayTests runs alone: its late-commit case needs a write released from
# a table lock within the 0.5 s before its retry, which 25 suites starting beside it (each
# creating and migrating a database) made miss. The multi-instance suites run side by side in the second process, each suite's
# tests one at a time: they wait on session clocks and expiries more than they compute (side
# by side, 130 s of CPU in 191 s), so they take the longest suite's 3 minutes instead of 6.5
# one after the other. The presence suite (three instances through seven faults and moves, 4 minutes)
# runs last and alone: beside the others its 5-a-second toggles would be late for their load,
# not for the gateway's.
postgres_log=$(mktemp)
for part in "${WG_POSTGRES_PARTS[@]}"; do
	log "PostgreSQL suites against the private server (swift test --filter '$part')"
	swift_test_bounded 600 "$postgres_log" --skip-build ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"} --filter "$part" ||
		[ $? -ne 124 ] || die "a PostgreSQL part did not end within 10 minutes (the tests still running are named above)"
done
# The PostgreSQL suites skip themselves without WG_TEST_POSTGRES_URL; here they must have run.
for suite in "PostgreSQL store conformance" "PostgreSQL event history" "Event history: documented queries" "Ownership leases on PostgreSQL" "Gateway on the PostgreSQL store" "Fencing on the PostgreSQL store" \
	"Scale-out on PostgreSQL: three instances, the owner killed and restarted" \
	"Scale-out: partitioned instances on one mosquitto" "Scale-out: partitioned instances killed and frozen" "Scale-out: device state handed over between instances" \
	"Scale-out: per-device subscriptions" "Scale-out: presence through faults"; do
	grep -qE "✔ Suite \"$suite\" passed" "$postgres_log" || die "the suite \"$suite\" did not run and pass (WG_TEST_POSTGRES_URL)"
done
postgres_total=0
while read -r count; do postgres_total=$((postgres_total + count)); done < <(grep -E "Test run with [0-9]+ tests? .* passed" "$postgres_log" | sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/')
echo "postgres-tests: $postgres_total passed, 0 failed"
rm -f "$postgres_log"

# The reconnect storm of the fault suite, alone: it asserts a time bound (100,000 hellos
# answered within 30 s), which other tests running beside it on two cores would distort.
log "reconnect storm: 100,000 hellos (swift test --filter HelloStormTests, alone)"
WG_STORM_TEST=1 swift test --skip-build ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"} --filter HelloStormTests ||
	die "the reconnect storm test failed"

# Tests that assert time bounds (a connect given up after connectTimeout, publishes written at
# once rather than at the MQTT loop's next round, /api/fleet within 1 s, another device's
# presence within 1 s during a query burst, an exit within 2 × drainTimeout with the broker
# frozen, receiving again within 15 s of a broker restart), alone and one at a time: beside the
# parallel suite on two cores their clocks measure the machine, not the gateway.
log "timed tests, alone (WG_TIMED_TESTS=1: ConnectTimeoutTests, LoopWakeupTimingTests, HTTPLoadTests, RecorderQueryIsolationTests, a frozen broker's shutdown, a broker's restart)"
WG_TIMED_TESTS=1 swift test --skip-build ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"} --no-parallel \
	--filter 'ConnectTimeoutTests|LoopWakeupTimingTests|HTTPLoadTests|RecorderQueryIsolationTests|FaultTests/frozenBrokerShutdown|GatewayPipelineTests/brokerRestart' ||
	die "a timed test failed"

# The testing kit as a user sees it: the Examples package depends on this one by path and
# builds only what the kit needs. It builds in this package's build directory: the modules
# built above are reused instead of compiled a second time in Examples/.build (about 8 of the
# run's minutes on two cores; docs/testing.md). Only the build directory is shared; the
# package graph, its resolution and the compiler flags are the Examples package's own.
log "testing kit example (swift test --package-path Examples --scratch-path .build)"
swift test --package-path Examples --scratch-path "$WG_REPO_ROOT/.build" ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"} ||
	die "the Examples package's tests failed"

# `wearable-sim testbed` from another language: pytest with paho-mqtt in a virtual
# environment under .build (pip's cache keeps later runs offline-fast).
log "testbed from pytest (Examples/pytest)"
WEARABLE_SIM="$(swift build --show-bin-path ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"})/wearable-sim" \
	"$venv/bin/python" -m pytest -q -p no:cacheprovider Examples/pytest

# contract/ as a whole, in about a second (same virtual environment): asyncapi.yaml against the
# official AsyncAPI 3.0.0 JSON Schema (from a PyPI source distribution pinned by hash, cached in
# .build/contract-cache), every schema against the 2020-12 meta-schema with its $id, every $ref,
# the committed bundle, every message example against its schema and the docs.
log "contract: AsyncAPI 3.0.0 and JSON Schema 2020-12, \$refs, bundle, examples (scripts/check-contract.py)"
"$venv/bin/python" scripts/check-contract.py ||
	die "contract/ is invalid (each problem's file and JSON path are listed above)"

# contract/openapi.yaml, the HTTP API (same virtual environment): the OpenAPI 3.1
# schema and its examples, the routes the sources register, and a live gateway with a private
# mosquitto and simulated devices: every documented GET route's answers against the document's
# schemas, generated history parameters (invalid ones must be 400), the event stream.
log "HTTP API: OpenAPI 3.1, routes in the sources, every route on a live gateway (scripts/check-openapi.py)"
"$venv/bin/python" scripts/check-openapi.py --bin "$(swift build --show-bin-path ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"})" ||
	die "contract/openapi.yaml and the HTTP server disagree (listed above)"

# OpenTelemetry export (tracing.*) on the real executable: a private mosquitto, wearable-gateway
# and an OTLP/HTTP receiver decoding the spans with opentelemetry-proto (same virtual environment).
log "trace export to an OTLP/HTTP receiver (Tests/TraceExport)"
WEARABLE_GATEWAY="$(swift build --show-bin-path ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"})/wearable-gateway" \
	"$venv/bin/python" -m pytest -q -p no:cacheprovider Tests/TraceExport

log "broker ACL (scripts/check-acl.sh)"
bash scripts/check-acl.sh

log "Kubernetes manifests: kubernetes-validate, the NetworkPolicy and the Prometheus Operator component (its CRDs' schemas), promtool on the PrometheusRule, check-config on the ConfigMap, checkov with its skip list (scripts/check-kubernetes.py)"
python3 scripts/check-kubernetes.py --bin "$(swift build --show-bin-path ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"})" ||
	die "the Kubernetes manifests in deploy/kubernetes/ are invalid or out of date (listed above)"

log "the Dockerfile: strip, HEALTHCHECK, OCI labels (version = ProductVersion.current), testbed stage with mosquitto (scripts/check-dockerfile.py)"
python3 scripts/check-dockerfile.py || die "the Dockerfile lacks what operators need (listed above)"

# The image pins every Swift package to the version listed in deploy/swift-package-versions.txt;
# the list must be the resolution this run built and tested (Package.resolved, written by the
# build above), and the Dockerfile's build stage must apply it before `swift build`. Under a second.
log "Swift package versions: deploy/swift-package-versions.txt = Package.resolved, applied by the Dockerfile (scripts/check-package-versions.py)"
python3 scripts/check-package-versions.py ||
	die "deploy/swift-package-versions.txt differs from the resolution or the Dockerfile does not apply it (listed above; after a change to Package.swift: python3 scripts/check-package-versions.py --write)"

# The compose files, which no container engine runs here: both files and the merged full stack
# against the compose specification's schema (scripts/compose-spec.json), what a fresh clone after
# scripts/compose-up.sh --prepare mounts, check-config on every gateway service, promtool on the
# Prometheus configuration, Grafana's provisioning against the dashboard (same virtual environment).
log "compose files: compose-spec schema, mounts after compose-up.sh --prepare, check-config, promtool, Grafana provisioning (scripts/check-compose.py)"
"$venv/bin/python" scripts/check-compose.py --bin "$(swift build --show-bin-path ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"})" ||
	die "docker-compose.yml or docker-compose.full.yml is invalid or does not fit the repository (listed above)"

log "the image's run: the gateway as the Dockerfile runs it, unprivileged, writing only to the volume (scripts/check-image.sh)"
bash scripts/check-image.sh

log "operations: HTTP endpoints, Prometheus, dead letters, JSON logs, fleet page in Chromium (scripts/check-operations.sh)"
bash scripts/check-operations.sh

log "all tests passed"
