"""amp-measure-speed through the real grader: a fair measurement passes and comes back as charts."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.api import grade_code
from grader.loader import load_exercise

EXERCISE = Path(__file__).resolve().parents[2] / "exercises" / "amp-measure-speed"
SMALL = "WIDTHS = [16, 64]\nBATCH_SIZE = 8\n"  # keeps the runs short; the code is the solution's


def small(code: str) -> str:
    lines = [line for line in code.splitlines() if not line.startswith(("WIDTHS =", "BATCH_SIZE ="))]
    return "\n".join(lines) + "\n" + SMALL


@pytest.mark.slow
def test_solution_passes_and_returns_its_figures():
    exercise = load_exercise(EXERCISE)
    doc = grade_code(exercise, small(exercise.solution_path.read_text("utf-8")), lang="ja",
                     sandbox="local")
    assert doc["status"] == "pass", doc
    step_time = next(f for f in doc["figures"] if f["id"] == "step-time")
    assert step_time["title"] == "学習 1 ステップの時間"
    assert {s["name"] for s in step_time["series"]} == {"float32", "bfloat16 の autocast"}
    assert all(len(s["points"]) == 2 and all(y > 0 for _, y in s["points"])
               for s in step_time["series"])
    assert any(f["id"] == "speedup" for f in doc["figures"])


@pytest.mark.slow
def test_made_up_numbers_and_a_fake_memory_figure_fail():
    code = SMALL + (
        "def time_steps(model, optimizer, inputs, targets, amp_dtype=None, steps=10, warmup=3):\n"
        "    return {'seconds': 0.01, 'peak_mb': 12.0}\n")
    doc = grade_code(load_exercise(EXERCISE), code, sandbox="local")
    status = {t["check"]: t["status"] for t in doc["tests"]}
    assert status["returns-seconds"] == "pass"
    assert status["warmup-then-steps"] == "fail"
    assert status["autocast-when-asked"] == "fail"
    assert status["memory-honest"] == "fail"
    assert status["cuda-synchronize"] == "fail"


def _variant(*replacements: tuple[str, str]) -> str:
    code = EXERCISE.joinpath("solution.py").read_text("utf-8")
    for old, new in replacements:
        assert old in code, old
        code = code.replace(old, new, 1)
    return small(code)


@pytest.mark.slow
@pytest.mark.parametrize(("replacements", "failing", "words"), [
    # Gradients never cleared, and the clock stopped before the GPU is waited for.
    ([("    optimizer.zero_grad(set_to_none=True)\n", ""),
      ("        if on_cuda:\n            torch.cuda.synchronize()  # stop", "        # stop")],
     {"each-step-trains", "cuda-synchronize"}, ("zero_grad", "between the step")),
    # The optimizer steps on the last step's gradients, then backward runs.
    ([("    loss.backward()\n    optimizer.step()\n", "    optimizer.step()\n    loss.backward()\n")],
     {"each-step-trains"}, ("before loss.backward()",)),
], ids=["no-zero-grad-unsynced-stop", "step-before-backward"])
def test_a_step_that_does_not_train_and_an_unsynced_clock_fail(replacements, failing, words):
    doc = grade_code(load_exercise(EXERCISE), _variant(*replacements), sandbox="local")
    failed = {t["check"]: t for t in doc["tests"] if t["status"] != "pass"}
    assert set(failed) == failing, failed
    assert doc["score"] < 1.0
    messages = " ".join(t["message"] for t in failed.values())
    assert all(word in messages for word in words), messages
    assert all(t["line"] for t in failed.values())
