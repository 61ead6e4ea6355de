"""Measurement scenario: time the learner's training steps in FP32 and under autocast, per width.

Runs in the learner's process (trusted fixture code next to untrusted code). The grader builds
the models (an MLP of the width the learner chose) and the data; the learner's `time_steps`
trains and times them. Probes on the model and optimizer record what actually ran, so the
checks can tell a real measurement from a made-up one.
"""

from __future__ import annotations

import contextlib
import math
from types import ModuleType
from typing import Any

import torch
from torch import nn

from grader.amp.lazy_dynamo import defer_dynamo_import
from grader.learner_errors import describe_exception
from grader.scenarios import scenario

defer_dynamo_import()

STEPS, WARMUP, CLASSES = 5, 2, 10
LIMITS = {"cpu": {"width": 1024, "batch": 256, "widths": 4},
          "cuda": {"width": 8192, "batch": 4096, "widths": 4}}


def build_model(width: int) -> nn.Module:
    """Three linear layers of the learner's width: the model whose size the learner chooses."""
    return nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                         nn.Linear(width, CLASSES))


def precisions(device: torch.device) -> list[str | None]:
    """FP32 first, then the autocast dtypes this device runs natively."""
    if device.type != "cuda":
        return [None, "bfloat16"]
    found: list[str | None] = [None, "float16"]
    if torch.cuda.is_bf16_supported(including_emulation=False):
        found.append("bfloat16")
    return found


def sizes(submission: ModuleType, device: torch.device) -> tuple[list[int], int, str | None]:
    """The learner's WIDTHS and BATCH_SIZE, or a description of what is wrong with them."""
    limit = LIMITS[device.type]
    widths, batch = getattr(submission, "WIDTHS", None), getattr(submission, "BATCH_SIZE", None)
    if not isinstance(widths, (list, tuple)) or not 1 <= len(widths) <= limit["widths"] or not all(
            isinstance(w, int) and not isinstance(w, bool) and 8 <= w <= limit["width"] for w in widths):
        return [], 0, f"WIDTHS must list 1 to {limit['widths']} whole numbers from 8 to {limit['width']}"
    if not isinstance(batch, int) or isinstance(batch, bool) or not 1 <= batch <= limit["batch"]:
        return [], 0, f"BATCH_SIZE must be a whole number from 1 to {limit['batch']}"
    return sorted(set(widths)), batch, None


class Probe:
    """Counts forwards, backwards, optimizer steps and CUDA synchronisations; notes autocast at
    each forward, gradients left over from the previous step, and steps taken before a backward."""

    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer, device: torch.device):
        self.device = device
        self.forwards = 0
        self.backwards = 0
        self.steps = 0
        self.syncs = 0
        self.stale_gradients = 0  # backwards that added to the previous step's gradients
        self.steps_before_backward = 0  # optimizer steps with no backward since the last one
        self._backward_since_step = False
        self.autocast: set[tuple[bool, str]] = set()
        model.register_forward_pre_hook(self._forward)
        optimizer.register_step_pre_hook(self._before_step)
        optimizer.register_step_post_hook(self._step)
        # The last layer's weight gets its gradient once per backward; its hook runs before the
        # new gradient is added, so a .grad still holding numbers then was never cleared.
        self._watched = list(model.parameters())[-2]
        self._watched.register_hook(self._backward)

    def _backward(self, grad: torch.Tensor) -> torch.Tensor:
        self.backwards += 1
        self._backward_since_step = True
        left = self._watched.grad
        if left is not None and bool(left.detach().ne(0).any()):
            self.stale_gradients += 1
        return grad

    def _before_step(self, *_args: Any) -> None:
        if not self._backward_since_step:
            self.steps_before_backward += 1
        self._backward_since_step = False

    def _forward(self, _module: Any, _inputs: Any) -> None:
        self.forwards += 1
        kind = self.device.type
        enabled = torch.is_autocast_enabled(kind)
        dtype = str(torch.get_autocast_dtype(kind)).removeprefix("torch.") if enabled else "float32"
        self.autocast.add((enabled, dtype))

    def _step(self, *_args: Any) -> None:
        self.steps += 1

    @contextlib.contextmanager
    def counting_syncs(self) -> Any:
        """Wrap torch.cuda.synchronize while the learner's function runs (CUDA only)."""
        original = torch.cuda.synchronize

        def synchronize(*args: Any, **kwargs: Any) -> Any:
            self.syncs += 1
            return original(*args, **kwargs)

        torch.cuda.synchronize = synchronize
        try:
            yield
        finally:
            torch.cuda.synchronize = original


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def one_run(function: Any, width: int, batch: int, dtype: str | None,
            device: torch.device) -> dict[str, Any]:
    torch.manual_seed(0)
    model = build_model(width).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    inputs = torch.randn(batch, width, device=device)
    targets = torch.randint(0, CLASSES, (batch,), device=device)
    probe = Probe(model, optimizer, device)
    amp_dtype = getattr(torch, dtype) if dtype else None
    run: dict[str, Any] = {"width": width, "dtype": dtype, "error": None, "returned": None}
    try:
        with probe.counting_syncs():
            returned = function(model, optimizer, inputs, targets, amp_dtype,
                                steps=STEPS, warmup=WARMUP)
    except MemoryError:
        raise
    except BaseException as exc:  # noqa: BLE001 -- the mistake is data for the checks
        run["error"] = describe_exception(exc)
        returned = None
    if isinstance(returned, dict):
        run["returned"] = {"seconds": _number(returned.get("seconds")),
                           "peak_mb": _number(returned.get("peak_mb")),
                           "peak_is_none": returned.get("peak_mb") is None,
                           "keys": sorted(str(k) for k in returned)[:8]}
    else:
        run["returned_type"] = type(returned).__name__
    run.update(forwards=probe.forwards, backwards=probe.backwards, steps=probe.steps,
               stale_gradients=probe.stale_gradients,
               steps_before_backward=probe.steps_before_backward, syncs=probe.syncs,
               autocast=sorted([list(item) for item in probe.autocast]))
    return run


@scenario("measure.amp_speed")
def amp_speed(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """Call the learner's time_steps for each width and precision; report its figures and probes."""
    device = torch.device("cuda" if torch.cuda.is_available() and params.get("gpu", True) else "cpu")
    widths, batch, problem = sizes(submission, device)
    result: dict[str, Any] = {"device": device.type, "widths": widths, "batch_size": batch,
                              "sizes_problem": problem, "runs": [], "missing": None,
                              "steps": STEPS, "warmup": WARMUP,
                              "device_name": torch.cuda.get_device_name() if device.type == "cuda"
                              else "CPU"}
    function = getattr(submission, "time_steps", None)
    if not callable(function):
        result["missing"] = "time_steps"
        return result
    for width in widths:
        for dtype in precisions(device):
            run = one_run(function, width, batch, dtype, device)
            result["runs"].append(run)
            if run["error"] is not None:
                return result  # one error is enough to report; the rest would repeat it
    return result
