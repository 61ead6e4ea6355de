"""Batches that reach the model without `.to(device)`, seen on a grader where the move changes nothing.

On a CPU grader `tensor.to("cpu")` returns the tensor itself, so a loop that never moves its
batch (or calls `inputs.to(device)` without keeping the result) trains exactly like one that
does, and would fail only on the learner's GPU. Here a move of a loader tensor always makes a
new tensor object (a view: no copy), and the model's forward hook asks whether it was handed
one of the loader's tensors itself.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import torch
from torch.utils.data import DataLoader


class BatchMoves:
    """While active: counts forward passes handed a loader tensor that was never moved."""

    def __init__(self) -> None:
        self.held: dict[int, torch.Tensor] = {}  # the current batch's tensors, held so ids stay unique
        self.unmoved = 0
        self._saved: list[tuple[str, Any]] = []

    def hold(self, batch: Any) -> None:
        items = batch.values() if isinstance(batch, dict) else batch if isinstance(batch, (list, tuple)) else [batch]
        self.held = {id(t): t for t in items if isinstance(t, torch.Tensor)}

    def is_batch(self, value: Any) -> bool:
        return isinstance(value, torch.Tensor) and self.held.get(id(value)) is value

    def on_forward(self, args: tuple[Any, ...]) -> None:
        if any(self.is_batch(a) for a in args):
            self.unmoved += 1

    def __enter__(self) -> BatchMoves:
        orig_to, orig_cuda = torch.Tensor.to, torch.Tensor.cuda
        watch = self

        def fresh(tensor: torch.Tensor, result: Any) -> Any:
            return result.view_as(result) if result is tensor and watch.is_batch(tensor) else result

        @functools.wraps(orig_to)
        def to(tensor: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
            result = orig_to(tensor, *args, **kwargs)
            # Any explicit device is a move; a dtype alone is not.
            explicit = any(isinstance(a, (str, torch.device, torch.Tensor)) for a in args) or "device" in kwargs
            return fresh(tensor, result) if explicit else result

        @functools.wraps(orig_cuda)
        def cuda(tensor: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
            return fresh(tensor, orig_cuda(tensor, *args, **kwargs))

        self._saved = [("to", orig_to), ("cuda", orig_cuda)]
        torch.Tensor.to, torch.Tensor.cuda = to, cuda  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        for name, original in self._saved:
            setattr(torch.Tensor, name, original)
        self.held = {}


class WatchedLoader(DataLoader):
    """A real DataLoader that tells a BatchMoves (if any) which tensors it just yielded."""

    def __init__(self, *args: Any, moves: BatchMoves | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.moves = moves

    def __iter__(self) -> Iterator[Any]:
        for batch in super().__iter__():
            if self.moves is not None:
                self.moves.hold(batch)
            yield batch
