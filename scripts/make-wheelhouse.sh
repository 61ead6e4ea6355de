#!/usr/bin/env bash
# Download the sandbox image's Python wheels on the host, so `docker build` needs no network.
# Usage: make-wheelhouse.sh DIR [--no-torch]   (--no-torch: the base image brings torch)
# SANDBOX_PYTHON_VERSION (default 3.11) must match the base image's python3.
set -euo pipefail

dir="${1:?usage: make-wheelhouse.sh DIR [--no-torch]}"
here="$(cd "$(dirname "$0")" && pwd)"
pip="${PIP:-$here/../.venv/bin/pip}"
[ -x "$pip" ] || pip="pip3"
reqs="$here/../grader/sandbox-requirements.txt"
if [ "${2:-}" = "--no-torch" ]; then
    reqs="$(mktemp)"; trap 'rm -f "$reqs"' EXIT
    grep -v '^torch' "$here/../grader/sandbox-requirements.txt" > "$reqs"
fi

mkdir -p "$dir"
# Binary wheels only, for the image's CPython on x86_64 (3.11: python:3.11-slim and
# Debian bookworm alike), so no sdist can try to compile inside the build.
"$pip" download --quiet --only-binary=:all: --python-version "${SANDBOX_PYTHON_VERSION:-3.11}" \
    --implementation cp \
    --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 --platform linux_x86_64 \
    -d "$dir" -r "$reqs"
echo "wheelhouse ready in $dir ($(ls "$dir" | wc -l) wheels)"
