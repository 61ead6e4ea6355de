"""The course page and lesson pages: Markdown features, escaping, images, navigation, caching."""

from __future__ import annotations

import os

from app.content import lesson_catalog


def test_course_page_lists_the_four_lessons_in_order(client):
    html = client.get("/").get_data(as_text=True)
    positions = [html.index(title) for title in
                 ("Python basics", "Tensors", "Mixed precision with AMP", "Deploying a model")]
    assert positions == sorted(positions)
    assert 'href="/lessons/03-mixed-precision/"' in html
    assert "What lesson 3 is about." in html
    assert "3 exercises" in html  # lesson 1 has two code exercises and a quiz


def test_lesson_page_renders_markdown(client):
    response = client.get("/lessons/01-python-basics/")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "<h1>Python basics</h1>" in html
    assert "summary:" not in html  # the front matter is metadata, not text
    assert '<div class="admonition note">' in html
    assert '<p class="admonition-title">Remember &lt;this&gt;</p>' in html
    assert "<table>" in html and "<th>format</th>" in html
    assert '<pre class="highlight" data-lang="python"><code><span class="k">def</span>' in html
    assert '<img src="img/diagram.svg" alt="A diagram" />' in html


def test_raw_html_in_a_lesson_is_shown_as_text(client):
    html = client.get("/lessons/01-python-basics/").get_data(as_text=True)
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&quot;raw html&quot;)&lt;/script&gt;" in html


def test_lesson_links_its_exercises_sorted_by_order(client):
    html = client.get("/lessons/01-python-basics/").get_data(as_text=True)
    links = ("/exercises/add-numbers", "/exercises/add-again", "/quizzes/pick-a-dtype")
    first, second, quiz = (html.index(f'href="{link}"') for link in links)
    assert first < second < quiz
    empty = client.get("/lessons/02-tensors/").get_data(as_text=True)
    assert "This lesson has no exercises yet." in empty


def test_previous_and_next_links(client):
    html = client.get("/lessons/02-tensors/").get_data(as_text=True)
    assert 'rel="prev" href="/lessons/01-python-basics/"' in html
    assert 'rel="next" href="/lessons/03-mixed-precision/"' in html
    first = client.get("/lessons/01-python-basics/").get_data(as_text=True)
    assert 'rel="prev"' not in first


def test_lesson_without_trailing_slash_redirects(client):
    response = client.get("/lessons/02-tensors")
    assert response.status_code == 308
    assert response.headers["Location"].endswith("/lessons/02-tensors/")


def test_unknown_lesson_is_a_404_page(client):
    response = client.get("/lessons/09-nothing/")
    assert response.status_code == 404
    assert "text/html" in response.content_type
    assert "There is nothing at this address." in response.get_data(as_text=True)


def test_lesson_images_are_served_from_the_lesson_folder(client):
    response = client.get("/lessons/01-python-basics/img/diagram.svg")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert b"<rect" in response.data


def test_image_paths_cannot_leave_the_folder(client, content):
    (content["lessons"] / "secret.txt").write_text("TOP-SECRET-FILE")
    for path in ("/lessons/01-python-basics/img/../en.md",
                 "/lessons/01-python-basics/img/..%2F..%2Fsecret.txt",
                 "/lessons/01-python-basics/img/%2Fetc%2Fpasswd",
                 "/lessons/..%2F01-python-basics/img/diagram.svg"):
        response = client.get(path, follow_redirects=True)
        assert response.status_code == 404, path
        assert b"TOP-SECRET-FILE" not in response.data


def test_rendered_lessons_are_cached_until_the_file_changes(app, content):
    path = content["lessons"] / "02-tensors" / "en.md"
    with app.app_context():
        first = lesson_catalog().get("02-tensors", "en")
        assert lesson_catalog().get("02-tensors", "en").html is first.html  # not re-parsed
        path.write_text(path.read_text().replace("Some text", "Changed text"))
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        assert "Changed text" in lesson_catalog().get("02-tensors", "en").html


def test_security_headers(client):
    response = client.get("/")
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy


def test_committed_pygments_stylesheet_is_current():
    from app.content.pygments_css import TARGET, stylesheet

    assert TARGET.read_text(encoding="utf-8") == stylesheet()
