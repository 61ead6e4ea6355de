"""Views: one exercise with its prompt, hints and the editor."""

from __future__ import annotations

from flask import abort, make_response, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from app.accounts.identity import learner_key, storage_scope
from app.content import exercise_catalog, lesson_catalog, render_cache
from app.errors import unavailable
from app.exercises import bp
from app.exercises.availability import is_unavailable, unavailable_message
from app.exercises.sample_call import sample_call
from app.exercises.strings import editor_strings
from app.grading.position import submission_api
from app.i18n import current_lang
from app.progress import drafts
from app.progress.aggregates import learner_progress
from app.progress.history import latest, own
from app.progress.records import sort_key
from grader.api import Exercise


def _rendered(exercise: Exercise, stem: str, lang: str) -> str:
    path = exercise.localized_file(stem, lang)
    return render_cache().get(path).html if path else ""


def _without_leading_heading(html: str) -> str:
    """The page shows the title from exercise.toml; a prompt's own top heading would repeat it."""
    stripped = html.lstrip()
    if stripped.startswith("<h1>"):
        end = stripped.find("</h1>")
        if end != -1:
            return stripped[end + len("</h1>"):].lstrip()
    return html


# The page that shows each kind of grader.kinds.KINDS: its endpoint and the name of its id argument.
KIND_PAGES: dict[str, tuple[str, str]] = {
    "code": ("exercises.show", "exercise_id"),
    "quiz": ("quizzes.show", "quiz_id"),
}


def exercise_url(exercise: Exercise) -> str:
    """Where an exercise is worked on: its kind's page (the editor for code, the quiz page for a quiz)."""
    endpoint, argument = KIND_PAGES[exercise.kind.name]
    return url_for(endpoint, **{argument: exercise.id})


@bp.app_context_processor
def _exercise_links() -> dict[str, object]:
    return {"exercise_url": exercise_url}


def _server_draft(exercise: Exercise) -> dict[str, object] | None:
    """The learner's draft stored on the server, with its time in ms like the browser's."""
    draft = drafts.load(exercise.id, learner_key())
    if draft is None:
        return None
    return {"code": draft.code, "at": int(sort_key(draft.updated_at) * 1000)}


def _last_submission(exercise: Exercise) -> dict[str, object] | None:
    """The learner's latest submission of this exercise (the page shows its result on return)."""
    last = latest(learner_key(), exercise.id)
    if last is None:
        return None
    return {**submission_api(last), "url": url_for("progress.submission", submission_id=last.id)}


def _restored(exercise: Exercise) -> dict[str, object] | None:
    """A past submission the learner asked to reopen (?restore=<id>), if it is theirs."""
    wanted = request.args.get("restore", "")
    if not wanted:
        return None
    mine = own(learner_key(), exercise.id, wanted)
    if mine is None:
        return None
    # With its own results document: the page shows that submission's feedback beside its code,
    # not the latest result (which once read 100 %, SOLVED beside restored failing code).
    return {**submission_api(mine), "code": mine.code, "created_at": mine.created_at.isoformat(),
            "url": url_for("progress.submission", submission_id=mine.id)}


@bp.get("/exercises/<exercise_id>")
def show(exercise_id: str) -> str | Response | tuple[Response | str, int]:
    exercise = exercise_catalog().get(exercise_id)
    if exercise is None:
        abort(404)
    if not exercise.kind.accepts_code:
        return redirect(exercise_url(exercise))
    if is_unavailable(exercise):  # its tests cannot run: no learner works on it until it is fixed
        return unavailable("exercise_unavailable", unavailable_message())
    lang = current_lang()
    lesson = next(
        (item for item in lesson_catalog().all(lang) if item.number == exercise.config.lesson),
        None,
    )
    siblings = exercise_catalog().for_lesson(exercise.config.lesson)
    at = [item.id for item in siblings].index(exercise.id)
    html = render_template(
        "exercise.html",
        exercise=exercise,
        title=exercise.config.title.get(lang),
        prompt_html=_without_leading_heading(_rendered(exercise, "prompt", lang)),
        hints_html=_rendered(exercise, "hints", lang),
        lesson=lesson,
        before=siblings[at - 1] if at > 0 else None,
        after=siblings[at + 1] if at + 1 < len(siblings) else None,
        progress=learner_progress(learner_key()).get(exercise.id),
        last_submission=_last_submission(exercise),
        restored=_restored(exercise),
        starter=exercise.starter_for(lang),  # its comments in the learner's language
        sample=sample_call(exercise, exercise.starter),
        submit_url=url_for("api.submit", exercise_id=exercise.id),
        draft_url=url_for("progress.put_draft", exercise_id=exercise.id),
        # The script appends "<check>/<rung>": the hint ladder's endpoint (app.progress.hints).
        hints_url=url_for("progress.reveal_hint", exercise_id=exercise.id, check="_", rung=2).removesuffix("_/2"),
        draft_scope=storage_scope(),
        server_draft=_server_draft(exercise),
        strings=editor_strings(),
    )
    response = make_response(html)
    response.headers["Cache-Control"] = "no-store"  # the page carries the learner's own draft
    return response
