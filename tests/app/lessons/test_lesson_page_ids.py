"""Every lesson page, in English and Japanese: ids unique, every "#" link lands, title first."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from app.lessons.routes import lesson_page, table_of_contents

REPO = Path(__file__).resolve().parents[3]
LESSONS = sorted(p.name for p in (REPO / "lessons").iterdir() if (p / "en.md").is_file())
_ID = re.compile(r'\sid="([^"]+)"')
_HREF = re.compile(r'\shref="#([^"]*)"')


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory, compiled_translations: str) -> dict[tuple[str, str], str]:
    """Each real lesson page as served, in each language (one app for the module)."""
    from app import create_app
    from app.extensions import db

    folder = tmp_path_factory.mktemp("lesson-ids")
    app: Any = create_app({
        "TESTING": True, "SECRET_KEY": "test", "GRADER_SANDBOX": "local",
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder / 'test.db'}",
        "BABEL_TRANSLATION_DIRECTORIES": compiled_translations,
    })
    with app.app_context():
        db.create_all()
    found = {}
    for lang in ("en", "ja"):
        client = app.test_client()
        client.get(f"/lang/{lang}")
        for slug in LESSONS:
            response = client.get(f"/lessons/{slug}/")
            assert response.status_code == 200
            found[(slug, lang)] = response.get_data(as_text=True)
    app.extensions["grading_queue"].shutdown(wait=True)
    return found


CASES = [pytest.param(slug, lang, id=f"{slug}-{lang}") for slug in LESSONS for lang in ("en", "ja")]


@pytest.mark.parametrize("slug,lang", CASES)
def test_every_id_on_a_lesson_page_is_unique(pages, slug, lang):
    html = pages[(slug, lang)]
    assert f'lang="{lang}"' in html[:200]
    repeated = [name for name, count in Counter(_ID.findall(html)).items() if count > 1]
    assert repeated == []


@pytest.mark.parametrize("slug,lang", CASES)
def test_every_in_page_link_lands_and_the_toc_lists_each_section_once(pages, slug, lang):
    html = pages[(slug, lang)]
    ids = set(_ID.findall(html))
    assert [target for target in _HREF.findall(html) if target not in ids] == []
    wide = html[html.index('class="toc toc-wide"'):]
    wide = wide[:wide.index("</nav>")]
    targets = _HREF.findall(wide)
    assert len(targets) == len(set(targets))  # lesson 3 listed "Exercises" twice
    assert targets[-1] == "exercises"  # the exercise list, whichever heading introduces it


@pytest.mark.parametrize("slug,lang", CASES)
def test_the_title_comes_before_the_table_of_contents(pages, slug, lang):
    html = pages[(slug, lang)]
    assert html.count("<h1>") == 1
    assert html.index("<h1>") < html.index('class="toc toc-wide"') < html.index('class="toc toc-narrow"')


def test_lesson_page_renames_only_what_collides():
    body = ('<h1>T</h1>\n<h2 id="main">Main <a class="header-anchor" href="#main">#</a></h2>'
            '<h3 id="exercises">Exercises <a class="header-anchor" href="#exercises">#</a></h3>'
            '<h2 id="what-next">Why <a class="header-anchor" href="#what-next">#</a></h2>'
            '<h2 id="演習の内容">演習の内容 <a class="header-anchor" href="#演習の内容">#</a></h2>')
    page = lesson_page(body)
    assert page.title_html == "T" and "<h1>" not in page.body
    assert [e.anchor for e in page.toc] == ["main-section", "exercises-section", "what-next", "exercises"]
    assert page.own_heading is not None and page.own_heading.anchor == "exercises"
    assert [e.anchor for e in table_of_contents(page.body)] == [e.anchor for e in page.toc]
    assert 'href="#exercises-section"' in page.body and 'href="#演習の内容"' not in page.body


@pytest.mark.parametrize("lang,minutes", [("en", "(about %d minutes)"), ("ja", "（約 %d 分）")])
def test_a_lesson_in_parts_lists_its_sections_under_each_part_with_its_reading_time(pages, lang, minutes):
    """Lesson 3 declares three parts: the contents group its sections under them, each part with
    the minutes app/content/reading.py counts, and the exercises heading stays last."""
    from app.content.lessons import lesson_parts

    slug = "03-mixed-precision"
    parts = lesson_parts(_front_matter_parts(slug, lang), REPO / "lessons" / slug / f"{lang}.md")
    assert len(parts) == 3
    wide = pages[(slug, lang)]
    wide = wide[wide.index('class="toc toc-wide"'):]
    wide = wide[:wide.index("</nav>")]
    shown = re.findall(r'<span class="toc-part-title">([^<]+)</span> <span class="meta">([^<]+)</span>', wide)
    assert shown == [(part.title, minutes % part.minutes) for part in parts]
    h2 = [e.anchor for e in lesson_page(_rendered(slug, lang).html).toc if e.level == 2]
    assert _HREF.findall(wide) == [*(a for a in h2 if a != "exercises"), "exercises"]


def _rendered(slug: str, lang: str) -> Any:
    from app.content.markdown import render

    return render((REPO / "lessons" / slug / f"{lang}.md").read_text(encoding="utf-8"))


def _front_matter_parts(slug: str, lang: str) -> object:
    return _rendered(slug, lang).meta["parts"]
