"""The grader's own Japanese texts (every `"ja"` value in grader/**/*.py) follow the course glossary
and punctuation rules, as `grader validate` and tests/lessons hold exercises and lessons to them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from grader.japanese_text import avoided_uses, punctuation_problems, strip_code
from tests.lessons.japanese_text import japanese_values, python_texts

GRADER = Path(__file__).resolve().parents[2] / "grader"


def grader_problems(root: Path = GRADER) -> list[str]:
    """Every glossary and punctuation problem of the grader's Japanese texts, as 'file:line: ...'."""
    return python_problems(sorted(root.rglob("*.py")), root.parent)


def python_problems(paths: Iterable[Path], base: Path) -> list[str]:
    """Every glossary and punctuation problem of the Japanese texts of these Python files."""
    problems = []
    for path in paths:
        for line, value in japanese_values(path):
            name = path.relative_to(base).as_posix()
            texts = python_texts(value)
            if texts is None:
                problems.append(f"{name}:{line}: the Japanese text is built in a way this test cannot "
                                "read (write it as a string, an f-string, + or a conditional)")
                continue
            for text in dict.fromkeys(texts):
                # Feedback shows `backticked` spans as code (app/static/src/results.js): code is
                # exempt only there, so code in a message belongs in backticks. Messages are plain
                # text, not Markdown: the list-item rule does not apply.
                plain = strip_code(text)
                problems += [f"{name}:{line + at - 1}: '{term}' is not the course's word: use "
                             f"'{preferred}' (docs/glossary.md)  in: {text!r}"
                             for at, term, preferred in avoided_uses(plain)]
                problems += [f"{name}:{line + at - 1}: {rule}  in: {text!r}"
                             for at, rule in punctuation_problems(plain, markdown=False)]
    return problems


def test_the_graders_japanese_texts_follow_the_glossary_and_punctuation() -> None:
    problems = grader_problems()
    assert not problems, "\n".join(problems)


def test_the_exercises_check_messages_follow_the_glossary_and_punctuation() -> None:
    """The titles, hints and feedback an exercise's own checks show (exercises/*/tests/*.py)."""
    paths = sorted(GRADER.parent.glob("exercises/*/tests/*.py"))
    assert len(paths) >= 15
    problems = python_problems(paths, GRADER.parent)
    assert not problems, "\n".join(problems)


def test_the_walk_finds_texts_in_every_shape_and_reports_them(tmp_path: Path) -> None:
    package = tmp_path / "grader"
    package.mkdir()
    (package / "sample.py").write_text(
        'MESSAGE = {"en": "x", "ja": "損失スケールが小さい"}\n'
        'def f(n, line):\n'
        '    at_en, at_ja = ("", f"{line} 行目で飛ばしています") if line else ("", "")\n'
        '    return {"en": "y",\n'
        '            "ja": f"{n} 回 step しました" + ("（行）" if line else "閾値です:")}\n'
        'CODE = {"ja": "`scaler.step(optimizer)` と `step` はコードなので、そのままです。"}\n'
        'BUILT = {"ja": "".join(["x"])}\n'
        'BARE = {"ja": "scaler.step(optimizer) を呼びましょう。"}\n', encoding="utf-8")
    problems = "\n".join(grader_problems(package))
    assert "grader/sample.py:1: '損失スケール' is not the course's word: use 'ロススケール'" in problems
    assert "grader/sample.py:3: '飛ばし' is not the course's word: use 'スキップ'" in problems
    assert "grader/sample.py:5: 'step' is not the course's word: use 'ステップ'" in problems
    assert "grader/sample.py:5: '閾値' is not the course's word: use 'しきい値'" in problems
    assert "grader/sample.py:5: half-width colon next to Japanese" in problems
    assert "grader/sample.py:6:" not in problems  # code in backticks is not prose
    assert "grader/sample.py:7: the Japanese text is built in a way this test cannot read" in problems
    # A call written without backticks is caught by the bracket rule: the fix is backticks.
    assert "grader/sample.py:8: half-width parentheses next to Japanese" in problems
