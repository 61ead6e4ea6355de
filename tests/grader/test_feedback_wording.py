"""Feedback for empty code, a misspelt function and a time-out (issue 25): words with a line, in the
learner's language, said once."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from grader.api import grade_code
from grader.loader import load_exercise
from grader.missing import describe_missing

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


def _tests(doc: dict) -> dict[str, dict]:
    return {t["check"]: t for t in doc["tests"]}


@pytest.mark.parametrize("lang, words", [("en", "Your code is empty: write the function `pairwise_sq_distances`"),
                                         ("ja", "コードが空です。問題文で求められている関数 `pairwise_sq_distances`")])
def test_empty_code_is_told_to_write_the_function_not_an_attribute_error(lang: str, words: str) -> None:
    doc = grade_code(load_exercise(EXERCISES / "tensors-broadcast"), "", lang=lang, sandbox="local")
    card = _tests(doc)["distances-shape"]
    assert card["message"].startswith(words) and card["line"] == 1
    assert "AttributeError" not in card["message"]


def test_empty_code_in_an_amp_exercise_says_the_same() -> None:
    doc = grade_code(load_exercise(EXERCISES / "amp-train-one-epoch"), "\n", sandbox="local")
    runs = _tests(doc)["runs"]
    assert runs["message"].startswith("Your code is empty: write the function `train_one_epoch`")
    assert runs["line"] == 1
    assert _tests(doc)["batch-on-device"]["message"] == "Not checked: there is no `train_one_epoch` to run yet."
    # The other language too: an AMP check's skip was a plain pytest.skip in the graded language,
    # so a ja page read "Not checked: ..." for a submission graded in English (issue 34, item 4).
    skipped = [t for t in doc["tests"] if t["status"] == "skip" and not t["blocked_by"]]
    assert skipped and all(t["texts"]["ja"]["message"].startswith("未確認：") for t in skipped), skipped


def test_a_misspelt_function_is_pointed_at() -> None:
    source = "import torch\n\n\ndef pairwise_sq_distance(a, b):\n    return a\n"
    message, line = describe_missing("pairwise_sq_distances", source)
    assert line == 4 and "Line 4 defines `pairwise_sq_distance`" in message["en"]
    assert "4 行目で `pairwise_sq_distance` を定義しています" in message["ja"]
    message, line = describe_missing("evaluate", "import torch\nx = 1\n")
    assert line == 2 and message["en"] == ("Your code has no function named `evaluate`, and the checks call it "
                                           "by that name.")


def _slow_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "tensors-broadcast"
    shutil.copytree(EXERCISES / "tensors-broadcast", folder)
    config = folder / "exercise.toml"
    config.write_text(re.sub(r"time_s = \d+", "time_s = 2", config.read_text(encoding="utf-8")), encoding="utf-8")
    return folder


@pytest.mark.parametrize("lang, words, loop", [
    ("en", "Your code did not finish within 2 seconds", "inside the loop on line 6."),
    ("ja", "コードが 2 秒以内に終わらなかったため停止しました", "6 行目のループの中の 7 行目を実行していました。")])
def test_a_time_out_is_said_once_in_the_learners_language_with_a_line(tmp_path: Path, lang: str, words: str,
                                                                      loop: str) -> None:
    code = "import torch\n\n\ndef standardize_columns(x):\n    total = 0\n    while True:\n        total += 1\n"
    doc = grade_code(load_exercise(_slow_copy(tmp_path)), code, lang=lang, sandbox="local")
    assert doc["status"] == "error" and doc["error_kind"] == "timeout"
    # The runner's report: the loop's body (line 7) or its test (line 6), whichever it was on.
    assert doc["message"].startswith(words) and doc["line"] in (6, 7), doc["message"]
    if doc["line"] == 7:
        assert loop in doc["message"], doc["message"]
    told = [t for t in doc["tests"] if "time limit of" in t["message"] or t["message"].startswith(words)]
    assert len(told) <= 1 and all("time limit of" not in t["message"] for t in doc["tests"])
    assert all(t["hint"] == "" for t in doc["tests"] if t["status"] != "pass")


@pytest.mark.parametrize("lang, running", [
    ("en", "When it was stopped it was still running line 9, inside the loop on line 8."),
    ("ja", "停止した時点では 8 行目のループの中の 9 行目を実行していました。")])
def test_a_time_out_names_the_line_still_running_not_the_first_loop(tmp_path: Path, lang: str,
                                                                    running: str) -> None:
    # The first loop (line 5) finishes; the code hangs in the second one, in a call that blocks.
    code = ("import time\n\n\ndef standardize_columns(x):\n    for i in range(3):\n        x = x + 0\n"
            "    while True:\n        for step in range(3):\n            time.sleep(100)\n")
    doc = grade_code(load_exercise(_slow_copy(tmp_path)), code, lang=lang, sandbox="local")
    assert doc["error_kind"] == "timeout" and doc["line"] == 9
    assert doc["message"].endswith(running), doc["message"]
    card = next(t for t in doc["tests"] if t["status"] == "error")
    assert card["line"] == 9 and card["message"].endswith(running)
    other = "ja" if lang == "en" else "en"  # the document's own message in the other language too
    assert doc["texts"][other]["message"] == card["texts"][other]["message"]


def test_a_time_out_outside_any_loop_names_the_line_alone(tmp_path: Path) -> None:
    code = "import time\n\n\ndef standardize_columns(x):\n    time.sleep(100)\n"
    doc = grade_code(load_exercise(_slow_copy(tmp_path)), code, sandbox="local")
    assert doc["line"] == 5 and doc["message"].endswith("When it was stopped it was still running line 5.")


def test_without_a_report_the_first_loop_is_named() -> None:
    from grader.plugin import innermost_loop, timeout_message

    source = "x = 0\nwhile x < 3:\n    for i in range(2):\n        x += i\n"
    assert timeout_message("en", "2", source, None).endswith("The first loop of your code is on line 2.")
    assert timeout_message("ja", "2", source, None).endswith("コードの最初のループは 2 行目です。")
    assert innermost_loop(source, 4) == 3 and innermost_loop(source, 2) == 2 and innermost_loop(source, 1) is None
    assert timeout_message("en", "2", source, 3).endswith("still running the loop on line 3.")


def test_a_results_document_carries_the_other_language_and_its_texts_are_checked() -> None:
    from grader.results import validate_document

    doc = grade_code(load_exercise(EXERCISES / "tensors-broadcast"), "", lang="ja", sandbox="local")
    card = _tests(doc)["distances-shape"]
    assert card["message"].startswith("コードが空です")
    assert card["texts"]["en"]["message"].startswith("Your code is empty")
    assert card["texts"]["en"]["title"] == "pairwise_sq_distances returns shape (n, m)"
    clean = validate_document(doc)
    assert _tests(clean)["distances-shape"]["texts"]["en"]["message"].startswith("Your code is empty")
    card = _tests(clean)["distances-shape"]  # validation returns checked copies of the tests
    card["texts"] = {"fr": {"message": "x"}}
    with pytest.raises(ValueError, match="texts"):
        validate_document(clean)
    card["texts"] = {"en": {"message": "y" * 5000, "title": 3}}
    with pytest.raises(ValueError, match="texts.en.title"):
        validate_document(clean)


def test_a_syntax_error_is_told_in_both_languages() -> None:
    """Issue 34, item 4: a whole-run message (a syntax error) had no other language, so a ja
    page read "Python could not read your code: ..." for a submission graded in English."""
    from grader.results import validate_document

    doc = grade_code(load_exercise(EXERCISES / "tensors-broadcast"), "def f(:\n", lang="en", sandbox="local")
    assert doc["error_kind"] == "syntax" and doc["message"].startswith("Python could not read your code")
    assert doc["texts"]["ja"]["message"].startswith("1 行目のコードを Python が読み込めませんでした")
    clean = validate_document(doc)
    assert clean["texts"]["ja"]["message"] == doc["texts"]["ja"]["message"]
    clean["texts"] = {"fr": {"message": "x"}}
    with pytest.raises(ValueError, match="texts"):
        validate_document(clean)
    clean["texts"] = {"ja": {"message": "x", "advice": "not a list"}}
    with pytest.raises(ValueError, match="texts.ja.advice"):
        validate_document(clean)
