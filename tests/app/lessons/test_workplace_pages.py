"""Where the learner works: lesson contents and anchors, progress marks, neighbours, titles."""

from __future__ import annotations

import re
from pathlib import Path

from app.lessons.routes import exercises_heading, table_of_contents
from tests.app.accounts_helpers import GOOD, WRONG, signed_in
from tests.app.web_helpers import wait_for_done

LESSON_WITH_SECTIONS = """---
title: Sections
lesson: 1
---
# Sections

## Why `tensors` matter

Text.

### A detail

More.

## What the exercises cover

You will add numbers.
"""


def _with_sections(content: dict[str, Path]) -> None:
    (Path(content["lessons"]) / "01-python-basics" / "en.md").write_text(
        LESSON_WITH_SECTIONS, encoding="utf-8")


def test_lesson_has_a_table_of_contents_and_linkable_headings(make_app, content):
    _with_sections(content)
    html = make_app().test_client().get("/lessons/01-python-basics/").get_data(as_text=True)
    assert '<h2 id="why-tensors-matter">' in html
    assert 'class="header-anchor" href="#why-tensors-matter"' in html
    toc = html[html.index('class="toc toc-wide"'):html.index("</nav>", html.index('class="toc toc-wide"'))]
    assert 'href="#why-tensors-matter">Why tensors matter</a>' in toc
    assert 'href="#exercises"' in toc and "A detail" not in toc  # h2 only: a short list


def test_no_second_exercises_heading_after_the_lessons_own(make_app, content):
    _with_sections(content)
    html = make_app().test_client().get("/lessons/01-python-basics/").get_data(as_text=True)
    assert 'id="exercises-heading"' not in html
    # The lesson's own heading takes the id "exercises" (in every language), which links use.
    assert '<h2 id="exercises">What the exercises cover' in html
    assert 'aria-labelledby="exercises"' in html
    # A lesson without such a section still gets the page's own heading.
    other = make_app().test_client().get("/lessons/02-tensors/").get_data(as_text=True)
    assert 'id="exercises-heading"' in other


def test_toc_reads_rendered_headings():
    body = ('<h2 id="a">A &amp; <code>b</code> <a class="header-anchor" href="#a">#</a></h2>'
            '<h3 id="c">C <a class="header-anchor" href="#c">#</a></h3>'
            '<h2 id="e">演習 <a class="header-anchor" href="#e">#</a></h2>')
    toc = table_of_contents(body)
    assert [(t.level, t.anchor, t.text) for t in toc] == [(2, "a", "A & b"), (3, "c", "C"), (2, "e", "演習")]
    assert exercises_heading(toc).anchor == "e"
    assert exercises_heading(toc[:2]) is None


def test_course_lesson_and_exercise_pages_show_what_is_done(app):
    client = signed_in(app, "marks@example.org")
    before = client.get("/").get_data(as_text=True)
    assert "0 of 3 solved" in before
    sent = client.post("/api/exercises/add-numbers/submissions", json={"code": GOOD}).get_json()
    wait_for_done(client, sent["id"])
    course = client.get("/").get_data(as_text=True)
    assert "1 of 3 solved" in course
    lesson = client.get("/lessons/01-python-basics/").get_data(as_text=True)
    assert re.search(r'data-exercise="add-numbers" data-state="solved">.*?class="state solved"', lesson, re.S)
    assert 'data-exercise="add-again" data-state="not_started"' in lesson
    page = client.get("/exercises/add-numbers").get_data(as_text=True)
    assert 'class="state solved"' in page and "Best score 100%" in page
    assert '"status": "done"' in page and sent["id"] in page  # the last result, for the script


def test_exercise_page_carries_the_last_submission_even_when_it_failed(app):
    client = signed_in(app, "failing@example.org")
    sent = client.post("/api/exercises/add-numbers/submissions", json={"code": WRONG}).get_json()
    wait_for_done(client, sent["id"])
    page = client.get("/exercises/add-numbers").get_data(as_text=True)
    assert 'class="state attempted"' in page
    assert '"verdict"' not in page or sent["id"] in page
    assert sent["id"] in page


def test_first_exercise_links_back_to_its_lesson_and_the_last_one_too(client):
    first = client.get("/exercises/add-numbers").get_data(as_text=True)
    assert re.search(r'class="prev" rel="prev" href="/lessons/01-python-basics/"', first)
    last = client.get("/exercises/add-again").get_data(as_text=True)
    assert re.search(r'class="next" rel="next" href="/quizzes/pick-a-dtype"', last)


def test_restore_only_reads_the_learners_own_submission(app):
    owner = signed_in(app, "owner@example.org")
    sent = owner.post("/api/exercises/add-numbers/submissions", json={"code": GOOD}).get_json()
    wait_for_done(owner, sent["id"])
    mine = owner.get(f"/exercises/add-numbers?restore={sent['id']}").get_data(as_text=True)
    assert re.search(r'id="restored-submission">\{"code": "def add', mine)
    other = signed_in(app, "other@example.org")
    theirs = other.get(f"/exercises/add-numbers?restore={sent['id']}").get_data(as_text=True)
    assert 'id="restored-submission">null' in theirs


def test_instructor_sees_the_learners_breadcrumb_not_my_progress(app):
    learner = signed_in(app, "pupil@example.org")
    sent = learner.post("/api/exercises/add-numbers/submissions", json={"code": WRONG}).get_json()
    wait_for_done(learner, sent["id"])
    own = learner.get(f"/submissions/{sent['id']}").get_data(as_text=True)
    assert "My progress" in own.split('class="breadcrumbs"')[1].split("</nav>")[0]
    teacher = signed_in(app, "teacher@example.org", role="instructor")
    html = teacher.get(f"/submissions/{sent['id']}").get_data(as_text=True)
    crumbs = html.split('class="breadcrumbs"')[1].split("</nav>")[0]
    assert "My progress" not in crumbs and "pupil@example.org" in crumbs
    assert "/instructor/learners/" in crumbs
    assert "restore-link" not in html  # an instructor cannot put it in their own editor


def test_history_renders_backticks_as_code_and_numbers_lines(app):
    client = signed_in(app, "history@example.org")
    sent = client.post("/api/exercises/add-numbers/submissions", json={"code": WRONG}).get_json()
    wait_for_done(client, sent["id"])
    html = client.get("/exercises/add-numbers/history").get_data(as_text=True)
    # Ids carry the submission's first 8 characters: a page of entries keeps them unique.
    assert f'id="{sent["id"][:8]}-L2"' in html
    assert f'href="#{sent["id"][:8]}-L2"' in html  # the check's line links to the numbered line


def test_backticks_filter_escapes_first(app):
    from app.progress.routes import backticks
    assert str(backticks("use `a<b>` not <i>")) == "use <code>a&lt;b&gt;</code> not &lt;i&gt;"


def test_skipped_check_is_explained_by_title_in_japanese(app):
    from app.progress.routes import explain_skip
    titles = {"distances-shape": "形状が正しい"}
    # The grader names the blocking check as data; the message text is not read.
    current = {"status": "skip", "message": "(any text)", "blocked_by": "distances-shape"}
    # A document stored before `blocked_by`: its English message names the check.
    legacy = {"status": "skip", "message": "depends on 'distances-shape'"}
    with app.test_request_context(headers={"Accept-Language": "ja"}):
        for test in (current, legacy):
            text = explain_skip(test, titles)
            assert "形状が正しい" in text and "distances-shape" not in text and "depends" not in text
        # A document with the field and nothing in it: the message is shown as it is.
        assert explain_skip({"status": "skip", "message": "depends on 'x'", "blocked_by": None}, titles) \
            == "depends on 'x'"


def test_quoted_check_ids_in_messages_become_titles(app):
    from app.progress.routes import explain_skip
    with app.test_request_context():
        text = explain_skip({"status": "fail",
                             "message": "stopped because of the mistake reported under 'update-after-step'."},
                            {"update-after-step": "update() after step()"})
    assert text == "stopped because of the mistake reported under “update() after step()”."


def test_the_api_fills_blocked_by_in_documents_stored_before_it(app):
    from app.extensions import db
    from app.grading.position import submission_api
    from app.models import Submission

    legacy = {"version": 1, "status": "fail", "score": 0, "tests": [
        {"check": "a", "status": "fail", "message": "no"},
        {"check": "b", "status": "skip", "message": "depends on 'a'"}]}
    with app.app_context():
        stored = Submission(exercise_id="add-numbers", learner="k", code="x", status="done", result=legacy)
        db.session.add(stored)
        db.session.commit()
        tests = submission_api(stored)["result"]["tests"]
    assert [t["blocked_by"] for t in tests] == [None, "a"]
    assert "blocked_by" not in legacy["tests"][1]  # the stored document is left as it was


def test_instructor_overview_names_failing_checks_by_title(make_app, content):
    from tests.app.instructor_titles import two_check_grader
    tests = Path(content["exercises"]) / "add-numbers" / "tests" / "test_add.py"
    tests.write_text(
        "from grader.testing import check\n\n"
        '@check("returns-sum", title={"en": "Returns the sum", "ja": "和を返す"})\n'
        "def test_add():\n    pass\n", encoding="utf-8")
    app = make_app(GRADE_FUNCTION=two_check_grader)
    learner = signed_in(app, "slow@example.org")
    sent = learner.post("/api/exercises/add-numbers/submissions", json={"code": WRONG}).get_json()
    wait_for_done(learner, sent["id"])
    teacher = signed_in(app, "boss@example.org", role="instructor")
    html = teacher.get("/instructor/").get_data(as_text=True)
    assert 'data-check="returns-sum" title="returns-sum">Returns the sum<' in html
    teacher.get("/lang/ja?next=/")
    assert ">和を返す<" in teacher.get("/instructor/").get_data(as_text=True)
