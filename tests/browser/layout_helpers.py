"""Helpers for the layout tests: accounts, stored submissions and page checks in a real browser."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from app.accounts.users import create_user
from app.extensions import db
from app.models import Submission

PASSWORD = "correct horse battery"
DESKTOP = {"width": 1280, "height": 800}
MOBILE = {"width": 390, "height": 844}
CODE_EXERCISE = "tensors-broadcast"
QUIZ = "quiz-tensors"
LONG_CODE = "torch.nn.functional.scaled_dot_product_attention_with_a_very_long_name_indeed(query, key)"


def result_document(status: str = "fail") -> dict[str, Any]:
    """A results document like the grader's: a failing check, a skipped one, a long hint."""
    return {
        "version": 1, "exercise": CODE_EXERCISE, "status": status,
        "score": 0.25 if status == "fail" else 1.0, "points": 1, "max_points": 4,
        "message": "", "output": "", "line": None, "error_kind": None, "advice": [],
        "tests": [
            {"name": "test_shape", "check": "distances-shape", "status": status,
             "title": "pairwise_sq_distances returns shape (n, m)",
             "message": "Expected shape (3, 4), got (3, 4, 5)." if status == "fail" else "",
             "hint": f"Sum over the last axis: `{LONG_CODE}`.", "line": 12,
             "points": 0, "max_points": 1},
            {"name": "test_values", "check": "distances-values", "status": "skip",
             "title": "pairwise_sq_distances is right for every pair",
             "message": "depends on 'distances-shape'", "hint": "", "line": None,
             "points": 0, "max_points": 1},
        ],
    }


def make_account(app: Any, email: str, role: str = "learner") -> tuple[int, str]:
    with app.app_context():
        user = create_user(email, PASSWORD, role)
        found = (user.id, user.learner_key)
        db.session.remove()
        return found


def add_submission(app: Any, learner: str, *, status: str = "done", verdict: str = "fail",
                   minutes_ago: float = 1, code: str | None = None) -> str:
    """A stored submission of the code exercise; "done" ones carry a results document."""
    with app.app_context():
        sub = Submission(
            exercise_id=CODE_EXERCISE, learner=learner, lang="en", status=status,
            code=code or "import torch\n\n\ndef pairwise_sq_distances(a, b):\n    return a - b\n",
            result=result_document(verdict) if status == "done" else None,
            created_at=datetime.now(UTC) - timedelta(minutes=minutes_ago))
        db.session.add(sub)
        db.session.commit()
        found: str = sub.id
        db.session.remove()
        return found


def finish(app: Any, submission_id: str, verdict: str = "pass") -> None:
    """What a grader does when it is done: the row gets its result."""
    with app.app_context():
        sub = db.session.get(Submission, submission_id)
        sub.status, sub.result = "done", result_document(verdict)
        sub.finished_at = datetime.now(UTC)
        db.session.commit()
        db.session.remove()


def log_in(page: Any, base: str, email: str) -> None:
    page.goto(base + "/login")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", PASSWORD)
    page.click("form [type=submit]")
    page.wait_for_load_state()


def overflow(page: Any) -> int:
    """How many pixels the page is wider than the window (0 when nothing sticks out)."""
    return int(page.evaluate(
        "() => document.scrollingElement.scrollWidth - window.innerWidth"))


def open_editor(page: Any, base: str, exercise: str, lang: str) -> None:
    """The exercise's page in `lang` (the language is chosen first, as a learner does), editor ready."""
    if lang == "ja":
        page.goto(base + "/lang/ja?next=/")
    page.goto(f"{base}/exercises/{exercise}")
    page.wait_for_selector(".cm-editor .cm-content")
