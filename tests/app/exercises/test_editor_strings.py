"""The editor's strings are the ones its script reads: the old browser renderer's stayed behind it."""

from __future__ import annotations

import re
from pathlib import Path

from app.exercises.strings import editor_strings

SCRIPTS = Path(__file__).resolve().parents[3] / "app" / "static" / "src"
# Read by a computed key: strings[status] (editor.js's waitLabel) and strings[`hint_${kind}`]
# (results.js's hint rungs).
BY_STATUS = {"queued", "running", "done"}
BY_RUNG = {"hint_concept", "hint_api"}


def test_every_editor_string_is_read_by_the_script(app):
    source = "\n".join(path.read_text(encoding="utf-8") for path in SCRIPTS.glob("*.js"))
    read = set(re.findall(r"\bstrings\.(\w+)", source))
    assert "strings[status]" in source and "strings[`hint_${found.kind}`]" in source
    with app.test_request_context():
        keys = set(editor_strings())
    assert keys - read - BY_STATUS - BY_RUNG == set()
    assert read <= keys  # and nothing the script reads is missing
