"""What lies directly in a few shared folders (/tmp, /dev/shm, ...): each name with its lstat."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator


def entries(folders: Iterable[str]) -> Iterator[tuple[str, os.stat_result]]:
    """Each path directly in these folders, with its lstat; a folder that cannot be read, or a
    name gone while we looked, is skipped (a job may still be removing its own files)."""
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            try:
                yield path, os.lstat(path)
            except OSError:
                continue
