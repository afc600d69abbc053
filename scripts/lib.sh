# shellcheck shell=bash
# Shared shell functions for scripts/*.sh. Source it, do not run it:
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# Sets and exports:
#   WG_REPO_ROOT   absolute path of the repository
#   MOSQUITTO_BIN  the mosquitto broker binary (kept if already set)
# Also sets the Debian package lists (WG_BUILD_PACKAGES, WG_TEST_PACKAGES, and WG_PACKAGES, both)
# and the test split (WG_PARALLEL_PARTS, WG_POSTGRES_PARTS, WG_POSTGRES_SUITES).
# Functions: log, die, swift_test_bounded, mosquitto_bin, ensure_packages, benchmark_python, free_port,
# render_broker_config, detached, monotonic_ms, wait_for_port, start_broker, stop_pid,
# terminate_pid, postgres_bin, as_postgres_user, start_postgres, stop_postgres.

WG_REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export WG_REPO_ROOT

# The broker lives in /usr/sbin on Debian, which is not on a normal user's PATH.
case ":$PATH:" in
*:/usr/sbin:*) ;;
*) PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin" ;;
esac
export PATH

# Debian packages of the build and the demo (scripts/demo.sh installs only these): the C
# libraries the package links, found through pkg-config (libmosquitto, simdjson, SQLite, xxHash),
# the broker and its command-line clients (the demo's live view and recorder query), and openssl
# (scripts/make-dev-pki.sh: the identities of demo.sh --secure).
WG_BUILD_PACKAGES=(libmosquitto-dev mosquitto mosquitto-clients pkg-config libsimdjson-dev libsqlite3-dev libxxhash-dev openssl)
# Debian packages only the tests need (scripts/test.sh installs both lists). python3-venv: the
# pytest suites (Examples/pytest, Tests/TraceExport) and scripts/check-kubernetes.py run in a
# virtual environment; chromium renders the fleet page (driven by scripts/fleet-page-check.py
# with Selenium WebDriver: python3-selenium and chromedriver, chromium-driver) and prometheus
# (with promtool) scrapes the gateway in scripts/check-operations.sh; curl asks the HTTP
# endpoints; postgresql is the shared store of the postgres backend, started privately by the tests.
WG_TEST_PACKAGES=(python3 python3-venv chromium chromium-driver python3-selenium prometheus curl postgresql)
# Both lists: what the test command and the checks run from it install.
WG_PACKAGES=("${WG_BUILD_PACKAGES[@]}" "${WG_TEST_PACKAGES[@]}")

# How the test command splits the suites into test processes (scripts/test.sh says why;
# scripts/sanitize.sh runs the same split). WG_PARALLEL_PARTS: swift test arguments of the
# parts run with --skip "$WG_POSTGRES_SUITES"; WG_POSTGRES_PARTS: the --filter of each
# PostgreSQL part, one process each, one after the other.
# shellcheck disable=SC2034 # used by the scripts that source this file
WG_PARALLEL_PARTS=("--skip IntegrationTests" "--filter IntegrationTests\.[A-L]" "--filter IntegrationTests\.[M-Z]")
# shellcheck disable=SC2034
WG_POSTGRES_PARTS=("PostgresStoreConformanceTests|PostgresEventHistoryTests|HistoryQueryDocTests|PostgresLeaseTests|FencingPostgresTests|PerDeviceSubscriptionTests"
	"PostgresGatewayTests"
	"PostgresClusterTests|ClusterStateHandoverTests|IntegrationTests\.ClusterTests|IntegrationTests\.ClusterFaultTests"
	"PresenceFaultTests")
WG_POSTGRES_SUITES=$(
	IFS='|'
	printf '%s' "${WG_POSTGRES_PARTS[*]}"
)

# log MESSAGE...: a progress line with the minutes and seconds since the script started
# ("==> [12:05] building"), so a slow phase shows in the log (CI must stay under 30 minutes).
log() { printf '==> [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

# die MESSAGE...: print to stderr and exit 1.
die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# swift_test_bounded SECONDS LOG ARGS...: `swift test ARGS...`, its output line by line to the
# terminal and appended to LOG, ended after SECONDS (a test that never returns must not hold CI
# until its own timeout): then the tests that started and did not end are named, the test
# process is killed, and it returns 124. Otherwise it returns swift test's status.
swift_test_bounded() {
	local seconds=$1 logfile=$2 status=0
	shift 2
	local part_log
	part_log=$(mktemp)
	timeout --kill-after=10 "$seconds" stdbuf -oL -eL swift test "$@" 2>&1 | tee "$part_log" || status=${PIPESTATUS[0]}
	cat "$part_log" >>"$logfile"
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		printf 'error: swift test %s did not end within %s s; still running:\n' "$*" "$seconds" >&2
		python3 - "$part_log" >&2 <<'PY'
import re, sys
log = open(sys.argv[1], errors="replace").read()
ended = set(re.findall(r'[✔✘] Test "(.*?)" (?:passed|failed)', log))
for name in re.findall(r'◇ Test "(.*?)" started', log):
    if name not in ended:
        print("  " + name)
PY
		pkill -9 -f "$WG_REPO_ROOT/.build/.*PackageTests.xctest" 2>/dev/null || true
		status=124
	fi
	rm -f "$part_log"
	return "$status"
}

# mosquitto_bin: path of the broker binary.
mosquitto_bin() {
	if [ -n "${MOSQUITTO_BIN:-}" ]; then
		printf '%s\n' "$MOSQUITTO_BIN"
	else
		command -v mosquitto || printf '%s\n' /usr/sbin/mosquitto
	fi
}

# ensure_packages [PACKAGE...]: install the PACKAGEs (default: WG_PACKAGES, build and tests) with
# apt-get, only those that are missing. The demo passes "${WG_BUILD_PACKAGES[@]}".
# Works as root (no sudo needed) or with sudo. On a system without dpkg it only warns.
ensure_packages() {
	local wanted=("$@")
	[ "${#wanted[@]}" -gt 0 ] || wanted=("${WG_PACKAGES[@]}")
	if ! command -v dpkg >/dev/null 2>&1; then
		printf 'warning: no dpkg; install these yourself: %s\n' "${wanted[*]}" >&2
		return 0
	fi
	local missing=() pkg status
	for pkg in "${wanted[@]}"; do
		status=$(dpkg -s "$pkg" 2>/dev/null || true)
		case "$status" in
		*"Status: install ok installed"*) ;;
		*) missing+=("$pkg") ;;
		esac
	done
	[ "${#missing[@]}" -eq 0 ] && return 0

	local sudo=
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 ||
			die "missing packages (${missing[*]}) and not root: install them or get sudo"
		sudo=sudo
	fi
	log "installing ${missing[*]}"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
	$sudo env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# benchmark_python: print the path of the Python that runs the benchmark scripts: the virtual
# environment $WG_REPO_ROOT/.build/pytest-venv (made when missing, as scripts/test.sh does) with
# Benchmarks/requirements.txt installed (prometheus-client, whose parser reads the metrics text, and
# psutil, which reads the processes' CPU).
benchmark_python() {
	local venv=$WG_REPO_ROOT/.build/pytest-venv
	[ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2
	"$venv/bin/python" -m pip install -q -r "$WG_REPO_ROOT/Benchmarks/requirements.txt" >&2
	printf '%s\n' "$venv/bin/python"
}

# free_port: print a TCP port on 127.0.0.1 that nothing listens on, chosen by the kernel.
# (Another process may take it before we bind it: start_broker then fails fast.)
free_port() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
		return
	fi
	# Fallback without python3: a random high port that refuses connections.
	local port _
	for _ in $(seq 1 100); do
		port=$((20000 + RANDOM % 12000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			printf '%s\n' "$port"
			return 0
		fi
	done
	return 1
}

# render_broker_config TEMPLATE PORT [GATEWAY_PORT]: copy config/mosquitto/ (acl,
# gateway.acl, conf.d/) into a new private directory, write TEMPLATE there as mosquitto.conf
# with @PORT@, @GATEWAY_PORT@ and @CONFIG_DIR@ replaced, and print the path of that
# mosquitto.conf. A template naming @PKI_DIR@ (secure.conf) also gets a private copy of the
# development identities from WG_PKI_DIR (default config/mosquitto/pki, made by
# scripts/make-dev-pki.sh) as DIR/pki.
# mosquitto started as root drops to user "mosquitto" before it reads the ACL files, so the
# directory is 0700 and its files 0600, owned by that user when we are root.
# Remove the directory with: rm -rf "$(dirname "$conf")".
render_broker_config() {
	local template=$1 port=$2 gateway_port=${3:-} dir pki=${WG_PKI_DIR:-$WG_REPO_ROOT/config/mosquitto/pki}
	[ -f "$template" ] || die "no broker config template: $template"
	dir=$(mktemp -d "${TMPDIR:-/tmp}/wg-broker.XXXXXX")
	cp -R "$WG_REPO_ROOT/config/mosquitto/acl" "$WG_REPO_ROOT/config/mosquitto/gateway.acl" \
		"$WG_REPO_ROOT/config/mosquitto/conf.d" "$dir/"
	if grep -q '@PKI_DIR@' "$template"; then
		[ -f "$pki/ca.crt" ] && [ -f "$pki/broker.key" ] ||
			die "no development identities in $pki: run scripts/make-dev-pki.sh${WG_PKI_DIR:+ \"$WG_PKI_DIR\"}"
		mkdir "$dir/pki"
		cp "$pki/ca.crt" "$pki/gateway-ca.crt" "$pki/broker.crt" "$pki/broker.key" "$dir/pki/"
	fi
	if grep -q '@GATEWAY_PORT@' "$template" && [ -z "$gateway_port" ]; then
		die "$template needs a gateway port (render_broker_config TEMPLATE PORT GATEWAY_PORT)"
	fi
	sed -e "s#@PORT@#$port#g" -e "s#@GATEWAY_PORT@#$gateway_port#g" -e "s#@CONFIG_DIR@#$dir#g" \
		-e "s#@PKI_DIR@#$dir/pki#g" "$template" >"$dir/mosquitto.conf"
	chmod -R go-rwx "$dir"
	if [ "$(id -u)" -eq 0 ] && id mosquitto >/dev/null 2>&1; then
		chown -R mosquitto: "$dir"
	fi
	printf '%s\n' "$dir/mosquitto.conf"
}

# monotonic_ms: milliseconds since boot (/proc/uptime, 10 ms resolution), for deadlines and
# durations: unlike `date`, no step of the wall clock (NTP, a resumed VM) moves it.
monotonic_ms() {
	local up _
	read -r up _ </proc/uptime
	printf '%s\n' $((${up%.*} * 1000 + 10#${up#*.} * 10))
}

# wait_for_port PORT [PID] [TRIES]: poll (every 0.1 s, TRIES times, default 100 = 10 s)
# until 127.0.0.1:PORT accepts a TCP connection. Fails early if PID has exited.
wait_for_port() {
	local port=$1 pid=${2:-} tries=${3:-100} _
	for _ in $(seq 1 "$tries"); do
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			return 1
		fi
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# detached CMD [ARGS...]: exec CMD in a new session (setsid), keeping the PID, so a Ctrl-C
# on the terminal reaches only the script, which then stops its children in order.
# Use as: detached cmd args >log 2>&1 & pid=$!
detached() {
	if command -v setsid >/dev/null 2>&1; then
		exec setsid "$@"
	fi
	exec "$@"
}

# start_broker CONF PORT [LOGFILE]: start mosquitto -c CONF in the background, log its
# stderr to LOGFILE (default: CONF with .log), set BROKER_PID, and return once PORT accepts
# connections. On failure: print the log, kill the broker, return 1.
start_broker() {
	local conf=$1 port=$2 logfile=${3:-${1%.conf}.log} bin
	bin=$(mosquitto_bin)
	[ -x "$bin" ] || die "mosquitto not found (looked for $bin); run ensure_packages or set MOSQUITTO_BIN"
	detached "$bin" -c "$conf" >"$logfile" 2>&1 &
	BROKER_PID=$!
	if wait_for_port "$port" "$BROKER_PID" && kill -0 "$BROKER_PID" 2>/dev/null; then
		return 0
	fi
	printf 'error: mosquitto did not start on 127.0.0.1:%s; its log (%s):\n' "$port" "$logfile" >&2
	sed 's/^/    /' "$logfile" >&2 || true
	stop_pid "$BROKER_PID"
	return 1
}

# stop_pid PID...: SIGKILL each PID (if still running) and reap it if it is our child.
stop_pid() {
	local pid
	for pid in "$@"; do
		[ -n "$pid" ] || continue
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}

# terminate_pid PID [SECONDS]: SIGTERM PID, wait up to SECONDS (default 10) for it to exit,
# then SIGKILL. Returns the process's exit status when it is our child (137 if killed).
terminate_pid() {
	local pid=$1 seconds=${2:-10} _ status=0
	kill -0 "$pid" 2>/dev/null || {
		wait "$pid" 2>/dev/null || status=$?
		return "$status"
	}
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 1 $((seconds * 10))); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		printf 'warning: pid %s did not exit %ss after SIGTERM; killing it\n' "$pid" "$seconds" >&2
		kill -9 "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || status=$?
	return "$status"
}

# postgres_bin: print the directory of the newest installed PostgreSQL's programs (Debian keeps
# initdb and pg_ctl in /usr/lib/postgresql/VERSION/bin, off the PATH).
postgres_bin() {
	local dir
	dir=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
	[ -n "$dir" ] && [ -x "$dir/initdb" ] || return 1
	printf '%s\n' "$dir"
}

# as_postgres_user CMD [ARGS...]: run CMD as the unprivileged `postgres` user (made by Debian's
# package) when we are root -- PostgreSQL refuses to run as root -- else as ourselves.
as_postgres_user() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# start_postgres: start a private PostgreSQL for tests or a demo: a new cluster (initdb) in a
# temporary directory, listening on a free 127.0.0.1 port (its unix socket in that directory,
# trust authentication for local connections: nothing outside this machine reaches it), fsync
# off (a test server: speed over durability). Sets PG_DIR (remove it with stop_postgres),
# PG_PORT, PG_BIN and PG_URL (postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable) and
# returns once it accepts connections; on failure prints its log and returns 1.
start_postgres() {
	PG_BIN=$(postgres_bin) || die "PostgreSQL not found under /usr/lib/postgresql; run ensure_packages"
	PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/wg-postgres.XXXXXX")
	PG_PORT=$(free_port)
	chmod 0755 "$PG_DIR"
	if [ "$(id -u)" -eq 0 ]; then chown postgres: "$PG_DIR"; fi
	if ! as_postgres_user "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 --no-locale >"$PG_DIR/initdb.log" 2>&1; then
		sed 's/^/    /' "$PG_DIR/initdb.log" >&2
		return 1
	fi
	# In the cluster's own configuration, so a restart (scripts/postgres.sh restart) keeps them.
	printf "port = %s\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nfsync = off\nmax_connections = 200\n" \
		"$PG_PORT" "$PG_DIR" | as_postgres_user tee -a "$PG_DIR/data/postgresql.conf" >/dev/null
	if ! as_postgres_user "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/postgres.log" -w -t 60 start >/dev/null; then
		printf 'error: PostgreSQL did not start on 127.0.0.1:%s; its log:\n' "$PG_PORT" >&2
		sed 's/^/    /' "$PG_DIR/postgres.log" >&2 || true
		return 1
	fi
	PG_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres?sslmode=disable"
}

# stop_postgres: stop the server of start_postgres (fast shutdown) and remove its directory.
stop_postgres() {
	[ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR" ] || return 0
	as_postgres_user "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 ||
		as_postgres_user "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$PG_DIR"
	PG_DIR=
}
