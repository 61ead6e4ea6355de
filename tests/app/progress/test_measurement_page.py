"""The submission page shows where a measurement ran and its spread, and says plainly when a
check could not be verified on this grader; odd stored values never break the page."""

from __future__ import annotations

from app.extensions import db
from app.models import Submission
from tests.app.accounts_helpers import signed_in

TABLE = {"device": "cpu", "device_name": "CPU", "cpu_model": "AMD EPYC <b>9</b>", "cpu_capability": "AVX2",
         "cpu_flags": ["avx2"], "bf16_native": False, "threads": 1, "torch": "2.13.0+cpu", "batch_size": 128,
         "rows": [{"width": 64, "precision": "float32", "repeats": 9, "min_ms": 0.652, "median_ms": 0.841,
                   "max_ms": 13.1, "learner_ms": 1.70, "peak_mb": None},
                  {"width": 1024, "precision": "bfloat16", "repeats": 3, "min_ms": 745.0, "median_ms": 1087.5,
                   "max_ms": 1384.5, "learner_ms": 1360.9, "peak_mb": None}]}
SYNC = {"name": "test_cuda_synchronize", "check": "cuda-synchronize", "title": "On CUDA the clock waits",
        "status": "skip", "message": "This grader has no GPU.", "points": 0, "max_points": 0,
        "given": False, "unverifiable": True}


def _stored(app, email: str, result: dict) -> str:
    client = signed_in(app, email)
    with client.session_transaction() as session:
        user = int(session["_user_id"].split(":")[0])
    from app.models import User

    with app.app_context():
        learner = db.session.get(User, user).learner_key
        sub = Submission(exercise_id="add-numbers", learner=learner, code="x = 1\n", status="done",
                         result=result)
        db.session.add(sub)
        db.session.commit()
        sub_id = sub.id
        db.session.remove()
    return client, sub_id


def test_the_machine_the_spread_and_an_unverifiable_check_are_shown(app):
    client, sub_id = _stored(app, "spread@example.org", {
        "version": 1, "status": "pass", "score": 1.0, "tests": [SYNC], "measurement": TABLE})
    page = client.get(f"/submissions/{sub_id}").get_data(as_text=True)
    assert "data-measurement" in page and "Where this was measured" in page
    assert "AMD EPYC &lt;b&gt;9&lt;/b&gt;" in page  # a text is escaped, never markup
    assert "bfloat16 emulated" in page and "threads 1" in page and "torch 2.13.0+cpu" in page
    for figure in ("0.652", "0.841", "13.1", "1.7", "745", "1.09e+03", "1.38e+03", "1.36e+03"):
        assert f"<td>{figure}</td>" in page, figure
    assert "not verifiable here" in page and 'class="test skip unverifiable"' in page
    client.get("/lang/ja?next=/")
    page = client.get(f"/submissions/{sub_id}").get_data(as_text=True)
    assert "計測した環境" in page and "ここでは確かめられません" in page


def test_odd_stored_values_render_as_dashes_or_not_at_all(app):
    odd = dict(TABLE, rows=[dict(TABLE["rows"][0], min_ms="fast", learner_ms=None), "row"])
    client, sub_id = _stored(app, "odd@example.org", {
        "version": 1, "status": "fail", "score": 0.5, "tests": [], "measurement": odd})
    page = client.get(f"/submissions/{sub_id}").get_data(as_text=True)
    assert "<td>–</td>" in page and "fast" not in page
    client, sub_id = _stored(app, "odd2@example.org", {
        "version": 1, "status": "fail", "score": 0.5, "tests": [], "measurement": "a string"})
    response = client.get(f"/submissions/{sub_id}")
    assert response.status_code == 200 and "data-measurement" not in response.get_data(as_text=True)
