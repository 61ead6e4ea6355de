"""Measurement scenario: time the learner's training steps in FP32 and under autocast, per width.

Runs in the learner's process (trusted fixture code next to untrusted code). The grader builds
the models (an MLP of the width the learner chose) and the data; the learner's `time_steps`
trains and times them. Probes on the model and optimizer record what actually ran, and when, on
the grader's own clock (CUDA events on a GPU), so the checks can tell a real measurement from a
made-up one. The grader then times the learner's `train_step` itself, float32 and autocast
interleaved and repeated, for the figures it shows.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import sys
import time
from time import perf_counter as clock  # bound at import: the grader's clock, not the learner's
from types import ModuleType
from typing import Any

import torch
from torch import nn

from grader.amp.lazy_dynamo import defer_dynamo_import
from grader.learner_errors import describe_exception
from grader.scenarios import scenario

defer_dynamo_import()

STEPS, WARMUP, CLASSES = 5, 2, 10
# The grader's own timing of train_step: a warm-up step per precision, then up to ROUNDS rounds
# of one step per precision, the order alternating each round so a machine that slows down or
# speeds up over the run does not favour one precision. Rounds stop early (never below
# MIN_ROUNDS) once a width has taken OWN_BUDGET_S: bfloat16 emulated on an AVX2 CPU takes
# seconds a step at width 1024, and the whole grading has the exercise's time limit.
OWN_WARMUP, ROUNDS, MIN_ROUNDS, OWN_BUDGET_S = 1, 9, 3, 12.0
LIMITS = {"cpu": {"width": 1024, "batch": 256, "widths": 4},
          "cuda": {"width": 8192, "batch": 4096, "widths": 4}}
_synchronize = torch.cuda.synchronize  # the real ones, whatever the learner's code replaces
_reset_peak = torch.cuda.reset_peak_memory_stats
# The learner's clock reads that are traced (time.<name> while its function runs), and how many
# events of each sort the trace keeps: a loop of thousands of steps fails the counts anyway.
CLOCK_NAMES = ("perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time", "time_ns")
EVENTS_CAP, CLOCKS_CAP = 4 * (STEPS + WARMUP) + 64, 4 * (STEPS + WARMUP) + 16


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
    each forward, gradients left over from the previous step, and steps taken before a backward.
    Every forward, optimizer step and synchronisation is also noted in order with the grader's
    clock (and, on CUDA, an event that times the GPU's work)."""

    def __init__(self, model: nn.Module, optimizer: torch.optim.Optimizer, device: torch.device,
                 learner_file: str | None = None):
        self.device = device
        self.learner_file = learner_file
        self.forwards = 0
        self.backwards = 0
        self.steps = 0
        self.syncs = 0
        self.resets = 0
        self.events = 0  # forwards, steps, syncs and resets noted
        self.clock_reads = 0
        self.overflow = False  # more events than EVENTS_CAP: the trace is incomplete
        self.clocks_lost = False  # more clock reads than CLOCKS_CAP: clock reads are not used
        self.stale_gradients = 0  # backwards that added to the previous step's gradients
        self.steps_before_backward = 0  # optimizer steps with no backward since the last one
        self._backward_since_step = False
        self.autocast: set[tuple[bool, str]] = set()
        # ("forward" | "step" | "sync" | "reset", grader's clock, CUDA event or None), in order
        self.trace: list[tuple[str, float, Any]] = []
        model.register_forward_pre_hook(self._forward)
        optimizer.register_step_pre_hook(self._before_step)
        optimizer.register_step_post_hook(self._step)
        # The last layer's weight gets its gradient once per backward; its hook runs before the
        # new gradient is added, so a .grad still holding numbers then was never cleared.
        self._watched = list(model.parameters())[-2]
        self._watched.register_hook(self._backward)

    def _note(self, what: str) -> None:
        if what == "clock":
            self.clock_reads += 1
            if self.clock_reads > CLOCKS_CAP:
                self.clocks_lost = True
                return
        else:
            self.events += 1
            if self.events > EVENTS_CAP:
                self.overflow = True
                return
        event = None
        if self.device.type == "cuda" and what in ("forward", "step"):
            event = torch.cuda.Event(enable_timing=True)
            event.record()
        self.trace.append((what, clock(), event))

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
        self._note("forward")

    def _step(self, *_args: Any) -> None:
        self.steps += 1
        self._note("step")

    @contextlib.contextmanager
    def counting_syncs(self) -> Any:
        """Wrap torch.cuda.synchronize, reset_peak_memory_stats and the time module's clocks while
        the learner's function runs (a clock imported by name before it is not seen)."""

        def synchronize(*args: Any, **kwargs: Any) -> Any:
            self.syncs += 1
            done = _synchronize(*args, **kwargs)
            self._note("sync")
            return done

        def reset_peak_memory_stats(*args: Any, **kwargs: Any) -> Any:
            self.resets += 1
            done = _reset_peak(*args, **kwargs)
            self._note("reset")
            return done

        def reading(original: Any) -> Any:
            def read() -> Any:
                value = original()
                # Only the learner's own reads: torch may read a clock inside a step too.
                if self.learner_file is not None and sys._getframe(1).f_code.co_filename == self.learner_file:
                    self._note("clock")
                return value
            return read

        clocks = {name: getattr(time, name) for name in CLOCK_NAMES}
        torch.cuda.synchronize = synchronize
        torch.cuda.reset_peak_memory_stats = reset_peak_memory_stats
        for name, original in clocks.items():
            setattr(time, name, reading(original))
        try:
            yield
        finally:
            torch.cuda.synchronize = _synchronize
            torch.cuda.reset_peak_memory_stats = _reset_peak
            for name, original in clocks.items():
                setattr(time, name, original)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _sync_before(trace: list[tuple[str, float, Any]], start: int, end: int, *, last_clock: bool) -> bool:
    """A synchronisation in trace[start:end] before the clock read there (the last one when
    `last_clock`, else the first), or anywhere in it when no clock read was traced."""
    reads = [k for k in range(start, end) if trace[k][0] == "clock"]
    if reads:
        end = reads[-1] if last_clock else reads[0]
    return any(trace[k][0] == "sync" for k in range(start, end))


def step_clock(trace: list[tuple[str, float, Any]], called: float, returned: float,
               steps: int, on_cuda: bool, *, complete: bool = True,
               clocks: bool = True) -> dict[str, Any] | None:
    """What the grader's clock saw of the learner's last `steps` training steps.

    For each step: `inner`, from its forward to the end of its optimizer step (on CUDA the GPU's
    time between those two events), which an honest timing of the step cannot undercut; `outer`,
    from the end of the step before (or the call) to the next forward (or the return), which an
    honest timing cannot exceed. On CUDA, also whether a synchronisation ran between the last
    step's end and the clock read before this forward (`synced_start`) and between this step's
    end and the clock read after it (`synced_stop`); without traced clock reads (or with
    `clocks` False: too many to keep), between the steps. And whether the memory peak was
    reset after the warm-up and before the first timed forward (`reset_before_timing`). None
    when the forwards and steps do not pair up (another check says so) or the trace is not
    `complete`.
    """
    if not clocks:
        trace = [mark for mark in trace if mark[0] != "clock"]
    marks = [(i, what) for i, (what, _, _) in enumerate(trace) if what in ("forward", "step")]
    pairs = []
    for (i, what), (j, then) in zip(marks, marks[1:], strict=False):
        if what == "forward" and then == "step":
            pairs.append((i, j))
    forwards = sum(1 for _, what in marks if what == "forward")
    if len(pairs) < steps or forwards != len(pairs) or not complete:
        return None
    if on_cuda:
        _synchronize()
    inner, outer, synced_start, synced_stop = [], [], [], []
    timed = pairs[-steps:]
    for n, (i, j) in enumerate(timed):
        previous_end = pairs[len(pairs) - steps + n - 1][1] if len(pairs) - steps + n > 0 else None
        following = timed[n + 1][0] if n + 1 < len(timed) else None
        if on_cuda:
            inner.append(trace[i][2].elapsed_time(trace[j][2]) / 1000)
        else:
            inner.append(trace[j][1] - trace[i][1])
        begin = trace[previous_end][1] if previous_end is not None else called
        end = trace[following][1] if following is not None else returned
        outer.append(end - begin)
        synced_start.append(_sync_before(trace, previous_end + 1 if previous_end is not None else 0, i,
                                         last_clock=True))
        synced_stop.append(_sync_before(trace, j + 1, following if following is not None else len(trace),
                                        last_clock=False))
    first = timed[0][0]
    last_warmup_end = pairs[len(pairs) - steps - 1][1] if len(pairs) > steps else -1
    reset = any(what == "reset" for what, _, _ in trace[last_warmup_end + 1:first])
    return {"inner": inner, "outer": outer, "inner_median": statistics.median(inner),
            "reset_before_timing": reset,
            "outer_median": statistics.median(outer),
            "synced_start": sum(synced_start), "synced_stop": sum(synced_stop)}


def one_run(function: Any, width: int, batch: int, dtype: str | None,
            device: torch.device, learner_file: str | None = None) -> dict[str, Any]:
    torch.manual_seed(0)
    model = build_model(width).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    inputs = torch.randn(batch, width, device=device)
    targets = torch.randint(0, CLASSES, (batch,), device=device)
    probe = Probe(model, optimizer, device, learner_file)
    amp_dtype = getattr(torch, dtype) if dtype else None
    run: dict[str, Any] = {"width": width, "dtype": dtype, "error": None, "returned": None,
                           "clock": None}
    called = clock()
    try:
        with probe.counting_syncs():
            returned = function(model, optimizer, inputs, targets, amp_dtype,
                                steps=STEPS, warmup=WARMUP)
    except MemoryError:
        raise
    except BaseException as exc:  # noqa: BLE001 -- the mistake is data for the checks
        run["error"] = describe_exception(exc)
        returned = None
    finished = clock()
    if isinstance(returned, dict):
        run["returned"] = {"seconds": _number(returned.get("seconds")),
                           "peak_mb": _number(returned.get("peak_mb")),
                           "peak_is_none": returned.get("peak_mb") is None,
                           "keys": sorted(str(k) for k in returned)[:8]}
    else:
        run["returned_type"] = type(returned).__name__
    if run["error"] is None:
        run["clock"] = step_clock(probe.trace, called, finished, STEPS, device.type == "cuda",
                                  complete=not probe.overflow, clocks=not probe.clocks_lost)
    run.update(forwards=probe.forwards, backwards=probe.backwards, steps=probe.steps,
               stale_gradients=probe.stale_gradients,
               steps_before_backward=probe.steps_before_backward, syncs=probe.syncs,
               resets=probe.resets,
               autocast=sorted([list(item) for item in probe.autocast]))
    return run


def _setup(width: int, batch: int, device: torch.device) -> tuple[Any, ...]:
    torch.manual_seed(0)
    model = build_model(width).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    inputs = torch.randn(batch, width, device=device)
    targets = torch.randint(0, CLASSES, (batch,), device=device)
    return model, optimizer, inputs, targets


def _timed_step(train_step: Any, setup: tuple[Any, ...], dtype: str | None, on_cuda: bool) -> float:
    if on_cuda:
        _synchronize()
    start = clock()
    train_step(*setup, getattr(torch, dtype) if dtype else None)
    if on_cuda:
        _synchronize()
    return clock() - start


def own_timing(train_step: Any, width: int, batch: int, dtypes: list[str | None],
               device: torch.device) -> dict[str, Any]:
    """The grader's own timing of one width: train_step per precision, interleaved, repeated.

    Seconds of each step per precision (min, median and max are the checks' to draw), and on
    CUDA the peak memory of one step with only that precision's model alive.
    """
    on_cuda = device.type == "cuda"
    found: dict[str, Any] = {"width": width, "error": None, "rounds": 0,
                             "seconds": {str(d): [] for d in dtypes}, "peak_mb": {}}
    try:
        setups = {dtype: _setup(width, batch, device) for dtype in dtypes}
        for dtype in dtypes:
            for _ in range(OWN_WARMUP):
                _timed_step(train_step, setups[dtype], dtype, on_cuda)
        began = clock()
        for round_ in range(ROUNDS):
            if round_ >= MIN_ROUNDS and clock() - began > OWN_BUDGET_S:
                break
            for dtype in (dtypes if round_ % 2 == 0 else dtypes[::-1]):
                found["seconds"][str(dtype)].append(_timed_step(train_step, setups[dtype], dtype, on_cuda))
            found["rounds"] = round_ + 1
        if on_cuda:
            setups.clear()
            for dtype in dtypes:
                setup = _setup(width, batch, device)
                _timed_step(train_step, setup, dtype, on_cuda)
                torch.cuda.reset_peak_memory_stats()
                _timed_step(train_step, setup, dtype, on_cuda)
                found["peak_mb"][str(dtype)] = torch.cuda.max_memory_allocated() / 2**20
                del setup
    except MemoryError:
        raise
    except BaseException as exc:  # noqa: BLE001 -- the learner's train_step failed: data for the checks
        found["error"] = describe_exception(exc)
    return found


@scenario("measure.amp_speed")
def amp_speed(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """Call the learner's time_steps for each width and precision, then time its train_step."""
    device = torch.device("cuda" if torch.cuda.is_available() and params.get("gpu", True) else "cpu")
    widths, batch, problem = sizes(submission, device)
    result: dict[str, Any] = {"device": device.type, "widths": widths, "batch_size": batch,
                              "sizes_problem": problem, "runs": [], "missing": None,
                              "steps": STEPS, "warmup": WARMUP, "own": [],
                              "threads": torch.get_num_threads(),
                              "device_name": torch.cuda.get_device_name() if device.type == "cuda"
                              else "CPU"}
    function = getattr(submission, "time_steps", None)
    if not callable(function):
        result["missing"] = "time_steps"
        return result
    for width in widths:
        for dtype in precisions(device):
            run = one_run(function, width, batch, dtype, device,
                          getattr(getattr(function, "__code__", None), "co_filename", None))
            result["runs"].append(run)
            if run["error"] is not None:
                return result  # one error is enough to report; the rest would repeat it
    train_step = getattr(submission, "train_step", None)
    if params.get("own", True) and callable(train_step):
        for width in widths:
            timing = own_timing(train_step, width, batch, precisions(device), device)
            result["own"].append(timing)
            if timing["error"] is not None:
                break
    result["threads"] = torch.get_num_threads()
    return result
