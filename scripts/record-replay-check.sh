#!/usr/bin/env bash
# Records a live `wearable-sim publish` session (default: 4 devices, 15 s) against one testbed
# (private broker + gateway), replays the capture into a second, fresh testbed, and compares
# the derived (topic, eventId) sets of swings, tennis strokes, depth states, dives and
# hand-offs that the two gateways published. Exits non-zero when they differ.
#
#   scripts/record-replay-check.sh [DEVICES] [SECONDS] [SEED]
#
# Needs a built wearable-sim (swift build), mosquitto_sub (mosquitto-clients) and python3.
# The testbeds run with metrics every 0.2 s, which the waits below read.
# docs/testing.md ("Recording and replaying sessions") shows a run.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WG_REPO_ROOT"

devices=${1:-4} seconds=${2:-15} seed=${3:-15}
sim="${WEARABLE_SIM:-$(swift build --show-bin-path)/wearable-sim}"
[ -x "$sim" ] || die "no wearable-sim at $sim; run swift build"
work=$(mktemp -d "${TMPDIR:-/tmp}/wg-record-replay.XXXXXX")
pids=()
cleanup() {
	local pid
	for pid in "${pids[@]}"; do terminate_pid "$pid" 10 || true; done
	rm -rf "$work"
}
trap cleanup EXIT

# start_testbed NAME: starts a testbed whose stdin is a fifo this shell holds open (no end of
# stdin until we exit) and sets BROKER to its broker URL. Not in a subshell: the fd must stay.
start_testbed() {
	local name=$1 fd
	mkfifo "$work/$name.in"
	"$sim" testbed <"$work/$name.in" >"$work/$name.out" 2>"$work/$name.err" &
	pids+=($!)
	exec {fd}>"$work/$name.in"
	for _ in $(seq 1 300); do
		grep -q '^ready$' "$work/$name.out" 2>/dev/null && break
		sleep 0.1
	done
	grep -q '^ready$' "$work/$name.out" || die "testbed $name did not start: $(cat "$work/$name.err")"
	BROKER=$(sed -n 's/^broker=//p' "$work/$name.out")
}

# processed NAME: the latest gateway_frames_processed_total in NAME.events (the gateway's
# retained metrics, received by the same subscriber as its events, so every event derived from
# those frames is already in the file).
processed() {
	awk '$1 == "gateway_frames_processed_total" { n = int($2) } END { print n + 0 }' "$work/$1.events"
}

# wait_processed NAME N: until that gateway processed N frames (60 s at most).
wait_processed() {
	for _ in $(seq 1 300); do
		[ "$(processed "$1")" -ge "$2" ] && return 0
		sleep 0.2
	done
	die "the $1 gateway processed $(processed "$1") of $2 frames"
}

start_testbed live
live=$BROKER
start_testbed replay
replay=$BROKER
log "live testbed $live, replay testbed $replay"
mosquitto_sub -V 5 -p "${live##*:}" -t 'gateway/#' -F '%t %p' >"$work/live.events" &
pids+=($!)
mosquitto_sub -V 5 -p "${replay##*:}" -t 'gateway/#' -F '%t %p' >"$work/replay.events" &
pids+=($!)

"$sim" record --broker "$live" --output "$work/session.capture" >"$work/record.out" &
recorder=$!
for _ in $(seq 1 100); do grep -q '^recording ' "$work/record.out" && break; sleep 0.1; done
log "publishing $devices devices for $seconds s (seed $seed)"
"$sim" publish --broker "$live" --devices "$devices" --seed "$seed" --duration "$seconds" --log-level warning
kill -TERM "$recorder"
wait "$recorder"
cat "$work/record.out"
frames=$(sed -n 's/^recorded \([0-9]*\) frames.*/\1/p' "$work/record.out")
wait_processed live "$frames"

"$sim" replay --broker "$replay" --input "$work/session.capture" --log-level warning
wait_processed replay "$frames"

python3 - "$work/live.events" "$work/replay.events" <<'PY'
import json, sys
from collections import Counter
LEAVES = ("swing", "tennis/stroke", "submersion/depth-state", "submersion/dive", "headphone/sensor-location")
def keys(path):
    found = set()
    for line in open(path, encoding="utf-8"):
        topic, _, payload = line.rstrip("\n").partition(" ")
        if not topic.endswith(tuple("/" + leaf for leaf in LEAVES)):
            continue
        try:
            event = json.loads(payload)
        except ValueError:
            continue
        if "eventId" in event:
            found.add((topic, event["eventId"]))
    return found
live, replay = keys(sys.argv[1]), keys(sys.argv[2])
count = lambda keys: dict(Counter(topic.split("/", 2)[2] for topic, _ in keys))
print(f"live:   {len(live)} events {count(live)}")
print(f"replay: {len(replay)} events {count(replay)}")
if live != replay or not live:
    print("only live:", sorted(live - replay), "only replayed:", sorted(replay - live))
    sys.exit(1)
print("identical (topic, eventId) sets")
PY
