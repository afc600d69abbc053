#!/usr/bin/env bash
# Benchmarks/scale-out.py on a private PostgreSQL: partitioned mode needs store.backend postgres.
# Starts the server the test command uses (scripts/lib.sh start_postgres: initdb in a temporary
# directory, a free port on 127.0.0.1, as an unprivileged user), runs the benchmark against it
# with the arguments given, and stops and removes the server at the end, whatever happened.
# Usage (from the repository root): bash Benchmarks/scale-out.sh --bin .build-release/release --instances 1,2,4 --devices 300 --seconds 8
#                              or: bash Benchmarks/scale-out.sh --takeover --devices 100000 --instances 4
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
start_postgres
trap stop_postgres EXIT
# .build/pytest-venv with prometheus-client and psutil (Benchmarks/requirements.txt)
# --takeover first: Benchmarks/takeover.py (kill -9 of one instance at scale) instead.
if [ "${1:-}" = "--takeover" ]; then
	shift
	"$(benchmark_python)" Benchmarks/takeover.py --store-url "$PG_URL" "$@"
else
	"$(benchmark_python)" Benchmarks/scale-out.py --store-url "$PG_URL" "$@"
fi
