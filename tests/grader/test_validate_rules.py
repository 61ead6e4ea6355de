"""validate catches an instructor's mistakes, each with its file and cause, on broken copies of real folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.languages import course_languages, japanese_problems, language_problems
from grader.leaks import folder_problems
from grader.loader import load_exercise
from grader.quiz import validate_quiz
from grader.validate import check_exercise, never_failing, validate_all

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


def copy(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / "exercises" / name
    shutil.copytree(EXERCISES / name, folder)
    return folder


def test_the_course_declares_its_languages_by_its_lessons(tmp_path: Path) -> None:
    folder = copy(tmp_path, "loop-module")
    assert course_languages(folder) == ("en", "ja")  # no lessons beside it: the platform's two
    for lesson, langs in (("01-a", ("en", "ja", "fr")), ("02-b", ("ja", "en", "fr"))):
        (tmp_path / "lessons" / lesson).mkdir(parents=True)
        for lang in langs:
            (tmp_path / "lessons" / lesson / f"{lang}.md").write_text("# x\n")
    assert course_languages(folder) == ("en", "fr", "ja")
    problems = language_problems(load_exercise(folder))
    assert "exercise.toml: the title has no 'fr' text ([title] fr = \"...\")" in problems
    assert any(p.startswith("prompt.fr.md is missing or empty") for p in problems)
    assert any(p.startswith("hints.fr.md is missing or empty") for p in problems)
    assert not any(".ja." in p for p in problems)
    assert course_languages(EXERCISES / "loop-module") == ("en", "ja")  # the repository's lessons


def test_a_missing_japanese_prompt_or_hints_is_reported(tmp_path: Path) -> None:
    folder = copy(tmp_path, "loop-module")
    (folder / "prompt.ja.md").unlink()
    (folder / "hints.ja.md").write_text("  \n", encoding="utf-8")
    problems = language_problems(load_exercise(folder))
    assert problems == ["prompt.ja.md is missing or empty: 'ja' learners would read prompt.md in English",
                        "hints.ja.md is missing or empty: 'ja' learners would read hints.md in English"]


def test_a_missing_japanese_title_names_the_field(tmp_path: Path) -> None:
    folder = copy(tmp_path, "loop-module")
    toml = folder / "exercise.toml"
    toml.write_text("\n".join(line for line in toml.read_text().splitlines() if not line.startswith("ja =")))
    [report] = list(validate_all(folder))
    assert not report.ok and report.problems == ["exercise.toml: field 'title.ja': Field required"]


def test_japanese_glossary_and_punctuation_are_checked_in_the_folder(tmp_path: Path) -> None:
    folder = copy(tmp_path, "loop-module")
    prompt = folder / "prompt.ja.md"
    prompt.write_text(prompt.read_text(encoding="utf-8") + "\n閾値を使います: 注意(とても)。\n", encoding="utf-8")
    line = prompt.read_text(encoding="utf-8").count("\n")
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('ja = "nn.Module でモデルを作る"',
                                                            'ja = "モデル: nn.Module でモデルを作る"'))
    problems = japanese_problems(load_exercise(folder))
    assert f"prompt.ja.md:{line}: '閾値' is not the course's word: use 'しきい値' (docs/glossary.md)" in problems
    assert f"prompt.ja.md:{line}: half-width parentheses next to Japanese: use （）" in problems
    assert f"prompt.ja.md:{line}: a sentence ends with ：: end it with 。" in problems
    assert "exercise.toml title.ja: half-width colon next to Japanese: use ：" in problems
    assert all(not japanese_problems(load_exercise(f)) for f in sorted(EXERCISES.iterdir())
               if (f / "exercise.toml").is_file())


@pytest.mark.parametrize("where,text", [
    ("hints.md", "Like this:\n\n```python\nreturn (total_loss/batches,\n        correct/samples)\n```\n"),
    ("hints.ja.md", "```python\ncorrect += ((outputs.argmax(dim = 1) == targets)).sum().item()\n```\n"),
    ("prompt.md", "\nEnd with `return total_loss / batches, correct / samples`.\n"),
    ("feedback.md", "Write `samples += len(targets)` in the loop.\n"),
])
def test_a_text_that_hands_over_a_solution_line_in_any_form(tmp_path: Path, where: str, text: str) -> None:
    folder = copy(tmp_path, "loop-evaluate")
    path = folder / where
    path.write_text((path.read_text(encoding="utf-8") if path.is_file() else "") + text, encoding="utf-8")
    problems = folder_problems(folder)
    assert any(p.startswith(f"{where} hands over solution.py line ") for p in problems), problems


def test_quiz_points_and_a_wrong_numeric_key(tmp_path: Path) -> None:
    folder = copy(tmp_path, "quiz-tensors")
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text().replace("points = 9", "points = 6"))
    quiz = folder / "quiz.toml"
    quiz.write_text(quiz.read_text().replace("answer = 2000\n", "answer = 2048\n", 1))
    problems = validate_quiz(load_exercise(folder))
    assert "quiz-tensors/exercise.toml: points = 6, but the questions of quiz.toml add up to 9; make them agree " \
           "(the score is the questions' points over their sum)" in problems
    assert "quiz-tensors/quiz.toml: question 'bytes-float16': the key is 2048 but its compute code gives 2000; " \
           "correct the key or the code" in problems
    assert validate_quiz(load_exercise(EXERCISES / "quiz-tensors")) == []


def test_compute_code_that_fails_is_reported(tmp_path: Path) -> None:
    folder = copy(tmp_path, "quiz-training-loop")
    quiz = folder / "quiz.toml"
    text = quiz.read_text()
    start = text.index('compute = "len(')
    quiz.write_text(text[:start] + 'compute = "len(no_such_name)"' + text[text.index("\n", start):])
    [problem] = [p for p in validate_quiz(load_exercise(folder)) if "compute" in p]
    assert problem == ("quiz-training-loop/quiz.toml: question 'batches-per-epoch': its compute code failed: "
                       "NameError: name 'no_such_name' is not defined")


def _doc(**statuses: str) -> dict:
    return {"status": "fail", "error_kind": None,
            "tests": [{"check": c, "status": s, "given": c == "given"} for c, s in statuses.items()]}


def test_never_failing_reads_every_grading() -> None:
    solved = {"status": "pass", "tests": [{"check": c, "status": "pass", "given": c == "given"}
                                          for c in ("runs", "shape", "hollow", "once", "given")]}
    # 'once' ran on one wrong version only: one passing sample is no proof, it is not reported
    others = [("starter", _doc(runs="fail", shape="skip", hollow="skip", once="skip", given="pass")),
              ("mutant", _doc(runs="pass", shape="fail", hollow="pass", once="skip", given="pass")),
              ("mutant", _doc(runs="pass", shape="pass", hollow="pass", once="pass", given="pass"))]
    assert never_failing(solved, others) == [
        "check 'hollow' never fails: it passes on 2 mutants and was skipped on the other 1; it cannot tell "
        "right from wrong: make it fail when its subject is wrong"]


ALWAYS_PASSES = '''

@check("output-exists", title={"en": "The model gives an output", "ja": "モデルが出力を返す"},
       hint={"en": "Return the last layer's output.", "ja": "最後の層の出力を返しましょう。"},
       depends=["parameters-registered"])
def test_output_exists(learner):
    assert learner.source  # true of any file at all: the check cannot fail
'''


@pytest.mark.slow
def test_validate_reports_each_mistake_of_a_code_folder(tmp_path: Path) -> None:
    """One broken copy of loop-module, graded with its mutants: every rule says its file and cause."""
    folder = copy(tmp_path, "loop-module")
    (folder / "prompt.ja.md").unlink()
    tests = folder / "tests" / "test_module.py"
    tests.write_text(tests.read_text(encoding="utf-8") + ALWAYS_PASSES, encoding="utf-8")
    hints = folder / "hints.md"
    hints.write_text(hints.read_text(encoding="utf-8") + "\n```python\nself.net = nn.Sequential(nn.Linear("
                     "in_features, hidden), nn.ReLU(), nn.Linear(hidden, out_features))\n```\n", encoding="utf-8")
    report = check_exercise(load_exercise(folder), "local", with_mutants=True)
    assert not report.ok and not report.broken
    problems = report.problems
    assert "prompt.ja.md is missing or empty: 'ja' learners would read prompt.md in English" in problems
    assert any(p.startswith("check 'output-exists' never fails: it passes on ") for p in problems), problems
    assert any(p.startswith("hints.md hands over solution.py line 10") for p in problems), problems


def test_tests_that_cannot_collect_do_not_hide_the_folders_other_mistakes(tmp_path: Path) -> None:
    # An instructor fixes a folder in one round, not one mistake per run of validate.
    folder = copy(tmp_path, "amp-bf16")
    (folder / "prompt.ja.md").unlink()
    test_file = next((folder / "tests").glob("test_*.py"))
    test_file.write_text("import not_a_module_anywhere\n" + test_file.read_text(encoding="utf-8"), encoding="utf-8")
    problems = check_exercise(load_exercise(folder), sandbox="local").problems
    assert any(p.startswith("authoring error: tests/") and "not_a_module_anywhere" in p for p in problems), problems
    assert any(p.startswith("prompt.ja.md") for p in problems), problems
