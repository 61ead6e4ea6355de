"""What a check concludes (Finding), what it sees (Context), what an exercise asks (LoopSpec)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from grader.amp.crash import Crash
from grader.amp.static import StaticInfo
from grader.amp.trace import Trace, Window
from grader.testing import Feedback, NotChecked

if TYPE_CHECKING:
    from grader.amp_scenario import Scenario

Text = dict[str, str]
Status = Literal["pass", "fail", "skip"]


@dataclass(frozen=True)
class LoopSpec:
    """The protocol an exercise asks for: what the checks read of its scenario (grader.amp_scenario)."""

    entry: str = "train_one_epoch"
    accumulate: int = 1  # batches per optimizer step
    require_scaler: bool = True  # a GradScaler is passed in (False: BF16 without one; FP16 still needs it)
    require_clip: bool = False
    precision: str = "fp16"  # the autocast precision the prompt asks for: "fp16" or "bf16"
    mode: str = "train"  # "train", or "eval": forward passes only, under no_grad
    loss: str = "cross_entropy"  # or "custom": a criterion autocast does not run in float32
    batches: int = 6  # batches in the epoch: with accumulate, whether the last window is partial

    @classmethod
    def of(cls, scenario: Scenario, entry: str | None = None) -> LoopSpec:
        """The spec of a declared scenario (the one source of every setting)."""
        return cls(entry=scenario.entry_or(entry), accumulate=scenario.accumulate,
                   require_scaler=scenario.has_scaler, require_clip=scenario.clips,
                   precision=scenario.precision, mode=scenario.mode, loss=scenario.loss,
                   batches=scenario.batches)

    @property
    def partial_window(self) -> int:
        """Batches in the last, partial accumulation window (0 when every window is full)."""
        return self.batches % self.accumulate if self.accumulate > 1 else 0

    def unmet(self, needs: frozenset[str]) -> list[str]:
        """The needs of a check (grader.amp.registry.NEEDS) that this scenario does not meet."""
        have = {"scaler": self.require_scaler, "no-scaler": not self.require_scaler,
                "clip": self.require_clip, "accumulate": self.accumulate > 1,
                "train": self.mode == "train", "eval": self.mode == "eval",
                "bf16": self.precision == "bf16", "custom-loss": self.loss == "custom",
                "partial-window": self.partial_window > 0}
        return sorted(need for need in needs if not have[need])


@dataclass(frozen=True)
class Finding:
    slug: str
    status: Status
    message: Text | None = None
    line: int | None = None
    hint: Text | None = None

    def enforce(self) -> None:
        """Inside an exercise test: raise the learner-facing failure, skip, or return."""
        if self.status == "fail":
            # Without a hint of its own the harness shows the check's declared hint (the
            # exercise may word it for its own setting, e.g. BF16 without a scaler).
            raise Feedback(self.message or {"en": "", "ja": ""}, line=self.line, hint=self.hint)
        if self.status == "skip":
            # NotChecked, not pytest.skip(text): the harness keeps both languages of it, so a page
            # in the other language reads its own (a plain skip once put the English "Not
            # checked: ..." on a ja page for a submission graded in English; issue 34, item 4).
            raise NotChecked(self.message or {"en": "", "ja": ""})


def passed(slug: str) -> Finding:
    return Finding(slug, "pass")


def failed(slug: str, message: Text, line: int | None, hint: Text | None = None) -> Finding:
    return Finding(slug, "fail", message, line, hint)


def skipped(slug: str, message: Text) -> Finding:
    return Finding(slug, "skip", message)


@dataclass
class Context:
    """Everything a check may look at; checks are pure functions of it."""

    trace: Trace
    static: StaticInfo
    spec: LoopSpec
    crash: Crash | None = None
    reference: dict[str, Any] | None = None
    advice: list[Text] = field(default_factory=list)

    @property
    def windows_done(self) -> list[Window]:
        """Step windows that ran to their end: the one a crash cut short proves nothing missing."""
        windows = [w for w in self.trace.windows if len(w.iterations) == self.spec.accumulate]
        if self.trace.raised and windows and windows[-1].index == len(self.trace.windows) - 1:
            windows = windows[:-1]
        return windows

    def stopped(self, slug: str) -> Finding:
        """A skip that says why: the function stopped before the check could see enough."""
        error = self.trace.error or {}
        if error.get("kind") == "missing":  # nothing ran: there was no function to run
            name = self.spec.entry
            return skipped(slug, {"en": f"Not checked: there is no `{name}` to run yet.",
                                  "ja": f"未確認：実行する `{name}` がまだありません。"})
        kind, line = error.get("type", "an error"), error.get("line")
        where_en = f" on line {line}" if line else ""
        where_ja = f"（{line} 行目）" if line else ""
        return skipped(slug, {
            "en": f"Not checked: your function stopped with {kind}{where_en} before this could be "
                  "seen.",
            "ja": f"未確認：この点を確認する前に、関数が {kind} で停止しました{where_ja}。"})

    def advise(self, text: Text) -> None:
        if text not in self.advice:
            self.advice.append(text)

    @property
    def def_line(self) -> int | None:
        return self.static.defs.get(self.spec.entry)

    @property
    def return_line(self) -> int | None:
        """The entry function's last `return` (where its value leaves), else its def line."""
        returns = self.static.returns.get(self.spec.entry) or []
        return returns[-1] if returns else self.def_line
