#!/usr/bin/env bash
# Build the web/worker image (top-level Dockerfile) with no registry needed, like
# build-sandbox-image.sh: the same base image choice (scripts/base-image.sh) and a wheelhouse
# downloaded on the host.
#
# Environment:
#   WEB_IMAGE           tag to build            (default learnai-web:latest)
#   WEB_BASE_IMAGE      base image              (default python:3.11-slim, else learnai-base:bookworm)
#   WEB_WHEELHOUSE      wheel cache directory   (default build/web-wheelhouse)
# Needs app/static/dist/editor.js (make bundle) and the venv's pip.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/base-image.sh
. "$root/scripts/base-image.sh"
image="${WEB_IMAGE:-learnai-web:latest}"
wheels="${WEB_WHEELHOUSE:-$root/build/web-wheelhouse}"
pip="${PIP:-$root/.venv/bin/pip}"
python="${PYTHON:-$root/.venv/bin/python}"

[ -f "$root/app/static/dist/editor.js" ] || { echo "error: run 'make bundle' first" >&2; exit 1; }

explicit=0; [ -n "${WEB_BASE_IMAGE:-}" ] && explicit=1
base="$(choose_base "${WEB_BASE_IMAGE:-python:3.11-slim}" "$explicit")"

ctx="$(mktemp -d /tmp/learnai-web-ctx.XXXXXX)"
trap 'rm -rf "$ctx"' EXIT

# The project's dependencies without torch (no learner code runs in this image), with the
# postgres extra; read from pyproject.toml so the two never drift apart.
"$python" - "$root/pyproject.toml" > "$ctx/web-requirements.txt" <<'PY'
import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
for requirement in project["dependencies"] + project["optional-dependencies"]["postgres"]:
    if not requirement.startswith("torch"):
        print(requirement)
# redis-py needs it below CPython 3.11.3 (Debian bookworm has 3.11.2); `pip download` for
# "3.11" does not see that marker, so it is named here.
print("async-timeout>=4.0.3")
PY

mkdir -p "$wheels"
"$pip" download --quiet --only-binary=:all: --python-version 3.11 --implementation cp \
    --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 --platform linux_x86_64 \
    -d "$wheels" -r "$ctx/web-requirements.txt"
cp -al "$wheels" "$ctx/wheelhouse" 2>/dev/null || cp -a "$wheels" "$ctx/wheelhouse"

# A context made on purpose: code and course content, never instance data, venvs or tests.
mkdir "$ctx/src"
# --dereference: the package's links to repository files (grader/glossary.md) become the files.
# course.toml and the glossary it names: validate on a worker applies the course's declared house style.
for part in app grader lessons exercises migrations course.toml docs/glossary.md; do
    tar -C "$root" --exclude='__pycache__' --exclude='*.pyc' --exclude='app/static/src' \
        --exclude='*.mo' --dereference -c "$part" | tar -C "$ctx/src" -x
done
cp "$root/Dockerfile" "$ctx/"

docker build --pull=false -t "$image" --build-arg "BASE_IMAGE=$base" \
    --label "learnai.commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" "$ctx"
echo "built $image on $base"
