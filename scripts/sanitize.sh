#!/usr/bin/env bash
# Runs the test suites and a real load through the gateway built with a sanitizer: the check
# for memory errors (address) or data races (thread) where the Swift compiler cannot rule them
# out, at the C the code reaches (libmosquitto, the simdjson shim, the journal's file, SQLite).
#
#   bash scripts/sanitize.sh                   # AddressSanitizer (default)
#   bash scripts/sanitize.sh thread            # ThreadSanitizer
#   bash scripts/sanitize.sh address --no-load # the test suites only
#   bash scripts/sanitize.sh --scratch-path DIR   # build there (default .build-<sanitizer>)
#
# Builds the package and its tests with `swift build --sanitize=<name>` (about 8 minutes on
# 2 cores the first time; .build is not touched), starts a private PostgreSQL as
# scripts/test.sh does, and runs the same suites in the same processes, without the reconnect
# storm and the timed tests. Then, unless --no-load, the relay-ratio load (Benchmarks/relay-ratio,
# 8 s) through the sanitized gateway with full-precision JSON, reordered JSON and protobuf.
# Every process (test runners, the gateways they start) writes its sanitizer reports to files
# in the run's log folder; any report fails the run, as does a load that loses a frame.
# Failing tests are listed, not counted: a sanitized build is slower (address about 2 times,
# thread 5-15 times), so tests that bound time or wait with deadlines fail for that alone.
# Read the list: a failure that is not about time is a finding.
# Not part of scripts/test.sh: CI's 30 minutes do not hold a second whole build. Run it after
# changes to C interop, unsafe pointers or locking, and before a release; docs/testing.md has
# the last results and the two adjustments the thread mode needs.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WG_REPO_ROOT"

sanitizer=address
load=1
scratch=
while [ $# -gt 0 ]; do
	case "$1" in
	address | thread) sanitizer=$1 ;;
	--no-load) load=0 ;;
	--scratch-path)
		scratch=$2
		shift
		;;
	-h | --help)
		sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*) die "unknown argument '$1' (address, thread, --no-load, --scratch-path DIR, --help)" ;;
	esac
	shift
done

logs=$(mktemp -d "${TMPDIR:-/tmp}/wg-sanitize-$sanitizer.XXXXXX")
mkdir -p "$logs/reports"
flags=(--sanitize="$sanitizer" --scratch-path "${scratch:-$WG_REPO_ROOT/.build-$sanitizer}")
case "$sanitizer" in
address)
	# Leak checking is off: test processes end with clients and pools still referenced, which is
	# not what this run looks for.
	export ASAN_OPTIONS="detect_leaks=0:log_path=$logs/reports/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	watches=100
	;;
thread)
	# swift-otel does not compile with -sanitize=thread in the Swift 6 language mode (Swift 6.3.1:
	# "sending 'logger' risks causing data races" in OTelBatchLogRecordProcessor); the Swift 5
	# mode builds it. It changes the compiler's static checks, not what the sanitizer sees.
	flags+=(-Xswiftc -swift-version -Xswiftc 5 -Xswiftc -enable-bare-slash-regex)
	export TSAN_OPTIONS="halt_on_error=0:log_path=$logs/reports/tsan:suppressions=$WG_REPO_ROOT/scripts/tsan-suppressions.txt${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
	watches=50
	;;
esac

log "checking Debian packages (${WG_PACKAGES[*]})"
ensure_packages
MOSQUITTO_BIN=$(mosquitto_bin)
export MOSQUITTO_BIN

log "a private PostgreSQL for the store tests (start_postgres)"
start_postgres || die "PostgreSQL did not start"
trap 'stop_postgres' EXIT
export WG_TEST_POSTGRES_URL=$PG_URL

log "building with the $sanitizer sanitizer (swift build --build-tests ${flags[*]})"
swift build --build-tests "${flags[@]}" >"$logs/build.log" 2>&1 || {
	tail -n 40 "$logs/build.log" >&2
	die "the sanitized build failed (log: $logs/build.log)"
}
bin=$(swift build "${flags[@]}" --show-bin-path)

# The split of scripts/test.sh (scripts/lib.sh); the timed suites and the storm skip themselves
# unless WG_TIMED_TESTS / WG_STORM_TEST is set.
failed=0
run_part() {
	local name=$1
	shift
	log "swift test $* ($sanitizer)"
	if ! swift test --skip-build "${flags[@]}" "$@" >"$logs/$name.log" 2>&1; then
		grep -E "^✘ Test \"" "$logs/$name.log" | head -n 20 >&2 || true
		echo "(listed, not counted: under the sanitizer, time bounds and deadlines fail from slowness alone)" >&2
	fi
	# No summary: the test process died (a crash is a finding, sanitizer report or not).
	grep -E "Test run with [0-9]+ tests?" "$logs/$name.log" | tail -n 1 || {
		echo "no test summary in $logs/$name.log: the test process ended early" >&2
		failed=1
	}
}
index=0
for part in "${WG_PARALLEL_PARTS[@]}"; do
	index=$((index + 1))
	read -r -a part_args <<<"$part"
	run_part "parallel-$index" "${part_args[@]}" --skip "$WG_POSTGRES_SUITES"
done
index=0
for part in "${WG_POSTGRES_PARTS[@]}"; do
	index=$((index + 1))
	run_part "postgres-$index" --filter "$part"
done

if [ "$load" = 1 ]; then
	# relay-ratio.py takes the folder of the executables as --release-dir: here the sanitized
	# build's. Each trial's gateway log stays in $logs/load-*.
	here="$WG_REPO_ROOT/Benchmarks/relay-ratio"
	cc -O2 -Wall -o "$logs/loadgen" "$here/loadgen.c" -lmosquitto -lpthread
	cc -O2 -Wall -o "$logs/relay" "$here/relay.c" -lmosquitto -lpthread
	conf=$(render_broker_config "$here/broker.conf" @PORT@)
	python=$(benchmark_python) # .build/pytest-venv with prometheus-client and psutil (Benchmarks/requirements.txt)
	for corpus in "json precise" "json reordered" "protobuf tidy"; do
		read -r encoding style <<<"$corpus"
		log "load through the sanitized gateway: $encoding ($style), $watches watches, 8 s"
		rm -rf "$logs/frames"
		"$bin/wearable-sim" generate --watches 20 --seconds 9 --encoding "$encoding" --json-style "$style" --output "$logs/frames" >/dev/null
		trial="$logs/load-$encoding-$style"
		mkdir -p "$trial"
		"$python" "$here/relay-ratio.py" --encoding "$encoding" --frames "$logs/frames/frames.bin" --bin-dir "$logs" \
			--release-dir "$bin" --broker-conf "$conf" --mosquitto "$MOSQUITTO_BIN" --logs "$trial" \
			--side gateway --workers 1 --watches "$watches" --seconds 8 --max-drain 20 >"$trial.log" 2>&1 || true
		grep -E "watches: " "$trial.log" || true
		if ! grep -qE "watches: .*SUSTAINED" "$trial.log"; then
			failed=1
			echo "the load of $encoding ($style) was not sustained (log: $trial.log)" >&2
		fi
	done
	rm -rf "$logs/frames" "$(dirname "$conf")"
fi

if [ -n "$(ls -A "$logs/reports")" ]; then
	echo "sanitizer reports ($logs/reports):" >&2
	grep -h "^SUMMARY" "$logs"/reports/* | sort | uniq -c >&2 || true
	failed=1
fi
[ "$failed" = 0 ] || die "the $sanitizer-sanitized run failed (logs: $logs)"
log "no $sanitizer sanitizer report; every load processed every frame (logs: $logs)"
