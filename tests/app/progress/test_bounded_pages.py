"""Pages stay bounded whatever a learner stored: the paged history, its on-demand entries, the quota."""

from __future__ import annotations

import re

from app.accounts.identity import learner_key
from app.extensions import db
from app.models import Submission, User
from app.progress import quota
from app.progress.bounds import PAGE_MAX_BYTES
from app.progress.history import PAGE_SIZE
from grader.figures import MAX_DOCUMENT_POINTS
from grader.results import MAX_TESTS, TEST_TEXTS, validate_document
from tests.app.accounts_helpers import GOOD, QUIZ_ID, URL, add_quiz, signed_in

HISTORY = "/exercises/add-numbers/history"


def learner_of(client) -> str:
    with client.session_transaction() as session:
        user = int(session["_user_id"].split(":")[0])
    with client.application.app_context():
        return db.session.get(User, user).learner_key


def store(app, learner: str, codes: list[str], result: dict | None = None) -> list[str]:
    """Submissions stored one by one (created_at orders them), as graded ones."""
    ids = []
    with app.app_context():
        for code in codes:
            sub = Submission(exercise_id="add-numbers", learner=learner, code=code,
                             status="done", result=result or {"status": "fail", "score": 0.0,
                                                              "tests": [], "message": ""})
            db.session.add(sub)
            db.session.commit()
            ids.append(sub.id)
        db.session.remove()
    return ids


def listed(html: str) -> list[str]:
    return re.findall(r'class="history-item" data-submission="([^"]+)"', html)


def test_history_pages_walk_every_submission_once_newest_first(app):
    client = signed_in(app, "pager@example.org")
    ids = store(app, learner_of(client), [f"x = {i}\n" for i in range(2 * PAGE_SIZE + 3)])
    newest_first = list(reversed(ids))
    seen, url = [], HISTORY
    while url:
        html = client.get(url).get_data(as_text=True)
        page = listed(html)
        assert 1 <= len(page) <= PAGE_SIZE
        seen += page
        older = re.search(r'rel="next" href="([^"]+)"', html)
        url = older.group(1).replace("&amp;", "&") if older else None
    assert seen == newest_first
    # Back again: the last page's "newer" link gives the page before it.
    last = client.get(f"{HISTORY}?before={newest_first[2 * PAGE_SIZE - 1]}").get_data(as_text=True)
    newer = re.search(r'rel="prev" href="([^"]+)"', last).group(1).replace("&amp;", "&")
    assert listed(client.get(newer).get_data(as_text=True)) == newest_first[PAGE_SIZE:2 * PAGE_SIZE]
    # A cursor that is not one of this learner's submissions gives the first page.
    assert listed(client.get(f"{HISTORY}?before=nope").get_data(as_text=True)) == \
        newest_first[:PAGE_SIZE]


def test_only_the_first_entry_carries_its_code_and_others_fetch_theirs(app):
    client = signed_in(app, "lazy@example.org")
    ids = store(app, learner_of(client), [f"value = {i}  # marker-{i}\n" for i in range(3)])
    html = client.get(HISTORY).get_data(as_text=True)
    # The newest's code and its diff (which names marker-1), nothing of the oldest.
    assert "marker-2" in html and "marker-0" not in html
    assert f'data-code-url="/submissions/{ids[1]}/code"' in html
    fragment = client.get(f"/submissions/{ids[1]}/code")
    assert fragment.status_code == 200 and fragment.headers["Cache-Control"] == "private, no-cache"
    body = fragment.get_data(as_text=True)
    assert "marker-1" in body and '<span class="diff-add">+value = 1  # marker-1</span>' in body
    assert "<html" not in body  # a fragment, not a page


def test_an_entry_is_fetched_by_its_owner_and_instructors_only(app):
    owner = signed_in(app, "owner@example.org")
    (sub,) = store(app, learner_of(owner), ["secret = 42\n"])
    assert owner.get(f"/submissions/{sub}/code").status_code == 200
    assert signed_in(app, "other@example.org").get(f"/submissions/{sub}/code").status_code == 404
    assert app.test_client().get(f"/submissions/{sub}/code").status_code == 404
    teacher = signed_in(app, "teacher@example.org", role="instructor")
    page = teacher.get(f"/submissions/{sub}/code").get_data(as_text=True)
    assert "secret = 42" in page and "restore-link" not in page


def test_a_graded_entry_opened_again_is_not_rendered_again(app):
    owner = signed_in(app, "again@example.org")
    first, second = store(app, learner_of(owner), ["x = 1\n", "x = 2\n"])
    url = f"/submissions/{second}/code"
    fetched = owner.get(url)
    tag = fetched.headers["ETag"].strip('"')
    again = owner.get(url, headers={"If-None-Match": f'"{tag}"'})
    assert again.status_code == 304 and again.get_data() == b""
    assert again.headers["Cache-Control"] == "private, no-cache"
    # Another language is another rendering; another learner with the tag is still refused.
    assert owner.get(url, headers={"If-None-Match": f'"{tag}"', "Accept-Language": "ja"}).status_code == 200
    other = signed_in(app, "thief@example.org")
    assert other.get(url, headers={"If-None-Match": f'"{tag}"'}).status_code == 404
    # A submission still waiting for its result is not cached at all.
    with app.app_context():
        waiting = Submission(exercise_id="add-numbers", learner=learner_of(owner), code="x = 3\n",
                             status="queued")
        db.session.add(waiting)
        db.session.commit()
        waiting_id = waiting.id
    pending = owner.get(f"/submissions/{waiting_id}/code")
    assert pending.headers["Cache-Control"] == "no-store" and "ETag" not in pending.headers


def largest_result() -> dict:
    text = {key: ("`<`" * cap)[:cap] for key, cap in TEST_TEXTS.items()}
    figure = {"id": "big", "series": [{"name": "s", "points": [[k + 1, 1e29 / (k + 1)]
                                                              for k in range(2000)]}]}
    return validate_document({
        "version": 1, "exercise": "add-numbers", "status": "fail", "score": 0.0,
        "tests": [{**text, "status": "fail", "line": 1} for _ in range(MAX_TESTS)],
        "message": "`<`" * 1333, "figures": [figure] * (MAX_DOCUMENT_POINTS // 2000 + 1)})


def test_the_history_page_stays_under_its_bound_at_the_largest_stored_history(make_app):
    app = make_app(LEARNER_STORAGE_QUOTA=3_000_000)  # the default's shape, fewer rows to store
    client = signed_in(app, "hoarder@example.org")
    learner = learner_of(client)
    code = "<\n" * (32 * 1024)  # 64 KB: the most lines and the most escaping the limit allows
    with app.app_context():
        per = len(code) + quota.SUBMISSION_OVERHEAD
        count = app.config["LEARNER_STORAGE_QUOTA"] // per
    ids = store(app, learner, [code[:-4] + f"{i:02d}\n\n" for i in range(count)], largest_result())
    # The quota is full: the next submission is refused, with a sentence, and nothing stored.
    refused = client.post(URL, json={"code": code})
    assert refused.status_code == 403 and refused.get_json()["error"] == "storage_quota"
    assert "storage limit" in refused.get_json()["message"]
    with app.app_context():
        assert db.session.query(Submission).count() == count
    for url, bound in ((HISTORY, "history"), (f"{HISTORY}?before={ids[count // 2]}", "history-older"),
                       (f"/submissions/{ids[-1]}/code", "entry-fragment"),
                       (f"/submissions/{ids[-1]}", "submission"),
                       ("/api/exercises/add-numbers/history", "api-history")):
        size = len(client.get(url).get_data())
        assert size <= PAGE_MAX_BYTES[bound], (url, size)
    assert len(listed(client.get(HISTORY).get_data(as_text=True))) == PAGE_SIZE


def test_quota_refuses_drafts_and_quiz_answers_in_both_languages(make_app, content):
    add_quiz(content["exercises"])
    app = make_app(LEARNER_STORAGE_QUOTA=190_000)
    client = signed_in(app, "full@example.org")
    store(app, learner_of(client), ["z" * 60_000] * 3)  # 186 KB with the per-row overhead
    draft = client.put("/api/exercises/add-numbers/draft", json={"code": "y" * 20_000})
    assert draft.status_code == 403 and draft.get_json()["error"] == "storage_quota"
    client.set_cookie("lang", "ja")
    draft = client.put("/api/exercises/add-numbers/draft", json={"code": "y" * 20_000})
    assert "保存" in draft.get_json()["message"]
    assert client.put("/api/exercises/add-numbers/draft", json={"code": GOOD}).status_code == 200
    # Autosave replacing that draft is not summed again: at most one code per exercise beyond.
    assert client.put("/api/exercises/add-numbers/draft", json={"code": GOOD + "#"}).status_code == 200
    answered = client.post(f"/api/quizzes/{QUIZ_ID}/answers", json={"answers": {"half": "fp16"}})
    assert answered.status_code == 403 and answered.get_json()["error"] == "storage_quota"
    assert client.post(URL, json={"code": GOOD + "#" * 2000}).status_code == 403
    with app.app_context():  # nothing half-stored: the three rows stored above, no more
        assert db.session.query(Submission).count() == 3


def test_used_bytes_counts_code_rows_and_replaced_drafts(app):
    with app.test_request_context():
        me = learner_key()
        assert quota.used_bytes(me) == 0
    client = app.test_client()
    client.put("/api/exercises/add-numbers/draft", json={"code": "a" * 1000})
    with client.session_transaction() as session:
        me = session["learner"]
    with app.app_context():
        assert quota.used_bytes(me) == 1000
        assert quota.used_bytes(me, except_draft="add-numbers") == 0
