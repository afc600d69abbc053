#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, from the Swift toolchain's clang) of the decoders every
# frame from the broker goes through: the check that no payload crashes the gateway or reads
# differently on the fast path than on the DOM path.
#
#   bash scripts/fuzz.sh                                  # the batch harness, 60 s
#   bash scripts/fuzz.sh batch-decoders --seconds 600     # longer
#   bash scripts/fuzz.sh batch-decoders --runs 200000 --seed 1   # a fixed run (scripts/test.sh)
#   bash scripts/fuzz.sh frame-decoder --seconds 600      # the Swift frame decoder, every stream
#   bash scripts/fuzz.sh batch-decoders --corpus DIR      # keep what it finds in DIR
#
# batch-decoders: Sources/CSimdjson compiled with AddressSanitizer and UndefinedBehaviorSanitizer
#   (any report fails) and Fuzz/BatchDecoderFuzz/batch-decoders.cpp, which decodes each input as
#   an accelerometer and a device-motion batch on the fast path and on the DOM path and fails
#   unless the fast path declines or reads exactly what the DOM path reads. About 20 s to build.
# frame-decoder: Fuzz/Package.swift's FrameDecoderFuzz, TelemetryCore built with
#   `-sanitize=fuzzer,address` in .build-fuzz (about 5 minutes the first time): every stream of
#   the contract, JSON and protobuf, through FrameDecoder.decode, and the same bytes as an
#   inbound topic, parsed in one pass and level by level (the two must agree); a trap, a
#   disagreement or a sanitizer report fails.
# Seeds: the contract's JSON fixtures (Tests/TelemetryCoreTests/Fixtures/json) and the inputs
# that once failed (Fuzz/regressions/<harness>), which every run replays first. A failing input
# is written to the run's folder (printed) and the run exits non-zero; copy it into
# Fuzz/regressions/<harness>/ with the fix. docs/testing.md, "Fuzzing".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WG_REPO_ROOT"

harness=batch-decoders
seconds=60
runs=
seed=
corpus=
while [ $# -gt 0 ]; do
	case "$1" in
	batch-decoders | frame-decoder) harness=$1 ;;
	--seconds)
		seconds=$2
		shift
		;;
	--runs)
		runs=$2
		shift
		;;
	--seed)
		seed=$2
		shift
		;;
	--corpus)
		corpus=$2
		shift
		;;
	-h | --help)
		sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
	shift
done
case "$seconds$runs$seed" in *[!0-9]*) die "--seconds, --runs and --seed take whole numbers" ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/wg-fuzz.XXXXXX")
[ -n "$corpus" ] || corpus=$work/corpus
mkdir -p "$corpus" "$work/seeds"

# Seeds: the fixtures, with the first byte each harness reads (batch-decoders: parse in place or
# not; frame-decoder: the stream's index in InboundStream.allCases and the encoding), and for
# frame-decoder each stream's topic.
streams=$(grep -o 'case [A-Za-z]* = "[^"]*"' Sources/TelemetryCore/Topics/InboundStream.swift | sed 's/.*= "\(.*\)"/\1/')
index=0
for stream in $streams; do
	fixture=Tests/TelemetryCoreTests/Fixtures/json/${stream//\//-}.json
	if [ -f "$fixture" ]; then
		if [ "$harness" = frame-decoder ]; then
			{ printf "\\$(printf '%03o' $((index * 2)))"; cat "$fixture"; } >"$work/seeds/$index"
		else
			{ printf '\001'; cat "$fixture"; } >"$work/seeds/$index"
		fi
	fi
	# frame-decoder: the stream's topic below the inbound root (bit 7), for the topic parsers.
	[ "$harness" != frame-decoder ] || printf '\200watch-%d/%s' "$index" "$stream" >"$work/seeds/topic-$index"
	index=$((index + 1))
done

case "$harness" in
batch-decoders)
	log "building the batch harness with ASan, UBSan and libFuzzer"
	flags=(-g -O1 -std=c++17 -DNDEBUG -fsanitize=address,undefined -fno-sanitize-recover=undefined
		-I Sources/CSimdjson/include -I Sources/CSimdjson)
	for source in Sources/CSimdjson/*.cpp; do
		clang++ "${flags[@]}" -fsanitize=fuzzer-no-link -c "$source" -o "$work/$(basename "$source" .cpp).o"
	done
	# The linker warns about every sanitizer symbol it cannot export; shown only when it fails.
	clang++ "${flags[@]}" -fsanitize=fuzzer Fuzz/BatchDecoderFuzz/batch-decoders.cpp "$work"/*.o -lsimdjson \
		-o "$work/fuzz" 2>"$work/link.log" || { grep -v "Cannot export local symbol" "$work/link.log" >&2; die "link failed"; }
	binary=$work/fuzz
	;;
frame-decoder)
	log "building FrameDecoderFuzz (swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing, .build-fuzz)"
	swift build -c release --package-path Fuzz --scratch-path "$WG_REPO_ROOT/.build-fuzz" --product FrameDecoderFuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing 2>&1 | grep -v "Cannot export local symbol" | tail -n 3
	binary=$WG_REPO_ROOT/.build-fuzz/release/FrameDecoderFuzz
	;;
esac
[ -x "$binary" ] || die "the $harness harness did not build"

options=(-dict=Fuzz/dictionary.txt -max_len=16384 -print_final_stats=1 -artifact_prefix="$work/")
if [ -n "$runs" ]; then options+=(-runs="$runs"); else options+=(-max_total_time="$seconds"); fi
[ -z "$seed" ] || options+=(-seed="$seed")
regressions=Fuzz/regressions/$harness
mkdir -p "$regressions"
if [ -n "$runs" ]; then budget="$runs runs"; else budget="$seconds s"; fi
log "fuzzing $harness ($budget; corpus $corpus; inputs that fail land in $work)"
status=0
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	"$binary" "${options[@]}" "$corpus" "$work/seeds" "$regressions" >"$work/fuzz.log" 2>&1 || status=$?
grep -E '^(stat::number_of_executed_units|stat::new_units_added|#[0-9]+ +DONE)' "$work/fuzz.log" || true
if [ "$status" -ne 0 ]; then
	grep -E -A 12 'ERROR:|runtime error:|fast path|Fatal error|SUMMARY' "$work/fuzz.log" | head -n 40 >&2 || true
	ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* 2>/dev/null >&2 || true
	die "$harness: failed (log: $work/fuzz.log)"
fi
log "$harness: no failure"
[ "$corpus" != "$work/corpus" ] || rm -rf "$work"
