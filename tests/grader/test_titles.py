"""Check titles from the grader without grading: every check, AMP one-liners included, as the harness titles them."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.loader import load_exercise, load_exercises
from grader.titles import check_titles, titles_from_source
from tests.grading_cache import GradingCache

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
CODE = sorted(e.id for e in load_exercises(EXERCISES).exercises.values() if e.config.kind == "code")


def test_titles_of_decorated_checks_and_amp_one_liners() -> None:
    source = '''
from grader.author import amp, check

@check("shape", title={"en": "Right shape", "ja": "形状が正しい"})
def test_a(): ...

@check("values")
def test_b():
    """Values match the reference.

    More text."""

@check("plain", title="Plain English")
def test_c(): ...

PARAMS = {"accum_steps": 4, "windows": 3}
K, GROUPS = PARAMS["accum_steps"], PARAMS["windows"]
STEP = f"Steps once per {K} micro-batches"

@check("every-k", title={"en": f"Steps once per {K} micro-batches", "ja": f"{K} 個ごと"})
def test_d(): ...

@check("named", title=STEP)
def test_e(): ...

@check("computed", title=" ".join(["not", "a", "literal"]))
def test_f():
    """Falls back to the docstring."""

test_scaler = amp.check("one-scaler")
test_mine = amp.check("fp32-master-weights", title={"en": "Mine", "ja": "私の"})
test_runs = amp.runs(given=True)
test_weights = amp.weights(depends=["runs"])
'''
    titles = titles_from_source(source)
    assert titles["shape"] == {"en": "Right shape", "ja": "形状が正しい"}
    assert titles["values"] == {"en": "Values match the reference."}
    assert titles["plain"] == {"en": "Plain English"}
    assert titles["every-k"] == {"en": "Steps once per 4 micro-batches", "ja": "4 個ごと"}
    assert titles["named"] == {"en": "Steps once per 4 micro-batches"}
    assert titles["computed"] == {"en": "Falls back to the docstring."}
    assert set(titles["one-scaler"]) == {"en", "ja"} and titles["one-scaler"]["en"] != "one-scaler"
    assert titles["fp32-master-weights"] == {"en": "Mine", "ja": "私の"}
    assert titles["runs"]["en"] == "train_one_epoch runs to the end"
    assert titles_from_source(source, "evaluate")["runs"] == {"en": "evaluate runs to the end",
                                                              "ja": "evaluate が最後まで動く"}
    assert titles["weights-match-reference"]["ja"] == "模範解答と同じように学習する"


def test_broken_sources_and_unknown_amp_slugs_do_not_raise() -> None:
    assert titles_from_source("def (") == {}
    assert titles_from_source('from grader.author import amp\nt = amp.check("no-such-check")\n') == {
        "no-such-check": {}}


# English for every code exercise (the solution's grading is the one validation asks for, so
# the run's cache has it); Japanese for one AMP exercise and one other (gradings of their own).
CASES = [(exercise_id, "en") for exercise_id in CODE] + [("amp-bf16", "ja"), ("loop-train-epoch", "ja")]


@pytest.mark.slow
@pytest.mark.parametrize(("exercise_id", "lang"), CASES)
def test_titles_are_the_ones_grading_gives(exercise_id: str, lang: str, roomy_exercises: Path,
                                           gradings: GradingCache) -> None:
    # The solution's grading names every check of the exercise with the harness's titles.
    exercise = load_exercise(roomy_exercises / exercise_id)
    doc = gradings.grade(exercise, exercise.solution_path.read_text(encoding="utf-8"), lang=lang)
    assert check_titles(exercise, lang) == {t["check"]: t["title"] for t in doc["tests"]}
