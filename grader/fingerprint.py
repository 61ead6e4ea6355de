"""A folder's fingerprint: the hash of its files' names and contents, so a stored verdict knows it is stale."""

from __future__ import annotations

import hashlib
from pathlib import Path

# Not the author's: byte code and editors' leftovers change without the folder changing.
IGNORED_PARTS = ("__pycache__", ".pytest_cache")


def folder_files(folder: Path) -> list[Path]:
    """The folder's files that make the exercise, in a stable order."""
    folder = Path(folder)
    return sorted(p for p in folder.rglob("*") if p.is_file() and not any(
        part in IGNORED_PARTS or part.startswith(".") for part in p.relative_to(folder).parts))


def folder_fingerprint(folder: Path) -> str:
    """SHA-256 over every file's relative path and bytes: equal exactly when the contents are."""
    digest = hashlib.sha256()
    for path in folder_files(folder):
        name = path.relative_to(folder).as_posix().encode()
        data = path.read_bytes()
        digest.update(len(name).to_bytes(4, "big") + name + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()
