"""The learner's note on a regraded submission: when, and its score before and after (in the page's language)."""

from __future__ import annotations

from flask_babel import format_date, gettext
from markupsafe import Markup

from app.grading.regrade import latest_of
from app.progress import bp


def _percent(score: float | None) -> str:
    # No space between a number and "%", in both languages (the course's style).
    return "–" if score is None else f"{round(score * 100):d}%"


@bp.app_template_global()
def regraded_note(submission_id: str) -> Markup | None:
    """"Regraded on <date> after the exercise changed: was 60%, now 100%", or None if never regraded."""
    found = latest_of(submission_id)
    if found is None or found.finished_at is None:
        return None
    moment = found.finished_at
    date = Markup('<time datetime="{}">{}</time>').format(moment.isoformat(), format_date(moment, "medium"))
    text = gettext("Regraded on %(date)s after the exercise changed: was %(old)s, now %(new)s.",
                   date="\x00", old=_percent(found.old_score), new=_percent(found.new_score))
    before, _, after = text.partition("\x00")
    return Markup("{}{}{}").format(before, date, after)


def regraded_tag(submission_id: str) -> str:
    """Part of a cached fragment's ETag: a regrade changes the submission's result and note."""
    found = latest_of(submission_id)
    return found.id if found is not None else ""
