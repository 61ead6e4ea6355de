"""docs/architecture.md names only files and folders that exist, and stays a short map."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"


def named_paths() -> list[str]:
    """Every `code span` that names a repository path (it has a slash): `app/grading/jobs.py`, `grader/amp/`."""
    spans = re.findall(r"`([^`\s]+)`", DOC.read_text(encoding="utf-8"))
    return [span.split(":")[0] for span in spans if "/" in span and not span.startswith("/")]


def test_every_path_the_map_names_exists() -> None:
    paths = named_paths()
    assert len(paths) > 30
    missing = [path for path in paths if "*" not in path and not (ROOT / path.rstrip("/")).exists()]
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_every_module_pattern_matches_a_file() -> None:
    for pattern in re.findall(r"`(grader/amp/checks_\*\.py)`", DOC.read_text(encoding="utf-8")):
        assert list(ROOT.glob(pattern)), pattern


def test_a_named_function_is_defined_where_the_map_says() -> None:
    for path, name in re.findall(r"`([\w/]+\.py):(\w+)`", DOC.read_text(encoding="utf-8")):
        assert re.search(rf"^def {name}\(", (ROOT / path).read_text(encoding="utf-8"), re.M), f"{path}:{name}"


def test_the_map_is_short() -> None:
    assert len(DOC.read_text(encoding="utf-8").splitlines()) <= 60
