"""The AMP tracer: records a learner's training loop as events while it runs (runner process)."""

from __future__ import annotations

import collections
import weakref
from typing import Any

import torch
from torch.amp.grad_scaler import OptState

from grader.amp import hooks_amp, hooks_train
from grader.amp.events import SUBMISSION_FILENAME, EventLog
from grader.amp.patching import Patcher

_active: Tracer | None = None


def active() -> Tracer | None:
    """The tracer currently installed, if any (the traced DataLoader reports to it)."""
    return _active


class Tracer:
    """Context manager that instruments torch's AMP and training APIs and restores them on exit.

    Base classes are instrumented (`torch.amp.autocast_mode.autocast`, `torch.amp.GradScaler`,
    `torch.optim.Optimizer`, `torch.Tensor`), so every spelling of the same call is seen:
    `torch.autocast`, `torch.cuda.amp.autocast`, aliases, decorators and helpers alike.
    """

    def __init__(
        self,
        *,
        model: torch.nn.Module | None = None,
        criterion: torch.nn.Module | None = None,
        namespace: dict[str, Any] | None = None,
        cpu_for_cuda: bool | None = None,
        force_dtype: str | None = None,
        filename: str = SUBMISSION_FILENAME,
    ) -> None:
        self.log = EventLog(filename)
        self.model = model
        self.criterion = criterion
        self.params: list[torch.Tensor] = list(model.parameters()) if model is not None else []
        self.namespace = namespace
        # Without CUDA, "cuda" requests would silently switch AMP off (amp-facts); we run them
        # on the CPU instead, so the loop's scoping and protocol are still exercised.
        if cpu_for_cuda is None:
            cpu_for_cuda = not torch.cuda.is_available()
        self.cpu_for_cuda = cpu_for_cuda
        # The reference run adopts the learner's precision ("float16", "bfloat16", or "float32"
        # for no autocast), so outcomes compare like with like: bfloat16 rounding alone moves
        # these weights by up to 3e-2, more than many real mistakes do.
        self.force_dtype = force_dtype
        self.patcher = Patcher()
        self._handles: list[Any] = []
        self._ids: dict[int, int] = {}
        self._keep: list[Any] = []  # keeps numbered objects alive so their id() stays unique
        self.provided: dict[str, int] = {}
        self.scaled_tensors: dict[int, tuple[weakref.ref[torch.Tensor], int]] = {}
        self.scaled_nodes: collections.deque[tuple[Any, int]] = collections.deque(maxlen=64)
        self.depth = collections.Counter[str]()  # re-entrancy: scaler.step, backward, _apply
        self.optimizer_steps = 0
        self.autocast_entries = 0
        # The loader's tensors of the current batch, by id (held, so an id is never reused while
        # looked up): one reaching the model or loss as is was never moved to the device.
        self.batch_tensors: dict[int, torch.Tensor] = {}

    # ---- identities -------------------------------------------------------------------------
    def ref(self, obj: Any) -> int:
        """A small stable number for an object (scalers, optimizers) within this trace."""
        key = id(obj)
        if key not in self._ids:
            self._ids[key] = len(self._ids) + 1
            self._keep.append(obj)
        return self._ids[key]

    def hold_batch(self, batch: Any) -> None:
        """Remember the tensors the loader just yielded (the previous batch's are let go)."""
        items = batch.values() if isinstance(batch, dict) else batch if isinstance(batch, (list, tuple)) else [batch]
        self.batch_tensors = {id(t): t for t in items if isinstance(t, torch.Tensor)}

    def is_batch(self, value: Any) -> bool:
        """`value` is one of the loader's tensors itself, never moved (a move makes a new tensor)."""
        return isinstance(value, torch.Tensor) and self.batch_tensors.get(id(value)) is value

    def provide(self, **objects: Any) -> None:
        """Mark objects that the scenario handed to the learner (scaler=..., optimizer=...)."""
        for role, obj in objects.items():
            self.provided[role] = self.ref(obj)

    # ---- state the checks need --------------------------------------------------------------
    @property
    def model_device_type(self) -> str:
        return self.params[0].device.type if self.params else "cpu"

    def autocast_state(self, device_type: str | None = None) -> tuple[bool, str | None]:
        """(enabled, dtype) of autocast right now for a device type (the model's by default)."""
        device_type = device_type or self.model_device_type
        if not torch.is_autocast_enabled(device_type):
            return False, None
        return True, str(torch.get_autocast_dtype(device_type)).removeprefix("torch.")

    def any_autocast(self) -> bool:
        return any(torch.is_autocast_enabled(d) for d in ("cpu", "cuda"))

    def grads_clean(self) -> bool:
        """True when no watched parameter holds a non-zero gradient (zeroed or None)."""
        with torch.no_grad():
            return all(p.grad is None or not bool(p.grad.any()) for p in self.params)

    def param_dtypes(self) -> list[str]:
        return sorted({str(p.dtype).removeprefix("torch.") for p in self.params})

    def grads_unscaled(self) -> bool | None:
        """Whether an enabled scaler has unscaled the optimizer's grads this iteration.

        None when no enabled scaler is in play (BF16 without a scaler: nothing to unscale).
        """
        scalers = [o for o in self._keep if isinstance(o, torch.amp.GradScaler) and o.is_enabled()]
        optimizers = [o for o in self._keep if isinstance(o, torch.optim.Optimizer)]
        if not scalers:
            return None
        for scaler in scalers:
            states = getattr(scaler, "_per_optimizer_states", {})
            for optimizer in optimizers:
                state = states.get(id(optimizer)) if id(optimizer) in states else None
                if state is not None and state["stage"] is OptState.UNSCALED:
                    return True
        return False

    def remember_scaled(self, result: Any, scaler_ref: int) -> None:
        tensors = result if isinstance(result, (list, tuple)) else [result]
        for tensor in tensors:
            if isinstance(tensor, torch.Tensor):
                self.scaled_tensors[id(tensor)] = (weakref.ref(tensor), scaler_ref)
                if tensor.grad_fn is not None:
                    self.scaled_nodes.append((tensor.grad_fn, scaler_ref))

    def scaled_by(self, tensor: torch.Tensor) -> tuple[int | None, bool]:
        """(scaler number, derived) if the tensor is scaler.scale's output or computed from it."""
        entry = self.scaled_tensors.get(id(tensor))
        if entry is not None and entry[0]() is tensor:
            return entry[1], False
        nodes = {id(node): ref for node, ref in self.scaled_nodes}
        frontier, seen = [tensor.grad_fn], 0
        # A short walk up the graph accepts `(scaler.scale(loss) / k).backward()` and friends.
        for _ in range(4):
            following = []
            for node in frontier:
                if node is None:
                    continue
                if id(node) in nodes and seen:
                    return nodes[id(node)], True
                following.extend(fn for fn, _ in node.next_functions)
            frontier, seen = following, seen + 1
        return None, False

    # ---- install / restore ------------------------------------------------------------------
    def __enter__(self) -> Tracer:
        global _active
        if _active is not None:
            raise RuntimeError("a tracer is already active")
        try:
            hooks_amp.install(self)
            hooks_train.install(self)
        except BaseException:
            self._uninstall()
            raise
        _active = self
        return self

    def __exit__(self, *exc: object) -> None:
        self._uninstall()

    def _uninstall(self) -> None:
        global _active
        _active = None
        for handle in reversed(self._handles):
            handle.remove()
        self._handles.clear()
        self.patcher.restore()
        self.scaled_tensors.clear()
        self.scaled_nodes.clear()

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.log.events
