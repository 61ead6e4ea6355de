#!/usr/bin/env bash
# Make a Debian bookworm base image with python3 without any image registry.
# Used by build-sandbox-image.sh when the named base image is absent and cannot be pulled.
set -euo pipefail

name="${1:-learnai-base:bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
work="$(mktemp -d /tmp/learnai-debootstrap.XXXXXX)"
trap 'rm -rf "$work"' EXIT

# minbase keeps the image small; python3-venv brings ensurepip's wheels, so the
# Dockerfile can make a venv and install from the wheelhouse without the network.
debootstrap --variant=minbase --include=python3,python3-venv bookworm "$work/root" "$mirror"

# apt lists and caches have no use in a sandbox and only grow the image.
rm -rf "$work/root/var/lib/apt/lists/"* "$work/root/var/cache/apt/"*
tar -C "$work/root" -c . | docker import \
    --change 'ENV LANG=C.UTF-8' --change 'CMD ["python3"]' - "$name"
echo "made base image $name"
