"""Stored JSON documents read without trusting them: SQL paths that skip a document that is not
valid JSON, and non-finite numbers dropped when a row is loaded (with a log line naming the row).

Python's json writes NaN and Infinity, which no JSON parser in a database accepts: on SQLite a
`json_extract` over such a row raises "malformed JSON" for the whole query (every instructor
page, the CSV export, the owner's history). PostgreSQL refuses them when they are written.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from sqlalchemy import Boolean, case, event
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.sql.functions import FunctionElement

log = logging.getLogger(__name__)


class valid_json(FunctionElement):  # noqa: N801 -- an SQL function, named as SQL names it
    """True where the column holds a document the database can read as JSON (NULL: NULL)."""

    type = Boolean()
    inherit_cache = True


@compiles(valid_json)
def _valid_elsewhere(element: valid_json, compiler: Any, **kw: Any) -> str:
    # PostgreSQL's json type refuses what is not JSON when it is written: every row is readable.
    return "(%s IS NOT NULL)" % compiler.process(element.clauses, **kw)  # noqa: UP031


@compiles(valid_json, "sqlite")
def _valid_sqlite(element: valid_json, compiler: Any, **kw: Any) -> str:
    return "json_valid(%s)" % compiler.process(element.clauses, **kw)  # noqa: UP031


def text_at(column: Any, key: str) -> Any:
    """`column ->> key` as text, NULL where the document is not valid JSON."""
    return case((valid_json(column), column[key].as_string()), else_=None)


def number_at(column: Any, key: str) -> Any:
    """`column ->> key` as a float, NULL where the document is not valid JSON."""
    return case((valid_json(column), column[key].as_float()), else_=None)


def finite(value: Any) -> tuple[Any, bool]:
    """`value` with every NaN and infinity replaced by None, and whether there was one."""
    if isinstance(value, float) and not math.isfinite(value):
        return None, True
    if isinstance(value, dict):
        pairs = [(key, finite(item)) for key, item in value.items()]
        return {key: item for key, (item, _) in pairs}, any(bad for _, (_, bad) in pairs)
    if isinstance(value, list):
        items = [finite(item) for item in value]
        return [item for item, _ in items], any(bad for _, bad in items)
    return value, False


def finite_on_load(model: Any, attribute: str = "result") -> None:
    """Every loaded row of `model` has a finite `attribute`; a row that had not is logged by its id.

    The loaded value is replaced without marking the row changed: reading never writes.
    """
    def loaded(target: Any, *_args: Any) -> None:
        value = target.__dict__.get(attribute)
        if value is None:
            return
        cleaned, bad = finite(value)
        if bad:
            log.error("stored data error: %s row %s holds NaN or Infinity in %s; read as null",
                      model.__tablename__, getattr(target, "id", "?"), attribute)
            set_committed_value(target, attribute, cleaned)

    event.listen(model, "load", loaded)
    event.listen(model, "refresh", loaded)
