"""Feedback marks the faulty line and hands over nothing (issue 33, F and the smaller items), en and ja."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.api import grade_code
from grader.leaks import normalised
from grader.loader import load_exercise

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


def _grade(exercise_id: str, code: str, lang: str = "en") -> dict:
    return grade_code(load_exercise(EXERCISES / exercise_id), code, lang=lang, sandbox="local")


def _starter(exercise_id: str) -> str:
    return (EXERCISES / exercise_id / "starter.py").read_text(encoding="utf-8")


def _failed(doc: dict) -> dict[str, dict]:
    return {t["check"]: t for t in doc["tests"] if t["status"] == "fail"}


def test_a_wrong_standardization_is_marked_at_its_return_not_its_def():
    starter = _starter("tensors-broadcast")
    found = _failed(_grade("tensors-broadcast", starter))["standardize-shape-values"]
    assert starter.splitlines()[found["line"] - 1].strip() == "return x - x.mean()"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_tensors_devices_marks_the_faulty_lines_and_names_no_internal_device(lang: str):
    starter = _starter("tensors-devices")
    doc = _grade("tensors-devices", starter, lang)
    failed = _failed(doc)
    lines = starter.splitlines()
    assert lines[failed["pick-cuda"]["line"] - 1].strip() == 'return torch.device("cpu")'
    assert lines[failed["moves-batch"]["line"] - 1].strip() == "inputs.to(device)"
    for test in doc["tests"]:
        said = f"{test['message']} {test['hint']}"
        assert "meta" not in said, test  # the scenario's stand-in device is not the learner's business
        assert normalised("inputs = inputs.to(device)") not in normalised(said), test


def test_no_hint_of_the_measurement_exercise_hands_over_its_null_context():
    solution = (EXERCISES / "amp-measure-speed" / "solution.py").read_text(encoding="utf-8")
    assert "region = contextlib.nullcontext()" in solution
    for name in ("hints.md", "hints.ja.md", "prompt.md", "prompt.ja.md"):
        text = normalised((EXERCISES / "amp-measure-speed" / name).read_text(encoding="utf-8"))
        assert normalised("contextlib.nullcontext()") not in text, name


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_amp_starter_is_not_told_to_replace_a_call_it_does_not_have(lang: str):
    starter = _starter("amp-train-one-epoch")
    assert "optimizer.step()" not in starter
    step = _failed(_grade("amp-train-one-epoch", starter, lang))["step-through-scaler"]
    assert "Replace" not in step["hint"] and "置き換え" not in step["hint"], step["hint"]


def test_the_weights_message_marks_the_line_of_the_check_that_explains_it():
    # b08 steps with optimizer.step() on still-scaled gradients: the weights differ because of
    # that line, and the weights message marks it, not the `def` line (issue 33, F).
    code = (Path(__file__).resolve().parents[1] / "amp" / "corpus" / "amp-train-one-epoch"
            / "b08_optimizer_step_only.py").read_text(encoding="utf-8")
    failed = _failed(_grade("amp-train-one-epoch", code))
    step_line = code.splitlines().index("        optimizer.step()") + 1
    assert failed["step-through-scaler"]["line"] == step_line
    assert failed["weights-match-reference"]["line"] == step_line


def test_a_step_missing_from_the_loop_is_marked_at_the_loop_not_the_def():
    starter = _starter("loop-train-epoch")
    found = _failed(_grade("loop-train-epoch", starter))["step-each-batch"]
    assert starter.splitlines()[found["line"] - 1].strip() == "for inputs, targets in loader:"
