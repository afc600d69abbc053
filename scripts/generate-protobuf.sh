#!/usr/bin/env bash
# Regenerates Sources/TelemetryCore/Protobuf/telemetry.pb.swift from
# proto/wearable/v1/telemetry.proto. Run it after editing the schema and commit both files;
# CI does not run it (the generated code is committed, so a build needs neither protoc nor
# the plugin). See docs/binary-encoding.md.
#
# Needs:
#   protoc              Debian: apt-get install protobuf-compiler (checked with 3.21.12)
#   PROTOC_GEN_SWIFT    path of protoc-gen-swift built from the same swift-protobuf version
#                       as Package.swift (1.39.0), outside the repository:
#     git clone /opt/swift-packages/apple/swift-protobuf.git /tmp/swift-protobuf   # or GitHub
#     git -C /tmp/swift-protobuf checkout 1.39.0
#     (cd /tmp/swift-protobuf && swift build -c release --product protoc-gen-swift)
#     PROTOC_GEN_SWIFT=/tmp/swift-protobuf/.build/release/protoc-gen-swift scripts/generate-protobuf.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WG_REPO_ROOT"

[ -n "${PROTOC_GEN_SWIFT:-}" ] || die "set PROTOC_GEN_SWIFT to the protoc-gen-swift binary (see the comment at the top of $0)"
[ -x "$PROTOC_GEN_SWIFT" ] || die "PROTOC_GEN_SWIFT=$PROTOC_GEN_SWIFT is not an executable file"
command -v protoc >/dev/null || die "protoc not found (Debian: apt-get install protobuf-compiler)"

out=Sources/TelemetryCore/Protobuf
log "protoc $(protoc --version | sed 's/^libprotoc //'), $PROTOC_GEN_SWIFT"
# Visibility=Internal + UseAccessLevelOnImports: the generated types and the SwiftProtobuf
# import stay internal to TelemetryCore; its public API is the model types only.
# FileNaming=DropPath: proto/wearable/v1/telemetry.proto -> $out/telemetry.pb.swift.
protoc \
	--plugin=protoc-gen-swift="$PROTOC_GEN_SWIFT" \
	--proto_path=proto \
	--swift_out="$out" \
	--swift_opt=Visibility=Internal \
	--swift_opt=UseAccessLevelOnImports=true \
	--swift_opt=FileNaming=DropPath \
	wearable/v1/telemetry.proto
log "wrote $out/telemetry.pb.swift"
