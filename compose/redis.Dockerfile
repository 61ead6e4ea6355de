# Redis for compose.yaml from Debian's package, on the same local base as the other images:
# `docker compose up` needs no registry (scripts/build-compose-images.sh, `make compose-images`).
ARG BASE_IMAGE=learnai-base:bookworm
FROM ${BASE_IMAGE}
RUN set -eux; \
    apt-get update; \
    apt-get install -y --no-install-recommends redis-server; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/*; \
    mkdir -p /data; chown redis:redis /data
USER redis
WORKDIR /data
EXPOSE 6379
# No config file: listen on every interface of the compose network; protected mode off because
# only the compose network reaches it (compose.yaml publishes no Redis port).
CMD ["redis-server", "--protected-mode", "no", "--dir", "/data"]
