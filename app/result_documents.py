"""Stored results documents as readers need them, whichever release of results v1 stored them."""

from __future__ import annotations

import copy
import re
from typing import Any

# Documents stored before `blocked_by` (results v1, additive) said it only in English.
_LEGACY_DEPENDS = re.compile(r"^depends on '([a-z0-9][a-z0-9-]*)'$")


def blocked_by(test: Any) -> str | None:
    """The slug of the check whose failure skipped this test entry, or None.

    The grader's `blocked_by` field; in a document stored before that field existed, the slug
    its "depends on '<slug>'" message names.
    """
    if not isinstance(test, dict) or test.get("status") != "skip":
        return None
    slug = test.get("blocked_by")
    if isinstance(slug, str):
        return slug
    if "blocked_by" in test:
        return None  # a document with the field: nothing it depends on blocked this one
    found = _LEGACY_DEPENDS.match(str(test.get("message") or ""))
    return found.group(1) if found else None


def readable(doc: Any) -> Any:
    """A copy of a stored document with `blocked_by` set on every test entry (the browser reads it)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("tests"), list):
        return doc
    found = copy.copy(doc)
    found["tests"] = [{**test, "blocked_by": blocked_by(test)} if isinstance(test, dict) else test
                      for test in doc["tests"]]
    return found
