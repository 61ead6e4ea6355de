#!/usr/bin/env bash
# Build the grading sandbox image (grader/Dockerfile), with no registry needed.
#
# Environment:
#   GRADER_SANDBOX_IMAGE  tag to build, the name the grader runs (default learnai-sandbox:latest;
#                         SANDBOX_IMAGE is the older name of the same setting)
#   SANDBOX_BASE_IMAGE  base image              (default python:3.11-slim; on GPU hosts a
#                                                PyTorch CUDA runtime image)
#   TORCH_FROM_BASE=1   the base already has torch 2.13.0 (CUDA); keep it
#   SANDBOX_WHEELHOUSE  wheel cache directory   (default build/wheelhouse)
#   SANDBOX_PYTHON_VERSION  the base's python3  (default 3.11)
#   PYTHON              the venv's interpreter  (default .venv/bin/python: the grader hash)
# The base is chosen as for every image here (scripts/base-image.sh): a Debian bookworm base
# made with debootstrap when the default is absent and cannot be pulled.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/base-image.sh
. "$root/scripts/base-image.sh"
image="${GRADER_SANDBOX_IMAGE:-${SANDBOX_IMAGE:-learnai-sandbox:latest}}"
torch_from_base="${TORCH_FROM_BASE:-0}"
wheels="${SANDBOX_WHEELHOUSE:-$root/build/wheelhouse}"
python="${PYTHON:-$root/.venv/bin/python}"
explicit=0; [ -n "${SANDBOX_BASE_IMAGE:-}" ] && explicit=1
base="$(choose_base "${SANDBOX_BASE_IMAGE:-python:3.11-slim}" "$explicit")"

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
cp "$root/grader/Dockerfile" "$root/grader/sandbox-requirements.txt" "$ctx/"
mkdir "$ctx/grader"
tar -C "$root/grader" --exclude='__pycache__' --exclude='*.pyc' --exclude='Dockerfile' -c . \
    | tar -C "$ctx/grader" -x
cp -al "$wheels" "$ctx/wheelhouse" 2>/dev/null || cp -a "$wheels" "$ctx/wheelhouse"

# Lets the backend and the tests tell an image built from other grader code: the digest the
# backend compares, computed by the same function (one source).
grader_hash="$(cd "$root" && "$python" -c \
    'from grader.sandboxes.docker.image import source_hash; print(source_hash())')"

docker build --pull=false -t "$image" \
    --build-arg "BASE_IMAGE=$base" --build-arg "TORCH_FROM_BASE=$torch_from_base" \
    --label "learnai.grader-hash=$grader_hash" \
    --label "learnai.grader-commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    "$ctx"
echo "built $image on $base"
