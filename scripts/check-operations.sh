#!/usr/bin/env bash
# End-to-end check of the operations features on the REAL executables (issue 13 acceptance):
# a private mosquitto, `wearable-gateway run --set http.listen=... --set deadLetter.enabled=true
# --set logging.format=json`, `wearable-sim` devices saying hello, then
#   - /metrics parses as Prometheus text (promtool check metrics) and a real Prometheus
#     scrapes it on the separate metrics listener (http.metricsListen, which answers 404 for
#     the fleet data) until its HTTP API answers up == 1, with the shipped alert rules loaded;
#     /metrics is closed by a token file (http.auth.metricsTokenFile): 401 without the token,
#     and Prometheus sends it from a credentials_file;
#   - promtool check rules / check config pass on config/prometheus/;
#   - a garbage payload comes back byte for byte on gateway/{id}/dead-letter, with the
#     MQTT 5 user properties code, detail, stream, sourceTopic;
#   - headless Chromium renders the fleet page listing every device that said hello, with
#     live updates applied, and its device view lists a dive and swings from the event history (DOM asserted with Selenium
#     WebDriver and chromedriver by scripts/fleet-page-check.py; screenshot and DOM kept in .build/test-artifacts/);
#   - /readyz goes 503 within 10 s of the broker stopping and 200 after it is back, while
#     /healthz stays 200;
#   - every line the gateway logged is one JSON object.
# No sleeps standing in for synchronisation: every wait polls an observable state (HTTP
# answer, DOM, Prometheus query, queued MQTT message) under a deadline.
# Needs a build (scripts/test.sh builds first). Exits non-zero on the first failure.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WG_REPO_ROOT"

BIN_DIR=${WG_BIN_DIR:-$WG_REPO_ROOT/.build/debug}
GATEWAY=$BIN_DIR/wearable-gateway
SIMULATOR=$BIN_DIR/wearable-sim
ARTIFACTS=$WG_REPO_ROOT/.build/test-artifacts
[ -x "$GATEWAY" ] && [ -x "$SIMULATOR" ] || die "build first: $GATEWAY / $SIMULATOR missing"
ensure_packages
for tool in chromium chromedriver prometheus promtool curl mosquitto_sub mosquitto_pub python3; do
	command -v "$tool" >/dev/null || die "$tool not found (scripts/lib.sh WG_PACKAGES installs it)"
done
/usr/bin/python3 -c 'import selenium' || die "Debian python3-selenium is missing (scripts/lib.sh WG_PACKAGES)"
mkdir -p "$ARTIFACTS"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/wg-check-ops.XXXXXX")
BROKER_PID= GATEWAY_PID= SIM_PID= PROM_PID= CONF=
passed=0
cleanup() {
	local status=$?
	set +e
	[ -n "$SIM_PID" ] && stop_pid "$SIM_PID"
	[ -n "$GATEWAY_PID" ] && terminate_pid "$GATEWAY_PID" 10
	stop_pid "$PROM_PID" "$BROKER_PID"
	if [ "$status" -ne 0 ]; then
		printf 'logs kept in %s\n' "$WORK" >&2
		tail -n 30 "$WORK/gateway.log" >&2 2>/dev/null
	else
		rm -rf "$WORK"
	fi
	[ -n "$CONF" ] && rm -rf "$(dirname "$CONF")"
	return "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() {
	passed=$((passed + 1))
	printf '    ok   %s\n' "$*"
}
fail() {
	printf '    FAIL %s\n' "$*" >&2
	printf 'check-operations: %s passed, 1 failed\n' "$passed"
	exit 1
}

# http_status URL [CURL ARGS...]: the HTTP status code (000 when nothing answers).
http_status() { curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$@" || true; }

# wait_until SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.1 s until it succeeds.
wait_until() {
	local seconds=$1 what=$2 deadline
	shift 2
	deadline=$(($(monotonic_ms) + seconds * 1000))
	until "$@"; do
		[ "$(monotonic_ms)" -lt "$deadline" ] || fail "$what (not within ${seconds} s)"
		sleep 0.1
	done
}
status_is() { [ "$(http_status "$2")" = "$1" ]; }

BROKER_PORT=$(free_port)
HTTP_PORT=$(free_port)
METRICS_PORT=$(free_port)
BASE=http://127.0.0.1:$HTTP_PORT
METRICS_BASE=http://127.0.0.1:$METRICS_PORT
CONF=$(render_broker_config "$WG_REPO_ROOT/config/mosquitto/demo.conf" "$BROKER_PORT")
log "operations check: mosquitto on 127.0.0.1:$BROKER_PORT, gateway HTTP on $BASE"
# /metrics needs this token on both listeners; the other route groups stay open.
METRICS_TOKEN=$(openssl rand -hex 24)
printf '# scrapers\n%s\n' "$METRICS_TOKEN" >"$WORK/metrics.tokens"
printf '%s' "$METRICS_TOKEN" >"$WORK/metrics.token"
METRICS_AUTH=(-H "Authorization: Bearer $METRICS_TOKEN")
start_broker "$CONF" "$BROKER_PORT" "$WORK/broker.log"

detached "$GATEWAY" run --broker "mqtt://127.0.0.1:$BROKER_PORT" \
	--set "http.listen=127.0.0.1:$HTTP_PORT" --set "http.metricsListen=127.0.0.1:$METRICS_PORT" --set deadLetter.enabled=true --set logging.format=json \
	--set "http.auth.metricsTokenFile=$WORK/metrics.tokens" \
	--set mqtt.reconnect.maxDelay=0.5 --set metrics.publishInterval=1 \
	--set "recorder.database=$WORK/recorder.sqlite" --set "state.path=$WORK/state.sqlite" --set "journal.path=$WORK/journal.bin" \
	>"$WORK/gateway.log" 2>&1 &
GATEWAY_PID=$!
wait_until 60 "gateway /readyz answers 200" status_is 200 "$BASE/readyz"
ok "/readyz 200 once both broker connections are up"
[ "$(http_status "$BASE/healthz")" = 200 ] || fail "/healthz is not 200"
ok "/healthz 200"

# --- Devices say hello (the simulator's mixed fleet, real MQTT connections with wills).
detached "$SIMULATOR" publish --broker "mqtt://127.0.0.1:$BROKER_PORT" --devices 4 --duration 0 >"$WORK/sim.log" 2>&1 &
SIM_PID=$!
devices_known() {
	local n
	n=$(curl -s --max-time 2 "$BASE/api/fleet" | python3 -c 'import json,sys
d=json.load(sys.stdin)["devices"]
print(sum(1 for x in d if "availability" in x["latest"] and "connection" in x["latest"]))' 2>/dev/null || echo 0)
	[ "$n" -ge 4 ]
}
wait_until 60 "4 devices with availability and connection in /api/fleet" devices_known
ok "/api/fleet lists the 4 simulated devices"

# --- Metrics: valid exposition text, parsed by Prometheus' own parser.
[ "$(http_status "$BASE/metrics")" = 401 ] || fail "/metrics without the token is not 401"
curl -sf --max-time 5 "${METRICS_AUTH[@]}" -D "$WORK/metrics.headers" "$BASE/metrics" -o "$WORK/metrics.txt" || fail "GET /metrics with the token"
grep -qi '^content-type: text/plain; version=0.0.4' "$WORK/metrics.headers" || fail "/metrics content type: $(grep -i content-type "$WORK/metrics.headers")"
# promtool exits 1 on a parse error and 3 on lint remarks only (e.g. "no help text"; the
# swift-metrics API has no help strings), which do not fail the check.
promtool_status=0
promtool check metrics <"$WORK/metrics.txt" >"$WORK/promtool-metrics.txt" 2>&1 || promtool_status=$?
case "$promtool_status" in
0 | 3) ;;
*) fail "promtool cannot parse /metrics (exit $promtool_status): $(head -5 "$WORK/promtool-metrics.txt")" ;;
esac
for metric in gateway_frames_processed_total gateway_mqtt_connected gateway_event_latency_seconds_bucket gateway_mqtt_publish_round_trip_seconds_bucket; do
	grep -q "^$metric" "$WORK/metrics.txt" || fail "/metrics lacks $metric"
done
ok "/metrics is 401 without its token; with it, Prometheus text (promtool parses it) with latency histograms"

# --- Shipped monitoring config.
promtool check rules config/prometheus/alerts.yml config/prometheus/alerts.generated.yml >"$WORK/rules.txt" 2>&1 ||
	fail "promtool check rules: $(cat "$WORK/rules.txt")"
ok "promtool check rules config/prometheus/alerts.yml config/prometheus/alerts.generated.yml"
promtool check config config/prometheus/prometheus.yml >"$WORK/config.txt" 2>&1 || fail "promtool check config: $(cat "$WORK/config.txt")"
ok "promtool check config config/prometheus/prometheus.yml"

# --- A real Prometheus scrapes the gateway (the shipped file, pointed at the metrics-only listener).
[ "$(http_status "$METRICS_BASE/metrics")" = 401 ] || fail "/metrics on http.metricsListen without the token is not 401"
[ "$(http_status "$METRICS_BASE/metrics" "${METRICS_AUTH[@]}")" = 200 ] || fail "/metrics on http.metricsListen with the token is not 200"
for path in api/fleet "" healthz; do
	[ "$(http_status "$METRICS_BASE/$path")" = 404 ] || fail "/$path on http.metricsListen is not 404"
done
ok "http.metricsListen serves /metrics (401 without the token); /api/fleet, / and /healthz are 404 there"
PROM_PORT=$(free_port)
mkdir -p "$WORK/prometheus"
cp config/prometheus/alerts.generated.yml "$WORK/prometheus/"
sed -e "s/127.0.0.1:9464/127.0.0.1:$METRICS_PORT/" -e 's/scrape_interval: 15s/scrape_interval: 1s/' \
	-e 's/evaluation_interval: 15s/evaluation_interval: 1s/' \
	-e "s|^    # authorization: {credentials_file: .*}|    authorization: {credentials_file: $WORK/metrics.token}|" \
	config/prometheus/prometheus.yml >"$WORK/prometheus/prometheus.yml"
grep -q "credentials_file: $WORK/metrics.token" "$WORK/prometheus/prometheus.yml" || fail "config/prometheus/prometheus.yml lost its commented authorization line"
detached prometheus --config.file="$WORK/prometheus/prometheus.yml" --storage.tsdb.path="$WORK/prometheus/data" \
	--web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prometheus.log" 2>&1 &
PROM_PID=$!
target_up() {
	curl -s --max-time 2 "http://127.0.0.1:$PROM_PORT/api/v1/query?query=up%7Bjob%3D%22wearable-gateway%22%7D" | python3 -c 'import json,sys
r=json.load(sys.stdin)["data"]["result"]
sys.exit(0 if r and r[0]["value"][1] == "1" else 1)' 2>/dev/null
}
wait_until 60 "Prometheus reports up == 1 for the gateway" target_up
ok "a real Prometheus scrapes the gateway with the metrics token: up{job=\"wearable-gateway\"} == 1"
rules_loaded() {
	curl -s --max-time 2 "http://127.0.0.1:$PROM_PORT/api/v1/rules" | python3 -c 'import json,sys
g=json.load(sys.stdin)["data"]["groups"]
sys.exit(0 if any(x["name"] == "wearable-gateway" and len(x["rules"]) >= 5 for x in g) else 1)' 2>/dev/null
}
wait_until 30 "Prometheus loaded the shipped alert rules" rules_loaded
ok "Prometheus loaded the shipped alert rules"
latency_scraped() {
	curl -s --max-time 2 "http://127.0.0.1:$PROM_PORT/api/v1/query?query=sum(gateway_mqtt_publish_round_trip_seconds_count)" | python3 -c 'import json,sys
r=json.load(sys.stdin)["data"]["result"]
sys.exit(0 if r and float(r[0]["value"][1]) > 0 else 1)' 2>/dev/null
}
wait_until 30 "Prometheus holds broker round-trip samples" latency_scraped
ok "Prometheus holds gateway_mqtt_publish_round_trip_seconds samples"

# --- Dead letter: garbage in, the same bytes out, with the reasons as user properties.
printf 'garbage\xff\xfe\x00{not json' >"$WORK/garbage.bin"
SUB=(-h 127.0.0.1 -p "$BROKER_PORT" -V mqttv5 -q 1 -c -x 60 -t gateway/watch-s9-1/dead-letter)
# Persistent sessions, created first (returns after the SUBACK), then resumed to read.
mosquitto_sub "${SUB[@]}" -i dl-payload -E
mosquitto_sub "${SUB[@]}" -i dl-properties -E
mosquitto_pub -h 127.0.0.1 -p "$BROKER_PORT" -V mqttv5 -q 1 -i garbage-sender -t wearables/watch-s9-1/motion -f "$WORK/garbage.bin"
mosquitto_sub "${SUB[@]}" -i dl-payload -C 1 -W 20 -N -F '%p' >"$WORK/dead-letter.bin" || fail "no dead letter within 20 s"
cmp -s "$WORK/garbage.bin" "$WORK/dead-letter.bin" || fail "dead letter payload differs: $(od -c "$WORK/dead-letter.bin" | head -3)"
ok "garbage payload came back byte for byte on gateway/watch-s9-1/dead-letter"
mosquitto_sub "${SUB[@]}" -i dl-properties -C 1 -W 20 -F '%P' >"$WORK/dead-letter.props" || fail "no dead letter (properties) within 20 s"
for expected in code:invalidPayload cmError:107 stream:motion sourceTopic:wearables/watch-s9-1/motion detail:; do
	grep -q "$expected" "$WORK/dead-letter.props" || fail "dead letter lacks user property $expected: $(cat "$WORK/dead-letter.props")"
done
ok "dead letter carries code, cmError, detail, stream, sourceTopic user properties"

# --- The fleet page in a real headless Chromium (driven by Selenium WebDriver through chromedriver:
# --dump-dom's virtual time would stand still while the page's event stream is open).
/usr/bin/python3 scripts/fleet-page-check.py "$BASE/" "$ARTIFACTS" watch-ultra-1 watch-s9-1 buds-1 watch-s9-2 ||
	fail "headless Chromium did not render the devices that said hello"
ok "headless Chromium: the fleet page lists every device that said hello (model, connected), with live updates applied"
[ -s "$ARTIFACTS/fleet-page.png" ] || fail "no screenshot written"
ok "screenshot kept in .build/test-artifacts/fleet-page.png"

# --- The fleet page's device view reads the event history (history.enabled is on with the
# recorder's SQLite file): a dive played to its end on watch-ultra-2 (a second simulator,
# 20x), and the swings of watch-s9-2 (baseball, one every 8 s).
"$SIMULATOR" publish --broker "mqtt://127.0.0.1:$BROKER_PORT" --scenario dive --dive-device watch-ultra-2 --speed 20 >"$WORK/dive.log" 2>&1 ||
	fail "the dive scenario did not play: $(tail -3 "$WORK/dive.log")"
/usr/bin/python3 scripts/fleet-page-check.py --history "$BASE/" "$ARTIFACTS" watch-ultra-2 watch-s9-2 ||
	fail "headless Chromium: the device view did not list a dive and a swing from the event history"
ok "headless Chromium: the device view lists watch-ultra-2's dive and watch-s9-2's swings from GET /api/devices/{id}/events"

# --- Readiness follows the broker; liveness does not.
stop_pid "$SIM_PID"
SIM_PID=
stopped_at=$(monotonic_ms)
stop_pid "$BROKER_PID"
BROKER_PID=
wait_until 10 "/readyz 503 after the broker stopped" status_is 503 "$BASE/readyz"
ok "/readyz 503 $(($(monotonic_ms) - stopped_at)) ms after the broker stopped"
curl -s --max-time 2 "$BASE/readyz" | grep -q 'connection to the broker is down' || fail "/readyz body does not say why"
ok "/readyz body says why: $(curl -s --max-time 2 "$BASE/readyz" | head -c 160)"
[ "$(http_status "$BASE/healthz")" = 200 ] || fail "/healthz not 200 while the broker is down"
ok "/healthz stays 200 while the broker is down"
start_broker "$CONF" "$BROKER_PORT" "$WORK/broker2.log"
wait_until 30 "/readyz 200 after the broker is back" status_is 200 "$BASE/readyz"
ok "/readyz 200 again after the broker is back"

# --- JSON logs: stop the gateway (SIGTERM drains), then every line must be a JSON object.
terminate_pid "$GATEWAY_PID" 20 || fail "gateway did not exit cleanly"
GATEWAY_PID=
python3 - "$WORK/gateway.log" <<'PY' || fail "a gateway log line is not a JSON object"
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert len(lines) > 5, f"only {len(lines)} log lines"
for number, line in enumerate(lines, 1):
    try:
        entry = json.loads(line)
    except ValueError:
        print(f"line {number} is not JSON: {line[:200]}", file=sys.stderr); sys.exit(1)
    if not isinstance(entry, dict) or not {"time", "level", "label", "message", "metadata"} <= entry.keys():
        print(f"line {number} lacks fields: {line[:200]}", file=sys.stderr); sys.exit(1)
PY
ok "every gateway log line is a JSON object with time, level, label, message, metadata"

printf 'check-operations: %s passed, 0 failed\n' "$passed"
