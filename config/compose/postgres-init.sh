# shellcheck shell=bash
# Run by the postgres image once, at its first start on an empty data directory
# (/docker-entrypoint-initdb.d/, as the user postgres, against the server it is initialising;
# docker-compose.full.yml mounts it there). The image has already made the role and database
# of POSTGRES_USER and POSTGRES_DB (wearable, wearable), which the gateways use and whose tables
# their schema migrations create at their first start.
#
# This adds Grafana's role, grafana_reader, with the password of the compose secret
# grafana-db-password: it may read every table the gateways' role creates in the schema public
# (the event history of the dashboard's history row among them) and nothing else. Grafana does
# not check the SQL of a panel, so its data source should not be able to write (docs/history.md).
# A data directory made before this script existed has no such role: `docker compose -f
# docker-compose.yml -f docker-compose.full.yml down -v` removes the volumes, and the next start
# runs this again.
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
	--set owner="$POSTGRES_USER" --set reader_password="$(cat /run/secrets/grafana-db-password)" <<-'SQL'
	CREATE ROLE grafana_reader LOGIN PASSWORD :'reader_password';
	ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public GRANT SELECT ON TABLES TO grafana_reader;
SQL
