# SKANKit's collector as a container image: the release archive of Scripts/package.sh, on a slim Debian.
#
# NOT BUILT HERE. The machines this project is developed and tested on have the Docker client but no Docker engine
# (`docker build` cannot run) and reach no image registry, so neither base image below can be pulled; this file has
# never produced an image. Its steps are the package's, and those are tested: Scripts/package-check.sh unpacks the
# same archive into an empty folder and runs it under `env -i` (docs/guides/deployment.md#docker).
#
#   docker build -t skan .
#   docker run -p 8080:8080 -v skan-data:/var/lib/skan -e SKAN_SERVE_DB=postgres://skan:PASSWORD@db/skan skan
#
# Settings: SKAN_SERVE_* variables, or a configuration file mounted at /etc/skan/skan.json (the default --config).

# Build: the static binary and the archive.
FROM swift:6.3-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libssl-dev libsqlite3-dev libicu72 \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN OUT=/dist Scripts/package.sh && mkdir /opt/skan && tar -C /opt/skan --strip-components=1 -xzf /dist/skan-*.tar.gz

# Run: the archive on a slim Debian, as a user without privileges. skan needs libssl3 and libsqlite3-0; curl is
# for the HEALTHCHECK only.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libssl3 libsqlite3-0 curl ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home-dir /var/lib/skan --create-home --shell /usr/sbin/nologin skan
COPY --from=build /opt/skan /opt/skan
COPY --from=build /opt/skan/etc/skan.json /etc/skan/skan.json
USER skan
WORKDIR /var/lib/skan
VOLUME /var/lib/skan
# The device port; the admin port (/stats, /metrics) stays on the container's loopback unless
# SKAN_SERVE_ADMIN_HOST and SKAN_SERVE_ADMIN_TOKEN_FILE say otherwise.
EXPOSE 8080
ENV SKAN_CONFIG=/etc/skan/skan.json
# Liveness: /livez answers while the process serves, through a long migration and a drain alike, so Docker marks
# the container unhealthy only when it stopped serving. A load balancer (or Kubernetes' readinessProbe) asks /readyz
# instead: 503 while migrating, from the moment SIGTERM arrives (serve.drain-delay), or while the store fails.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/livez || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["/opt/skan/bin/skan"]
CMD ["serve"]
