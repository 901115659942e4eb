# syntax=docker/dockerfile:1
# Chirp as a container image: built with the Swift toolchain on Debian 12 (bookworm), run on
# bookworm-slim with only the runtime C libraries, as an unprivileged user.
#   docker build -t chirp .
#   docker run --rm -p 8080:8080 -e DATABASE_URL=… -e JWT_SECRET=… chirp          (serve)
#   docker run --rm -e MIGRATION_DATABASE_URL=… chirp migrate
# docker-compose.yml runs it with PostgreSQL; .env.example lists its settings.

ARG SWIFT_VERSION=6.3

FROM swift:${SWIFT_VERSION}-bookworm AS build
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends libpq-dev libmicrohttpd-dev libsodium-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
# The manifest before the sources: the package needs nothing from outside, so resolving it is
# instant, but this layer (and the toolchain's work on it) survives changes to the code.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
# The manifest names the test targets too, and SwiftPM loads no package whose targets' folders
# are missing: they come along, and only `chirp` is built.
COPY Tests ./Tests
# The Swift runtime and Foundation are linked in statically, so the runtime image needs no
# toolchain. The build folder is a cache mount: rebuilds after a code change are incremental.
RUN --mount=type=cache,target=/build/.build \
    swift build -c release --product chirp --static-swift-stdlib \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/chirp" /staging/chirp

# Debian's PgBouncer and HAProxy, for docker-compose.yml's `scale` profile (the shape
# scripts/cluster runs from the same packages). Each starts from a configuration the compose
# file writes at start-up.
FROM debian:bookworm-slim AS pgbouncer
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends pgbouncer \
    && rm -rf /var/lib/apt/lists/*
USER postgres
EXPOSE 6432

FROM debian:bookworm-slim AS haproxy
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends haproxy \
    && rm -rf /var/lib/apt/lists/*
USER haproxy
EXPOSE 8080

# The image `docker build .` makes: the last stage.
FROM debian:bookworm-slim AS runtime
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends libpq5 libmicrohttpd12 libsodium23 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 chirp \
    && useradd --system --uid 10001 --gid chirp --no-create-home --home-dir /app --shell /usr/sbin/nologin chirp
WORKDIR /app
# Least to most often changed: the schema, the contract, then the binary.
COPY sql/migrations ./sql/migrations
COPY openapi.yaml ./openapi.yaml
COPY --from=build /staging/chirp /usr/local/bin/chirp
ENV HOST=0.0.0.0 \
    PORT=8080 \
    MIGRATIONS_DIR=/app/sql/migrations \
    OPENAPI_PATH=/app/openapi.yaml
USER 10001:10001
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
    CMD curl -fsS -o /dev/null "http://127.0.0.1:${PORT}/readyz" || exit 1
ENTRYPOINT ["chirp"]
CMD ["serve"]
