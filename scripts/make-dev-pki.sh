#!/usr/bin/env bash
# Makes the DEVELOPMENT identities for config/mosquitto/secure.conf and compose.conf with
# Debian's openssl: two local CAs, the broker's server certificate and one client
# certificate per identity. Never use them in production (docs/security.md).
#
#   scripts/make-dev-pki.sh [DIR]      (default: config/mosquitto/pki, git-ignored)
#
# DIR/ca.crt            CA of devices, apps and monitors (client certs on the main listener)
#                       and of the broker's server certificate (what clients trust)
# DIR/gateway-ca.crt    CA of the gateway's client certificate only: the gateway listener
#                       trusts nothing else, so no other login can reach the gateway's
#                       client ids there
# DIR/broker.crt/.key   server certificate: DNS broker, DNS localhost, IP 127.0.0.1
# DIR/gateway.crt/.key  CN wearable-gateway (signed by gateway-ca)
# DIR/clients/ID.crt/.key   CN ID, signed by ca: every device id of config/devices.yml,
#                       the apps app-1 and app-2, and monitor. The broker takes the CN as
#                       the user name and the MQTT client id (use_identity_as_username,
#                       use_username_as_clientid).
#
# Idempotent: existing files are kept, missing ones are made (add a device to
# config/devices.yml and run it again). WG_PKI_EXTRA="id1 id2" adds client identities.
# Private keys are mode 0600 except the broker's (0644: the eclipse-mosquitto container
# reads it as its own user from a read-only mount). WG_PKI_SHARED_KEYS=1 makes every key
# 0644, for docker-compose.yml, whose gateway and simulator containers run as another user
# -- acceptable only because these are development keys.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${1:-$ROOT/config/mosquitto/pki}
DAYS=${WG_PKI_DAYS:-825}
mkdir -p "$DIR/clients"
cd "$DIR"

command -v openssl >/dev/null || {
	printf 'error: openssl not found (Debian package openssl)\n' >&2
	exit 1
}

# ca NAME SUBJECT: a self-signed CA (EC P-256: small and fast).
ca() {
	[ -f "$1.crt" ] && return 0
	openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days "$DAYS" \
		-subj "$2" -keyout "$1.key" -out "$1.crt" \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
	chmod 600 "$1.key"
}

# leaf PATH CN CA EXTENSIONS: a key and a certificate signed by CA.
leaf() {
	local path=$1 cn=$2 issuer=$3 ext=$4
	[ -f "$path.crt" ] && return 0
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$cn" \
		-keyout "$path.key" -out "$path.csr" 2>/dev/null
	printf '%s\n' "$ext" >"$path.ext"
	openssl x509 -req -in "$path.csr" -CA "$issuer.crt" -CAkey "$issuer.key" -CAcreateserial \
		-days "$DAYS" -extfile "$path.ext" -out "$path.crt" 2>/dev/null
	rm -f "$path.csr" "$path.ext"
	chmod 600 "$path.key"
}

CLIENT_EXT='basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth'

ca ca "/CN=Wearable Gateway development CA"
ca gateway-ca "/CN=Wearable Gateway development gateway CA"
leaf broker broker ca 'basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:broker,DNS:localhost,IP:127.0.0.1'
chmod 644 broker.key
leaf gateway wearable-gateway gateway-ca "$CLIENT_EXT"

# Device ids: the keys below "devices:" in the registry (two-space indent).
devices=$(sed -n '/^devices:/,$p' "$ROOT/config/devices.yml" | sed -n 's/^  \([A-Za-z0-9._-]\{1,64\}\):.*/\1/p')
for id in $devices app-1 app-2 monitor ${WG_PKI_EXTRA:-}; do
	leaf "clients/$id" "$id" ca "$CLIENT_EXT"
done
if [ "${WG_PKI_SHARED_KEYS:-0}" = 1 ]; then
	find . -name '*.key' ! -name 'ca.key' ! -name 'gateway-ca.key' -exec chmod 644 {} +
fi
printf 'development PKI in %s (%d client identities)\n' "$DIR" "$(find clients -name '*.crt' | wc -l)"
