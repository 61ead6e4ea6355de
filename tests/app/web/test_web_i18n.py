"""Interface language: the switch, the cookie, Japanese pages and the English fallback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

REPO = Path(__file__).resolve().parents[3]
PO = REPO / "app" / "translations" / "ja" / "LC_MESSAGES" / "messages.po"
POT = REPO / "app" / "translations" / "messages.pot"


def test_switch_sets_a_cookie_and_returns_to_the_page(client):
    response = client.get("/lang/ja?next=/lessons/02-tensors/")
    assert response.status_code == 302
    assert response.headers["Location"] == "/lessons/02-tensors/"
    assert "lang=ja" in response.headers["Set-Cookie"]
    html = client.get("/lessons/02-tensors/").get_data(as_text=True)
    assert '<html lang="ja">' in html
    assert "<h1>テンソル</h1>" in html  # ja.md
    assert "このレッスンにはまだ演習がありません。" in html  # interface string


@pytest.mark.parametrize(
    "target", ["//evil.example/", "https://evil.example/", "/\\evil.example", "lessons"]
)
def test_switch_never_redirects_off_site(client, target):
    response = client.get("/lang/ja", query_string={"next": target})
    assert response.headers["Location"] == "/"


def test_unknown_language_is_ignored(client):
    response = client.get("/lang/xx?next=/")
    assert "Set-Cookie" not in response.headers
    assert '<html lang="en">' in client.get("/").get_data(as_text=True)


def test_browser_preference_applies_without_a_cookie(client):
    html = client.get("/", headers={"Accept-Language": "ja,en;q=0.5"}).get_data(as_text=True)
    assert '<html lang="ja">' in html and "Python で学ぶ AI" in html


def test_cookie_wins_over_the_browser(client):
    client.set_cookie("lang", "en")
    html = client.get("/", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert '<html lang="en">' in html


def test_japanese_lesson_falls_back_to_english_text(client):
    client.set_cookie("lang", "ja")
    html = client.get("/lessons/04-deploying/").get_data(as_text=True)
    assert "<h1>Deploying a model</h1>" in html  # no ja.md in this folder
    assert "レッスン 4" in html  # the interface stays Japanese


def test_japanese_exercise_page(client):
    client.set_cookie("lang", "ja")
    html = client.get("/exercises/add-numbers").get_data(as_text=True)
    assert "<h1>演習 add-numbers</h1>" in html
    assert "を書きましょう。" in html  # prompt.ja.md
    assert "初期コードに戻す" in html
    strings = re.search(r'id="editor-strings">(.*?)</script>', html, re.S).group(1)
    assert "\\u63d0\\u51fa" in strings or "提出" in strings  # "提出" (Submit), JSON-escaped or not


def test_api_messages_follow_the_language(client):
    client.set_cookie("lang", "ja")
    response = client.post("/api/exercises/add-numbers/submissions", json={"code": 1})
    assert response.get_json()["message"] == "'code' フィールドがないか、文字列ではありません。"


def test_every_interface_string_is_translated():
    with PO.open("rb") as handle:
        catalog = read_po(handle, locale="ja")
    problems = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(strings) or message.fuzzy:
            problems.append(message.id)
        source = message.id[0] if isinstance(message.id, tuple) else message.id
        for text in strings:
            if sorted(re.findall(r"%\(\w+\)d", source)) != sorted(re.findall(r"%\(\w+\)d", text)):
                problems.append(message.id)
    assert problems == []


def test_footer_says_whether_grading_is_isolated(client, monkeypatch):
    """The app fixture grades with the local sandbox; with its jail off it isolates nothing: the footer says so."""
    monkeypatch.setenv("GRADER_JAIL", "0")
    english = client.get("/").get_data(as_text=True)
    assert "without isolation (development mode)" in english
    assert "isolated sandbox" not in english
    client.set_cookie("lang", "ja")
    assert "隔離せずに採点" in client.get("/").get_data(as_text=True)


def _ids(catalog_path: Path) -> set[str]:
    with catalog_path.open("rb") as handle:
        return {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(handle) if m.id}


def test_the_catalogs_hold_exactly_the_strings_the_app_uses():
    """messages.pot and the ja catalog are what `pybabel extract` (app/babel.cfg) finds today: the
    template once lagged 160 strings behind, and strings only a removed script used stayed."""
    with (REPO / "app" / "babel.cfg").open(encoding="utf-8") as handle:
        method_map, options_map = parse_mapping_cfg(handle)
    used = {message if isinstance(message, str) else message[0]
            for _file, _line, message, _comments, _context in extract_from_dir(
                str(REPO / "app"), method_map, options_map, keywords={**DEFAULT_KEYWORDS, "_l": None})}
    assert _ids(POT) == used, "run the pybabel extract and update of app/babel.cfg"
    assert _ids(PO) == used, "run the pybabel update of app/translations/ja/LC_MESSAGES/messages.po"
