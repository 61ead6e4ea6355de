"""The pytest plugin in-process, with a fake learner: statuses, points, skips, depends, authoring errors."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from grader.loader import load_exercise
from grader.plugin import GraderPlugin, authoring_problems

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


class FakeLearner:
    """What the plugin needs of a learner: no process, canned answers."""

    fatal = None
    source = "def f():\n    return 1\n"

    def __init__(self) -> None:
        self.advice: list = []

    def advise(self, text) -> None:
        self.advice.append(text)


TESTS = '''
from grader.author import Feedback, NotChecked, check

@check("runs", title={"en": "Runs", "ja": "動く"}, given=True)
def test_runs(learner):
    assert learner.source

@check("value", title="Value", hint={"en": "Return 2.", "ja": "2 を返しましょう。"}, depends=["runs"])
def test_value():
    raise Feedback({"en": "Returned 1, not 2.", "ja": "2 ではなく 1 を返しました。"}, line=2)

@check("unseen", title="Unseen")
def test_unseen():
    raise NotChecked({"en": "Not checked: nothing ran.", "ja": "未確認：何も実行されていません。"})

@check("after-value", title="After", depends=["value"])
def test_after_value():
    pass

@check("typo", title="Typo", depends=["run"])
def test_typo():
    pass
'''


def _run(tmp_path: Path, source: str, lang: str = "en") -> GraderPlugin:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_fake.py").write_text(source)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    plugin = GraderPlugin(load_exercise(EXERCISES / "loop-train-epoch"), FakeLearner(), lang)
    pytest.main([str(tests), "-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tests), "-q",
                 "-p", "no:cacheprovider", "--import-mode=importlib"], plugins=[plugin])
    return plugin


def test_results_in_order_with_points_skips_and_authoring_errors(tmp_path: Path) -> None:
    plugin = _run(tmp_path, TESTS, lang="ja")
    got = {r.check: r for r in plugin.results}
    assert [r.check for r in plugin.results] == ["runs", "value", "unseen", "after-value", "typo"]
    assert got["runs"].status == "pass" and got["runs"].points == 0 and got["runs"].max_points == 0
    assert got["value"].status == "fail" and got["value"].line == 2
    assert got["value"].message == "2 ではなく 1 を返しました。" and got["value"].hint == "2 を返しましょう。"
    assert got["unseen"].status == "skip" and got["unseen"].message == "未確認：何も実行されていません。"
    assert got["after-value"].status == "skip" and "value" in got["after-value"].message
    # The check that blocked it, as data (results v1 `blocked_by`); no other entry has one.
    assert got["after-value"].blocked_by == "value"
    assert [r.check for r in plugin.results if r.blocked_by] == ["after-value"]
    # A misspelled slug is the author's error, with file and line, never a silent skip.
    assert got["typo"].status == "error"
    assert "tests/test_fake.py:20" in got["typo"].message and "'run'" in got["typo"].message


def test_authoring_problems_names_unknown_and_later_slugs() -> None:
    from grader.testing import check

    def item(slug: str, depends: list[str], line: int):
        function = check(slug, title=slug, depends=depends)(lambda: None)
        return SimpleNamespace(function=function, name=f"test_{slug}", nodeid=f"t.py::test_{slug}",
                               location=("test_t.py", line - 1, f"test_{slug}"))

    items = [item("a", ["b"], 3), item("b", [], 7), item("c", ["runs"], 9)]
    problems = authoring_problems(items)
    assert "tests/test_t.py:3" in problems["t.py::test_a"] and "declared after" in problems["t.py::test_a"]
    assert "'runs', which no check declares" in problems["t.py::test_c"]
    assert "t.py::test_b" not in problems


def test_depends_must_be_a_list() -> None:
    from grader.testing import check

    with pytest.raises(TypeError):
        check("x", depends="runs")
