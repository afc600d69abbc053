# syntax=docker/dockerfile:1
# Wearable Gateway image: both executables (wearable-gateway, wearable-sim) and config/.
# Used by docker-compose.yml; build alone with: docker build -t wearable-gateway:dev .
#
# Build stage: the official Swift image on Debian 12 (bookworm), the same Debian as the
# development and CI machines (libmosquitto 2.0.11, simdjson 3.0.1) and the same Swift
# minor as their toolchain (6.3.x; Package.swift needs tools 6.2 or later). Tags of the
# form swift:6.3.2-bookworm are published; override with --build-arg SWIFT_IMAGE=...
ARG SWIFT_IMAGE=swift:6.3-bookworm

FROM ${SWIFT_IMAGE} AS build
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends libmosquitto-dev libsimdjson-dev libsqlite3-dev libxxhash-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Resolve dependencies in their own layer, so a source change does not refetch them.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
# The Swift runtime is linked statically; libmosquitto, simdjson and libstdc++ stay
# shared (installed from Debian in the runtime stage).
RUN swift build -c release --static-swift-stdlib \
    && bin="$(swift build -c release --static-swift-stdlib --show-bin-path)" \
    && mkdir -p /out \
    && cp "$bin/wearable-gateway" "$bin/wearable-sim" /out/

# Runtime stage: plain Debian 12 with the two shared C libraries.
FROM debian:bookworm-slim
# The image's version label: ProductVersion.current by default (scripts/check-version.py keeps
# the two equal), what the binaries print for --version.
ARG VERSION=0.3.0
LABEL org.opencontainers.image.version="${VERSION}"
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends libmosquitto1 libsimdjson14 libsqlite3-0 libxxhash0 ca-certificates tzdata curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin wearable
COPY --from=build /out/wearable-gateway /out/wearable-sim /usr/local/bin/
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
# curl is installed for the compose healthcheck on /readyz.
EXPOSE 9464
USER wearable
# SIGTERM starts the gateway's drain (docker stop sends it; allow it time: stop_grace_period).
STOPSIGNAL SIGTERM
CMD ["wearable-gateway", "run", "--config", "/etc/wearable-gateway/gateway.yml"]
