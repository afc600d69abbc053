# syntax=docker/dockerfile:1
# Wearable Gateway image: both executables (wearable-gateway, wearable-sim) and config/.
# Used by docker-compose.yml; build alone with: docker build -t wearable-gateway:0.3.0 .
# Stages: build (compiles and strips), runtime (the image), testbed (the image plus mosquitto,
# for `wearable-sim testbed`: docker build --target testbed -t wearable-gateway-testbed .).
# A plain build ends at the last stage, which is the runtime image (docs/operations.md, "The image").
#
# Build stage: the official Swift image on Debian 12 (bookworm), the same Debian as the
# development and CI machines (libmosquitto 2.0.11, simdjson 3.0.1) and the same Swift
# minor as their toolchain (6.3.x; Package.swift needs tools 6.2 or later). Tags of the
# form swift:6.3.2-bookworm are published; override with --build-arg SWIFT_IMAGE=...
# Both base images can be pinned to a digest the same way (SWIFT_IMAGE=swift:6.3-bookworm@sha256:...,
# RUNTIME_IMAGE=debian:bookworm-slim@sha256:...); what is pinned and what is not: docs/releasing.md.
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends binutils libmosquitto-dev libsimdjson-dev libsqlite3-dev libxxhash-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Resolve dependencies in their own layers, so a source change does not refetch them. Package.swift
# gives each dependency a lower bound within its major version, and Package.resolved is not in
# the repository (the development machines resolve through a mirror whose commit ids are not
# upstream's): the first resolve takes the newest releases within those bounds. Then every
# package of the graph, direct and transitive, is moved to its version in
# deploy/swift-package-versions.txt, the versions the test command built and tested
# (scripts/check-package-versions.py keeps the file equal to that resolution; docs/releasing.md).
# Moving one package can add, drop or move others: a package that the newest releases no longer
# need is missing from the graph until the release that needs it is moved back (its resolve
# fails with "dependency ... was not found", which does not stop the build), and then comes back
# at its newest version. So the pass repeats for the packages not at their version until the
# resolution holds exactly the listed ones (at most 5 rounds, and only while a round changes
# something); otherwise the build fails with the difference (- listed, + resolved). The versions
# are read from Package.resolved, one key a line as SwiftPM writes it (python3 is not in the
# Swift image). The image keeps the result (/usr/share/doc/wearable-gateway/Package.resolved)
# so what went in can be read back.
COPY Package.swift ./
RUN swift package resolve
COPY deploy/swift-package-versions.txt ./deploy/
RUN resolved() { awk -F'"' '$2 == "identity" { id = $4 } $2 == "version" && $4 != "" && id != "" { print id, $4; id = "" }' Package.resolved | LC_ALL=C sort; } \
    && sed -e 's/#.*//' -e '/^[[:space:]]*$/d' deploy/swift-package-versions.txt | awk '{ print $1, $2 }' | LC_ALL=C sort >/tmp/listed \
    && resolved >/tmp/resolved \
    && for round in 1 2 3 4 5; do \
        cmp -s /tmp/listed /tmp/resolved && break; \
        echo "swift-package-versions.txt, round $round: $(grep -cvxFf /tmp/resolved /tmp/listed) packages to move"; \
        while read -r name version; do \
            resolved | grep -qxF "$name $version" || swift package resolve "$name" --version "$version" </dev/null || true; \
        done </tmp/listed; \
        mv /tmp/resolved /tmp/previous && resolved >/tmp/resolved; \
        cmp -s /tmp/previous /tmp/resolved && break; \
    done \
    && if ! diff -u /tmp/listed /tmp/resolved; then \
        echo "the resolved packages differ from deploy/swift-package-versions.txt (above: - listed, + resolved)" >&2; exit 1; \
    fi \
    && rm -f /tmp/listed /tmp/resolved /tmp/previous
COPY Sources ./Sources
# The gateway compiles contract/openapi.yaml in (Sources/TelemetryGateway/Operations/openapi.yaml
# is a link to it) and serves it at /openapi.yaml.
COPY contract/openapi.yaml ./contract/openapi.yaml
COPY Tests ./Tests
# The Swift runtime is linked statically; libmosquitto, simdjson and libstdc++ stay
# shared (installed from Debian in the runtime stage).
# Stripped here: the DWARF debug information goes to /out/debug/<name>.debug, which stays in this
# stage (docker build --target build, then copy it out, to debug a crash with gdb; each binary
# names its file in a .gnu_debuglink section), and `strip --strip-debug` drops it from the
# binaries. The symbol table stays, so backtraces, profiles and gdb still name functions.
RUN swift build -c release --static-swift-stdlib \
    && bin="$(swift build -c release --static-swift-stdlib --show-bin-path)" \
    && mkdir -p /out/debug \
    && for name in wearable-gateway wearable-sim; do \
        cp "$bin/$name" /out/ \
        && objcopy --only-keep-debug "/out/$name" "/out/debug/$name.debug" \
        && strip --strip-debug "/out/$name" \
        && objcopy --add-gnu-debuglink="/out/debug/$name.debug" "/out/$name" \
        || exit 1; \
    done \
    && cp Package.resolved /out/Package.resolved \
    && ls -l /out /out/debug

# Runtime stage: plain Debian 12 with the two shared C libraries.
FROM ${RUNTIME_IMAGE} AS runtime
# OCI labels. VERSION defaults to ProductVersion.current (scripts/check-version.py keeps the two
# equal), what the binaries print for --version. SOURCE_URL and REVISION have no default: the
# repository has no one public address; set them where the image is built
# (--build-arg SOURCE_URL=https://<your Git server>/wearable-gateway --build-arg REVISION=$(git rev-parse HEAD)).
ARG VERSION=0.3.0
ARG SOURCE_URL=
ARG REVISION=
LABEL org.opencontainers.image.title="wearable-gateway" \
      org.opencontainers.image.description="MQTT gateway for wearable Core Motion telemetry: checks every frame against the wire contract and publishes status, presence, errors and derived events (wearable-gateway, wearable-sim)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends libmosquitto1 libsimdjson14 libsqlite3-0 libxxhash0 ca-certificates tzdata curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin wearable
COPY --from=build /out/wearable-gateway /out/wearable-sim /usr/local/bin/
COPY --from=build /out/Package.resolved /usr/share/doc/wearable-gateway/Package.resolved
# config/ is available both as /etc/wearable-gateway/ (absolute paths, as in
# docker-compose.yml) and as ./config/ from the working directory (the relative defaults,
# e.g. the registry config/devices.yml).
WORKDIR /srv/wearable-gateway
COPY config/ ./config/
RUN ln -s /srv/wearable-gateway/config /etc/wearable-gateway \
    && mkdir -p /var/lib/wearable-gateway && chown wearable /var/lib/wearable-gateway
# Everything the gateway writes lives on a volume it owns: the working directory is root's,
# so a relative default (data/...) would not be writable. The inbound journal, the device
# state store and the historical accelerometer store (docs/reliability.md, docs/recorder.md);
# scripts/check-image.sh runs the binary this way and fails if one is missing.
ENV WG_JOURNAL_PATH=/var/lib/wearable-gateway/journal.bin
ENV WG_STATE_PATH=/var/lib/wearable-gateway/state.sqlite
ENV WG_RECORDER_DATABASE=/var/lib/wearable-gateway/recorder.sqlite
VOLUME /var/lib/wearable-gateway
# The HTTP server (http.listen; compose sets 0.0.0.0:9464): /metrics, /healthz, /readyz, fleet page.
EXPOSE 9464
# Liveness, as Kubernetes' livenessProbe: /healthz answers 503 only when a worker, the ticker or a
# network thread has stalled (a restart helps); a broker or store outage never fails it, while
# /readyz would (docs/operations.md). Asked on 127.0.0.1:9464, which both the image's
# gateway.yml (127.0.0.1:9464) and compose (0.0.0.0:9464) listen on; with another http.listen,
# override it (docker run --health-cmd, compose healthcheck:). The start period covers a start
# that replays a full journal. compose's gateway healthcheck asks /readyz instead: its simulator
# waits for a gateway that is ready, not only alive.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5m --retries=3 \
    CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:9464/healthz"]
USER wearable
# SIGTERM starts the gateway's drain (docker stop sends it; allow it time: stop_grace_period).
STOPSIGNAL SIGTERM
CMD ["wearable-gateway", "run", "--config", "/etc/wearable-gateway/gateway.yml"]

# The testbed variant: the runtime image plus mosquitto, for `wearable-sim testbed` (a private
# broker and gateway on free loopback ports for tests in any language; docs/testing.md). It
# looks for mosquitto at /usr/sbin/mosquitto, where Debian's package puts it.
#   docker build --target testbed -t wearable-gateway-testbed:0.3.0 .
#   docker run --rm -i --network host wearable-gateway-testbed:0.3.0
# -i: the testbed stops when its standard input closes. Its broker and HTTP server listen on
# the container's loopback: run the tests in the same container (an image FROM this one) or, on
# Linux, share the host's network (--network host) and read broker=/http= from its output.
FROM runtime AS testbed
USER root
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends mosquitto \
    && rm -rf /var/lib/apt/lists/*
LABEL org.opencontainers.image.title="wearable-gateway-testbed" \
      org.opencontainers.image.description="wearable-gateway and wearable-sim with mosquitto: wearable-sim testbed starts a private broker and gateway for integration tests"
USER wearable
# The testbed's HTTP server is on a free port, not 9464.
HEALTHCHECK NONE
CMD ["wearable-sim", "testbed", "--http"]

# The default target (a plain `docker build .`, compose's build: .) is the runtime image.
FROM runtime
