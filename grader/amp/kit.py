"""AMP exercise tests in one line per check: fixtures for the traced run, and check factories.

In an exercise's tests (through grader.author, the one import surface):

    from grader.author import amp

    PARAMS = {"seed": 7, "data_seed": 1234, "batches": 6, "batch_size": 8, "device": "cuda"}
    trained, reference, review = amp.fixtures("amp.train_one_epoch", PARAMS, amp.LoopSpec())

    test_runs = amp.runs(given=True)
    test_forward_in_autocast = amp.check("forward-in-autocast")
    test_weights = amp.weights(depends=["runs"])
"""

from __future__ import annotations

from typing import Any

import pytest

from grader.amp import checks
from grader.amp.findings import LoopSpec
from grader.amp.outcome import EXTRA_NOTES, reference_run, weights_match
from grader.amp.registry import RUNS_HINT, RUNS_TITLE, WEIGHTS_HINT, WEIGHTS_TITLE
from grader.amp.review import Review
from grader.amp.timeline import publish as publish_timeline
from grader.amp.timeline import skip_cause
from grader.testing import Text, check_info, localize, made_here
from grader.testing import check as declare

__all__ = ["LoopSpec", "check", "fixtures", "runs", "weights"]

NOT_ABOUT_WEIGHTS = frozenset({"mean-loss-returned", "one-scaler"})


def fixtures(scenario: str, params: dict[str, Any], spec: LoopSpec) -> tuple[Any, Any, Any]:
    """The `trained`, `reference` and `review` fixtures of one exercise, each computed once.

    In a test module: `trained, reference, review = amp.fixtures("amp.train_one_epoch", PARAMS, SPEC)`.
    """

    @pytest.fixture(scope="module", name="trained")
    def trained(learner: Any) -> Any:
        run = learner.scenario(scenario, **params)
        publish_timeline(run)  # the learner's loss scale per step, as a figure in the feedback
        return run

    @pytest.fixture(scope="module", name="reference")
    def reference(trained: Any, solution: Any) -> Any:
        # The reference solution on the same data, in the learner's precision, doing the
        # learner's legitimate extras too (grader.amp.outcome).
        return reference_run(solution, params, like=trained, clip_asked=spec.require_clip)

    @pytest.fixture(scope="module", name="review")
    def review(trained: Any, reference: Any, learner: Any) -> Review:
        found = Review(trained, learner.source, spec, reference=reference)
        for note in found.advice:
            learner.advise(note)
        return found

    return trained, reference, review


def check(slug: str, *, title: Text | None = None, hint: Text | None = None, **extra: Any) -> Any:
    """A test judging the registered AMP check `slug` (its standard title and hint unless given)."""
    known = checks.get(slug)

    def test(review: Review, lang: str) -> None:
        review.finding(slug).enforce(lang)

    made_here(test, "test_" + slug.replace("-", "_"))
    return declare(slug, title=title or known.title, hint=hint or known.hint, **extra)(test)


def runs(*, title: Text = RUNS_TITLE, hint: Text = RUNS_HINT, **extra: Any) -> Any:
    """A test that the learner's function ran to the end (a crash is explained by its check)."""

    def test(review: Review, lang: str) -> None:
        review.runs().enforce(lang)

    made_here(test, "test_runs")
    return declare("runs", title=title, hint=hint, **extra)(test)


def weights(*, title: Text = WEIGHTS_TITLE, hint: Text = WEIGHTS_HINT, **extra: Any) -> Any:
    """The outcome: after the epoch the weights match the reference's (which did the same extras).

    A protocol mistake already failed by name explains the gap; then the hint says to fix it.
    """

    def test(trained: Any, reference: Any, review: Review, learner: Any, exercise: Any, lang: str,
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
                # Learners read check titles, never ids: name the failing check as its card does.
                title = declared[wrong[0]]
                found = type(found)(found.slug, found.status, found.message, found.line, {
                    "en": f"Fix the mistake reported under “{localize(title, 'en')}” first; the weights follow.",
                    "ja": f"まず「{localize(title, 'ja')}」で報告した誤りを直しましょう。重みはそれに従います。"})
        found.enforce(lang)

    made_here(test, "test_weights_match_reference")
    return declare("weights-match-reference", title=title, hint=hint, **extra)(test)
