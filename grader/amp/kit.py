"""AMP exercise tests in one line per check: fixtures for the declared scenario, and check factories.

The scenario is the `[amp]` table of the folder's exercise.toml (grader.amp_scenario.Scenario):
the learner's run, the reference run and the checks all read their settings from it. In an
exercise's tests (through grader.author, the one import surface):

    from grader.author import amp

    trained, reference, review = amp.fixtures()
    test_runs = amp.runs(given=True)
    test_forward_in_autocast = amp.check("forward-in-autocast")
    test_weights = amp.weights(depends=["runs"])
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from grader.amp import checks
from grader.amp.findings import LoopSpec
from grader.amp.outcome import EXTRA_NOTES, check_reference, reference_run, weights_match
from grader.amp.registry import NEEDS, RUNS_HINT, RUNS_TITLE, WEIGHTS_HINT, WEIGHTS_TITLE, runs_title
from grader.amp.review import Review
from grader.amp.timeline import publish as publish_timeline
from grader.amp.timeline import skip_cause
from grader.amp_scenario import Scenario
from grader.testing import AuthoringError, Text, check_info, localize, made_here
from grader.testing import check as declare

__all__ = ["LoopSpec", "Scenario", "check", "fixtures", "runs", "scenario_of", "weights"]

NOT_ABOUT_WEIGHTS = frozenset({"mean-loss-returned", "one-scaler"})
_DECLARED: dict[str, tuple[Scenario, str | None]] = {}  # test file -> the scenario its fixtures() use


def _caller_file(depth: int = 2) -> str:
    return str(sys._getframe(depth).f_globals.get("__file__", ""))


def scenario_of(folder: Path) -> tuple[Scenario, str | None]:
    """The folder's declared scenario and exercise.toml's entry; a missing or wrong [amp] table is an AuthoringError."""
    config = Path(folder) / "exercise.toml"
    try:
        raw = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise AuthoringError(f"{folder.name}/exercise.toml: cannot be read ({exc})") from exc
    if "amp" not in raw:
        raise AuthoringError(f"{folder.name}/exercise.toml: no [amp] table; an AMP exercise declares its "
                             "scenario there (docs/exercises.md, section 6)")
    try:
        found = Scenario.model_validate(raw["amp"])
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in ("amp", *first["loc"]))
        raise AuthoringError(f"{folder.name}/exercise.toml: field '{field}': {first['msg']}") from exc
    entry = raw.get("entry")
    return found, entry if isinstance(entry, str) else None


def _scenario_for(test_file: str) -> tuple[Scenario, str | None]:
    """The scenario a test file's checks are judged in: given to its fixtures(), else its folder's."""
    if test_file not in _DECLARED:
        return scenario_of(Path(test_file).resolve().parent.parent)
    return _DECLARED[test_file]


def fixtures(scenario: Scenario | None = None) -> tuple[Any, Any, Any]:
    """The `trained`, `reference` and `review` fixtures of one exercise, each computed once.

    In a test module: `trained, reference, review = amp.fixtures()`; the scenario is the folder's
    `[amp]` table unless a typed `amp.Scenario(...)` is given (one or the other, never both).
    """
    test_file = _caller_file()
    if scenario is not None:
        _DECLARED[test_file] = (scenario, _entry_of(test_file))
    else:
        _DECLARED.pop(test_file, None)  # read afresh: the folder may have changed since the last import
    try:
        declared, entry_default = _scenario_for(test_file)
    except AuthoringError as exc:
        # Reported by every check's test, as the author's error, not as a file that cannot import.
        trained_, reference_, review_ = (_raising(name, exc) for name in ("trained", "reference", "review"))
        return trained_, reference_, review_
    spec = LoopSpec.of(declared, entry_default)
    params = declared.params(entry_default)
    folder = Path(test_file).resolve().parent.parent

    @pytest.fixture(scope="module", name="trained")
    def trained(learner: Any, reference: Any) -> Any:
        return reference["learner"]

    @pytest.fixture(scope="module", name="reference")
    def reference(learner: Any, solution: Any, request: Any) -> Any:
        # The reference first: a solution that fails its own checks in this scenario is the
        # author's mistake, reported as such before any learner is judged against it.
        slugs = [slug for slug in _declared_slugs(request) if slug in checks.all_checks()]
        problems = check_reference(solution, folder, declared, spec.entry, slugs)
        if problems:
            raise AuthoringError("; ".join(problems))
        run = learner.scenario("amp.run", **params)
        publish_timeline(run)  # the learner's loss scale per step, as a figure in the feedback
        # The reference solution on the same data, in the learner's precision, doing the
        # learner's legitimate extras too (grader.amp.outcome).
        return {**reference_run(solution, params, like=run, clip_asked=spec.require_clip), "learner": run}

    @pytest.fixture(scope="module", name="review")
    def review(trained: Any, reference: Any, learner: Any) -> Review:
        found = Review(trained, learner.source, spec, reference=reference)
        for note in found.advice:
            learner.advise(note)
        return found

    return trained, reference, review


def _raising(name: str, error: AuthoringError) -> Any:
    @pytest.fixture(scope="module", name=name)
    def unusable() -> Any:
        raise error

    return unusable


def _entry_of(test_file: str) -> str | None:
    try:
        raw = tomllib.loads((Path(test_file).resolve().parent.parent / "exercise.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return raw.get("entry") if isinstance(raw.get("entry"), str) else None


def _declared_slugs(request: Any) -> list[str]:
    return [info.slug for item in request.session.items
            if (info := check_info(getattr(item, "function", None))) is not None]


def _not_applicable(slug: str, test_file: str, line: int) -> str | None:
    """Why `slug` cannot be judged in the file's scenario, or None when it can."""
    try:
        declared, entry = _scenario_for(test_file)
    except AuthoringError as exc:
        return str(exc)
    unmet = LoopSpec.of(declared, entry).unmet(checks.get(slug).needs)
    if not unmet:
        return None
    return (f"tests/{Path(test_file).name}:{line}: AMP check '{slug}' needs "
            f"{' and '.join(NEEDS[need] for need in unmet)}, which this scenario does not have "
            f"({declared.describe()}): remove the check or change the [amp] table")


def check(slug: str, *, title: Text | None = None, hint: Text | None = None, **extra: Any) -> Any:
    """A test judging the registered AMP check `slug` (its standard title and hint unless given)."""
    known = checks.get(slug)
    frame = sys._getframe(1)
    # A check whose question does not apply to the scenario (unscale-before-clip without a
    # scaler) is not run: its test reports the authoring error, never a pass for free.
    problem = _not_applicable(slug, frame.f_globals.get("__file__", ""), frame.f_lineno)

    if problem is None:
        def test(review: Review) -> None:
            review.finding(slug).enforce()
    else:
        def test(lang: str) -> None:  # runs nothing of the learner's
            raise AuthoringError(problem)

    made_here(test, "test_" + slug.replace("-", "_"))
    return declare(slug, title=title or known.title, hint=hint or known.hint, **extra)(test)


def runs(*, title: Text | None = None, hint: Text = RUNS_HINT, **extra: Any) -> Any:
    """A test that the learner's function ran to the end (a crash is explained by its check).

    Its standard title names the function the scenario calls: `evaluate` in an evaluation.
    """
    if title is None:
        try:
            declared, entry = _scenario_for(_caller_file())
            title = runs_title(LoopSpec.of(declared, entry).entry)
        except AuthoringError:  # a wrong [amp] table: every check's test reports it
            title = RUNS_TITLE

    def test(review: Review) -> None:
        review.runs().enforce()

    made_here(test, "test_runs")
    return declare("runs", title=title, hint=hint, **extra)(test)


def weights(*, title: Text = WEIGHTS_TITLE, hint: Text = WEIGHTS_HINT, **extra: Any) -> Any:
    """The outcome: after the epoch the weights match the reference's (which did the same extras).

    A protocol mistake already failed by name explains the gap; then the hint says to fix it.
    """

    def test(trained: Any, reference: Any, review: Review, learner: Any, exercise: Any,
             request: Any) -> None:
        line = learner.line_of(exercise.config.entry or review.spec.entry)
        for extra_name in reference.get("extras") or ():
            learner.advise(EXTRA_NOTES[extra_name])
        found = weights_match(trained, reference, line=line)
        cause = skip_cause(trained.get("events") or []) if found.status == "fail" else None
        if cause is not None:  # skipped steps explain the gap: say where their inf came from
            found = type(found)(found.slug, found.status, {
                lang: f"{(found.message or {}).get(lang, '')} {cause[lang]}" for lang in ("en", "ja")},
                found.line, found.hint)
        if found.status == "fail":
            declared = {info.slug: info.title for item in request.session.items
                        if (info := check_info(getattr(item, "function", None))) is not None}
            wrong = [slug for slug in checks.all_checks()
                     if slug in declared and slug not in NOT_ABOUT_WEIGHTS
                     and review.finding(slug).status == "fail"]
            if wrong:
                # Learners read check titles, never ids: name the failing check as its card does,
                # and mark its line: the gap comes from there, not from the `def`.
                title = declared[wrong[0]]
                line = review.finding(wrong[0]).line or found.line
                found = type(found)(found.slug, found.status, found.message, line, {
                    "en": f"Fix the mistake reported under “{localize(title, 'en')}” first; the weights follow.",
                    "ja": f"まず「{localize(title, 'ja')}」で報告した誤りを直しましょう。重みはそれに従います。"})
        found.enforce()

    made_here(test, "test_weights_match_reference")
    return declare("weights-match-reference", title=title, hint=hint, **extra)(test)
