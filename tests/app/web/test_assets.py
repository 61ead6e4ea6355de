"""Static files: fingerprinted URLs cached as immutable, compressed; pages are not compressed."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[3] / "app" / "static"


def test_pages_link_static_files_by_content_hash(client):
    html = client.get("/exercises/add-numbers").get_data(as_text=True)
    assert re.search(r'src="/static/dist/editor\.js\?v=[0-9a-f]{12}"', html)
    assert re.search(r'href="/static/css/site\.css\?v=[0-9a-f]{12}"', html)


def test_fingerprinted_file_is_immutable_and_compressed(client):
    html = client.get("/").get_data(as_text=True)
    url = re.search(r'href="(/static/css/site\.css\?v=[0-9a-f]{12})"', html).group(1)
    response = client.get(url, headers={"Accept-Encoding": "br"})
    assert response.status_code == 200
    assert "immutable" in response.headers["Cache-Control"]
    assert "max-age=31536000" in response.headers["Cache-Control"]
    assert response.headers.get("Content-Encoding") == "br"
    assert "Accept-Encoding" in response.headers.get("Vary", "")


@pytest.mark.parametrize("path", ["css/site.css", "dist/editor.js", "dist/lesson.js", "css/pygments.css"])
def test_a_client_that_accepts_only_gzip_gets_gzip(client, path):
    if not (STATIC / path).is_file():
        pytest.skip(f"app/static/{path} is missing (npm run build)")
    response = client.get(f"/static/{path}", headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200
    assert response.headers.get("Content-Encoding") == "gzip"
    body = response.get_data()
    assert len(body) < (STATIC / path).stat().st_size
    assert gzip.decompress(body) == (STATIC / path).read_bytes()


def test_a_stale_or_missing_hash_is_not_cached_for_long(client):
    for url in ("/static/css/site.css", "/static/css/site.css?v=000000000000"):
        response = client.get(url)
        assert response.status_code == 200
        assert "immutable" not in response.headers.get("Cache-Control", "")


def test_html_pages_are_never_compressed(client):
    # They carry CSRF tokens beside text a visitor controls (BREACH).
    response = client.get("/login", headers={"Accept-Encoding": "gzip, br"})
    assert "Content-Encoding" not in response.headers
