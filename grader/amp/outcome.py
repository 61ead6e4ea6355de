"""The reference run: checked first against its own scenario (cached), then compared with the learner's weights."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from grader.amp.findings import Finding, LoopSpec, failed, passed
from grader.amp.review import Review
from grader.amp.run import run_traced  # also defers torch's compiler import (speed)
from grader.amp_scenario import Scenario

SLUG = "weights-match-reference"
# The reference runs in the learner's precision, so correct loops match to ~1e-6; the slack is
# for harmless differences (a loss computed outside autocast). Mistakes that change training
# (double steps, scaled clipping, skipped batches) move the weights by 5e-2 and more.
TOLERANCE = 1e-2


def learner_precision(result: dict[str, Any]) -> str | None:
    """The one precision the learner's forward passes ran in ("float32" without autocast)."""
    seen = {e.get("autocast_dtype") if e.get("autocast") else "float32"
            for e in result.get("events") or []
            if isinstance(e, dict) and e.get("kind") == "forward"}
    if len(seen) == 1 and seen <= {"float16", "bfloat16", "float32"}:
        return seen.pop()
    return None


EXTRA_NOTES: dict[str, dict[str, str]] = {
    "clip": {"en": "Your loop also clips the gradients after scaler.unscale_, which this exercise did not "
                   "ask for; it was compared with a reference that clips the same way.",
             "ja": "このループは scaler.unscale_ の後で勾配もクリップしています（この演習では求めていま"
                   "せん）。同じようにクリップする模範解答と比べました。"},
    "lr": {"en": "Your loop changes the learning rate during the epoch (a scheduler), which this exercise "
                 "did not ask for; it was compared with a reference using the same learning rates.",
           "ja": "このループはエポック中に学習率を変えています（スケジューラ）。この演習では求めていませ"
                 "ん。同じ学習率を使う模範解答と比べました。"},
}


def extras(result: dict[str, Any], *, clip_asked: bool = False) -> dict[str, list[Any]]:
    """The learner's legitimate extras, per optimizer step, for the reference to replay.

    - "lr": the learning rates at each step, when they changed during the epoch (a scheduler);
    - "clip": the clipping done before each step, after unscale_, unless the exercise asks for
      clipping itself (then clipping is what is graded, and the reference clips as asked).
    Clipping of still-scaled gradients is not replayed: that is a mistake, not an extra.
    """
    events = [e for e in result.get("events") or [] if isinstance(e, dict)]
    steps = [e for e in events if e.get("kind") == "optimizer-step"]
    found: dict[str, list[Any]] = {}
    lrs = [e.get("lr") for e in steps]
    if len({tuple(lr or ()) for lr in lrs}) > 1:
        found["lr"] = lrs
    scaled = any(e.get("kind") == "scale" for e in events)  # without a scaler there is nothing to unscale
    if not clip_asked:
        clips, pending = [], None
        for event in events:
            if event.get("kind") == "clip" and (event.get("unscaled") is not False or not scaled) \
                    and event.get("limit"):
                pending = {"fn": event.get("fn"), "limit": event["limit"], "norm_type": event.get("norm_type")}
            elif event.get("kind") == "optimizer-step":
                clips.append(pending)
                pending = None
        if any(clips):
            found["clip"] = clips
    return found


def reference_run(solution: ModuleType, params: dict[str, Any], *,
                  like: dict[str, Any] | None = None, clip_asked: bool = False) -> dict[str, Any]:
    """The reference solution through the same scenario, here in the trusted harness.

    With `like` (the learner's result) the reference autocasts to the learner's precision, so
    a correct float16 loop is not failed for differing from a bfloat16 reference by rounding,
    and it replays the learner's legitimate extras (see `extras`); the result's "extras" names them.
    """
    forced = learner_precision(like) if like is not None else None
    replay = extras(like, clip_asked=clip_asked) if like is not None else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_traced(solution, {**params, "force_dtype": forced, "replay": replay})
    result["extras"] = sorted(replay)
    return result


def weights_match(learner: dict[str, Any], reference: dict[str, Any], *, line: int | None,
                  tolerance: float = TOLERANCE) -> Finding:
    state, expected = learner.get("state") or {}, reference["state"]
    missing = sorted(set(expected) - set(state))
    if missing:
        return failed(SLUG, {"en": f"The model came back without {missing[0]}.",
                             "ja": f"モデルから {missing[0]} が失われています。"}, line)
    worst_name, worst = "", 0.0
    for name, want in expected.items():
        got = state[name]
        if not isinstance(got, torch.Tensor) or got.shape != want.shape:
            return failed(SLUG, {"en": f"{name} changed shape during training.",
                                 "ja": f"学習中に {name} の形が変わりました。"}, line)
        gap = float((got.float() - want.float()).abs().max())
        if gap != gap or gap > worst:  # NaN counts as the worst gap of all
            worst_name, worst = name, gap
            if gap != gap:
                break
    if worst <= tolerance:
        return passed(SLUG)
    return failed(SLUG, {
        "en": f"After one epoch the weights differ from the reference solution's on the same data "
              f"(largest gap {worst:.3g} in {worst_name}, allowed {tolerance:g}).",
        "ja": f"同じデータで 1 エポック学習した後の重みが模範解答と異なります（{worst_name} で最大 "
              f"{worst:.3g} の差、許容は {tolerance:g}）。"}, line)


# ---- the reference checked first ------------------------------------------------------------------
CACHE_ENV = "GRADER_AMP_CACHE"  # a folder for the reference's verdicts; "off" keeps none
GRADER_FILES = ("amp", "scenarios/amp.py", "amp_scenario.py")


@functools.cache
def _grader_digest() -> str:
    """The checks' and the scenario's code, and torch's version: fixed for the life of a process."""
    digest = hashlib.sha256(torch.__version__.encode())
    grader = Path(__file__).resolve().parents[1]
    for name in GRADER_FILES:
        path = grader / name
        for file in sorted(path.glob("*.py")) if path.is_dir() else [path]:
            digest.update(str(file.relative_to(grader)).encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def fingerprint(folder: Path, scenario: Scenario, declared: list[str]) -> str:
    """What the reference's verdict depends on: the folder's files, the scenario, the checks' code, torch."""
    digest = hashlib.sha256(f"{_grader_digest()}|{scenario.model_dump_json()}|{','.join(declared)}".encode())
    for path in [folder / "exercise.toml", folder / "solution.py", *sorted((folder / "tests").glob("*.py"))]:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _cache_dir() -> Path | None:
    """Our own folder for verdicts, or None: never one another user could write into."""
    setting = os.environ.get(CACHE_ENV, "")
    if setting == "off":
        return None
    folder = Path(setting) if setting else Path(tempfile.gettempdir()) / f"learnai-amp-reference-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return None
    if info.st_uid != os.getuid() or info.st_mode & 0o022:
        return None  # a verdict planted by someone else must not decide what authors are told
    return folder


def _cached(key: str) -> dict[str, Any] | None:
    folder = _cache_dir()
    try:
        found = json.loads((folder / f"{key}.json").read_text(encoding="utf-8")) if folder else None
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and isinstance(found.get("problems"), list) else None


def _store(key: str, verdict: dict[str, Any]) -> None:
    folder = _cache_dir()
    if folder is None:
        return
    try:
        temporary = folder / f".{key}.{os.getpid()}"
        temporary.write_text(json.dumps(verdict), encoding="utf-8")
        temporary.replace(folder / f"{key}.json")
    except OSError:
        pass  # a cache that cannot be written only costs the next grading one reference run


def check_reference(solution: ModuleType, folder: Path, scenario: Scenario, entry: str,
                    declared: list[str]) -> list[str]:
    """Grade the folder's solution under the declared checks in its own scenario: the problems, [] if none.

    Each problem names the check, what the reference did, and the scenario setting likely
    responsible. Cached by fingerprint: after the first grading of a folder it costs a file read.
    """
    key = fingerprint(folder, scenario, declared)
    found = _cached(key)
    if found is not None:
        return [str(problem) for problem in found["problems"]]
    spec = LoopSpec.of(scenario, entry)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        file = Path(getattr(solution, "__file__", None) or "solution.py")
        result = run_traced(solution, {**scenario.params(entry), "trace_file": file.name})
    source = file.read_text(encoding="utf-8") if file.is_file() else ""
    review = Review(result, source, spec)
    problems = []
    ran = review.runs()
    if ran.status != "pass":
        error = review.trace.error or {}
        problems.append(f"the reference solution ({file.name}) does not run in this scenario "
                        f"({scenario.describe()}): "
                        f"{error.get('type', 'error')}: {str(error.get('message', ''))[:200]}. "
                        + likely_setting("runs", scenario, entry))
    else:
        for slug in declared:
            finding = review.finding(slug)
            if finding.status != "pass":
                said = (finding.message or {}).get("en", "")
                problems.append(f"the reference solution ({file.name}) fails '{slug}' in this scenario "
                                f"({scenario.describe()}): "
                                f"{said} {likely_setting(slug, scenario, entry)}".strip())
    _store(key, {"problems": problems})
    return problems


def likely_setting(slug: str, scenario: Scenario, entry: str) -> str:
    """The [amp] setting most likely behind a reference that fails `slug` (for the author)."""
    scaler_origin = "scaler = true" if scenario.scaler else 'precision = "fp16" with scaler omitted'
    if slug == "runs":
        return (f"The scenario calls {entry}({', '.join(scenario.arguments())}): make the solution's signature "
                "match, or change scaler, clip, accumulate, mode or entry in the [amp] table.")
    if slug in ("unscale-before-clip", "step-through-scaler", "update-after-step", "one-scaler") or (
            slug == "backward-on-scaled-loss" and scenario.has_scaler):
        if scenario.precision == "bf16":
            return (f"Likely the scaler setting: the scenario has a scaler ({scaler_origin}). For bf16 "
                    "without a GradScaler, declare scaler = false.")
        # fp16 training cannot go without a scaler (the table refuses it): the solution is wrong.
        return ("The scaler setting is right: fp16 training needs a GradScaler, so it is the solution's "
                "use of the scaler that this check rejects.")
    if slug == "clip-before-step":
        return ('Likely the clip setting: clip = "norm" asks every loop to clip; remove it (and max_norm) '
                "if the solution does not clip.")
    if slug in ("accumulation-window", "zero-grad-each-iteration") and scenario.accumulate > 1:
        return (f"Likely the accumulate setting: accumulate = {scenario.accumulate} expects one step every "
                f"{scenario.accumulate} batches.")
    if slug == "zero-grad-each-iteration":
        return "Likely the accumulate setting: a solution that accumulates gradients needs accumulate = k."
    if slug == "bf16-autocast":
        return 'Likely the precision setting: precision = "bf16" asks for bfloat16 autocast.'
    if slug == "train-mode":
        return 'Likely the handover setting: handover = "eval" expects the solution to call model.train().'
    if slug in ("eval-mode", "no-grad-in-eval", "no-training-in-eval"):
        return 'Likely the mode setting: mode = "eval" expects model.eval(), no_grad and no training.'
    return f"Check the solution and the [amp] table of exercise.toml ({scenario.describe()})."
