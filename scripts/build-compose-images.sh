#!/usr/bin/env bash
# Redis and PostgreSQL images for compose.yaml, built from Debian's packages on the local base
# image (made by debootstrap when no registry answers, as for the sandbox image).
#   REDIS_IMAGE (learnai-redis:7) and POSTGRES_IMAGE (learnai-postgres:15) name them.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/base-image.sh
. "$root/scripts/base-image.sh"
redis_image="${REDIS_IMAGE:-learnai-redis:7}"
postgres_image="${POSTGRES_IMAGE:-learnai-postgres:15}"
# Debian's redis and postgresql packages: always the local bookworm base (made if absent).
base="$(choose_base "$LOCAL_BASE" 0)"
docker build --pull=false -t "$redis_image" --build-arg "BASE_IMAGE=$base" \
    -f "$root/compose/redis.Dockerfile" "$root/compose"
docker build --pull=false -t "$postgres_image" --build-arg "BASE_IMAGE=$base" \
    -f "$root/compose/postgres.Dockerfile" "$root/compose"
echo "built $redis_image and $postgres_image on $base"
