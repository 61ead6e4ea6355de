"""Suite-wide fixtures: repository paths, and a short-limit copy of an exercise for slow failure modes."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXERCISES = REPO / "exercises"


@pytest.fixture(scope="session")
def exercises_dir() -> Path:
    return EXERCISES


def copy_with_time_limit(source: Path, target_root: Path, time_s: float) -> Path:
    """A copy of an exercise folder whose time limit is `time_s`, so timeouts are quick to test."""
    target = target_root / source.name
    shutil.copytree(source, target)
    config = target / "exercise.toml"
    text = config.read_text(encoding="utf-8")
    text, count = re.subn(r"(?m)^time_s\s*=.*$", f"time_s = {time_s}", text)
    if not count:
        text += f"\n[limits]\ntime_s = {time_s}\n"
    config.write_text(text, encoding="utf-8")
    return target


@pytest.fixture(scope="session")
def quick_flagship(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """amp-train-one-epoch with an 8-second limit."""
    return copy_with_time_limit(EXERCISES / "amp-train-one-epoch", tmp_path_factory.mktemp("ex"), 8)
