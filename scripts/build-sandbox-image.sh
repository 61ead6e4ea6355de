#!/usr/bin/env bash
# Build the grading sandbox image (grader/Dockerfile), with no registry needed.
#
# Environment:
#   SANDBOX_IMAGE       tag to build            (default learnai-sandbox:latest)
#   SANDBOX_BASE_IMAGE  base image              (default python:3.11-slim; on GPU hosts a
#                                                PyTorch CUDA runtime image)
#   TORCH_FROM_BASE=1   the base already has torch 2.13.0 (CUDA); keep it
#   SANDBOX_WHEELHOUSE  wheel cache directory   (default build/wheelhouse)
#   SANDBOX_PYTHON_VERSION  the base's python3  (default 3.11)
# When the base image is absent and cannot be pulled, and SANDBOX_BASE_IMAGE was not
# set, a Debian bookworm base is made with debootstrap (scripts/make-debootstrap-base.sh).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
image="${SANDBOX_IMAGE:-learnai-sandbox:latest}"
base="${SANDBOX_BASE_IMAGE:-python:3.11-slim}"
local_base="learnai-base:bookworm"
torch_from_base="${TORCH_FROM_BASE:-0}"
wheels="${SANDBOX_WHEELHOUSE:-$root/build/wheelhouse}"

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

if ! have_image "$base"; then
    if timeout 60 docker pull "$base" >/dev/null 2>&1; then
        echo "pulled $base"
    elif [ -z "${SANDBOX_BASE_IMAGE:-}" ] && command -v debootstrap >/dev/null; then
        echo "$base is absent and no registry answers: using a debootstrap base ($local_base)"
        have_image "$local_base" || "$root/scripts/make-debootstrap-base.sh" "$local_base"
        base="$local_base"
    else
        echo "error: base image $base is absent and cannot be pulled" >&2
        echo "       (install debootstrap, or set SANDBOX_BASE_IMAGE to an image you have)" >&2
        exit 1
    fi
fi

# The wheelhouse is kept between builds; pip download skips what is already there.
if [ "$torch_from_base" = "1" ]; then
    "$root/scripts/make-wheelhouse.sh" "$wheels" --no-torch
else
    "$root/scripts/make-wheelhouse.sh" "$wheels"
fi

# A small build context made on purpose: the grader package, never the web app,
# instance data or learners' submissions.
ctx="$(mktemp -d /tmp/learnai-sandbox-ctx.XXXXXX)"
trap 'rm -rf "$ctx"' EXIT
cp "$root/grader/Dockerfile" "$root/scripts/sandbox-requirements.txt" "$ctx/"
mkdir "$ctx/grader"
tar -C "$root/grader" --exclude='__pycache__' --exclude='*.pyc' --exclude='Dockerfile' -c . \
    | tar -C "$ctx/grader" -x
cp -al "$wheels" "$ctx/wheelhouse" 2>/dev/null || cp -a "$wheels" "$ctx/wheelhouse"

# Lets the backend and the tests tell an image built from other grader code
# (grader/sandboxes/docker_image.py computes the same digest).
grader_hash="$(cd "$root" && find grader -name '*.py' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)"

docker build --pull=false -t "$image" \
    --build-arg "BASE_IMAGE=$base" --build-arg "TORCH_FROM_BASE=$torch_from_base" \
    --label "learnai.grader-hash=$grader_hash" \
    --label "learnai.grader-commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    "$ctx"
echo "built $image on $base"
