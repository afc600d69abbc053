#!/usr/bin/env bash
# A private PostgreSQL for one test or a demo (start_postgres of scripts/lib.sh), for programs
# that are not shell scripts (the store's fault test stops and restarts its own server):
#   scripts/postgres.sh start        prints "DIR PORT URL" of a new server on a free port
#   scripts/postgres.sh stop DIR     stops it (immediate: like a crash) and keeps DIR
#   scripts/postgres.sh restart DIR  starts a stopped one again on its port
#   scripts/postgres.sh remove DIR   stops it and removes DIR
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
case "${1:-}" in
start)
	start_postgres >&2
	printf '%s %s %s\n' "$PG_DIR" "$PG_PORT" "$PG_URL"
	;;
stop)
	PG_BIN=$(postgres_bin)
	as_postgres_user "$PG_BIN/pg_ctl" -D "$2/data" -m immediate -w stop >/dev/null
	;;
restart)
	PG_BIN=$(postgres_bin)
	as_postgres_user "$PG_BIN/pg_ctl" -D "$2/data" -l "$2/postgres.log" -w -t 60 start >/dev/null
	;;
remove)
	PG_BIN=$(postgres_bin)
	PG_DIR=$2
	stop_postgres
	;;
*)
	die "usage: scripts/postgres.sh start | stop DIR | restart DIR | remove DIR"
	;;
esac
