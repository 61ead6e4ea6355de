"""Pages: the learner's dashboard, the history of one exercise (paged), one submission with its diff."""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any

from flask import abort, render_template, request
from flask_babel import gettext as _
from markupsafe import Markup, escape
from sqlalchemy import select
from werkzeug.wrappers import Response

from app.accounts.identity import learner_key
from app.content import exercise_catalog, lesson_catalog
from app.content.markdown import inline_markdown
from app.extensions import db
from app.i18n import current_lang
from app.models import Submission, User
from app.progress import bp
from app.progress.access import readable_submission
from app.progress.aggregates import learner_progress
from app.progress.code_view import code_block
from app.progress.diff import submission_diff
from app.progress.history import page, previous_of
from app.progress.regraded import regraded_tag
from app.progress.status import by_lesson
from app.result_documents import blocked_by
from grader.api import Exercise, ExerciseLoadError, load_quiz
from grader.api import check_titles as titles_from_tests

_BACKTICKS = re.compile(r"`([^`\n]+)`")


@bp.app_template_filter("backticks")
def backticks(text: object) -> Markup:
    """Feedback marks code with backticks: escape everything, then show those spans as <code>."""
    # A function, not the template r"<code>\1</code>": re expands a template in Python at each
    # match, and a validated text may hold hundreds of spans (bench/pages.py --profile).
    return Markup(_BACKTICKS.sub(_code_span, str(escape(str(text)))))  # noqa: S704


def _code_span(found: re.Match[str]) -> str:
    return "<code>" + found.group(1) + "</code>"


bp.add_app_template_global(code_block, "code_block")


@bp.app_template_filter("in_page_language_filter")
@bp.app_template_global()
def in_page_language(test: dict[str, Any]) -> dict[str, Any]:
    """A check's title, message and hint in the page's language when the grader wrote both
    (tests[].texts); documents graded before that keep the language they were graded in."""
    other = (test.get("texts") or {}).get(current_lang()) if isinstance(test, dict) else None
    if not isinstance(other, dict):
        return test
    return {**test, **{k: v for k, v in other.items() if k in ("title", "message", "hint") and isinstance(v, str)}}


@bp.app_template_global()
def check_titles(tests: list[dict[str, Any]] | None) -> dict[str, str]:
    """check id -> its title, from a results document's tests."""
    return {t.get("check", ""): t.get("title") or t.get("check", "") for t in tests or []
            if isinstance(t, dict)}


_QUOTED_ID = re.compile(r"'([a-z0-9][a-z0-9-]*)'")


@bp.app_template_global()
def explain_skip(test: dict[str, Any], titles: dict[str, str]) -> str:
    """A test entry's message with check ids replaced by titles: a check skipped because another
    did not pass (its `blocked_by`) gets a sentence in the learner's language naming that check,
    and any other quoted check id in a message becomes the check's title."""
    blocker = blocked_by(test)
    if blocker:
        return _("Not run: “%(title)s” has to pass first.", title=titles.get(blocker, blocker))
    message = str(test.get("message") or "")
    return _QUOTED_ID.sub(lambda m: f"“{titles[m.group(1)]}”" if m.group(1) in titles
                          else m.group(0), message)


@bp.app_template_global()
def check_title_map(exercise: Exercise) -> dict[str, Markup]:
    """check id -> title in the page's language, for pages that list checks by id: a quiz's
    checks are its questions, titled by their text; an exercise's are read from its tests."""
    lang = current_lang()
    if exercise.kind.name == "quiz":
        try:
            questions = load_quiz(exercise).questions
        except ExerciseLoadError:  # a broken quiz.toml: the validation page says why; ids stand in
            return {}
        # Question text is Markdown: shown as the quiz shows it, never raw (issue 34, item 7).
        return {q.id: inline_markdown(q.text.get(lang)) for q in questions}
    return {check: backticks(title) for check, title in titles_from_tests(exercise, lang).items()}


def _private(html: str) -> Response:
    response = Response(html, mimetype="text/html")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/progress")
def dashboard() -> Response:
    lang = current_lang()
    titles = {lesson.number: lesson for lesson in lesson_catalog().all(lang)}
    lessons = by_lesson(exercise_catalog().exercises().exercises.values(),
                        learner_progress(learner_key()))
    return _private(render_template("progress/dashboard.html", lessons=lessons, titles=titles))


@bp.get("/exercises/<exercise_id>/history")
def history(exercise_id: str) -> Response:
    exercise = exercise_catalog().get(exercise_id)
    if exercise is None or not exercise.kind.accepts_code:
        abort(404)
    found = page(learner_key(), exercise_id, before=request.args.get("before"),
                 after=request.args.get("after"))
    # The page's first submission is shown open, with its code and diff; the others are
    # collapsed and fetch theirs (progress.submission_code) when opened: one code per page.
    first = db.session.get(Submission, found.submissions[0].id) if found.submissions else None
    previous = previous_of(first) if first else None
    return _private(render_template(
        "progress/history.html", exercise=exercise,
        title=exercise.config.title.get(current_lang()), page=found, first=first,
        first_previous=previous,
        first_diff=submission_diff(previous, first) if first and previous else None))


@bp.get("/submissions/<submission_id>/code")
def submission_code(submission_id: str) -> Response:
    """One submission's feedback, code and diff with the one before, as a fragment the
    history page fetches when an entry is opened; the same owner check as the submission page.

    A graded submission changes only when regraded (its regrade is in the tag), the one before it
    not at all: the fragment carries an
    ETag, and a browser opening the entry again gets 304 without a render (the access check
    still runs first).
    """
    found = readable_submission(submission_id)
    previous = previous_of(found)
    own = found.learner == learner_key()
    exercise = exercise_catalog().get(found.exercise_id)
    restorable = own and exercise is not None and exercise.kind.accepts_code
    if found.status != "done":
        return _private(_entry_body(found, previous, restorable))
    tag = hashlib.sha256("\n".join((
        _RENDERER, found.id, previous.id if previous else "", current_lang(), str(restorable),
        regraded_tag(found.id),
    )).encode("utf-8")).hexdigest()[:32]
    if tag in request.if_none_match:
        response = Response(status=304)
    else:
        response = Response(_entry_body(found, previous, restorable), mimetype="text/html")
    response.set_etag(tag)
    # Kept by this browser only, and asked again each time (never shown stale, never shared).
    response.headers["Cache-Control"] = "private, no-cache"
    return response


# In every fragment's ETag: a restart (a deploy: other templates, other translations) makes
# each browser fetch a fragment once more.
_RENDERER = uuid.uuid4().hex


def _entry_body(found: Submission, previous: Submission | None, restorable: bool) -> str:
    return render_template(
        "progress/_entry_body.html", sub=found, previous=previous,
        diff=submission_diff(previous, found) if previous else None, restorable=restorable)


@bp.get("/submissions/<submission_id>")
def submission(submission_id: str) -> Response:
    found = readable_submission(submission_id)
    exercise = exercise_catalog().get(found.exercise_id)
    previous = previous_of(found)
    diff = submission_diff(previous, found) if previous else None
    title = exercise.config.title.get(current_lang()) if exercise else found.exercise_id
    own = found.learner == learner_key()
    owner = None if own else db.session.scalar(
        select(User).where(User.learner_key == found.learner))
    return _private(render_template(
        "progress/submission.html", submission=found, exercise=exercise, title=title,
        own=own, owner=owner,
        result=found.result if found.status == "done" else None,
        previous=previous, diff=diff))
