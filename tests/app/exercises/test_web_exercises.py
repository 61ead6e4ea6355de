"""The exercise page: prompt, starter in the editor, hints, the bundle, and 404s."""

from __future__ import annotations

import json
import re


def test_exercise_page_shows_prompt_and_starter(client):
    response = client.get("/exercises/add-numbers")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "<h1>Exercise add-numbers</h1>" in html  # the title from exercise.toml
    assert "Adding numbers" not in html  # the prompt's own top heading would repeat it
    assert "Write <code>add(a, b)</code>." in html
    assert "&lt;b&gt;not bold&lt;/b&gt;" in html  # raw HTML in a prompt stays text
    assert '<span class="n">add</span>' in html  # highlighted code block
    assert "    pass  # &lt;your code&gt;" in html  # starter in the no-script textarea, escaped
    assert 'data-submit-url="/api/exercises/add-numbers/submissions"' in html
    assert re.search(r'<script src="/static/dist/editor\.js\?v=[0-9a-f]{12}" defer></script>', html)
    assert "Use the <code>+</code> operator." in html  # hints, folded


def test_starter_and_strings_reach_the_script_as_json(client):
    html = client.get("/exercises/add-numbers").get_data(as_text=True)
    starter = re.search(r'id="starter-code">(.*?)</script>', html, re.S)
    assert json.loads(starter.group(1)) == "def add(a, b):\n    pass  # <your code>\n"
    assert "<your" not in starter.group(1)  # tojson escapes < so no tag can close the block
    strings = re.search(r'id="editor-strings">(.*?)</script>', html, re.S)
    assert json.loads(strings.group(1))["submit"] == "Submit"


def test_previous_and_next_exercise(client):
    html = client.get("/exercises/add-again").get_data(as_text=True)
    assert 'rel="prev" href="/exercises/add-numbers"' in html
    assert 'rel="next" href="/quizzes/pick-a-dtype"' in html  # a quiz has its own page
    assert 'href="/lessons/01-python-basics/"' in html


def test_a_quiz_is_answered_on_the_quiz_page(client):
    response = client.get("/exercises/pick-a-dtype")
    assert response.status_code == 302
    assert response.headers["Location"] == "/quizzes/pick-a-dtype"


def test_unknown_exercise_is_a_404_page(client):
    response = client.get("/exercises/no-such-exercise")
    assert response.status_code == 404
    assert "text/html" in response.content_type


def test_style_nonce_matches_the_policy(client):
    response = client.get("/exercises/add-numbers")
    nonce = re.search(r'data-csp-nonce="([^"]+)"', response.get_data(as_text=True)).group(1)
    assert f"'nonce-{nonce}'" in response.headers["Content-Security-Policy"]
    again = client.get("/exercises/add-numbers").headers["Content-Security-Policy"]
    assert f"'nonce-{nonce}'" not in again  # a fresh nonce for every response


def test_every_kind_of_exercise_has_a_page(app):
    from app.exercises.routes import KIND_PAGES
    from grader.api import KINDS

    assert set(KIND_PAGES) == set(KINDS)
    for endpoint, argument in KIND_PAGES.values():
        [rule] = [r for r in app.url_map.iter_rules() if r.endpoint == endpoint]
        assert argument in rule.arguments
