#!/usr/bin/env bash
# The event history's write cost on a private PostgreSQL (docs/history.md, "Measured"): starts the
# server the tests use (scripts/lib.sh start_postgres), runs the benchmark suite
# EventHistoryWriteBenchmark with EVENTS events (default 100000) and prints its JSON lines: the
# workers' cost per event, the writer's microseconds per event and rows per second, into
# PostgreSQL and into SQLite. Needs `swift build --build-tests` first (a debug build).
# Usage (from the repository root): bash Benchmarks/history-write.sh [EVENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
start_postgres >/dev/null
trap stop_postgres EXIT
WG_TEST_POSTGRES_URL=$PG_URL WG_HISTORY_BENCHMARK_EVENTS=${1:-100000} swift test --skip-build --filter EventHistoryWriteBenchmark 2>&1 |
	grep -E '^history-write:|✘|error' | sed 's/^history-write: //'
