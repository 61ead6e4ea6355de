"""Lessons 1, 2 and 4: each mistake fails the check that names it, and other correct styles pass.

Golden submissions under submissions/<exercise>/ go through the real grader (local sandbox).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.api import grade_code
from grader.loader import load_exercise

HERE = Path(__file__).resolve().parent
EXERCISES = HERE.parents[1] / "exercises"

# submission -> the statuses its checks must get (checks not listed must pass).
EXPECTED: dict[str, dict[str, str]] = {
    "tensors-dtype-memory/four-bytes-and-half.py": {
        "bytes-every-dtype": "fail", "cast-dtype": "fail", "cast-values": "skip"},
    "tensors-broadcast/row-mean-and-loops.py": {
        "standardize-shape-values": "fail", "no-loops": "fail"},
    "tensors-broadcast/square-root.py": {"distances-values": "fail"},
    "tensors-devices/hard-coded-cuda.py": {
        "pick-cpu": "fail", "pick-cuda": "skip", "returns-triple": "skip", "moves-model": "fail",
        "moves-batch": "skip"},
    "tensors-devices/hard-coded-cpu.py": {"moves-model": "fail", "moves-batch": "fail"},
    "tensors-autograd/grad-not-cleared.py": {"descend-clears-grad": "fail"},
    "tensors-autograd/update-outside-no-grad.py": {
        "descend-runs": "fail", "descend-clears-grad": "skip"},
    "tensors-autograd/analytic-gradient.py": {},
    "loop-dataset/off-by-one-and-slice.py": {
        "length": "fail", "item-shape-dtype": "fail", "item-values": "skip", "batches": "skip",
        "loader-shuffles": "fail"},
    "loop-module/no-relu-detached.py": {"non-linear": "fail", "gradients-flow": "fail"},
    "loop-train-epoch/zero-grad-before-step.py": {
        "train-mode": "fail", "step-each-batch": "fail", "mean-loss-returned": "fail",
        "weights-match-reference": "fail"},
    "loop-train-epoch/no-zero-grad.py": {
        "zero-grad-each-iteration": "fail", "weights-match-reference": "fail"},
    "loop-train-epoch/model-zero-grad-style.py": {},
    "loop-evaluate/batch-mean-accuracy.py": {"accuracy": "fail"},
    "loop-evaluate/percent-and-grad.py": {"no-grad": "fail", "accuracy": "fail"},
    "loop-checkpoint/whole-model-pickled.py": {
        "weights-only-file": "fail", "restores-model": "skip", "restores-optimizer": "skip",
        "returns-epoch": "skip", "resumes-exactly": "skip"},
    "loop-checkpoint/optimizer-not-restored.py": {
        "restores-optimizer": "fail", "resumes-exactly": "skip"},
    "bigger-grad-accumulation/loss-not-divided.py": {"matches-big-batch": "fail"},
    "bigger-grad-accumulation/zero-grad-every-micro-batch.py": {
        "keeps-accumulated-grads": "fail", "matches-big-batch": "fail"},
    "bigger-checkpointing/reentrant-default.py": {
        "gradients-match": "fail", "every-block-checkpointed": "skip",
        "use-reentrant-false": "skip"},
    "bigger-checkpointing/every-other-block.py": {
        "every-block-checkpointed": "fail", "use-reentrant-false": "skip"},
}


def test_every_golden_submission_is_listed():
    on_disk = {str(p.relative_to(HERE / "submissions")) for p in HERE.glob("submissions/*/*.py")}
    assert on_disk == set(EXPECTED)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_golden_submission(name, roomy_exercises):
    # The largest time limit: these verdicts are about the code, not how busy the host is.
    exercise = load_exercise(roomy_exercises / name.split("/")[0])
    code = (HERE / "submissions" / name).read_text(encoding="utf-8")
    doc = grade_code(exercise, code, sandbox="local")
    assert doc["error_kind"] is None, doc["message"]
    got = {test["check"]: test["status"] for test in doc["tests"]}
    expected = {check: EXPECTED[name].get(check, "pass") for check in got}
    assert got == expected
    for test in doc["tests"]:
        if test["status"] == "fail":
            # Feedback names the mistake and a line; never a bare assertion.
            assert test["message"] and "assert " not in test["message"], test
            assert test["line"], test
    assert doc["status"] == ("pass" if not EXPECTED[name] else "fail")


@pytest.mark.slow
def test_feedback_in_japanese(roomy_exercises):
    exercise = load_exercise(roomy_exercises / "bigger-grad-accumulation")
    code = (HERE / "submissions/bigger-grad-accumulation/loss-not-divided.py").read_text("utf-8")
    doc = grade_code(exercise, code, lang="ja", sandbox="local")
    failed = next(t for t in doc["tests"] if t["status"] == "fail")
    assert "`accum_steps`（4）で割りましょう" in failed["message"]
    assert failed["title"] == "大きなバッチで 1 回ずつ更新した重みと一致する"
