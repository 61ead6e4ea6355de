"""The harness's view of a traced run: validated events split into iterations and step windows."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from grader.amp.events import KINDS

Event = dict[str, Any]
# What a batch is fetched for: an iteration of training (a forward pass, a loss, a backward, a step).
TRAINING_KINDS = frozenset({"forward", "loss", "backward", "scaler-step", "optimizer-step"})


class TraceError(ValueError):
    """The scenario's answer is not a well-formed trace (a broken or tampering runner)."""


@dataclass
class Iteration:
    """The events from one batch handed out by the loader up to the next one."""

    index: int
    line: int | None
    events: list[Event] = field(default_factory=list)

    def of(self, *kinds: str) -> list[Event]:
        return [e for e in self.events if e["kind"] in kinds]


@dataclass
class Window:
    """The iterations that share one optimizer step (k of them with gradient accumulation)."""

    index: int
    iterations: list[Iteration]

    @property
    def events(self) -> list[Event]:
        return [e for it in self.iterations for e in it.events]

    def of(self, *kinds: str) -> list[Event]:
        return [e for e in self.events if e["kind"] in kinds]


@dataclass
class Trace:
    """What happened during one call of the learner's training function."""

    events: list[Event]
    batches: int
    returned: Any = None
    returned_type: str = "NoneType"
    returned_graph: bool = False  # the returned tensor still holds the autograd graph
    error: dict[str, Any] | None = None
    provided: dict[str, int] = field(default_factory=dict)
    truncated: bool = False
    device: dict[str, Any] = field(default_factory=dict)
    accumulate: int = 1

    @classmethod
    def from_result(cls, result: dict[str, Any], *, accumulate: int = 1) -> Trace:
        """Parse a scenario's answer; anything malformed raises TraceError."""
        if not isinstance(result, dict):
            raise TraceError("the scenario did not answer with a dictionary")
        events = result.get("events")
        if not isinstance(events, list):
            raise TraceError("no event list")
        for event in events:
            if not isinstance(event, dict) or event.get("kind") not in KINDS:
                raise TraceError(f"malformed event {event!r:.80}")
            line = event.get("line")
            if line is not None and (not isinstance(line, int) or isinstance(line, bool)):
                raise TraceError("an event line is not an integer")
        batches = result.get("batches")
        if not isinstance(batches, int) or batches < 0:
            raise TraceError("bad batch count")
        error = result.get("error")
        if error is not None and not isinstance(error, dict):
            raise TraceError("bad error record")
        return cls(events=events, batches=batches, returned=result.get("returned"),
                   returned_type=str(result.get("returned_type", "NoneType")), error=error,
                   returned_graph=result.get("returned_graph") is True,
                   provided=dict(result.get("provided") or {}),
                   truncated=bool(result.get("truncated")), device=dict(result.get("device") or {}),
                   accumulate=max(1, int(accumulate)))

    # ---- slicing ------------------------------------------------------------------------------
    def of(self, *kinds: str) -> list[Event]:
        return [e for e in self.events if e["kind"] in kinds]

    def first(self, *kinds: str) -> Event | None:
        return next(iter(self.of(*kinds)), None)

    @functools.cached_property
    def iterations(self) -> list[Iteration]:
        """One per batch trained: a walk over the loader that trains nothing is not iterations.

        `len(list(loader))` walks the loader a second time only to count its batches; those
        fetches are no batches skipped. What runs while such a walk is under way stays with
        the iteration before it (or, before the first, with no iteration, as before a loop).
        """
        counting = self._counting_walks()
        iterations: list[Iteration] = []
        for event in self.events:
            if event["kind"] == "batch":
                if event.get("walk") not in counting:
                    iterations.append(Iteration(len(iterations), event.get("line")))
            elif iterations:
                iterations[-1].events.append(event)
        return iterations

    def _counting_walks(self) -> set[Any]:
        """The walks over the loader that only count its batches (`len(list(loader))`).

        Such a walk fetches every batch in one go, with nothing in between: a full, unbroken run
        of batch events. When another walk is not such a run (the loop that trains, whose
        batches have its work between them), the runs are the counting walks, wherever they
        happen (before, after, or inside the loop, as a progress print's count). When every walk
        is a run (one batch per epoch), the walks after which nothing trained are.
        """
        batches: dict[Any, list[int]] = {}
        for position, event in enumerate(self.events):
            if event["kind"] == "batch":
                batches.setdefault(event.get("walk"), []).append(position)
        if len(batches) < 2 or None in batches or not self.of(*TRAINING_KINDS):
            return set()
        runs = {walk for walk, at in batches.items()
                if len(at) == self.batches and at[-1] - at[0] == len(at) - 1}
        if batches.keys() - runs:
            return runs
        walk_of: Any = None
        trained: set[Any] = set()
        for event in self.events:
            if event["kind"] == "batch":
                walk_of = event.get("walk")
            elif event["kind"] in TRAINING_KINDS:
                trained.add(walk_of)
        return set(batches) - trained if trained else set()

    @functools.cached_property
    def windows(self) -> list[Window]:
        iterations = self.iterations
        k = self.accumulate
        return [Window(i // k, iterations[i:i + k]) for i in range(0, len(iterations), k)]

    def iteration_of(self, event: Event) -> Iteration | None:
        for iteration in self.iterations:
            if any(e is event for e in iteration.events):
                return iteration
        return None

    @property
    def raised(self) -> bool:
        return self.error is not None

    def uses_scaler(self) -> bool:
        """An enabled GradScaler took part (the FP16 protocol applies)."""
        return any(e.get("enabled") for e in self.of("scale", "scaler-step", "scaler-update"))

    def fp16_autocast(self) -> bool:
        return any(e.get("enabled") and e.get("dtype") == "float16"
                   for e in self.of("autocast-enter"))

    def before(self, event: Event, candidates: Iterable[Event]) -> list[Event]:
        return [c for c in candidates if c["seq"] < event["seq"]]

    def after(self, event: Event, candidates: Iterable[Event]) -> list[Event]:
        return [c for c in candidates if c["seq"] > event["seq"]]
