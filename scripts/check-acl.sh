#!/usr/bin/env bash
# Verifies config/mosquitto/{secure.conf,acl,passwd} against a real mosquitto on a free
# loopback port, with the mosquitto_pub/mosquitto_sub clients. Exits non-zero on failure.
#
# No sleeps: readers are persistent MQTT 5 sessions (clean start off, session expiry)
# created first with `mosquitto_sub -E` (returns once the SUBACK arrived). Every publish
# is QoS 1, so the broker has fully processed it (routed or denied) when the publishing
# command returns. Each reader then resumes its session with `-E`: the broker sends the
# queued messages right after CONNACK, before the SUBACK that ends the command, so the
# output is exactly what the ACL let through, in order, and is compared as a whole.
# Denied publishes come before allowed ones from the same client, so a denial cannot be
# mistaken for a message that is merely late.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GATEWAY_PW=gateway-dev-password
DEVICE_PW=device-dev-password
MONITOR_PW=monitor-dev-password
APP_PW=app-dev-password

ensure_packages

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wg-check-acl.XXXXXX")
BROKER_PID=
CLIENT_PIDS=()
CONF=
failures=0
checks=0

cleanup() {
	local status=$?
	set +e
	stop_pid ${CLIENT_PIDS[@]+"${CLIENT_PIDS[@]}"} "$BROKER_PID"
	if [ "$status" -ne 0 ] || [ "$failures" -ne 0 ]; then
		printf 'broker log kept in %s/broker.log\n' "$WORK" >&2
	else
		rm -rf "$WORK"
	fi
	[ -n "$CONF" ] && rm -rf "$(dirname "$CONF")"
	return "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PORT=$(free_port)
CONF=$(render_broker_config "$WG_REPO_ROOT/config/mosquitto/secure.conf" "$PORT")
log "ACL check: mosquitto with config/mosquitto/secure.conf on 127.0.0.1:$PORT"
start_broker "$CONF" "$PORT" "$WORK/broker.log"

COMMON=(-h 127.0.0.1 -p "$PORT" -V mqttv5)

ok() {
	checks=$((checks + 1))
	printf '    ok   %s\n' "$*"
}
fail() {
	checks=$((checks + 1))
	failures=$((failures + 1))
	printf '    FAIL %s\n' "$1"
	shift
	[ "$#" -eq 0 ] || printf '%s\n' "$@" | sed 's/^/         /'
}

# refused DESCRIPTION [mosquitto_pub args]: the client cannot connect (mosquitto_pub exits
# non-zero).
refused() {
	local what=$1 out
	shift
	if out=$(mosquitto_pub "${COMMON[@]}" -i watch-1 -q 1 -d -t wearables/watch-1/status -m x "$@" 2>&1); then
		fail "$what" "$out"
	else
		ok "$what"
	fi
}

# pub USER PASSWORD CLIENT_ID TOPIC MESSAGE [extra mosquitto_pub args]: one QoS 1 publish.
# Prints the client's debug output (CONNACK and PUBACK lines with their reason codes).
pub() {
	local user=$1 pw=$2 id=$3 topic=$4 msg=$5
	shift 5
	mosquitto_pub "${COMMON[@]}" -u "$user" -P "$pw" -i "$id" -q 1 -d -t "$topic" -m "$msg" "$@" 2>&1
}

# expect_puback DESCRIPTION RC_REGEX OUTPUT: the publish got a PUBACK with that reason code.
expect_puback() {
	if grep -Eq "received PUBACK \(Mid: [0-9]+, RC:($2)\)" <<<"$3"; then
		ok "$1"
	else
		fail "$1" "$3"
	fi
}

# open_session USER PASSWORD CLIENT_ID FILTER: create a persistent session subscribed to
# FILTER at QoS 1 and disconnect; messages for it queue in the broker from now on.
open_session() {
	mosquitto_sub "${COMMON[@]}" -u "$1" -P "$2" -i "$3" -c -x 600 -q 1 -t "$4" -E
}

# drain_session USER PASSWORD CLIENT_ID FILTER: resume the session and print what was
# queued for it ("topic payload" lines).
drain_session() {
	mosquitto_sub "${COMMON[@]}" -u "$1" -P "$2" -i "$3" -c -x 600 -q 1 -t "$4" -E -v -W 10
}

# expect_output DESCRIPTION EXPECTED ACTUAL
expect_output() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1" "expected:" "${2:-<nothing>}" "got:" "${3:-<nothing>}"
	fi
}

# start_device_with_will CLIENT_ID WILL_TOPIC PAYLOAD: connect a device that has a will
# and stays connected; return once its SUBACK arrived (so its CONNECT and will were
# accepted). Sets LAST_CLIENT_PID. Its debug output goes through a fifo we read with a
# bounded timeout.
start_device_with_will() {
	local fifo="$WORK/will-$1.fifo" line
	mkfifo "$fifo"
	stdbuf -oL mosquitto_sub "${COMMON[@]}" -u device -P "$DEVICE_PW" -i "$1" -d -t "wearables/$1/none" \
		--will-topic "$2" --will-payload "$3" --will-qos 1 >"$fifo" 2>&1 &
	LAST_CLIENT_PID=$!
	CLIENT_PIDS+=("$LAST_CLIENT_PID")
	exec 4<"$fifo"
	while IFS= read -r -t 10 line <&4; do
		case "$line" in *"received SUBACK"*)
			exec 4<&-
			return 0
			;;
		esac
	done
	exec 4<&-
	die "device $1 with a will did not connect"
}

log "authentication"
refused "anonymous client is refused (CONNACK 0x87)"
refused "wrong password is refused" -u device -P wrong

log "sessions: gateway and monitor read '#', device 'watch-7' reads '#'"
open_session gateway "$GATEWAY_PW" check-gateway '#'
open_session monitor "$MONITOR_PW" check-monitor '#'
open_session device "$DEVICE_PW" watch-7 '#'

log "device writes: only wearables/<own client id>/#"
out=$(pub device "$DEVICE_PW" watch-1 wearables/watch-2/status '{"state":"online"}')
expect_puback "watch-1 -> wearables/watch-2/status denied: MQTT 5 PUBACK reason 0x87 (135)" 135 "$out"
out=$(pub device "$DEVICE_PW" watch-1 gateway/watch-1/connection '{"state":"connected"}')
expect_puback "watch-1 -> gateway/watch-1/connection denied (0x87)" 135 "$out"
out=$(pub device "$DEVICE_PW" '+' wearables/watch-9/status '{"state":"online"}')
expect_puback "client id '+' -> wearables/watch-9/status denied (%c with a wildcard id)" 135 "$out"
out=$(pub device "$DEVICE_PW" watch-1 wearables/watch-1/status '{"state":"online"}')
# 0x00 success, or 0x10 "no matching subscribers" (still a success code)
expect_puback "watch-1 -> wearables/watch-1/status accepted" '0|16' "$out"

log "gateway and monitor writes"
out=$(pub gateway "$GATEWAY_PW" check-gateway-pub gateway/watch-1/connection '{"state":"connected"}')
expect_puback "gateway -> gateway/watch-1/connection accepted" '0|16' "$out"
out=$(pub gateway "$GATEWAY_PW" check-gateway-pub wearables/watch-1/status '{"state":"offline"}')
expect_puback "gateway -> wearables/watch-1/status denied (0x87)" 135 "$out"
out=$(pub monitor "$MONITOR_PW" check-monitor-pub gateway/status '{"state":"offline"}')
expect_puback "monitor -> gateway/status denied (0x87)" 135 "$out"

log "wills: a device's will only on its own topics"
start_device_with_will watch-1 wearables/watch-2/status '{"state":"offline"}'
denied_will_pid=$LAST_CLIENT_PID
start_device_with_will watch-3 wearables/watch-3/status '{"state":"offline"}'
allowed_will_pid=$LAST_CLIENT_PID
# Drop both connections without DISCONNECT: once a killed client is reaped its socket is
# closed and the broker has the close event ready, so both wills (if allowed) are queued
# before the drains below connect. (The broker does not keep the order of the two closes:
# with a broken ACL the denied will arrived after the allowed one.)
stop_pid "$denied_will_pid"
stop_pid "$allowed_will_pid"

log "reads: what each session received"
got=$(drain_session gateway "$GATEWAY_PW" check-gateway '#')
expect_output "gateway received exactly: own-topic device publish, gateway event, allowed will" \
	"wearables/watch-1/status {\"state\":\"online\"}
gateway/watch-1/connection {\"state\":\"connected\"}
wearables/watch-3/status {\"state\":\"offline\"}" "$got"
got=$(drain_session monitor "$MONITOR_PW" check-monitor '#')
expect_output "monitor received only gateway/# (no wearables/#)" \
	'gateway/watch-1/connection {"state":"connected"}' "$got"
got=$(drain_session device "$DEVICE_PW" watch-7 '#')
expect_output "device received nothing (no read access to gateway/# or other devices)" "" "$got"

log "apps: commands to the gateway, answers on replies/<own client id>/#"
open_session app "$APP_PW" app-1 'replies/#'
open_session app "$APP_PW" app-2 'replies/#'
out=$(pub app "$APP_PW" app-cmd gateway/watch-1/recorder/query '{"from":0,"to":10}')
expect_puback "app -> gateway/watch-1/recorder/query accepted" '0|16' "$out"
out=$(pub app "$APP_PW" app-cmd gateway/buds-1/headphone/reset-pose '{}')
expect_puback "app -> gateway/buds-1/headphone/reset-pose accepted" '0|16' "$out"
out=$(pub app "$APP_PW" app-cmd gateway/watch-1/connection '{"state":"connected"}')
expect_puback "app -> gateway/watch-1/connection denied (0x87)" 135 "$out"
out=$(pub app "$APP_PW" app-cmd wearables/watch-1/status '{"state":"online"}')
expect_puback "app -> wearables/watch-1/status denied (0x87)" 135 "$out"
out=$(pub device "$DEVICE_PW" watch-1 gateway/watch-1/recorder/query '{"from":0,"to":10}')
expect_puback "device -> gateway/watch-1/recorder/query denied (0x87)" 135 "$out"
out=$(pub gateway "$GATEWAY_PW" check-gateway-pub replies/app-1/recorder '{"final":true}')
expect_puback "gateway -> replies/app-1/recorder accepted" '0|16' "$out"
got=$(drain_session app "$APP_PW" app-1 'replies/#')
expect_output "app-1 received the answer addressed to it" 'replies/app-1/recorder {"final":true}' "$got"
got=$(drain_session app "$APP_PW" app-2 'replies/#')
expect_output "app-2 received nothing (replies/app-1/# is not its own)" "" "$got"

if [ "$failures" -ne 0 ]; then
	printf '==> ACL check FAILED: %d of %d checks failed\n' "$failures" "$checks"
	exit 1
fi
printf '==> ACL verified: all %d checks ok\n' "$checks"
