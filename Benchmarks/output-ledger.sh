#!/usr/bin/env bash
# The output ledger's cost on a private PostgreSQL (docs/scale-out.md, "Fenced outputs"): starts
# the server the tests use (scripts/lib.sh start_postgres), runs the benchmark suite
# OutputLedgerBenchmark with OUTPUTS outputs (default 20000) and prints its JSON lines: the
# worker's cost of keying an output, and the ledger's statements per second and microseconds per
# output for batches of 1, 10, 100 and the service's largest. Needs `swift build --build-tests`
# first (a debug build).
# Usage (from the repository root): bash Benchmarks/output-ledger.sh [OUTPUTS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
start_postgres >/dev/null
trap stop_postgres EXIT
WG_TEST_POSTGRES_URL=$PG_URL WG_LEDGER_BENCHMARK_OUTPUTS=${1:-20000} swift test --skip-build --filter OutputLedgerBenchmark 2>&1 |
	grep -E '^output-ledger:|✘|error' | sed 's/^output-ledger: //'
