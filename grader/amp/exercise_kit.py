"""What AMP exercise tests share: the check decorator with the standard texts, and the traced-run fixtures."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from grader.amp.findings import LoopSpec
from grader.amp.outcome import reference_run
from grader.amp.review import Review
from grader.amp.texts import HINTS, TITLES
from grader.amp.timeline import publish as publish_timeline
from grader.testing import check


def amp_check(slug: str, **extra: Any) -> Callable[[Any], Any]:
    """@check with the slug's standard title and hint (grader/amp/texts.py)."""
    return check(slug, title=TITLES[slug], hint=HINTS[slug], **extra)


def amp_fixtures(scenario: str, params: dict[str, Any], spec: LoopSpec) -> tuple[Any, Any, Any]:
    """The `trained`, `reference` and `review` fixtures of one exercise, each computed once.

    In a test module: `trained, reference, review = amp_fixtures("amp.train_one_epoch", PARAMS, SPEC)`.
    """

    @pytest.fixture(scope="module", name="trained")
    def trained(learner: Any) -> Any:
        run = learner.scenario(scenario, **params)
        publish_timeline(run)  # the learner's loss scale per step, as a figure in the feedback
        return run

    @pytest.fixture(scope="module", name="reference")
    def reference(trained: Any, solution: Any) -> Any:
        # The reference solution on the same data, in the learner's precision (grader.amp.outcome).
        return reference_run(solution, params, like=trained)

    @pytest.fixture(scope="module", name="review")
    def review(trained: Any, reference: Any, learner: Any) -> Review:
        found = Review(trained, learner.source, spec, reference=reference)
        for note in found.advice:
            learner.advise(note)
        return found

    return trained, reference, review
