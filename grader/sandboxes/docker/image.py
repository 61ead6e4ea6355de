"""The sandbox image: its name, and whether it holds the grader code this host is running."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

IMAGE = "learnai-sandbox:latest"
LABEL_SOURCE_HASH = "learnai.grader-hash"
GRADER_DIR = Path(__file__).resolve().parents[2]  # grader/


def image_name() -> str:
    return os.environ.get("GRADER_SANDBOX_IMAGE", IMAGE)


def source_hash(grader_dir: Path = GRADER_DIR) -> str:
    """A digest of grader/**/*.py: the image's label (scripts/build-sandbox-image.sh calls this).

    The same as `cd REPO && find grader -name '*.py' | LC_ALL=C sort | xargs sha256sum | sha256sum`.
    """
    lines = []
    root = grader_dir.parent
    for path in sorted((p.relative_to(root).as_posix() for p in grader_dir.rglob("*.py")),
                       key=lambda name: name.encode()):
        digest = hashlib.sha256((root / path).read_bytes()).hexdigest()
        lines.append(f"{digest}  {path}\n")
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def image_state(client: Any) -> str:
    """'missing', 'stale' (built from other grader code) or 'current'."""
    import docker.errors

    try:
        image = client.images.get(image_name())
    except docker.errors.ImageNotFound:
        return "missing"
    built_from = (image.labels or {}).get(LABEL_SOURCE_HASH)
    return "current" if built_from == source_hash() else "stale"
