"""In Chromium at 390 and 1280 px, en and ja: a broken exercise listed as unavailable, its page's
reason, and the validation page's 'unavailable to learners' and 'changed since last check' states."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from app import create_app
from app.extensions import db
from app.models import ExerciseValidation
from grader.validate import FolderReport
from tests.browser.layout_helpers import log_in, make_account, overflow

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parents[2]
BROKEN = "loop-module"  # lesson 2
CHANGED = "loop-dataset"
TEXTS = {
    "en": {"badge": "unavailable for now", "page": "This exercise is unavailable for now",
           "instructor": "unavailable to learners", "changed": "changed since last check, rechecking"},
    "ja": {"badge": "現在利用できません", "page": "この演習はいま利用できません",
           "instructor": "学習者には利用不可", "changed": "前回のチェック以降に変更あり、再チェック中"},
}


@pytest.fixture
def broken_course(tmp_path: Path) -> Iterator[tuple[object, str]]:
    """The repository's course with loop-module's tests importing a module that does not exist."""
    exercises = tmp_path / "exercises"
    shutil.copytree(REPO / "exercises", exercises, ignore=shutil.ignore_patterns("__pycache__"))
    tests = exercises / BROKEN / "tests" / "test_module.py"
    tests.write_text("import no_such_helper\n" + tests.read_text(encoding="utf-8"), encoding="utf-8")
    release = threading.Event()

    def slow_check(exercise, sandbox=None):  # the recheck stays under way while the pages are looked at
        release.wait(60)
        return FolderReport(exercise.id, True, [])

    app = create_app({"SECRET_KEY": "browser-test", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'b.db'}",
                      "GRADER_SANDBOX": "local", "EXERCISES_DIR": str(exercises), "VALIDATE_FUNCTION": slow_check})
    with app.app_context():
        db.create_all()
        # A verdict about other contents than loop-dataset holds now: stale.
        db.session.add(ExerciseValidation(exercise_id=CHANGED, state="done", ok=True, problems=[],
                                          fingerprint="0" * 64))
        db.session.commit()
        db.session.remove()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{server.server_port}"
    release.set()
    server.shutdown()
    thread.join(timeout=10)
    app.extensions["grading_queue"].shutdown(wait=True)
    app.extensions["grading_queue"].shutdown(wait=True)


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("width", [390, 1280])
def test_unavailable_exercise_and_validation_states(browser, broken_course, lang: str, width: int) -> None:
    app, url = broken_course
    texts = TEXTS[lang]
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    if lang == "ja":
        page.goto(url + "/lang/ja?next=/")
    page.goto(url + "/lessons/02-training-loop/")
    item = page.locator(f'li[data-exercise="{BROKEN}"]')
    assert item.get_attribute("data-unavailable") == "true"
    assert texts["badge"] in item.text_content() and item.locator("a").count() == 0
    assert item.locator(".verdict-badge").is_visible()
    assert page.locator('li[data-exercise="loop-dataset"] a').count() == 1  # the others stay open
    assert overflow(page) == 0

    response = page.goto(f"{url}/exercises/{BROKEN}")
    assert response is not None and response.status == 503
    assert texts["page"] in page.locator("main").text_content()
    assert overflow(page) == 0

    email = f"teach-{lang}-{width}@example.org"
    make_account(app, email, role="instructor")
    log_in(page, url, email)
    page.goto(url + "/instructor/validation")
    broken = page.locator(f'tr[data-exercise="{BROKEN}"]')
    assert broken.get_attribute("data-unavailable") == "true"
    assert texts["instructor"] in broken.text_content()
    assert "tests/test_module.py:1: ModuleNotFoundError: No module named 'no_such_helper'" in broken.text_content()
    changed = page.locator(f'tr[data-exercise="{CHANGED}"]')
    assert changed.get_attribute("data-changed") == "true" and texts["changed"] in changed.text_content()
    assert page.locator(f'tr[data-exercise="{BROKEN}"] .verdict-badge').is_visible()
    assert overflow(page) == 0
    assert errors == []
    page.close()
