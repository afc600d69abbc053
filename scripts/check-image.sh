#!/usr/bin/env bash
# The image's run, without a container engine: runs the gateway the way the Dockerfile's
# runtime stage (AS runtime) does and checks that it starts, serves and stops cleanly, writing only to
# the volume. Read from the Dockerfile (so a change there is checked, not a copy of it):
#   WORKDIR, owned by root, with config/ copied into it      (COPY config/ ./config/)
#   the VOLUME, owned by the image's user                     (mkdir + chown)
#   the user's uid (useradd --uid), USER, every ENV line, CMD (with the /etc/wearable-gateway
#   link of the RUN line resolved to its target)
# The paths are the image's own: the gateway runs in a private mount namespace (unshare -m,
# root only) where the WORKDIR, the VOLUME and /usr/local/bin are temporary directories, as
# that uid (setpriv) with only the Dockerfile's environment, plus the broker address and
# the HTTP listen address the compose file sets too (here: a private mosquitto, free ports).
#
# The binary: the debug build (WG_IMAGE_BINARY overrides, e.g. a release build made with
# `swift build -c release --static-swift-stdlib --product wearable-gateway`). What this
# checks (file system, user, environment, signals) does not depend on the optimisation
# level, and a release build would add several minutes of compilation to every CI run.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$WG_REPO_ROOT"

DOCKERFILE=${WG_DOCKERFILE:-$WG_REPO_ROOT/Dockerfile}
BINARY=${WG_IMAGE_BINARY:-$(swift build --show-bin-path)/wearable-gateway}
[ -x "$BINARY" ] || die "no gateway binary at $BINARY (swift build --product wearable-gateway, or set WG_IMAGE_BINARY)"
[ "$(id -u)" -eq 0 ] || die "check-image.sh needs root (a private mount namespace and another user)"
unshare -m --propagation private true 2>/dev/null || die "unshare -m does not work here; the image check needs mount namespaces"

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	if [ -f "${WORK:-}/gateway.log" ]; then
		printf '    gateway log:\n' >&2
		sed 's/^/    /' "$WORK/gateway.log" >&2
	fi
	exit 1
}
ok() { printf 'ok: %s\n' "$*"; }

# --- The runtime stage of the Dockerfile (FROM ... AS runtime, up to the next FROM; the last
# stage, a plain `FROM runtime`, makes it the default target, checked by scripts/check-dockerfile.py).
stage=$(awk '/^FROM /{on = (tolower($0) ~ / as runtime$/)} on' "$DOCKERFILE")
[ -n "$stage" ] || die "no stage FROM ... AS runtime in $DOCKERFILE"
instruction() { sed -n "s/^$1 //p" <<<"$stage" | tail -n 1; }
WORKDIR_PATH=$(instruction WORKDIR)
VOLUME_PATH=$(instruction VOLUME)
USER_NAME=$(instruction USER)
IMAGE_UID=$(grep -oE -- "useradd .*--uid [0-9]+.* $USER_NAME\b" <<<"$stage" | grep -oE -- '--uid [0-9]+' | awk '{print $2}')
CMD_JSON=$(instruction CMD)
CONFIG_LINK=$(grep -oE 'ln -s [^ ]+ [^ ]+' <<<"$stage" | head -n 1 || true)
for value in WORKDIR_PATH VOLUME_PATH USER_NAME IMAGE_UID CMD_JSON; do
	[ -n "${!value}" ] || die "cannot read $value from $DOCKERFILE"
done
case "$WORKDIR_PATH$VOLUME_PATH" in *'$'* | *'"'* | *'['*) die "WORKDIR and VOLUME must be plain paths in $DOCKERFILE" ;; esac
ENVIRONMENT=()
while IFS= read -r line; do
	[[ "$line" =~ ^[A-Z_][A-Z0-9_]*=[^[:space:]]*$ ]] || die "ENV line not of the form KEY=value: $line"
	ENVIRONMENT+=("$line")
done < <(sed -n 's/^ENV //p' <<<"$stage")
# The CMD's words; the config link (ln -s TARGET LINK) resolved to its target, which this
# check mounts (the link itself would be a file in the host's /etc).
mapfile -t COMMAND < <(python3 -c 'import json, sys
for word in json.loads(sys.argv[1]): print(word)' "$CMD_JSON")
if [ -n "$CONFIG_LINK" ]; then
	read -r _ _ link_target link_name <<<"$CONFIG_LINK"
	COMMAND=("${COMMAND[@]/#$link_name\//$link_target/}")
fi
log "image check: WORKDIR $WORKDIR_PATH, VOLUME $VOLUME_PATH, user $USER_NAME ($IMAGE_UID), ENV ${ENVIRONMENT[*]:-none}, CMD ${COMMAND[*]}"

# --- The image's file system: root-owned WORKDIR with config/, the user's volume, the binary.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/wg-image.XXXXXX")
chmod 755 "$WORK"
GATEWAY_PID=
BROKER_PID=
CONF=
cleanup() {
	[ -n "$GATEWAY_PID" ] && stop_pid "$GATEWAY_PID"
	[ -n "$BROKER_PID" ] && stop_pid "$BROKER_PID"
	[ -n "$CONF" ] && rm -rf "$(dirname "$CONF")"
	rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/workdir" "$WORK/volume" "$WORK/bin"
cp -R config "$WORK/workdir/config"
rm -rf "$WORK/workdir/config/mosquitto/pki" # .dockerignore keeps the development keys out
chown -R root:root "$WORK/workdir"
chmod -R go-w "$WORK/workdir"
chmod 755 "$WORK/workdir"
chown "$IMAGE_UID:$IMAGE_UID" "$WORK/volume"
cp "$BINARY" "$WORK/bin/wearable-gateway"
chmod 755 "$WORK/bin/wearable-gateway"
(cd "$WORK/workdir" && find . -printf '%p %s %m %u\n' | sort) >"$WORK/workdir.before"

BROKER_PORT=$(free_port)
HTTP_PORT=$(free_port)
CONF=$(render_broker_config "$WG_REPO_ROOT/config/mosquitto/demo.conf" "$BROKER_PORT")
start_broker "$CONF" "$BROKER_PORT" "$WORK/broker.log"

# The run as the image does it, as a script: in a private mount namespace, tmpfs over the
# parents that do not hold the image's paths on this machine, the prepared directories bound
# onto the image's paths; then the image's user, working directory, environment and CMD.
# Docker's environment for a container: PATH, HOME (the user's, which does not exist), then ENV.
{
	printf '#!/usr/bin/env bash\nset -euo pipefail\n'
	printf 'bind() {\n\tif [ ! -d "$2" ]; then\n\t\tparent=$(dirname "$2")\n\t\twhile [ ! -d "$parent" ]; do parent=$(dirname "$parent"); done\n'
	printf '\t\tmount -t tmpfs -o mode=755 tmpfs "$parent"\n\t\tmkdir -p "$2"\n\tfi\n\tmount --bind "$1" "$2"\n}\n'
	printf 'bind %q %q\n' "$WORK/bin" /usr/local/bin "$WORK/workdir" "$WORKDIR_PATH" "$WORK/volume" "$VOLUME_PATH"
	printf 'cd %q\n' "$WORKDIR_PATH"
	printf 'exec setpriv --reuid=%q --regid=%q --clear-groups --no-new-privs env -i' "$IMAGE_UID" "$IMAGE_UID"
	printf ' %q' PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "HOME=/home/$USER_NAME" ${ENVIRONMENT[@]+"${ENVIRONMENT[@]}"} \
		"WG_MQTT_BROKER=mqtt://127.0.0.1:$BROKER_PORT" "WG_HTTP_LISTEN=127.0.0.1:$HTTP_PORT" "${COMMAND[@]}"
	printf '\n'
} >"$WORK/run-as-image.sh"
detached unshare -m --propagation private bash "$WORK/run-as-image.sh" >"$WORK/gateway.log" 2>&1 &
GATEWAY_PID=$!

# --- Starts and serves: ready (both broker connections), a device's hello answered.
BASE=http://127.0.0.1:$HTTP_PORT
ready=
for _ in $(seq 1 600); do
	kill -0 "$GATEWAY_PID" 2>/dev/null || break
	if [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$BASE/readyz" || true)" = 200 ]; then
		ready=1
		break
	fi
	sleep 0.1
done
[ -n "$ready" ] || fail "the gateway run as the image does never answered /readyz with 200 (exited: $(kill -0 "$GATEWAY_PID" 2>/dev/null && echo no || echo yes))"
ok "started as uid $IMAGE_UID in $WORKDIR_PATH; /readyz 200"
mosquitto_pub -h 127.0.0.1 -p "$BROKER_PORT" -q 1 -i image-device -t wearables/watch-ultra-1/hello \
	-m '{"model":"Apple Watch Ultra 2","platform":"watchOS","osVersion":"10.1","app":"com.example.dive","authorization":"authorized"}'
mosquitto_sub -h 127.0.0.1 -p "$BROKER_PORT" -i image-observer -t gateway/watch-ultra-1/availability -C 1 -W 20 >"$WORK/availability.json" ||
	fail "no availability for the device's hello within 20 s"
ok "a device's hello answered: $(cat "$WORK/availability.json")"

# --- Stops cleanly: SIGTERM, status 0 within 2 × pipeline.drainTimeout (15 s in config/gateway.yml).
status=0
terminate_pid "$GATEWAY_PID" 30 || status=$?
GATEWAY_PID=
[ "$status" -eq 0 ] || fail "exit status $status after SIGTERM (0 expected)"
ok "SIGTERM: exit 0"

# --- Wrote to the volume only.
ls -l "$WORK/volume"
for file in journal.bin state.sqlite; do
	[ -f "$WORK/volume/$file" ] || fail "no $file on the volume"
done
stored=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM device_state WHERE device = ?", ("watch-ultra-1",)).fetchone()[0])' "$WORK/volume/state.sqlite")
[ "$stored" = 1 ] || fail "the device's snapshot is not in the volume's state.sqlite"
ok "journal and device state on the volume (the device's snapshot stored)"
(cd "$WORK/workdir" && find . -printf '%p %s %m %u\n' | sort) >"$WORK/workdir.after"
diff "$WORK/workdir.before" "$WORK/workdir.after" || fail "the working directory changed (above)"
elsewhere=$(find /tmp /var/tmp /dev/shm -xdev -user "$IMAGE_UID" -not -path "$WORK/volume*" 2>/dev/null || true)
[ -z "$elsewhere" ] || fail "files written outside the volume: $elsewhere"
ok "nothing written outside $VOLUME_PATH"
log "image check passed"
