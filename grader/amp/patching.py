"""Reversible monkeypatching: every replaced attribute is put back, in reverse order, on exit."""

from __future__ import annotations

import types
from typing import Any

_MISSING = object()


class Patcher:
    """Replaces attributes on classes, modules and namespaces and remembers how to undo it."""

    def __init__(self) -> None:
        self._undo: list[tuple[Any, str, Any]] = []

    def replace(self, owner: Any, name: str, new: Any) -> Any:
        """Set owner.name = new and return what was there (the original to call through)."""
        current = getattr(owner, name)
        old = owner.__dict__.get(name, _MISSING) if _has_dict(owner) else current
        self._undo.append((owner, name, old))
        setattr(owner, name, new)
        return current

    def replace_in_namespace(self, namespace: dict[str, Any], original: Any, new: Any) -> None:
        """Rebind every name in a module namespace that refers to `original` (from-imports).

        `from torch.nn.utils import clip_grad_norm_` binds the function before tracing starts;
        patching torch's module alone would not reach the learner's own reference to it.
        """
        for key, value in list(namespace.items()):
            if value is original:
                self._undo.append((namespace, key, value))
                namespace[key] = new

    def restore(self) -> None:
        while self._undo:
            owner, name, old = self._undo.pop()
            if isinstance(owner, dict):
                owner[name] = old
            elif old is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, old)


def _has_dict(owner: Any) -> bool:
    # Classes and modules keep their own attributes in __dict__; inherited ones must not be
    # copied down onto a subclass when we restore, so we remember "was not there" instead.
    return isinstance(owner, (type, types.ModuleType))
