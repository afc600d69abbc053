#!/usr/bin/env bash
# Verifies the shipped secure broker (config/mosquitto/{secure.conf,acl,gateway.acl}) with
# fresh development identities (scripts/make-dev-pki.sh) against a real mosquitto on free
# loopback ports, with the mosquitto_pub/mosquitto_sub/mosquitto_rr clients and, for the
# gateway's own checks, the real wearable-gateway binary (WG_GATEWAY_BIN, default: the
# debug build). Every attack of docs/security.md is a case that must be refused, next to
# positive controls. Exits non-zero on failure.
#
# No sleeps: readers are persistent MQTT 5 sessions (session expiry) created first with
# `mosquitto_sub -E` (returns once the SUBACK arrived). Every publish is QoS 1, so the broker
# has fully processed it (routed or denied) when the publishing command returns. Each reader
# then resumes its session with `-c -E`: the broker sends the queued messages right after
# CONNACK, before the SUBACK that ends the command, so the output is exactly what the ACL let
# through, in order, and is compared as a whole. Denied publishes come before allowed ones
# from the same client, so a denial cannot be mistaken for a message that is merely late.
#
# On the main listener the broker makes the client id equal to the certificate's CN, so an
# identity has exactly one session: a reader identity never publishes while its session waits.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_packages

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wg-check-acl.XXXXXX")
BROKER_PID=
GATEWAY_PID=
CLIENT_PIDS=()
CONF=
failures=0
checks=0

cleanup() {
	local status=$?
	set +e
	stop_pid ${CLIENT_PIDS[@]+"${CLIENT_PIDS[@]}"} "$GATEWAY_PID" "$BROKER_PID"
	if [ "$status" -ne 0 ] || [ "$failures" -ne 0 ]; then
		printf 'broker and gateway logs kept in %s\n' "$WORK" >&2
	else
		rm -rf "$WORK"
	fi
	[ -n "$CONF" ] && rm -rf "$(dirname "$CONF")"
	return "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

GATEWAY_BIN=${WG_GATEWAY_BIN:-$(cd "$WG_REPO_ROOT" && swift build --show-bin-path)/wearable-gateway}
[ -x "$GATEWAY_BIN" ] || die "no gateway binary at $GATEWAY_BIN: build first (swift build) or set WG_GATEWAY_BIN"

PKI=$WORK/pki
bash "$WG_REPO_ROOT/scripts/make-dev-pki.sh" "$PKI" >/dev/null
export WG_PKI_DIR=$PKI
PORT=$(free_port)
GATEWAY_PORT=$(free_port)
[ "$PORT" != "$GATEWAY_PORT" ] || GATEWAY_PORT=$(free_port)
CONF=$(render_broker_config "$WG_REPO_ROOT/config/mosquitto/secure.conf" "$PORT" "$GATEWAY_PORT")
log "ACL check: mosquitto with config/mosquitto/secure.conf, main listener 127.0.0.1:$PORT, gateway listener :$GATEWAY_PORT (TLS)"
start_broker "$CONF" "$PORT" "$WORK/broker.log"
wait_for_port "$GATEWAY_PORT" "$BROKER_PID" || die "the gateway listener did not open"

TLS=(-V mqttv5 --cafile "$PKI/ca.crt")
# as NAME: connection options of client identity NAME on the main listener.
as() { printf '%s\n' -h 127.0.0.1 -p "$PORT" "${TLS[@]}" --cert "$PKI/clients/$1.crt" --key "$PKI/clients/$1.key"; }
# as_gateway: the gateway's identity on the gateway listener.
as_gateway() { printf '%s\n' -h 127.0.0.1 -p "$GATEWAY_PORT" "${TLS[@]}" --cert "$PKI/gateway.crt" --key "$PKI/gateway.key"; }
# connection NAME: as_gateway for "gateway", else as NAME (one argument per line).
connection() { if [ "$1" = gateway ]; then as_gateway; else as "$1"; fi; }

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

# refused DESCRIPTION mosquitto_pub args...: the client cannot connect (mosquitto_pub exits
# non-zero, no PUBACK).
refused() {
	local what=$1 out
	shift
	if out=$(timeout 20 mosquitto_pub -q 1 -d -t wearables/watch-s9-1/status -m x "$@" 2>&1) ||
		grep -q "received PUBACK" <<<"$out"; then
		fail "$what" "$out"
	else
		ok "$what"
	fi
}

# pub WHO CLIENT_ID TOPIC MESSAGE [extra mosquitto_pub args]: one QoS 1 publish as identity
# WHO (a client name, or "gateway") asking for client id CLIENT_ID. Prints the client's debug
# output (CONNACK and PUBACK lines with their reason codes).
pub() {
	local who=$1 id=$2 topic=$3 msg=$4 args
	shift 4
	mapfile -t args < <(connection "$who")
	timeout 20 mosquitto_pub "${args[@]}" -i "$id" -q 1 -d -t "$topic" -m "$msg" "$@" 2>&1
}

# expect_puback DESCRIPTION RC_REGEX OUTPUT: the publish got a PUBACK with that reason code.
expect_puback() {
	if grep -Eq "received PUBACK \(Mid: [0-9]+, RC:($2)\)" <<<"$3"; then
		ok "$1"
	else
		fail "$1" "$3"
	fi
}
ALLOWED='0|16' # 0x00 success, or 0x10 "no matching subscribers" (still a success code)
DENIED=135     # 0x87 not authorized

# open_session WHO CLIENT_ID FILTER...: create a fresh persistent session (clean start,
# expiry 600 s) subscribed to each FILTER at QoS 1 and disconnect; messages for it queue in
# the broker from now on.
open_session() {
	local who=$1 id=$2 args filters=()
	shift 2
	for filter in "$@"; do filters+=(-t "$filter"); done
	mapfile -t args < <(connection "$who")
	timeout 20 mosquitto_sub "${args[@]}" -i "$id" -x 600 -q 1 "${filters[@]}" -E
}

# drain_session WHO CLIENT_ID FILTER...: resume the session and print what was queued for it
# ("topic payload" lines).
drain_session() {
	local who=$1 id=$2 args filters=()
	shift 2
	for filter in "$@"; do filters+=(-t "$filter"); done
	mapfile -t args < <(connection "$who")
	timeout 20 mosquitto_sub "${args[@]}" -i "$id" -c -x 600 -q 1 "${filters[@]}" -E -v -W 10
}

# expect_output DESCRIPTION EXPECTED ACTUAL
expect_output() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1" "expected:" "${2:-<nothing>}" "got:" "${3:-<nothing>}"
	fi
}

# expect_log DESCRIPTION REGEX / expect_no_log DESCRIPTION REGEX: the broker log has (not)
# a line matching REGEX.
expect_log() { if grep -Eq "$2" "$WORK/broker.log"; then ok "$1"; else fail "$1" "no broker log line matches: $2"; fi; }
expect_no_log() {
	local lines
	if lines=$(grep -E "$2" "$WORK/broker.log"); then fail "$1" "$lines"; else ok "$1"; fi
}

# start_with_will WHO CLIENT_ID WILL_TOPIC PAYLOAD: connect a client that has a will and
# stays connected; return once its SUBACK arrived (so its CONNECT and will were accepted).
# Sets LAST_CLIENT_PID. Its debug output goes through a fifo we read with a bounded timeout.
start_with_will() {
	local who=$1 id=$2 fifo="$WORK/will-$1.fifo" line args
	mapfile -t args < <(connection "$who")
	mkfifo "$fifo"
	stdbuf -oL mosquitto_sub "${args[@]}" -i "$id" -d -t "wearables/$id/none" \
		--will-topic "$3" --will-payload "$4" --will-qos 1 >"$fifo" 2>&1 &
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
	die "$who ($id) with a will did not connect"
}

log "TLS and authentication: every client presents a certificate of the right CA"
mapfile -t device_args < <(as watch-s9-1)
mapfile -t gateway_args < <(as_gateway)
refused "plain TCP (no TLS) on the main listener is refused" -h 127.0.0.1 -p "$PORT" -V mqttv5 -i watch-s9-1
refused "plain TCP (no TLS) on the gateway listener is refused" -h 127.0.0.1 -p "$GATEWAY_PORT" -V mqttv5 -i wearable-gateway-in
refused "TLS without a client certificate is refused" -h 127.0.0.1 -p "$PORT" "${TLS[@]}" -i watch-s9-1
refused "a device certificate on the gateway listener is refused (client id wearable-gateway-out)" \
	-h 127.0.0.1 -p "$GATEWAY_PORT" "${TLS[@]}" --cert "$PKI/clients/watch-s9-1.crt" --key "$PKI/clients/watch-s9-1.key" -i wearable-gateway-out
refused "an app certificate on the gateway listener is refused (client id wearable-gateway-in)" \
	-h 127.0.0.1 -p "$GATEWAY_PORT" "${TLS[@]}" --cert "$PKI/clients/app-1.crt" --key "$PKI/clients/app-1.key" -i wearable-gateway-in
refused "the gateway certificate on the main listener is refused (other CA)" \
	-h 127.0.0.1 -p "$PORT" "${TLS[@]}" --cert "$PKI/gateway.crt" --key "$PKI/gateway.key" -i wearable-gateway-in

log "phase 1, broker ACL. A client's session is its certificate name: a reader identity does not publish while its session waits"
out=$(pub monitor monitor gateway/status '{"state":"offline"}')
expect_puback "monitor -> gateway/status denied" $DENIED "$out"
log "readers on '#': gateway, monitor, device watch-s9-4"
open_session gateway check-gateway '#'
open_session monitor monitor '#'
open_session watch-s9-4 watch-s9-4 '#'

log "apps: commands only for granted devices, queries only in their own name"
out=$(pub app-1 app-1 gateway/watch-tremor-1/recorder/query/app-2 '{"from":0,"to":10}')
expect_puback "app-1 -> gateway/watch-tremor-1/recorder/query/app-2 denied (another requester's name)" $DENIED "$out"
out=$(pub app-1 app-1 gateway/watch-tremor-1/recorder/query '{"from":0,"to":10}')
expect_puback "app-1 -> gateway/watch-tremor-1/recorder/query denied (no requester level)" $DENIED "$out"
out=$(pub app-1 app-1 gateway/watch-run-1/recorder/query/app-1 '{"from":0,"to":10}')
expect_puback "app-1 -> gateway/watch-run-1/recorder/query/app-1 denied (device not granted)" $DENIED "$out"
out=$(pub app-2 app-2 gateway/buds-1/headphone/reset-pose '{}')
expect_puback "app-2 -> gateway/buds-1/headphone/reset-pose denied (device not granted)" $DENIED "$out"
out=$(pub app-1 app-1 gateway/watch-tremor-1/connection '{"state":"connected"}')
expect_puback "app-1 -> gateway/watch-tremor-1/connection denied" $DENIED "$out"
out=$(pub app-1 app-1 wearables/watch-tremor-1/status '{"state":"online"}')
expect_puback "app-1 -> wearables/watch-tremor-1/status denied" $DENIED "$out"
out=$(pub app-1 app-1 replies/app-2/recorder '{"final":true}')
expect_puback "app-1 -> replies/app-2/recorder denied" $DENIED "$out"
out=$(pub app-2 app-2 gateway/watch-run-1/recorder/query/app-2 '{"from":0,"to":10}')
expect_puback "app-2 -> gateway/watch-run-1/recorder/query/app-2 accepted" "$ALLOWED" "$out"
out=$(pub app-1 app-1 gateway/buds-1/headphone/reset-pose '{}')
expect_puback "app-1 -> gateway/buds-1/headphone/reset-pose accepted" "$ALLOWED" "$out"

log "readers on '#': app-1, app-2"
open_session app-1 app-1 '#'
open_session app-2 app-2 '#'


log "device writes: only wearables/<own certificate name>/#, whatever client id it picks"
out=$(pub watch-s9-1 watch-s9-1 wearables/watch-s9-2/status '{"state":"online"}')
expect_puback "watch-s9-1 -> wearables/watch-s9-2/status denied: MQTT 5 PUBACK reason 0x87 (135)" $DENIED "$out"
out=$(pub watch-s9-1 watch-s9-2 wearables/watch-s9-2/status '{"state":"online"}')
expect_puback "watch-s9-1 with client id 'watch-s9-2' -> wearables/watch-s9-2/status denied" $DENIED "$out"
out=$(pub watch-s9-1 'watch-s9-2/status' wearables/watch-s9-2/status '{"state":"online"}')
expect_puback "watch-s9-1 with client id 'watch-s9-2/status' -> wearables/watch-s9-2/status denied" $DENIED "$out"
out=$(pub watch-s9-1 '+' wearables/watch-s9-9/status '{"state":"online"}')
expect_puback "watch-s9-1 with client id '+' -> wearables/watch-s9-9/status denied" $DENIED "$out"
out=$(pub watch-s9-1 watch-s9-1 gateway/watch-s9-1/connection '{"state":"connected"}')
expect_puback "watch-s9-1 -> gateway/watch-s9-1/connection denied" $DENIED "$out"
out=$(pub watch-s9-1 watch-s9-1 gateway/watch-s9-1/recorder/query/watch-s9-1 '{"from":0,"to":10}')
expect_puback "watch-s9-1 -> gateway/watch-s9-1/recorder/query/watch-s9-1 denied (devices send no queries)" $DENIED "$out"
out=$(pub watch-s9-1 watch-s9-2 wearables/watch-s9-1/status '{"state":"online"}')
expect_puback "watch-s9-1 (asking for client id watch-s9-2) -> wearables/watch-s9-1/status accepted" "$ALLOWED" "$out"
expect_log "the broker replaced the client id 'watch-s9-2' by the certificate name" "New client connected from .* as watch-s9-1 \(p5"
expect_no_log "no connection ever got the client id it picked instead of its certificate name" \
	"New client connected from .* as (watch-s9-2|watch-s9-2/status|\+) "

log "gateway and monitor writes"
out=$(pub gateway check-gateway-pub gateway/watch-s9-1/connection '{"state":"connected"}')
expect_puback "gateway -> gateway/watch-s9-1/connection accepted" "$ALLOWED" "$out"
out=$(pub gateway check-gateway-pub wearables/watch-s9-1/status '{"state":"offline"}')
expect_puback "gateway -> wearables/watch-s9-1/status denied" $DENIED "$out"

log "read scopes: the gateway publishes per-device events and answers"
for topic in gateway/watch-tremor-1/tremor gateway/watch-run-1/run gateway/buds-1/headphone/pose replies/app-1/recorder replies/app-2/recorder; do
	out=$(pub gateway check-gateway-pub "$topic" '{"n":1}')
	expect_puback "gateway -> $topic accepted" "$ALLOWED" "$out"
done

log "wills: a device's will only on its own topics"
start_with_will watch-ultra-1 watch-ultra-1 wearables/watch-ultra-2/status '{"state":"offline"}'
denied_will_pid=$LAST_CLIENT_PID
start_with_will watch-ultra-2 watch-ultra-2 wearables/watch-ultra-2/status '{"state":"offline"}'
allowed_will_pid=$LAST_CLIENT_PID
# Drop both connections without DISCONNECT: once a killed client is reaped its socket is
# closed and the broker has the close event ready, so both wills (if allowed) are queued
# before the drains below connect.
stop_pid "$denied_will_pid"
stop_pid "$allowed_will_pid"

log "reads: what each session received"
got=$(drain_session gateway check-gateway '#')
expect_output "gateway received exactly: the apps' commands, the own-topic device publish, its own events (not replies/), the allowed will" \
	'gateway/watch-run-1/recorder/query/app-2 {"from":0,"to":10}
gateway/buds-1/headphone/reset-pose {}
wearables/watch-s9-1/status {"state":"online"}
gateway/watch-s9-1/connection {"state":"connected"}
gateway/watch-tremor-1/tremor {"n":1}
gateway/watch-run-1/run {"n":1}
gateway/buds-1/headphone/pose {"n":1}
wearables/watch-ultra-2/status {"state":"offline"}' "$got"
got=$(drain_session monitor monitor '#')
expect_output "monitor (fleet) received every gateway/ message and nothing else" \
	'gateway/watch-run-1/recorder/query/app-2 {"from":0,"to":10}
gateway/buds-1/headphone/reset-pose {}
gateway/watch-s9-1/connection {"state":"connected"}
gateway/watch-tremor-1/tremor {"n":1}
gateway/watch-run-1/run {"n":1}
gateway/buds-1/headphone/pose {"n":1}' "$got"
got=$(drain_session watch-s9-4 watch-s9-4 '#')
expect_output "device received nothing (no read access to gateway/#, other devices or replies)" "" "$got"
got=$(drain_session app-1 app-1 '#')
expect_output "app-1 received only its granted devices (watch-tremor-1, buds-1) and its own replies" \
	'gateway/watch-tremor-1/tremor {"n":1}
gateway/buds-1/headphone/pose {"n":1}
replies/app-1/recorder {"n":1}' "$got"
got=$(drain_session app-2 app-2 '#')
expect_output "app-2 received only its granted device (watch-run-1) and its own replies" \
	'gateway/watch-run-1/run {"n":1}
replies/app-2/recorder {"n":1}' "$got"

log "phase 2, the real gateway on its listener (mqtts://127.0.0.1:$GATEWAY_PORT, client ids wearable-gateway-in/-out)"
open_session monitor monitor gateway/status gateway/watch-tremor-1/errors
open_session app-2 app-2 'replies/#'
"$GATEWAY_BIN" run --config "$WG_REPO_ROOT/config/gateway.yml" --registry "$WG_REPO_ROOT/config/devices.yml" \
	--broker "mqtts://127.0.0.1:$GATEWAY_PORT" --set mqtt.clientId=wearable-gateway \
	--set "mqtt.tls.caFile=$PKI/ca.crt" --set "mqtt.tls.certFile=$PKI/gateway.crt" --set "mqtt.tls.keyFile=$PKI/gateway.key" \
	--set "recorder.database=$WORK/recorder.sqlite" --set "state.path=$WORK/state.sqlite" --set capabilities.file="$WG_REPO_ROOT/config/capabilities.yml" \
	--set "journal.path=$WORK/journal.bin" --set http.listen=off \
	>"$WORK/gateway.log" 2>&1 &
GATEWAY_PID=$!
# Ready = retained gateway/status online (the gateway subscribes before it publishes it).
status=$(timeout 30 mosquitto_sub "${gateway_args[@]}" -i check-ready -t gateway/status -C 1 -W 30 2>/dev/null || true)
case "$status" in *'"online"'*) ok "the gateway connected over TLS with its certificate and is online" ;;
*)
	fail "the gateway connected over TLS with its certificate and is online" "gateway/status: ${status:-<nothing>}" "$(tail -n 20 "$WORK/gateway.log")"
	exit 1
	;;
esac

# Queries are read by the subscriber connection: wait for its SUBACK (logged by the gateway).
if timeout 30 grep -m 1 -q "subscribed to" <(tail -n +1 --pid="$GATEWAY_PID" -f "$WORK/gateway.log"); then
	ok "the gateway subscribed to device streams and commands"
else
	fail "the gateway subscribed to device streams and commands" "$(tail -n 20 "$WORK/gateway.log")"
	exit 1
fi

log "takeover attempts on the gateway's client ids"
out=$(pub watch-s9-1 wearable-gateway-out wearables/watch-s9-1/status '{"state":"online"}')
expect_puback "device watch-s9-1 asking for client id wearable-gateway-out connects only as itself" "$ALLOWED" "$out"
out=$(pub app-1 wearable-gateway-in gateway/buds-1/headphone/reset-pose '{}')
expect_puback "app-1 asking for client id wearable-gateway-in connects only as itself" "$ALLOWED" "$out"
refused "device watch-s9-1 on the gateway listener as wearable-gateway-in is refused" \
	-h 127.0.0.1 -p "$GATEWAY_PORT" "${TLS[@]}" --cert "$PKI/clients/watch-s9-1.crt" --key "$PKI/clients/watch-s9-1.key" -i wearable-gateway-in
expect_no_log "no connection took over wearable-gateway-in/-out (broker log)" \
	"(Client wearable-gateway-(in|out) already connected|as wearable-gateway-(in|out) \(p5.*u'(watch|app))"
kill -0 "$GATEWAY_PID" 2>/dev/null && ok "the gateway is still running" || fail "the gateway is still running" "$(tail -n 20 "$WORK/gateway.log")"

log "recorder queries: answers only under replies/<requester>/"
mapfile -t app1_args < <(as app-1)
out=$(pub app-1 app-1 gateway/watch-tremor-1/recorder/query/app-1 '{"from":0,"to":10}' -D publish response-topic gateway/status)
expect_puback "app-1 query with response topic gateway/status delivered to the gateway" "$ALLOWED" "$out"
out=$(pub app-1 app-1 gateway/watch-tremor-1/recorder/query/app-1 '{"from":0,"to":10}' -D publish response-topic replies/app-2/stolen)
expect_puback "app-1 query with response topic replies/app-2/stolen delivered to the gateway" "$ALLOWED" "$out"
# Positive control, after the attacks: the gateway answers queries one at a time in order, so
# once this answer arrived it has handled the two above.
answer=$(timeout 30 mosquitto_rr "${app1_args[@]}" -i app-1 -t gateway/watch-tremor-1/recorder/query/app-1 \
	-e replies/app-1/check -m '{"from":0,"to":10}' -W 20 2>&1 || true)
case "$answer" in *'"final":true'*) ok "app-1 query with response topic replies/app-1/check is answered there (the gateway's subscriber session is intact)" ;;
*) fail "app-1 query with response topic replies/app-1/check is answered there" "${answer:-<nothing>}" "$(tail -n 20 "$WORK/gateway.log")" ;;
esac
got=$(drain_session app-2 app-2 'replies/#')
expect_output "app-2 received no answer on replies/app-2/stolen" "" "$got"
got=$(drain_session monitor monitor gateway/status gateway/watch-tremor-1/errors)
# gateway/status: online once (no will, no answer); two error events for the device.
got_codes=$(sed -E 's/^([^ ]+) .*"code":"([A-Za-z]+)".*/\1 \2/; s/^(gateway\/status) .*"state":"([a-z]+)".*/\1 \2/' <<<"$got")
expect_output "gateway/status stayed online (no will, no answer on it); each rejected query got an error event" \
	'gateway/status online
gateway/watch-tremor-1/errors foreignResponseTopic
gateway/watch-tremor-1/errors foreignResponseTopic' "$got_codes"

if [ "$failures" -ne 0 ]; then
	printf '==> ACL check FAILED: %d of %d checks failed\n' "$failures" "$checks"
	exit 1
fi
printf '==> secure broker verified: all %d checks ok\n' "$checks"
