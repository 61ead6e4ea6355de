"""No prompt, hint or check text hands over a solution line or names a check id (grader.leaks)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.api import grade_code
from grader.ladder import DEFAULTS, lesson_sections, rungs
from grader.ladder import problems as ladder_problems
from grader.leaks import answer_lines, default_texts, folder_problems, is_api_only, normalised
from grader.loader import load_exercise, load_exercises
from grader.validate import check_exercise

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
CODE = sorted(e.id for e in load_exercises(EXERCISES).exercises.values() if e.config.kind == "code")

# Hints as they were before issue 25: each handed over the line it was about.
OLD_BROADCAST_HINT = ('hint={"en": "(x - x.mean(dim=0)) / x.std(dim=0)", '
                      '"ja": "(x - x.mean(dim=0)) / x.std(dim=0) です。"}')


@pytest.mark.parametrize("exercise_id", CODE)
def test_no_text_hands_over_a_solution_line(exercise_id: str) -> None:
    # The folder's prompts and hints (en and ja), every string in its tests, and the grader's
    # default texts, against the solution's lines that the starter does not have.
    assert folder_problems(EXERCISES / exercise_id) == []


@pytest.mark.parametrize("exercise_id, line", [
    ("tensors-broadcast", 6), ("bigger-checkpointing", 9), ("loop-evaluate", 16), ("tensors-devices", 12),
    ("amp-train-one-epoch", 16), ("loop-checkpoint", 13),
])
def test_the_lines_the_review_found_are_answer_lines(exercise_id: str, line: int) -> None:
    # The lines issue 25 found handed over; a scanner that looked for nothing would pass every folder.
    folder = EXERCISES / exercise_id
    found = answer_lines((folder / "solution.py").read_text(encoding="utf-8"),
                         (folder / "starter.py").read_text(encoding="utf-8"))
    assert line in {a.line for a in found}, found


def test_the_grader_defaults_are_searched() -> None:
    texts = default_texts()
    assert any(t.where.startswith("grader/amp/checks_scaler.py") for t in texts)
    assert any(t.where.startswith("grader/messages.py") for t in texts)


def test_every_amp_check_module_is_searched() -> None:
    """A check module added later (checks_window.py came after the list was written) is read too."""
    searched = {t.where.split(":")[0] for t in default_texts()}
    amp = Path(__file__).resolve().parents[2] / "grader" / "amp"
    modules = {f"grader/amp/{p.name}" for p in amp.glob("checks_*.py")}
    assert modules <= searched, sorted(modules - searched)


def _copy(tmp_path: Path, exercise_id: str) -> Path:
    folder = tmp_path / exercise_id
    shutil.copytree(EXERCISES / exercise_id, folder)
    return folder


def test_the_old_broadcast_hint_is_caught(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "tensors-broadcast")
    tests = folder / "tests" / "test_broadcast.py"
    source = tests.read_text(encoding="utf-8")
    start = source.index('hint={"en": "Reduce over the rows')
    end = source.index("})", start) + 1
    tests.write_text(source[:start] + OLD_BROADCAST_HINT + source[end:], encoding="utf-8")
    problems = folder_problems(folder)
    assert problems and all("solution.py line 6" in p for p in problems), problems
    hint_line = source[:start].count("\n") + 1
    assert problems[0].startswith(f"tests/test_broadcast.py:{hint_line} hands over"), problems


@pytest.mark.parametrize("text", [
    "Write\n\n```python\nh = checkpoint(block, h, use_reentrant=False)\n```\n",  # fenced
    "- ループの中で `h = checkpoint(block, h, use_reentrant=False)` とします。",  # Japanese, inline
    "Use  checkpoint( block,h , use_reentrant = False ) in the loop.",  # spacing: a right-hand side
])
def test_a_line_is_found_fenced_inline_spaced_and_in_japanese(tmp_path: Path, text: str) -> None:
    folder = _copy(tmp_path, "bigger-checkpointing")
    (folder / "hints.ja.md").write_text(text, encoding="utf-8")
    problems = folder_problems(folder, with_defaults=False)
    assert any(p.startswith("hints.ja.md hands over solution.py line 9") for p in problems), problems


def test_quotes_are_one() -> None:
    assert normalised('torch.device("cuda")') == normalised("torch.device('cuda')") == "torch.device('cuda')"


def test_a_line_the_starter_has_is_not_an_answer() -> None:
    starter = "def f(x):\n    y = x.sum(dim=0) * 2 + 1\n    return y\n"
    solution = "def f(x):\n    y = x.sum(dim=0) * 2 + 1\n    return y / x.shape[0] + x.mean(dim=1).max()\n"
    found = answer_lines(solution, starter)
    assert {a.line for a in found} == {3}  # the line and its right-hand side


@pytest.mark.parametrize("code, api", [
    ("scaler.update()", True), ("with torch.no_grad():", True), ("return w.grad", True),
    ("model.eval()", True), ("scaler.step(optimizer)", True),
    ("scaler.scale(loss).backward()", False), ("model.load_state_dict(checkpoint['model'])", False),
    ("inputs = inputs.to(device)", False), ("if (i + 1) % accum_steps == 0:", False),
])
def test_naming_one_api_call_is_the_api_rung_not_the_line(code: str, api: bool) -> None:
    assert is_api_only(code) is api


def test_a_hint_naming_a_check_id_is_reported(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "amp-train-one-epoch")
    (folder / "hints.md").write_text("- Fix the mistake reported under 'backward-on-scaled-loss' first.\n",
                                     encoding="utf-8")
    problems = folder_problems(folder)
    assert problems == ["hints.md names the check id 'backward-on-scaled-loss': name the check by its title"]


def test_validate_reports_a_leaking_hint(tmp_path: Path) -> None:
    # What an instructor sees: `grader validate` fails the folder and names the file and the line.
    folder = _copy(tmp_path, "tensors-broadcast")
    with (folder / "hints.md").open("a", encoding="utf-8") as hints:
        hints.write("- Return `(a[:, None, :] - b[None, :, :]).pow(2).sum(dim=-1)`.\n")
    report = check_exercise(load_exercise(folder), sandbox="local")
    assert not report.ok
    assert "hints.md hands over solution.py line 11" in "\n".join(report.problems), report.problems


CORPUS = Path(__file__).resolve().parents[1] / "amp" / "corpus" / "amp-train-one-epoch"


@pytest.mark.parametrize("lang, named", [("en", "“The optimizer steps once per batch through the scaler”"),
                                         ("ja", "「オプティマイザはバッチごとに 1 回、スケーラー経由でステップする」")])
def test_the_weights_hint_names_the_failing_check_by_its_title(lang: str, named: str) -> None:
    # It once said "Fix the mistake reported under 'step-through-scaler' first".
    exercise = load_exercise(EXERCISES / "amp-train-one-epoch")
    code = (CORPUS / "b08_optimizer_step_only.py").read_text(encoding="utf-8")
    doc = grade_code(exercise, code, lang=lang, sandbox="local")
    weights = next(t for t in doc["tests"] if t["check"] == "weights-match-reference")
    assert weights["status"] == "fail"
    assert named in weights["hint"] and "step-through-scaler" not in weights["hint"], weights["hint"]


def test_the_ladder_rungs_come_from_the_folder_then_the_grader_then_the_lesson() -> None:
    folder = EXERCISES / "tensors-broadcast"
    own = rungs(folder, "distances-shape", "01-tensors")
    assert [r.kind for r in own] == ["concept", "api"] and own[0].section == "Operations and broadcasting"
    assert set(own[0].text) == {"en", "ja"}
    amp = rungs(EXERCISES / "amp-train-one-epoch", "update-after-step", "03-mixed-precision")
    assert [r.kind for r in amp] == ["concept", "api"] and amp[0].lesson == "03-mixed-precision"
    plain = rungs(folder, "no-such-check", "01-tensors")
    assert [(r.kind, r.lesson, r.section) for r in plain] == [("concept", "01-tensors", None)]


def test_validate_reports_a_broken_ladder(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "tensors-broadcast")
    (folder / "hints.toml").write_text(
        '[distance-shape]\nconcept = { en = "x" , ja = "y" }\n'
        '[no-loops]\nlesson = "01-tensors"\nsection = "Broadcasting by hand"\napi = { en = "only English" }\n',
        encoding="utf-8")
    found = ladder_problems(folder, {"distances-shape", "no-loops"}, EXERCISES.parent / "lessons")
    assert any("[distance-shape]: no check of this exercise" in p for p in found), found
    assert any("[no-loops]: 'api' needs a non-empty 'en' and 'ja'" in p for p in found), found
    assert any("has no heading 'Broadcasting by hand'" in p for p in found), found
    assert any("hints.toml" in p for p in folder_problems(folder)), "validate's text check misses hints.toml"


def test_every_default_rung_points_at_a_real_lesson_section() -> None:
    for check, table in DEFAULTS.items():
        sections = lesson_sections(EXERCISES.parent / "lessons", str(table["lesson"]))
        assert sections and str(table["section"]).replace("`", "") in sections, check


def test_a_hint_quoting_most_of_a_line_is_reported_but_a_prompt_may_state_the_task(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "tensors-broadcast")
    (folder / "hints.md").write_text("- Start from `a[:, None, :] - b[None, :, :]`.\n", encoding="utf-8")
    problems = folder_problems(folder, with_defaults=False)
    assert problems == ["hints.md quotes most of solution.py line 11 `(a[:, None, :] - b[None, :, :])"
                        ".pow(2).sum(dim=-1)`: teach the idea or name the API, never the line"]
    (folder / "hints.md").unlink()
    (folder / "prompt.md").write_text("Compute `a[:, None, :] - b[None, :, :]` first.\n", encoding="utf-8")
    assert folder_problems(folder, with_defaults=False) == []


def test_a_folders_own_check_never_takes_an_amp_default_of_the_same_id() -> None:
    # bigger-checkpointing declares its own "runs"; the AMP "runs" rungs are about a crashed epoch.
    own = rungs(EXERCISES / "bigger-checkpointing", "runs", "04-bigger-models")
    assert [(r.kind, r.lesson, r.section) for r in own] == [("concept", "04-bigger-models", None)]
    amp = rungs(EXERCISES / "amp-train-one-epoch", "runs", "03-mixed-precision")
    assert [r.kind for r in amp] == ["concept", "api"] and amp[0].section == "Common mistakes and what torch says"
