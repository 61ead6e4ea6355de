"""Defers torch's compiler import (torch._dynamo) until something compiles: a grading-speed measure.

torch imports torch._dynamo on a process's first optimizer step, only to mark a graph break
and to wrap a few optimizer methods in "do not compile"; both do nothing unless code runs
under torch.compile. The import costs about 1.5 s of CPU per process, which on a 2-core grader
is close to half of what grading a training loop costs (harness and learner runner each pay it).

`defer_dynamo_import()` puts a stand-in module under the name torch._dynamo. It answers those
two calls itself; any other use (torch.compile, torch._dynamo.config, a submodule import) loads
the real module, puts it in the stand-in's place and carries on with it. What it gives up:
optimizer methods first called before that moment are not marked "do not compile" afterwards,
which only matters to code that compiles an optimizer, never to grading.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable
from typing import Any

NAME = "torch._dynamo"


class _DeferredDynamo(types.ModuleType):
    """Stands in for torch._dynamo until something needs more than a no-op."""

    def __init__(self) -> None:
        super().__init__(NAME, __doc__)
        self._real: types.ModuleType | None = None

    def _load(self) -> types.ModuleType:
        if self._real is None:
            import torch

            if sys.modules.get(NAME) is self:
                del sys.modules[NAME]
            self._real = importlib.import_module(NAME)
            torch._dynamo = self._real  # type: ignore[attr-defined]
        return self._real

    def graph_break(self, *args: Any, **kwargs: Any) -> Any:
        # Outside torch.compile a graph break has nothing to break.
        if self._real is not None:
            return self._real.graph_break(*args, **kwargs)
        return None

    def disable(self, fn: Callable[..., Any] | None = None, *args: Any, **kwargs: Any) -> Any:
        # Outside torch.compile "do not compile fn" is fn itself.
        if self._real is not None:
            return self._real.disable(fn, *args, **kwargs)
        return fn if fn is not None else (lambda inner: inner)

    def __getattr__(self, name: str) -> Any:
        # Anything else (including __path__ for a submodule import) needs the real module.
        if name.startswith("__") and name not in ("__path__", "__file__", "__all__"):
            raise AttributeError(name)
        return getattr(self._load(), name)


def defer_dynamo_import() -> bool:
    """Install the stand-in unless torch._dynamo is loaded already; True when installed."""
    import torch

    if NAME in sys.modules:
        return False
    stand_in = _DeferredDynamo()
    sys.modules[NAME] = stand_in
    torch._dynamo = stand_in  # type: ignore[attr-defined]
    return True


def is_deferred() -> bool:
    module = sys.modules.get(NAME)
    return isinstance(module, _DeferredDynamo) and module._real is None
