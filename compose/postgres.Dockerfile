# PostgreSQL for compose.yaml from Debian's package (bookworm: 15), on the same local base as the
# other images: `docker compose up` needs no registry (`make compose-images`).
ARG BASE_IMAGE=learnai-base:bookworm
FROM ${BASE_IMAGE}
RUN set -eux; \
    apt-get update; \
    apt-get install -y --no-install-recommends postgresql-15; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/*; \
    mkdir -p /var/lib/postgresql/data /run/postgresql; \
    chown -R postgres:postgres /var/lib/postgresql /run/postgresql; \
    chmod 0700 /var/lib/postgresql/data
COPY postgres-entry.sh /usr/local/bin/postgres-entry
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
USER postgres
EXPOSE 5432
CMD ["postgres-entry"]
