"""The hint ladder on the web: a failing check's next rung on request, and a minimal record of each reveal."""

from __future__ import annotations

from dataclasses import dataclass

from flask import url_for
from sqlalchemy import func, select

from app.content import lesson_catalog
from app.content.toc import table_of_contents
from app.extensions import db
from app.models import HintReveal
from grader.api import Exercise, declared_slugs, hint_rungs

FIRST_REVEALED = 2  # rung 1, the nudge, comes with the results; 2 is the concept, 3 the API


@dataclass(frozen=True)
class Revealed:
    """A rung as the page shows it, in the learner's language."""

    rung: int
    kind: str
    text: str
    lesson_url: str | None
    lesson_title: str | None
    more: bool  # a higher rung exists

    def to_api(self) -> dict[str, object]:
        return {"rung": self.rung, "kind": self.kind, "text": self.text, "lesson_url": self.lesson_url,
                "lesson_title": self.lesson_title, "more": self.more}


def _lesson_slug(exercise: Exercise) -> str | None:
    found = [lesson.slug for lesson in lesson_catalog().all("en") if lesson.number == exercise.config.lesson]
    return found[0] if found else None


def _lesson_link(slug: str | None, section: str | None, lang: str) -> tuple[str | None, str | None]:
    """The lesson section's URL and heading in `lang`: headings match by position, as en.md and ja.md
    have the same sections in the same order (their anchors differ by language)."""
    if not slug:
        return None, None
    english, here = lesson_catalog().get(slug, "en"), lesson_catalog().get(slug, lang)
    if english is None or here is None:
        return None, None
    url = url_for("lessons.lesson", slug=slug)
    if section:
        wanted = section.replace("`", "")
        toc_en, toc_here = table_of_contents(english.html), table_of_contents(here.html)
        at = next((i for i, entry in enumerate(toc_en) if entry.text.replace("`", "") == wanted), None)
        if at is not None and at < len(toc_here):
            return f"{url}#{toc_here[at].anchor}", toc_here[at].text
    return url, here.title


def reveal(exercise: Exercise, check: str, rung: int, learner: str, lang: str) -> Revealed | None:
    """Rung `rung` (2 or 3) of `check`, recorded once for `learner`; None when there is no such rung."""
    if check not in declared_slugs(exercise.path):
        return None
    rungs = hint_rungs(exercise.path, check, _lesson_slug(exercise))
    index = rung - FIRST_REVEALED
    if not 0 <= index < len(rungs):
        return None
    found = rungs[index]
    if learner:
        seen = db.session.scalar(select(HintReveal.id).filter_by(
            learner=learner, exercise_id=exercise.id, check_id=check, rung=rung))
        if seen is None:
            db.session.add(HintReveal(learner=learner, exercise_id=exercise.id, check_id=check, rung=rung))
            db.session.commit()
    url, title = _lesson_link(found.lesson, found.section, lang)
    return Revealed(rung, found.kind, found.text.get(lang) or found.text["en"], url, title,
                    more=index + 1 < len(rungs))


def use_by_exercise() -> dict[str, dict[int, int]]:
    """exercise id -> rung -> how many learners revealed it (for the instructor pages)."""
    rows = db.session.execute(
        select(HintReveal.exercise_id, HintReveal.rung, func.count(func.distinct(HintReveal.learner)))
        .group_by(HintReveal.exercise_id, HintReveal.rung))
    found: dict[str, dict[int, int]] = {}
    for exercise_id, rung, learners in rows:
        found.setdefault(exercise_id, {})[rung] = learners
    return found
