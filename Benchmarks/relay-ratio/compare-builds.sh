#!/usr/bin/env bash
# Two gateway builds on the same frames in the same minutes: an older commit (the baseline)
# against this checkout, trial by trial, alternating, with the relay-ratio harness's gateway
# side (one worker, the shipped configuration of each build's own checkout).
#
#   bash Benchmarks/relay-ratio/compare-builds.sh --baseline 716ac05
#   bash Benchmarks/relay-ratio/compare-builds.sh --baseline 716ac05 --rounds 4 --watches 1000 \
#       --corpora "json:tidy json:precise json:reordered protobuf:tidy"
#   bash Benchmarks/relay-ratio/compare-builds.sh --baseline-dir /path/to/checkout   # built already
#
# The baseline is checked out with `git worktree add` under .build-compare/<commit> and built
# there once (swift build -c release, several minutes); later runs reuse it. Every trial's
# frames come from this checkout's `wearable-sim generate`, so an older build reads the same
# bytes. Each build runs in its own checkout, so it reads the config/gateway.yml it shipped with.
# Rounds alternate which build goes first. Prints each trial's relay-ratio line, then per
# corpus the gateway CPU per batched frame of every round and the ratio of the medians.
# Set RELAY_RATIO_SKIP_BUILD=1 to reuse this checkout's release build as it is.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

here="$WG_REPO_ROOT/Benchmarks/relay-ratio"
baseline=""
baseline_dir=""
rounds=2
watches=1000
seconds=10
corpora="json:precise protobuf:tidy"
scratch=()
usage() { sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case "$1" in
	--baseline) baseline=$2; shift 2 ;;
	--baseline-dir) baseline_dir=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--watches) watches=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--corpora) corpora=$2; shift 2 ;;
	--scratch-path) scratch=(--scratch-path "$2"); shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown option $1 (--help lists them)" ;;
	esac
done
[ -n "$baseline$baseline_dir" ] || die "give --baseline COMMIT or --baseline-dir CHECKOUT (--help)"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive whole number"
for corpus in $corpora; do
	case "$corpus" in json:tidy | json:precise | json:reordered | protobuf:tidy) ;;
	*) die "--corpora: $corpus is not one of json:tidy json:precise json:reordered protobuf:tidy" ;;
	esac
done

cd "$WG_REPO_ROOT"
if [ -n "$baseline" ]; then
	commit=$(git rev-parse --verify --quiet "$baseline^{commit}") || die "--baseline: $baseline is not a commit here"
	baseline_dir="$WG_REPO_ROOT/.build-compare/${commit:0:12}"
	if [ ! -d "$baseline_dir" ]; then
		log "git worktree add $baseline_dir ($baseline)"
		git worktree add --detach "$baseline_dir" "$commit" >/dev/null
	fi
fi
baseline_dir=$(cd "$baseline_dir" && pwd)
old_release="$baseline_dir/.build-release/release"
if [ ! -x "$old_release/wearable-gateway" ]; then
	log "swift build -c release --product wearable-gateway in $baseline_dir (several minutes, once)"
	(cd "$baseline_dir" && swift build -c release --scratch-path .build-release --product wearable-gateway >.build-compare.log 2>&1) ||
		die "the baseline did not build: $baseline_dir/.build-compare.log"
fi
if [ "${RELAY_RATIO_SKIP_BUILD:-0}" != 1 ]; then
	log "swift build -c release (wearable-gateway, wearable-sim) in this checkout"
	for product in wearable-gateway wearable-sim; do
		build_log=$(mktemp)
		swift build -c release "${scratch[@]+"${scratch[@]}"}" --product "$product" >"$build_log" 2>&1 ||
			{ tail -n 40 "$build_log" >&2; die "swift build -c release --product $product failed"; }
		rm -f "$build_log"
	done
fi
new_release=$(swift build -c release "${scratch[@]+"${scratch[@]}"}" --show-bin-path)
[ -x "$new_release/wearable-gateway" ] && [ -x "$new_release/wearable-sim" ] || die "no release build in $new_release"

work=$(mktemp -d "${TMPDIR:-/tmp}/wg-compare-builds.XXXXXX")
cc -O2 -Wall -o "$work/loadgen" "$here/loadgen.c" -lmosquitto -lpthread
cc -O2 -Wall -o "$work/relay" "$here/relay.c" -lmosquitto -lpthread
conf=$(render_broker_config "$here/broker.conf" @PORT@)
for corpus in $corpora; do
	"$new_release/wearable-sim" generate --watches 20 --seconds $((seconds + 1)) --encoding "${corpus%%:*}" \
		--json-style "${corpus##*:}" --output "$work/frames-${corpus/:/-}" >/dev/null
done

python=$(benchmark_python) # .build/pytest-venv with prometheus-client and psutil (Benchmarks/requirements.txt)

# trial BUILD CORPUS ROUND: one relay-ratio trial of the gateway side; appends to results.tsv.
trial() {
	local build=$1 corpus=$2 round=$3 release=$new_release dir=$WG_REPO_ROOT logs
	[ "$build" = baseline ] && { release=$old_release; dir=$baseline_dir; }
	logs="$work/$build-${corpus/:/-}-$round"
	mkdir -p "$logs"
	"$python" "$here/relay-ratio.py" --encoding "${corpus%%:*}" --frames "$work/frames-${corpus/:/-}/frames.bin" \
		--bin-dir "$work" --release-dir "$release" --gateway-dir "$dir" --broker-conf "$conf" \
		--mosquitto "$(mosquitto_bin)" --logs "$logs" --side gateway --workers 1 --watches "$watches" \
		--seconds "$seconds" >"$logs/output.txt" 2>&1 || true
	grep -m1 "watches: delivered" "$logs/output.txt" | sed "s/^/$(date -u +%H:%M:%S) $build $corpus: /" ||
		echo "$build $corpus round $round: no result; see $logs/output.txt"
	python3 - "$logs/results.json" "$build" "$corpus" "$round" >>"$work/results.tsv" <<-'EOF'
		import json, sys
		try:
		    trial = json.load(open(sys.argv[1]))[-1]
		except (OSError, ValueError, IndexError):
		    sys.exit(0)
		print("\t".join(sys.argv[2:5] + [f"{trial['cpu_subject'] / trial['measured'] * 1000:.3f}", str(trial["sustained"])]))
	EOF
}

log "baseline $baseline_dir, current $WG_REPO_ROOT; $watches watches, $seconds s, rounds: $rounds; logs in $work"
for ((round = 1; round <= rounds; round++)); do
	for corpus in $corpora; do
		if ((round % 2)); then trial baseline "$corpus" "$round"; trial current "$corpus" "$round"
		else trial current "$corpus" "$round"; trial baseline "$corpus" "$round"; fi
	done
done
python3 - "$work/results.tsv" <<-'EOF'
	import statistics, sys
	rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])] if __import__("os").path.exists(sys.argv[1]) else []
	print("\n| gateway CPU per batched frame | baseline, by round | current, by round | current / baseline (medians) |")
	print("|---|---|---|---|")
	for corpus in dict.fromkeys(r[1] for r in rows):
	    def runs(build):
	        return [(float(r[3]), r[4] == "True") for r in rows if r[0] == build and r[1] == corpus]
	    def cell(values):
	        return " / ".join(f"{v:.3f}" + ("" if ok else " (not sustained)") for v, ok in values) + " ms"
	    old, new = runs("baseline"), runs("current")
	    ratio = statistics.median(v for v, _ in new) / statistics.median(v for v, _ in old) if old and new else float("nan")
	    print(f"| {corpus} | {cell(old)} | {cell(new)} | {ratio:.2f} |")
EOF
rm -rf "$(dirname "$conf")"
find "$work" -maxdepth 1 -name 'frames-*' -exec rm -rf {} +
