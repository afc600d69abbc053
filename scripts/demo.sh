#!/usr/bin/env bash
# THE demo command (README): a private mosquitto on a free loopback port, the gateway, a
# live view of everything the gateway publishes (gateway/#), and the seeded simulator.
# When the simulator ends (or on Ctrl-C) everything is stopped: the gateway gets SIGTERM
# (it drains and publishes gateway/status offline), then the broker is killed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
	cat <<EOF
Usage: scripts/demo.sh [--duration SECONDS] [--devices N] [--seed N] [--secure] [--help]

Runs the Wearable Gateway demo on this machine, loopback only:
  1. installs the build's and the demo's Debian packages if missing (WG_BUILD_PACKAGES of
     scripts/lib.sh: none of the tests' packages), builds (swift build, debug)
  2. starts a private mosquitto (config/mosquitto/demo.conf) on a free 127.0.0.1 port
  3. starts wearable-gateway with config/gateway.yml and config/devices.yml; its fleet page
     is at http://127.0.0.1:9464/ (another free port when 9464 is taken: printed)
  4. prints what the gateway publishes on gateway/# as "[live] topic payload"
     (except the periodic gateway/metrics, whose last snapshot is printed at the end,
     and the round-trip probes on gateway/probe)
  5. runs wearable-sim; when it ends, stops the gateway (SIGTERM) and the broker

Options (or environment variables):
  --duration SECONDS  simulator run time, 0 = until Ctrl-C   (DURATION, default 30)
  --devices N         number of simulated devices             (DEVICES, default 4)
  --seed N            simulator seed, same seed = same data   (SEED, default 1)
  --secure            the shipped secure broker instead (config/mosquitto/secure.conf):
                      TLS, fresh development identities (scripts/make-dev-pki.sh), every
                      device with its own certificate, the gateway on its own listener,
                      the live view as "monitor", the recorder query as "app-1"
                      (docs/security.md)                       (SECURE=1)
  -h, --help          show this help

Logs (broker, gateway) are kept in a temporary directory when something fails.
EOF
}

DURATION=${DURATION:-30}
DEVICES=${DEVICES:-4}
SEED=${SEED:-1}
SECURE=${SECURE:-0}
while [ "$#" -gt 0 ]; do
	case "$1" in
	--duration) DURATION=${2:?--duration needs a value}; shift 2 ;;
	--duration=*) DURATION=${1#*=}; shift ;;
	--devices) DEVICES=${2:?--devices needs a value}; shift 2 ;;
	--devices=*) DEVICES=${1#*=}; shift ;;
	--seed) SEED=${2:?--seed needs a value}; shift 2 ;;
	--seed=*) SEED=${1#*=}; shift ;;
	--secure) SECURE=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument: $1" ;;
	esac
done
for value in "$DURATION" "$DEVICES" "$SEED"; do
	case "$value" in '' | *[!0-9]*) die "not a non-negative integer: '$value'" ;; esac
done

cd "$WG_REPO_ROOT"
GATEWAY_CONFIG=config/gateway.yml
REGISTRY=config/devices.yml
GATEWAY_STOP_TIMEOUT=${GATEWAY_STOP_TIMEOUT:-35} # > 2 x pipeline.drainTimeout (15 s)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wg-demo.XXXXXX")
BROKER_PID=
GATEWAY_PID=
LIVE_PID=
SIM_PID=
TREMOR_PID=
RUN_PID=
CONF=
PORT=
MONITOR=()
READER=()
failed=0

retained() { # retained TOPIC: print the broker's retained message on TOPIC (fails if none)
	mosquitto_sub "${READER[@]}" -t "$1" -C 1 -W 2 --retained-only 2>/dev/null
}

show_log() { # show_log NAME FILE: last lines of a log, indented
	[ -s "$2" ] || return 0
	printf -- '--- last lines of the %s log (%s):\n' "$1" "$2"
	tail -n 40 "$2" | sed 's/^/    /'
}

cleanup() {
	local status=$? gateway_status=0 interrupted=0
	set +e
	trap - INT TERM
	if [ -n "$SIM_PID" ]; then
		log "stopping the simulator"
		terminate_pid "$SIM_PID" 5
	fi
	if [ -n "$GATEWAY_PID" ]; then
		kill -0 "$GATEWAY_PID" 2>/dev/null &&
			log "stopping the gateway (SIGTERM, up to ${GATEWAY_STOP_TIMEOUT}s to drain)"
		terminate_pid "$GATEWAY_PID" "$GATEWAY_STOP_TIMEOUT" || gateway_status=$?
		if [ "$gateway_status" -ne 0 ]; then
			printf 'gateway exited with status %s\n' "$gateway_status" >&2
			failed=1
		fi
		if [ -n "$PORT" ] && [ -n "$BROKER_PID" ]; then
			if [ "$SECURE" = 1 ]; then
				# Only the fleet identity (monitor, the live view's) reads gateway/metrics.
				stop_pid "$LIVE_PID"
				READER=("${MONITOR[@]}")
			fi
			printf 'retained gateway/status after shutdown: %s\n' "$(retained gateway/status || echo '<none>')"
			printf 'retained gateway/metrics (gateway_* samples):\n'
			retained gateway/metrics | grep '^gateway_' | sed 's/^/    /'
		fi
	fi
	stop_pid "$LIVE_PID" $TREMOR_PID $RUN_PID "$BROKER_PID"
	[ -n "$CONF" ] && rm -rf "$(dirname "$CONF")"
	case "$status" in 130 | 143) interrupted=1 ;; esac
	if [ "$failed" -ne 0 ] || { [ "$status" -ne 0 ] && [ "$interrupted" -eq 0 ]; }; then
		show_log gateway "$WORK/gateway.log"
		show_log broker "$WORK/broker.log"
		printf 'demo FAILED; logs kept in %s\n' "$WORK" >&2
		[ "$status" -ne 0 ] || status=1
	else
		rm -rf "$WORK"
		if [ "$interrupted" -eq 1 ]; then log "demo interrupted; everything stopped"; else log "demo finished"; fi
	fi
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Only what the demo runs: the build's libraries, mosquitto and its clients, openssl (--secure);
# none of the test command's packages (scripts/lib.sh: WG_BUILD_PACKAGES, WG_TEST_PACKAGES).
log "checking Debian packages (${WG_BUILD_PACKAGES[*]})"
ensure_packages "${WG_BUILD_PACKAGES[@]}"

log "building (swift build)"
swift build
BIN_DIR=$(swift build --show-bin-path)
for exe in wearable-gateway wearable-sim; do
	[ -x "$BIN_DIR/$exe" ] || die "$BIN_DIR/$exe was not built"
done
for file in "$GATEWAY_CONFIG" "$REGISTRY"; do
	[ -f "$file" ] || die "missing $file"
done

PORT=$(free_port)
# Connection options: MONITOR for the live view, APP for status reads and the recorder query
# (name APP_NAME), GATEWAY_OPTIONS and SIM_OPTIONS for the two programs. On the secure broker
# a certificate name is also the client id, so the live view's identity (monitor) is used by
# nothing else: a second "monitor" login would take over its session.
if [ "$SECURE" = 1 ]; then
	PKI=$WORK/pki
	bash scripts/make-dev-pki.sh "$PKI" >/dev/null
	GATEWAY_PORT=$(free_port)
	CONF=$(WG_PKI_DIR=$PKI render_broker_config config/mosquitto/secure.conf "$PORT" "$GATEWAY_PORT")
	log "starting the secure mosquitto (TLS): devices, apps, monitors on 127.0.0.1:$PORT, the gateway on :$GATEWAY_PORT (log: $WORK/broker.log)"
	start_broker "$CONF" "$PORT" "$WORK/broker.log"
	wait_for_port "$GATEWAY_PORT" "$BROKER_PID" || die "the gateway listener did not open"
	MONITOR=(-h 127.0.0.1 -p "$PORT" --cafile "$PKI/ca.crt" --cert "$PKI/clients/monitor.crt" --key "$PKI/clients/monitor.key")
	APP=(-h 127.0.0.1 -p "$PORT" --cafile "$PKI/ca.crt" --cert "$PKI/clients/app-1.crt" --key "$PKI/clients/app-1.key")
	APP_NAME=app-1
	GATEWAY_OPTIONS=(--broker "mqtts://127.0.0.1:$GATEWAY_PORT" --set mqtt.clientId=wearable-gateway --set "mqtt.tls.caFile=$PKI/ca.crt"
		--set "mqtt.tls.certFile=$PKI/gateway.crt" --set "mqtt.tls.keyFile=$PKI/gateway.key")
	SIM_OPTIONS=(--broker "mqtts://127.0.0.1:$PORT" --ca-file "$PKI/ca.crt" --identity-dir "$PKI/clients")
	READER=("${APP[@]}")
else
	CONF=$(render_broker_config config/mosquitto/demo.conf "$PORT")
	log "starting mosquitto on 127.0.0.1:$PORT (log: $WORK/broker.log)"
	start_broker "$CONF" "$PORT" "$WORK/broker.log"
	MONITOR=(-h 127.0.0.1 -p "$PORT")
	APP=(-h 127.0.0.1 -p "$PORT")
	APP_NAME=demo-$$
	GATEWAY_OPTIONS=(--broker "mqtt://127.0.0.1:$PORT")
	SIM_OPTIONS=(--broker "mqtt://127.0.0.1:$PORT")
	READER=("${MONITOR[@]}")
fi

log "live view of gateway/# (status, presence, errors, derived events; gateway/metrics at the end)"
detached mosquitto_sub "${MONITOR[@]}" -V mqttv5 -t 'gateway/#' -T gateway/metrics -T gateway/probe \
	-F '[live] %t %p' &
LIVE_PID=$!

# The fleet page on the usual port, or on a free one when something else holds 9464.
HTTP_PORT=9464
if (exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT") 2>/dev/null; then HTTP_PORT=$(free_port); fi
log "starting wearable-gateway (log: $WORK/gateway.log); fleet page: http://127.0.0.1:$HTTP_PORT/"
detached "$BIN_DIR/wearable-gateway" run --config "$GATEWAY_CONFIG" "${GATEWAY_OPTIONS[@]}" \
	--registry "$REGISTRY" --set "http.listen=127.0.0.1:$HTTP_PORT" >"$WORK/gateway.log" 2>&1 &
GATEWAY_PID=$!

# Ready = the gateway's retained gateway/status says online (bounded: 60 x 1 s).
ready=0
for _ in $(seq 1 60); do
	kill -0 "$GATEWAY_PID" 2>/dev/null || die "the gateway exited during start-up"
	status_payload=$(mosquitto_sub "${READER[@]}" -t gateway/status -C 1 -W 1 2>/dev/null || true)
	case "$status_payload" in *'"online"'*) ready=1; break ;; esac
done
[ "$ready" -eq 1 ] || die "the gateway did not publish gateway/status online within 60 s"

log "running wearable-sim: $DEVICES devices, seed $SEED, ${DURATION}s (0 = until Ctrl-C)"
# In the background so that `wait` (unlike a foreground command) returns at once when the
# script gets SIGINT/SIGTERM; cleanup then stops the simulator itself.
"$BIN_DIR/wearable-sim" "${SIM_OPTIONS[@]}" --devices "$DEVICES" --seed "$SEED" \
	--duration "$DURATION" &
SIM_PID=$!
# Alongside: a watch uploads 10 minutes of CMSensorRecorder history with tremor of known class
# (tremor results per minute, docs/tremor.md), and an urban run with stoplight pauses and a hill
# is played at 60x (pedometer segments and a workout summary, docs/run-segments.md).
log "also: wearable-sim --scenario tremor (watch-tremor-1) and --scenario urban-run --speed 60 (watch-run-1); logs in $WORK"
"$BIN_DIR/wearable-sim" "${SIM_OPTIONS[@]}" --scenario tremor --seed "$SEED" >"$WORK/sim-tremor.log" 2>&1 &
TREMOR_PID=$!
"$BIN_DIR/wearable-sim" "${SIM_OPTIONS[@]}" --scenario urban-run --speed 60 --seed "$SEED" >"$WORK/sim-run.log" 2>&1 &
RUN_PID=$!
sim_status=0
wait "$SIM_PID" || sim_status=$?
SIM_PID=
for pid in "$TREMOR_PID" "$RUN_PID"; do
	wait "$pid" || sim_status=$?
done
if [ "$sim_status" -ne 0 ]; then
	printf 'wearable-sim exited with status %s\n' "$sim_status" >&2
	failed=1
fi
grep -h "expected" "$WORK/sim-tremor.log" "$WORK/sim-run.log" | sed 's/^/[ground truth] /' || true

# MQTT 5 request/response on the stored history (docs/recorder.md): mosquitto_rr prints the
# first answer, here the chunk with the tremor results of the uploaded minutes.
now=$(date +%s)
log "recorder query: tremor results of watch-tremor-1's history (mosquitto_rr, first answer)"
# The last topic level names the requester; the answer may only go below replies/<requester>/
# (on the secure broker the ACL proves the name: docs/security.md).
mosquitto_rr "${APP[@]}" -V mqttv5 -t "gateway/watch-tremor-1/recorder/query/$APP_NAME" \
	-e "replies/$APP_NAME/tremor" -m "{\"from\": $((now - 900)), \"to\": $now, \"kind\": \"tremor\"}" -W 10 ||
	printf 'no answer to the recorder query\n' >&2
kill -0 "$GATEWAY_PID" 2>/dev/null || {
	printf 'the gateway exited before the simulator finished\n' >&2
	failed=1
}
