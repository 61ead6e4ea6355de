"""This process's sandbox resources in one registry: each forgotten in a forked child, closed at exit."""

# Pools, their warm sandboxes, the zygote, the docker engine's client and the Run slots belong
# to one process. A forked child (a Celery prefork worker) must start its own and never end its
# parent's; at interpreter exit whatever this process started is ended (no sandbox left behind).
# One at-fork hook and one atexit hook here do both for every one of them.

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class _Resource:
    name: str
    forget: Callable[[], None] | None
    close: Callable[[], None] | None


_resources: list[_Resource] = []
_shared: dict[str, Any] = {}  # values made by shared(), this process's own
_making: dict[str, threading.Lock] = {}  # one per name: a zygote starting never holds up a client
_lock = threading.Lock()  # guards the two dicts, never held while a value is made


def register(name: str, *, forget: Callable[[], None] | None = None,
             close: Callable[[], None] | None = None) -> None:
    """Module state of this process: `forget` drops it in a forked child, `close` ends it at exit.

    Closed in the order registered, and a module registers after the modules it imports: the
    pools (grader.sandboxes.pool) stop refilling before the sandboxes they start are removed.
    """
    _resources.append(_Resource(name, forget, close))


def shared(name: str, make: Callable[[], T], *, usable: Callable[[T], bool] | None = None) -> T:
    """This process's one `name`, made by `make` on first use (and again when `usable` says no).

    A forked child never sees its parent's: it makes its own on first use.
    """
    with _lock:
        making = _making.setdefault(name, threading.Lock())
    with making:
        value = _shared.get(name)
        if value is None or (usable is not None and not usable(value)):
            value = make()
            with _lock:
                _shared[name] = value
        return value


def current(name: str) -> Any | None:
    """This process's `name` if it was made (None: not yet)."""
    return _shared.get(name)


def take_back(name: str) -> Any | None:
    """Remove `name` from the registry and return it (to be closed by the caller), or None."""
    with _lock:
        return _shared.pop(name, None)


def forget_all() -> None:
    """In a forked child: the parent's resources are the parent's; start afresh, touch nothing."""
    global _lock
    _lock = threading.Lock()  # it may have been held by a parent thread at fork time
    _making.clear()
    _shared.clear()
    for resource in _resources:
        if resource.forget is not None:
            resource.forget()


def close_all() -> None:
    """End every resource of this process (at exit, and for tests); one failing never stops the rest."""
    for resource in _resources:
        if resource.close is None:
            continue
        try:
            resource.close()
        except Exception:  # noqa: BLE001 -- at exit the janitor is the backstop
            log.warning("could not close %s", resource.name, exc_info=True)


os.register_at_fork(after_in_child=forget_all)
atexit.register(close_all)
