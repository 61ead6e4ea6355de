"""End to end through the real grader: API, queue, grader.api.grade_code, local sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.loader import load_exercises
from tests.app.web_helpers import wait_for_done

EXERCISES = Path(__file__).resolve().parents[3] / "exercises"
EXERCISE = "amp-train-one-epoch"

pytestmark = pytest.mark.slow


@pytest.fixture
def real_client(make_app):
    exercise = load_exercises(EXERCISES).exercises.get(EXERCISE)
    if exercise is None:
        pytest.skip(f"exercises/{EXERCISE} is missing")
    app = make_app(GRADE_FUNCTION=None, EXERCISES_DIR=str(EXERCISES), GRADER_SANDBOX="local")
    return app.test_client(), exercise


def test_reference_solution_passes(real_client):
    client, exercise = real_client
    url = f"/api/exercises/{EXERCISE}/submissions"
    code = exercise.solution_path.read_text(encoding="utf-8")
    submission_id = client.post(url, json={"code": code}).get_json()["id"]
    result = wait_for_done(client, submission_id, timeout=240)["result"]
    assert result["version"] == 1 and result["exercise"] == EXERCISE
    assert result["status"] == "pass", result
    assert result["score"] == 1.0


def test_syntax_error_comes_back_with_its_line(real_client):
    client, _ = real_client
    code = "import torch\n\ndef train_one_epoch(model, loader:\n    pass\n"
    url = f"/api/exercises/{EXERCISE}/submissions"
    submission_id = client.post(url, json={"code": code, "lang": "ja"}).get_json()["id"]
    result = wait_for_done(client, submission_id, timeout=240)["result"]
    assert result["status"] == "error" and result["error_kind"] == "syntax"
    assert result["line"] == 3
    assert result["message"]
