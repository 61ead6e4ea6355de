"""Quiz pages and API: questions without keys, CSRF, grading on the server, best and last scores."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.results import validate_document

QUIZ_ID = "quiz-web"
# Key values and explanations carry markers that must never show before answers are sent.
QUIZ_TOML = """
[[questions]]
id = "pick-one"
kind = "single"
answer = "beta"
text = { en = "Which `dtype` is 16 bits?", ja = "16 ビットの `dtype` はどれですか。" }
explanation = { en = "SECRET-EXPLANATION-ONE", ja = "秘密の解説その1です。" }
choices = [
  { id = "alpha", text = { en = "float32", ja = "float32" } },
  { id = "beta", text = { en = "float16", ja = "float16" } },
]

[[questions]]
id = "pick-many"
kind = "multiple"
answer = ["x", "z"]
text = { en = "Pick <b>many</b>", ja = "複数選んでください" }
explanation = { en = "SECRET-EXPLANATION-TWO", ja = "秘密の解説その2です。" }
choices = [
  { id = "x", text = { en = "Ex", ja = "エックス" } },
  { id = "y", text = { en = "Why", ja = "ワイ" } },
  { id = "z", text = { en = "Zed", ja = "ゼット" } },
]

[[questions]]
id = "how-many"
kind = "numeric"
answer = 4817.25
tolerance = 0.5
text = { en = "How many?", ja = "いくつですか。" }
explanation = { en = "SECRET-EXPLANATION-THREE", ja = "秘密の解説その3です。" }
"""
RIGHT = {"pick-one": "beta", "pick-many": ["x", "z"], "how-many": "4817"}
SECRETS = ["SECRET-EXPLANATION", "秘密の解説", "4817", "tolerance", '"answer"', "answer ="]


@pytest.fixture
def app(make_app, content):
    folder = Path(content["exercises"]) / QUIZ_ID
    folder.mkdir()
    (folder / "exercise.toml").write_text(
        f'id = "{QUIZ_ID}"\nlesson = 1\norder = 9\nkind = "quiz"\n'
        '[title]\nen = "Web quiz"\nja = "ウェブのクイズ"\n', encoding="utf-8")
    (folder / "prompt.md").write_text("Answer these.\n", encoding="utf-8")
    (folder / "quiz.toml").write_text(QUIZ_TOML, encoding="utf-8")
    return make_app()


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "the form carries a CSRF token"
    return match.group(1)


def send(client, answers: dict, *, token: str | None = None):
    if token is None:
        token = csrf_of(client.get(f"/quizzes/{QUIZ_ID}").get_data(as_text=True))
    form = {"csrf_token": token, **answers}
    return client.post(f"/quizzes/{QUIZ_ID}", data=form)


def test_page_shows_each_kind_of_input(client):
    response = client.get(f"/quizzes/{QUIZ_ID}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert 'type="radio" name="pick-one" value="beta"' in html
    assert 'type="checkbox" name="pick-many" value="z"' in html
    assert 'type="number" step="any" inputmode="decimal" name="how-many"' in html
    assert "Which <code>dtype</code> is 16 bits?" in html
    assert "<b>many</b>" not in html and "&lt;b&gt;many&lt;/b&gt;" in html  # raw HTML stays text
    assert "Not tried yet." in html


def test_no_key_reaches_the_browser_before_answers_are_sent(client):
    html = client.get(f"/quizzes/{QUIZ_ID}").get_data(as_text=True)
    pages = {"page": html, "api": client.get(f"/api/quizzes/{QUIZ_ID}").get_data(as_text=True)}
    for src in re.findall(r'<(?:script|link)[^>]+(?:src|href)="(/static/[^"]+)"', html):
        pages[src] = client.get(src).get_data(as_text=True)
    assert any(name.split("?")[0].endswith("quizzes.css") for name in pages)
    for name, text in pages.items():
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} leaked in {name}"
    assert "checked" not in html  # no choice comes pre-selected, which would hint at the key


def test_post_without_csrf_token_is_refused(client, app):
    response = client.post(f"/quizzes/{QUIZ_ID}", data=RIGHT)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "The form expired" in html and "SECRET-EXPLANATION" not in html
    assert send(client, RIGHT, token="forged").status_code == 400
    assert "Not tried yet." in client.get(f"/quizzes/{QUIZ_ID}").get_data(as_text=True)


def test_right_answers_then_a_retry_keep_best_and_last(client):
    response = send(client, RIGHT)
    assert response.status_code == 303
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert html.count('class="badge pass"') == 3
    assert "SECRET-EXPLANATION-ONE" in html and "3 of 3 questions right." in html
    assert 'id="best-score">100%' in html and 'id="last-score">100%' in html
    assert 'value="beta" checked' in html  # the answers stay in the form

    response = send(client, {"pick-one": "alpha", "pick-many": ["x"], "how-many": "12"})
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert html.count('class="badge fail"') == 3
    assert 'id="best-score">100%' in html and 'id="last-score">0%' in html


def test_blank_question_is_wrong_and_keeps_its_explanation(client):
    response = send(client, {"pick-one": "beta"})
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "SECRET-EXPLANATION-ONE" in html
    assert "SECRET-EXPLANATION-TWO" not in html and "No answer was given" in html
    assert 'id="last-score">33%' in html


@pytest.mark.parametrize("answers", [
    {"no-such-question": "a"},
    {"pick-one": "gamma"},
    {"pick-many": ["x", "w"]},
    {"how-many": "lots"},
])
def test_unreadable_answers_give_400_not_500(client, answers):
    response = send(client, answers)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert 'role="alert"' in html and "SECRET-EXPLANATION" not in html


def test_unknown_broken_or_code_exercise_is_404(client):
    assert client.get("/quizzes/no-such-quiz").status_code == 404
    assert client.get("/quizzes/add-numbers").status_code == 404  # a code exercise
    assert client.get("/quizzes/pick-a-dtype").status_code == 404  # its quiz.toml is broken
    assert client.post("/quizzes/no-such-quiz", data={}).status_code == 404
    assert client.post("/api/quizzes/no-such-quiz/answers", json={"answers": {}}).status_code == 404


def test_japanese_page(client):
    client.set_cookie("lang", "ja")
    html = client.get(f"/quizzes/{QUIZ_ID}").get_data(as_text=True)
    assert "ウェブのクイズ" in html and "16 ビットの <code>dtype</code> はどれですか。" in html
    assert "答え合わせをする" in html and "まだ挑戦していません。" in html
    response = send(client, RIGHT)
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "正解です。秘密の解説その1です。" in html


def test_someone_elses_attempt_shows_nothing(app, client):
    location = send(client, RIGHT).headers["Location"]
    other = app.test_client()
    html = other.get(location).get_data(as_text=True)
    assert "SECRET-EXPLANATION" not in html and "Not tried yet." in html


def test_api_grades_into_a_results_document(client):
    response = client.post(f"/api/quizzes/{QUIZ_ID}/answers", json={"answers": RIGHT})
    assert response.status_code == 200
    body = response.get_json()
    validate_document(body["result"])
    assert body["result"]["score"] == 1.0 and body["best_score"] == 1.0 and body["attempts"] == 1
    assert [t["check"] for t in body["result"]["tests"]] == ["pick-one", "pick-many", "how-many"]
    again = client.post(f"/api/quizzes/{QUIZ_ID}/answers",
                        json={"answers": {"pick-one": "alpha"}, "lang": "ja"}).get_json()
    assert again["last_score"] == 0.0 and again["best_score"] == 1.0 and again["attempts"] == 2
    assert again["result"]["tests"][0]["message"].startswith("不正解です。")


@pytest.mark.parametrize(("payload", "question"), [
    ({"answers": {"pick-one": "gamma"}}, "pick-one"),
    ({"answers": {"nope": 1}}, "nope"),
    ({"answers": {"how-many": True}}, "how-many"),
])
def test_api_refuses_bad_answers_with_400(client, payload, question):
    response = client.post(f"/api/quizzes/{QUIZ_ID}/answers", json=payload)
    assert response.status_code == 400
    body = response.get_json()
    assert body["error"] == "bad_answer" and body["question"] == question


def test_api_refuses_bodies_that_are_not_answers(client):
    url = f"/api/quizzes/{QUIZ_ID}/answers"
    assert client.post(url, data={"answers": "x"}).status_code == 400  # a form, not JSON
    assert client.post(url, json=["beta"]).status_code == 400
    assert client.post(url, json={"answers": ["beta"]}).status_code == 400
    response = client.post(url, data=b"{not json", content_type="application/json")
    assert response.status_code == 400 and response.get_json()["error"] == "not_json"


COURSE_QUIZZES = [
    "quiz-tensors", "quiz-training-loop", "quiz-mixed-precision", "quiz-bigger-models"]


@pytest.mark.parametrize("quiz_id", COURSE_QUIZZES)
def test_course_quiz_pages_hide_their_explanations(make_app, quiz_id):
    from grader.quiz import key_answers, load_quiz

    repo_exercises = Path(__file__).resolve().parents[3] / "exercises"
    client = make_app(EXERCISES_DIR=str(repo_exercises)).test_client()
    for lang in ("en", "ja"):
        client.set_cookie("lang", lang)
        html = client.get(f"/quizzes/{quiz_id}").get_data(as_text=True)
        exercise = client.application.extensions["exercise_catalog"].get(quiz_id)
        for question in load_quiz(exercise).questions:
            assert question.explanation.get(lang)[:40] not in html
            assert f'id="q-{question.id}"' in html
    answers = key_answers(exercise)
    body = client.post(f"/api/quizzes/{quiz_id}/answers", json={"answers": answers}).get_json()
    assert body["result"]["score"] == 1.0


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_quiz_page_renders_for_a_logged_in_learner(app, lang):
    """The logout form in the header needs csrf_token(); the quiz page once shadowed it with a string."""
    from tests.app.accounts_helpers import signed_in

    client = signed_in(app, f"quiz-{lang}@example.org")
    client.set_cookie("lang", lang)
    page = client.get(f"/quizzes/{QUIZ_ID}")
    assert page.status_code == 200
    assert 'action="/logout"' in page.get_data(as_text=True)


# --- teaching instead of leaking (issue 12) ---------------------------------------------

def test_a_wrong_answer_does_not_show_the_right_one_until_enough_tries(client):
    wrong = {"pick-one": "alpha", "pick-many": ["x", "z"], "how-many": "4817"}
    first = client.get(send(client, wrong).headers["Location"]).get_data(as_text=True)
    assert "SECRET-EXPLANATION-ONE" not in first and "1 more wrong try" in first
    assert "SECRET-EXPLANATION-TWO" in first  # answered right: its explanation is shown
    second = client.get(send(client, wrong).headers["Location"]).get_data(as_text=True)
    assert "SECRET-EXPLANATION-ONE" in second  # reveal_after = 2 (the default)


def test_retrying_with_the_revealed_answer_earns_no_points_for_it(client):
    wrong = {"pick-one": "alpha", "pick-many": ["x", "z"], "how-many": "4817"}
    send(client, wrong)
    send(client, wrong)
    html = client.get(send(client, RIGHT).headers["Location"]).get_data(as_text=True)
    assert 'id="best-score">67%' in html  # pick-one: right, but after its explanation


def test_reveal_after_is_set_per_quiz(app, client, content):
    quiz = Path(content["exercises"]) / QUIZ_ID / "quiz.toml"
    quiz.write_text("reveal_after = 1\n" + QUIZ_TOML, encoding="utf-8")
    html = client.get(send(client, {"pick-one": "alpha"}).headers["Location"]).get_data(as_text=True)
    assert "SECRET-EXPLANATION-ONE" in html


def test_an_empty_submit_is_refused_with_a_message_and_not_recorded(client):
    response = send(client, {})
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "No question was answered" in html and 'role="alert"' in html
    assert "Not tried yet." in html  # nothing was recorded
    api = client.post(f"/api/quizzes/{QUIZ_ID}/answers", json={"answers": {"how-many": ""}})
    assert api.status_code == 400 and api.get_json()["error"] == "empty_answers"
    assert client.get(f"/api/quizzes/{QUIZ_ID}").get_json()["attempts"] == 0


def test_empty_submit_message_in_japanese(client):
    client.get("/lang/ja?next=/")
    assert "どの問題にも答えていません" in send(client, {}).get_data(as_text=True)


def _order(html: str) -> list[str]:
    return re.findall(r'name="pick-many" value="(\w+)"', html)


def test_choices_are_shuffled_per_attempt(client):
    orders = {tuple(_order(client.get(f"/quizzes/{QUIZ_ID}").get_data(as_text=True)))}
    assert client.get(f"/quizzes/{QUIZ_ID}").get_data(as_text=True).count('value="y"') == 1
    for _ in range(6):
        location = send(client, {"pick-one": "alpha"}).headers["Location"]
        orders.add(tuple(_order(client.get(location).get_data(as_text=True))))
    assert len(orders) > 1
    assert all(sorted(order) == ["x", "y", "z"] for order in orders)


def test_quiz_page_links_to_its_neighbours(client):
    html = client.get(f"/quizzes/{QUIZ_ID}").get_data(as_text=True)
    assert 'class="pager"' in html and 'rel="prev"' in html


def test_an_empty_japanese_prompt_falls_back_to_english_like_the_exercise_page(app, client, content):
    # One rule (grader.loader.Exercise.localized_file): the quiz page used prompt.ja.md even empty.
    (Path(content["exercises"]) / QUIZ_ID / "prompt.ja.md").write_text(" \n", encoding="utf-8")
    client.get("/lang/ja?next=/")
    html = client.get(f"/quizzes/{QUIZ_ID}").get_data(as_text=True)
    assert "Answer these." in html and "答え合わせをする" in html


def test_quiz_page_strings_come_from_gettext_in_both_languages(client):
    html = client.get(f"/quizzes/{QUIZ_ID}").get_data(as_text=True)
    assert "Check my answers" in html and "Choose one." in html and "Not tried yet." in html
    client.get("/lang/ja?next=/")
    html = client.get(f"/quizzes/{QUIZ_ID}").get_data(as_text=True)
    assert "答え合わせをする" in html and "1 つ選んでください。" in html and "まだ挑戦していません。" in html
    assert "Check my answers" not in html
