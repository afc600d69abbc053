#!/usr/bin/env bash
# Relay ratio: the gateway's sustained watch count against a do-nothing C relay on the same
# private mosquitto with the same real-time load. One command from a fresh clone:
#
#   bash Benchmarks/relay-ratio/run.sh --encoding json            # 250…3000 watches, 15 s trials
#   bash Benchmarks/relay-ratio/run.sh --encoding protobuf
#   bash Benchmarks/relay-ratio/run.sh --json-style precise       # tidy (default), precise, reordered
#   bash Benchmarks/relay-ratio/run.sh --quick                    # smoke check, about a minute
#   bash Benchmarks/relay-ratio/run.sh --workers 1 --side gateway # other options: relay-ratio.py --help
#   bash Benchmarks/relay-ratio/run.sh --pin-side 1               # the side on CPU 1, the rest elsewhere
#   bash Benchmarks/relay-ratio/run.sh --warm-up 15               # measure after 15 s of load (steady state)
#
# It builds what it needs (swift build -c release for wearable-gateway and wearable-sim, cc for
# loadgen.c and relay.c against libmosquitto-dev), pre-generates the traffic with
# `wearable-sim generate`, and hands over to relay-ratio.py, which prints the table.
# Set RELAY_RATIO_SKIP_BUILD=1 to reuse the release build as it is; --scratch-path DIR builds
# (or reuses) it in DIR instead of .build. Figures: docs/performance.md.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

here="$WG_REPO_ROOT/Benchmarks/relay-ratio"
encoding=json
style=tidy
scratch=()
quick=0
pass=()
while [ $# -gt 0 ]; do
	case "$1" in
	--encoding)
		encoding=$2
		shift 2
		;;
	--json-style)
		style=$2
		shift 2
		;;
	--scratch-path)
		scratch=(--scratch-path "$2")
		shift 2
		;;
	--quick)
		quick=1
		shift
		;;
	*)
		pass+=("$1")
		shift
		;;
	esac
done
case "$encoding" in json | protobuf) ;; *) die "--encoding must be json or protobuf" ;; esac
case "$style" in tidy | precise | reordered) ;; *) die "--json-style must be tidy, precise or reordered" ;; esac

cd "$WG_REPO_ROOT"
for tool in cc python3 mosquitto_sub "$(mosquitto_bin)"; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool not found (Debian: apt-get install build-essential python3 python3-venv mosquitto mosquitto-clients)"
done
[ -f /usr/include/mosquitto.h ] || die "no libmosquitto headers (Debian: apt-get install libmosquitto-dev)"
if [ "${RELAY_RATIO_SKIP_BUILD:-0}" != 1 ]; then
	log "swift build -c release (wearable-gateway, wearable-sim); several minutes the first time"
	for product in wearable-gateway wearable-sim; do
		build_log=$(mktemp)
		if ! swift build -c release "${scratch[@]+"${scratch[@]}"}" --product "$product" >"$build_log" 2>&1; then
			tail -n 40 "$build_log" >&2
			die "swift build -c release --product $product failed"
		fi
		rm -f "$build_log"
	done
fi
release=$(swift build -c release "${scratch[@]+"${scratch[@]}"}" --show-bin-path)
[ -x "$release/wearable-gateway" ] && [ -x "$release/wearable-sim" ] || die "no release build in $release"

work=$(mktemp -d "${TMPDIR:-/tmp}/wg-relay-ratio.XXXXXX")
log "cc loadgen relay -> $work"
cc -O2 -Wall -o "$work/loadgen" "$here/loadgen.c" -lmosquitto -lpthread
cc -O2 -Wall -o "$work/relay" "$here/relay.c" -lmosquitto -lpthread

# The broker of every trial: the repository's flow-control settings (conf.d), no persistence.
conf=$(render_broker_config "$here/broker.conf" @PORT@)

if [ "$quick" = 1 ]; then
	seconds=5
	set -- --watches 100,200 --seconds "$seconds" "${pass[@]+"${pass[@]}"}"
else
	seconds=15
	set -- "${pass[@]+"${pass[@]}"}"
fi
# The trial length and a warm-up may be given; generate enough traffic for both.
warm_up=0
for ((i = 1; i <= $#; i++)); do
	j=$((i + 1))
	case "${!i}" in
	--seconds) seconds=${!j} ;;
	--warm-up) warm_up=${!j} ;;
	esac
done
total=$((warm_up + seconds + 1))

log "wearable-sim generate ($encoding, JSON style $style, 20 template watches, $total s)"
"$release/wearable-sim" generate --watches 20 --seconds $total --encoding "$encoding" --json-style "$style" --output "$work/frames"

status=0
python=$(benchmark_python) # .build/pytest-venv with prometheus-client and psutil (Benchmarks/requirements.txt)
"$python" "$here/relay-ratio.py" --encoding "$encoding" --frames "$work/frames/frames.bin" --bin-dir "$work" \
	--release-dir "$release" --broker-conf "$conf" --mosquitto "$(mosquitto_bin)" --logs "$work" "$@" || status=$?
rm -rf "$(dirname "$conf")" "$work/frames"
exit "$status"
