#!/usr/bin/env bash
# THE test command (README, CI): installs the Debian packages if missing, builds the
# package and its tests, runs every unit and integration test, then verifies the broker
# ACL with a real mosquitto. Exits non-zero on the first failure.
#
# Integration tests start their own brokers on free loopback ports; they find the broker
# binary and the repository through these exported variables:
#   MOSQUITTO_BIN  path of mosquitto (Debian: /usr/sbin/mosquitto, not on a user's PATH)
#   WG_REPO_ROOT   absolute path of the repository (config/mosquitto/ lives there)
# Extra compiler/build flags: WG_SWIFT_FLAGS="-Xswiftc -warnings-as-errors" scripts/test.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WG_REPO_ROOT"

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

log "building (swift build --build-tests${SWIFT_FLAGS[*]+ ${SWIFT_FLAGS[*]}})"
swift build --build-tests ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"}

log "unit and integration tests (swift test)"
swift test --skip-build ${SWIFT_FLAGS[@]+"${SWIFT_FLAGS[@]}"}

log "broker ACL (scripts/check-acl.sh)"
bash scripts/check-acl.sh

log "all tests passed"
