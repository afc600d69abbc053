#!/usr/bin/env bash
# The compose stack in one command from a fresh clone, on a machine with a Docker engine and its
# compose plugin (docs/operations.md, "In a container"):
#
#   scripts/compose-up.sh [--full] [docker compose up options, e.g. -d]
#       docker-compose.yml: the broker, the gateway and the simulator; with --full also
#       docker-compose.full.yml: the gateway as one of two clustered instances on PostgreSQL
#       with the event history, Prometheus with the shipped alert rules, Grafana with the
#       shipped dashboard
#   scripts/compose-up.sh --prepare
#       only make what the compose files mount and the repository does not hold; start nothing
#       (no Docker needed; scripts/check-compose.py runs this on a copy)
#
# What it makes, when missing (existing files are kept, so a second run changes nothing):
#   config/mosquitto/pki/      the development identities: WG_PKI_SHARED_KEYS=1 scripts/make-dev-pki.sh
#   config/compose/secrets/    development passwords, random (openssl rand), without a newline:
#                              postgres-password (PostgreSQL's role of the gateways),
#                              grafana-db-password (Grafana's read-only role), grafana-admin-password
# Both are git-ignored and .dockerignore'd. Like the keys of WG_PKI_SHARED_KEYS=1, the
# passwords are mode 644: the containers read them as their own users (postgres, grafana, the
# gateway's uid 10001). Development credentials only (docs/security.md).
# Then: docker compose -f docker-compose.yml [-f docker-compose.full.yml] up --build [options].
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

files=(-f docker-compose.yml)
prepare_only=0
up_args=()
for argument in "$@"; do
	case "$argument" in
	--full) files+=(-f docker-compose.full.yml) ;;
	--prepare) prepare_only=1 ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*) up_args+=("$argument") ;;
	esac
done

if [ "$prepare_only" = 0 ]; then
	docker compose version >/dev/null 2>&1 ||
		die "no 'docker compose' here (a Docker engine with the compose plugin). Without one: scripts/demo.sh runs broker, gateway and simulator as local processes"
fi
command -v openssl >/dev/null || die "openssl not found (Debian package openssl): it makes the development identities and passwords"

WG_PKI_SHARED_KEYS=1 bash scripts/make-dev-pki.sh

secrets=config/compose/secrets
mkdir -p "$secrets"
chmod 755 "$secrets"
for name in postgres-password grafana-db-password grafana-admin-password; do
	[ -s "$secrets/$name" ] && continue
	(umask 022 && printf '%s' "$(openssl rand -hex 24)" >"$secrets/$name")
done
chmod 644 "$secrets"/*
printf 'development passwords in %s\n' "$ROOT/$secrets"

[ "$prepare_only" = 1 ] && exit 0
exec docker compose "${files[@]}" up --build ${up_args[@]+"${up_args[@]}"}
