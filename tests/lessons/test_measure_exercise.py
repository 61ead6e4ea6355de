"""amp-measure-speed through the real grader: a fair measurement passes and comes back as charts
and a measurement table; made-up, scaled or constant figures fail against the grader's clock; a
CPU grader says it cannot verify the CUDA synchronisation rather than score it."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.api import grade_code
from grader.loader import load_exercise

EXERCISE = Path(__file__).resolve().parents[2] / "exercises" / "amp-measure-speed"
SMALL = "WIDTHS = [16, 256]\nBATCH_SIZE = 32\n"  # keeps the runs short; the code is the solution's
RETURN = '    return {"seconds": statistics.median(times), "peak_mb": peak_mb}\n'


def small(code: str) -> str:
    lines = [line for line in code.splitlines() if not line.startswith(("WIDTHS =", "BATCH_SIZE ="))]
    return "\n".join(lines) + "\n" + SMALL


def _variant(*replacements: tuple[str, str]) -> str:
    code = EXERCISE.joinpath("solution.py").read_text("utf-8")
    for old, new in replacements:
        assert old in code, old
        code = code.replace(old, new, 1)
    return small(code)


def _by_check(doc: dict) -> dict[str, dict]:
    return {t["check"]: t for t in doc["tests"]}


@pytest.mark.slow
def test_solution_passes_and_returns_its_figures_and_where_they_were_measured():
    exercise = load_exercise(EXERCISE)
    doc = grade_code(exercise, small(exercise.solution_path.read_text("utf-8")), lang="ja",
                     sandbox="local")
    assert doc["status"] == "pass", doc
    assert doc["score"] == 1.0
    step_time = next(f for f in doc["figures"] if f["id"] == "step-time")
    assert step_time["title"] == "学習 1 ステップの時間"
    assert "採点環境が提出された `train_step` を" in step_time["note"]
    assert {s["name"] for s in step_time["series"]} == {"float32", "bfloat16 の autocast"}
    assert all(len(s["points"]) == 2 and all(y > 0 for _, y in s["points"])
               for s in step_time["series"])
    assert any(f["id"] == "speedup" for f in doc["figures"])
    table = doc["measurement"]
    assert table["device"] == "cpu" and table["threads"] >= 1 and table["torch"].startswith("2.")
    assert table["cpu_model"] and table["cpu_capability"]
    assert {(r["width"], r["precision"]) for r in table["rows"]} == {
        (16, "float32"), (256, "float32"), (16, "bfloat16"), (256, "bfloat16")}
    for row in table["rows"]:
        assert 0 < row["min_ms"] <= row["median_ms"] <= row["max_ms"]
        assert row["repeats"] >= 3 and row["learner_ms"] > 0 and row["peak_mb"] is None
    # The chart shows the spread (issue 24): a whisker per median, from the table's min to max.
    assert "ひげは最速〜最遅のステップ" in step_time["note"] and "CPU" in step_time["note"]
    rows = {(r["precision"], r["width"]): r for r in table["rows"]}
    for series in step_time["series"]:
        precision = "float32" if series["name"] == "float32" else "bfloat16"
        assert [w[0] for w in series["spread"]] == [x for x, _ in series["points"]]
        for (width, low, high), (_, median) in zip(series["spread"], series["points"], strict=True):
            row = rows[(precision, width)]
            assert (low, high) == pytest.approx((row["min_ms"], row["max_ms"]))
            assert low <= median <= high and median == pytest.approx(row["median_ms"])
    # On a CPU grader the synchronisation is not verified: it says so and counts neither way.
    sync = _by_check(doc)["cuda-synchronize"]
    assert sync["status"] == "skip" and sync["unverifiable"] is True
    assert (sync["points"], sync["max_points"]) == (0, 0)
    assert "GPU" in sync["message"]


@pytest.mark.slow
@pytest.mark.parametrize(("returned", "words"), [
    # Invented: a huge float32 time and a tiny autocast one (a 123,000x speed-up).
    ('    return {"seconds": 123 if amp_dtype is None else 0.001, "peak_mb": peak_mb}\n',
     ("you returned 1.23e+05 ms", "longer than")),
    # The autocast timings scaled by 0.01.
    ('    return {"seconds": statistics.median(times) * (0.01 if amp_dtype else 1), "peak_mb": peak_mb}\n',
     ("bfloat16 autocast: you returned", "shorter than")),
    # The same figure whatever ran.
    ('    return {"seconds": 0.05, "peak_mb": peak_mb}\n', ("you returned 50 ms", "grader's clock saw")),
], ids=["invented", "scaled", "constant"])
def test_figures_the_clock_did_not_see_fail(returned, words):
    doc = grade_code(load_exercise(EXERCISE), _variant((RETURN, returned)), sandbox="local")
    checks = _by_check(doc)
    assert checks["figures-match-clock"]["status"] == "fail", checks
    assert doc["status"] == "fail" and doc["score"] < 1.0
    message = checks["figures-match-clock"]["message"]
    assert all(word in message for word in words), message
    assert checks["figures-match-clock"]["line"]
    others = {slug for slug, t in checks.items() if t["status"] == "fail"}
    assert others == {"figures-match-clock"}


@pytest.mark.slow
def test_made_up_numbers_and_a_fake_memory_figure_fail():
    code = SMALL + (
        "def time_steps(model, optimizer, inputs, targets, amp_dtype=None, steps=10, warmup=3):\n"
        "    return {'seconds': 0.01, 'peak_mb': 12.0}\n")
    doc = grade_code(load_exercise(EXERCISE), code, sandbox="local", lang="ja")
    checks = _by_check(doc)
    assert checks["returns-seconds"]["status"] == "pass"
    assert checks["warmup-then-steps"]["status"] == "fail"
    assert checks["autocast-when-asked"]["status"] == "fail"
    assert checks["memory-honest"]["status"] == "fail"
    assert checks["figures-match-clock"]["status"] == "skip"  # depends on warmup-then-steps
    assert not checks["figures-match-clock"]["unverifiable"]  # a skip that costs its point
    sync = checks["cuda-synchronize"]
    assert sync["status"] == "skip" and sync["unverifiable"] and sync["points"] == 0
    assert "確かめられません" in sync["message"] and "コードを読むと" in sync["message"]
    assert doc["score"] == 0
    assert doc.get("measurement") is None  # no train_step: the grader had nothing of its own to time


@pytest.mark.slow
@pytest.mark.parametrize(("replacements", "failing", "words"), [
    # Gradients never cleared, and the clock stopped before the GPU is waited for: the first
    # fails; on a CPU grader the second is not verified, and its note says what the code reads as.
    ([("    optimizer.zero_grad(set_to_none=True)\n", ""),
      ("        if on_cuda:\n            torch.cuda.synchronize()  # stop", "        # stop")],
     {"each-step-trains"}, ("zero_grad", "does not come before the clock stops")),
    # The optimizer steps on the last step's gradients, then backward runs.
    ([("    loss.backward()\n    optimizer.step()\n", "    optimizer.step()\n    loss.backward()\n")],
     {"each-step-trains"}, ("before loss.backward()",)),
], ids=["no-zero-grad-unsynced-stop", "step-before-backward"])
def test_a_step_that_does_not_train_fails_and_an_unsynced_clock_earns_nothing(replacements, failing, words):
    doc = grade_code(load_exercise(EXERCISE), _variant(*replacements), sandbox="local")
    checks = _by_check(doc)
    failed = {slug: t for slug, t in checks.items() if t["status"] == "fail"}
    assert set(failed) == failing, failed
    assert doc["score"] < 1.0
    messages = " ".join(t["message"] for t in checks.values())
    assert all(word in messages for word in words), messages
    assert all(t["line"] for t in failed.values())
    assert checks["cuda-synchronize"]["unverifiable"] and checks["cuda-synchronize"]["points"] == 0


@pytest.mark.slow
def test_a_synchronize_outside_the_timed_loop_earns_no_points_on_a_cpu_grader():
    """The issue's variant: one synchronize, after the loop; once it scored 1.0 for the names."""
    doc = grade_code(load_exercise(EXERCISE), _variant(
        ("        if on_cuda:\n            torch.cuda.synchronize()  # start", "        # start"),
        ("        if on_cuda:\n            torch.cuda.synchronize()  # stop", "        # stop")),
        sandbox="local")
    sync = _by_check(doc)["cuda-synchronize"]
    assert sync["status"] == "skip" and sync["unverifiable"]
    assert (sync["points"], sync["max_points"]) == (0, 0)
    assert "does not come before the clock starts" in sync["message"]
