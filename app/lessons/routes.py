"""Views: the course page, a lesson page and the images a lesson refers to."""

from __future__ import annotations

import re
from dataclasses import dataclass

from flask import abort, render_template, send_from_directory
from werkzeug.wrappers import Response

from app.accounts.identity import learner_key
from app.content import exercise_catalog, lesson_catalog
from app.content.lessons import LessonPart
from app.content.toc import TocEntry, table_of_contents
from app.exercises.availability import unavailable_ids
from app.i18n import current_lang
from app.lessons import bp
from app.progress.aggregates import learner_progress

# A lesson's own last section may already introduce its exercises ("What the exercises
# cover", "演習"); the page then lists them under it instead of repeating the heading.
_EXERCISES_HEADING = re.compile(r"exercise|演習", re.I)
# The lesson's title: the Markdown's first h1, shown above the table of contents.
_TITLE = re.compile(r"\A\s*<h1>(.*?)</h1>\s*", re.S)
# Ids the lesson page gives its own elements (base.html, lesson.html): a heading must not reuse one.
PAGE_IDS = frozenset({"main", "toc-heading", "toc-summary", "lesson-text", "exercises",
                      "exercises-heading"})


def exercises_heading(toc: list[TocEntry]) -> TocEntry | None:
    """The lesson's last h2 when it is about the exercises, else None."""
    last = [entry for entry in toc if entry.level == 2][-1:]
    return last[0] if last and _EXERCISES_HEADING.search(last[0].text) else None


@dataclass(frozen=True)
class TocPart:
    """One part of a long lesson in its table of contents: the part and its h2 entries."""

    part: LessonPart
    entries: list[TocEntry]


def toc_parts(toc: list[TocEntry], parts: tuple[LessonPart, ...],
              own_heading: TocEntry | None) -> list[TocPart]:
    """The h2 entries grouped under the parts they belong to (an entry before the first part's
    heading goes to the first part); the lesson's own exercises heading stays out of every part."""
    if not parts:
        return []
    groups = [TocPart(part, []) for part in parts]
    at = 0
    for entry in toc:
        if entry.level != 2 or entry is own_heading:
            continue
        starts = [i for i, part in enumerate(parts) if part.first == entry.text]
        at = starts[0] if starts else at
        groups[at].entries.append(entry)
    return groups


@dataclass(frozen=True)
class LessonPage:
    """A lesson's HTML cut for its page: the title apart, heading ids that are unique on it."""

    title_html: str
    body: str
    toc: list[TocEntry]
    own_heading: TocEntry | None


_HEADING_ID = re.compile(r'(<h[23] id="|class="header-anchor" href="#)([^"]+)"')


def _rename(body: str, renamed: dict[str, str]) -> str:
    """Heading ids and their "#" links renamed in one pass (a lesson's own ids are unique)."""
    return _HEADING_ID.sub(lambda m: f'{m.group(1)}{renamed.get(m.group(2), m.group(2))}"', body)


def lesson_page(html_text: str) -> LessonPage:
    """Split off the h1 and give the lesson's exercises heading the id "exercises" (in every
    language, so links to the list work), renaming any heading id the page itself uses."""
    title = _TITLE.match(html_text)
    title_html, body = (title.group(1), html_text[title.end():]) if title else ("", html_text)
    toc = table_of_contents(body)
    own = exercises_heading(toc)
    renamed = {}
    for entry in toc:
        if entry is own:
            renamed[entry.anchor] = "exercises"
        elif entry.anchor in PAGE_IDS:
            renamed[entry.anchor] = f"{entry.anchor}-section"
    body = _rename(body, renamed)
    toc = [TocEntry(e.level, renamed.get(e.anchor, e.anchor), e.text) for e in toc]
    own = exercises_heading(toc)
    return LessonPage(title_html=title_html, body=body, toc=toc, own_heading=own)


@bp.get("/")
def course() -> str:
    lang = current_lang()
    lessons = lesson_catalog().all(lang)
    progress = learner_progress(learner_key())
    counts, solved, points = {}, {}, {}
    for lesson in lessons:
        exercises = exercise_catalog().for_lesson(lesson.number)
        counts[lesson.slug] = len(exercises)
        mine = [(e, progress[e.id]) for e in exercises if e.id in progress]
        solved[lesson.slug] = sum(1 for _e, p in mine if p.solved)
        # Points earned: each exercise's points times the learner's best score on it.
        points[lesson.slug] = (round(sum(e.config.points * (p.best_score or 0) for e, p in mine)),
                               sum(e.config.points for e in exercises))
    return render_template("course.html", lessons=lessons, counts=counts, solved=solved,
                           points=points)


# The trailing slash matters: a lesson's Markdown refers to its images as img/name.svg,
# which the browser resolves against the lesson's own folder-like URL.
@bp.get("/lessons/<slug>/")
def lesson(slug: str) -> str:
    lang = current_lang()
    found = lesson_catalog().get(slug, lang)
    if found is None:
        abort(404)
    before, after = lesson_catalog().neighbours(slug, lang)
    exercises = exercise_catalog().for_lesson(found.number)
    page = lesson_page(found.html)
    return render_template(
        "lesson.html", lesson=found, page=page, exercises=exercises, before=before, after=after,
        toc=page.toc, own_heading=page.own_heading, progress=learner_progress(learner_key()),
        parts=toc_parts(page.toc, found.parts, page.own_heading),
        unavailable=unavailable_ids(exercises),
    )


@bp.get("/lessons/<slug>/img/<path:filename>")
def image(slug: str, filename: str) -> Response:
    found = lesson_catalog().get(slug, "en")
    if found is None:
        abort(404)
    # send_from_directory joins safely: '..' or an absolute path gives 404, not a file.
    return send_from_directory(found.path / "img", filename, max_age=3600)
