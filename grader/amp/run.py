"""The AMP run: the learner's training function called under the tracer, its trace returned as data.

Runs in the learner's process (trusted fixture code next to untrusted code), for the learner
through the `amp.*` scenarios (grader.scenarios.amp) and in the harness for the reference
solution (grader.amp.outcome). On a machine without CUDA the learner still gets a "GPU-style"
run: the device is the CPU, the scaler an enabled GradScaler("cpu"), and "cuda"
autocast/scaler/.to("cuda") requests are mapped to the CPU while the trace keeps what the
learner asked for.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import torch
import torch.optim.optimizer as optim_module

from grader.amp.events import SUBMISSION_FILENAME
from grader.amp.lazy_dynamo import defer_dynamo_import
from grader.amp.loader import TracedLoader
from grader.amp.tracer import Tracer
from grader.amp.training import build_setup
from grader.amp_scenario import MAX_BATCH_SIZE, MAX_BATCHES  # params come from trusted tests, but keep runs small
from grader.learner_errors import describe_exception

# Before the first optimizer is built: spares this process torch's ~1.5 s compiler import.
defer_dynamo_import()

RETURN_NUMEL_CAP = 16


def physical_device(request: str) -> torch.device:
    """CUDA when asked for (or "auto") and present; otherwise the CPU stands in for it."""
    if request in ("cuda", "auto") and torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


def _returned(value: Any) -> tuple[Any, str]:
    """The learner's return value as data, and its type name (for 'returned a list' feedback).

    A tuple or list of numbers and small tensors (an evaluation's `(loss, accuracy)`) comes back
    as a list of those; anything larger or of another kind as None, with its type name.
    """
    kind = type(value).__name__
    if isinstance(value, (tuple, list)) and 0 < len(value) <= RETURN_NUMEL_CAP:
        items = [_returned(item)[0] for item in value]
        if all(item is not None and not isinstance(item, list) for item in items):
            return items, kind
        return None, kind
    if value is None or isinstance(value, (bool, int, float)):
        return value, kind
    if isinstance(value, torch.Tensor) and value.numel() <= RETURN_NUMEL_CAP:
        return value.detach().float().cpu(), kind
    return None, kind


def run_traced(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """Build the setup, call the learner's entry function under the tracer, return the trace."""
    request = str(params.get("device", "cuda"))
    device = physical_device(request)
    batches = max(1, min(int(params.get("batches", 6)), MAX_BATCHES))
    batch_size = max(1, min(int(params.get("batch_size", 8)), MAX_BATCH_SIZE))
    setup = build_setup({**params, "device": device.type, "batches": batches,
                         "batch_size": batch_size})
    loader = TracedLoader(setup.loader.dataset, batch_size=batch_size)
    evaluating = params.get("mode") == "eval"
    entry = str(params.get("entry") or ("evaluate" if evaluating else "train_one_epoch"))
    # The arguments follow the scenario (grader.amp_scenario.Scenario.arguments): an evaluation
    # loop gets no optimizer and no scaler, a training loop the scaler only when one is declared.
    passed_scaler = not evaluating and bool(params.get("scaler", True))
    if evaluating:
        args: list[Any] = [setup.model, loader, setup.criterion, setup.device]
    else:
        args = [setup.model, loader, setup.optimizer, setup.criterion,
                *([setup.scaler] if passed_scaler else []), setup.device]
    kwargs = dict(params.get("kwargs") or {})

    function = getattr(submission, entry, None)
    # "handover": "eval" hands the model over in evaluation mode, as after a validation pass, for
    # exercises whose prompt asks the loop to switch it back (the train-mode check); by default it
    # arrives in training mode, and a loop without model.train() is right.
    if params.get("handover") == "eval":
        setup.model.eval()
    result: dict[str, Any] = {"returned": None, "returned_type": "NoneType", "error": None}
    with replaying(params.get("replay")), Tracer(model=setup.model, criterion=setup.criterion,
                namespace=getattr(submission, "__dict__", None),
                force_dtype=params.get("force_dtype"),
                # The reference check (harness side) traces solution.py's own lines.
                filename=str(params.get("trace_file") or SUBMISSION_FILENAME)) as tracer:
        # Only what the function is given: a scaler the learner never received must not make the
        # tracer think gradients are scaled (bf16 + clipping without a GradScaler).
        tracer.provide(**({"scaler": setup.scaler} if passed_scaler else {}),
                       **({} if evaluating else {"optimizer": setup.optimizer}))
        if not callable(function):
            result["error"] = {"kind": "missing", "type": "AttributeError", "line": None,
                               "message": f"{entry} is not defined", "traceback": ""}
        else:
            try:
                value = function(*args, **kwargs)
                result["returned"], result["returned_type"] = _returned(value)
                # A tensor still tied to the autograd graph keeps the whole epoch's graph alive.
                result["returned_graph"] = isinstance(value, torch.Tensor) and value.grad_fn is not None
            except MemoryError:
                raise  # the runner turns this into a whole-run memory error
            except BaseException as exc:  # noqa: BLE001 -- the mistake is data for the checks
                if params.get("raise_errors"):
                    raise  # outcome tests want the learner's error itself (LearnerError)
                result["error"] = describe_exception(exc)
    result.update({
        "events": tracer.events,
        "truncated": tracer.log.truncated,
        "provided": dict(tracer.provided),
        "batches": len(loader),
        "losses": list(setup.criterion.values),
        "state": {k: v.detach().float().cpu() for k, v in setup.model.state_dict().items()},
        "param_dtypes": sorted({str(p.dtype).removeprefix("torch.")
                                for p in setup.model.parameters()}),
        "device": {"requested": request, "used": device.type,
                   "mapped": request in ("cuda", "auto") and device.type == "cpu"},
    })
    return result


@contextlib.contextmanager
def replaying(replay: dict[str, Any] | None) -> Iterator[None]:
    """For the reference run only: do the learner's legitimate extras at each optimizer step.

    `replay` holds, per step, the learning rates the learner's scheduler set and the clipping
    the learner did after unscale_ (see grader.amp.outcome.extras): the reference then does the
    same, so a correct loop that does a little more is compared with a loop that does as much.
    """
    if not replay:
        yield
        return
    lrs, clips = list(replay.get("lr") or []), list(replay.get("clip") or [])
    count = [0]

    def before_step(optimizer: Any, args: Any, kwargs: Any) -> None:
        index = count[0]
        count[0] += 1
        if index < len(lrs) and lrs[index]:
            for group, lr in zip(optimizer.param_groups, lrs[index], strict=False):
                if lr is not None:
                    group["lr"] = lr
        clip = clips[index] if index < len(clips) else None
        if clip:
            params = [p for group in optimizer.param_groups for p in group["params"]]
            if clip["fn"] == "clip_grad_value_":
                torch.nn.utils.clip_grad_value_(params, clip["limit"])
            else:
                torch.nn.utils.clip_grad_norm_(params, clip["limit"], norm_type=float(clip.get("norm_type") or 2.0))

    handle = optim_module.register_optimizer_step_pre_hook(before_step)
    try:
        yield
    finally:
        handle.remove()
