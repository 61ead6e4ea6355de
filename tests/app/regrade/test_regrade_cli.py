"""`flask regrade EXERCISE [--all]`: the operator's entry point, refusals with their reason, progress printed."""

from __future__ import annotations

from app.extensions import db
from app.models import Regrade, Submission
from tests.app.regrade.regrade_helpers import EXERCISE, GOOD, WRONG, mark_validated, old_result, store_submissions


def test_flask_regrade_grades_them_and_says_how_far_it_got(make_app):
    app = make_app(GRADER_WORKERS=1)
    ids = store_submissions(app, [("a", WRONG, old_result(False, 0.0)), ("a", GOOD, old_result(False, 0.6)),
                                  ("b", GOOD, old_result(False, 0.6))])
    runner = app.test_cli_runner()
    refused = runner.invoke(args=["regrade", EXERCISE])
    assert refused.exit_code == 1 and "has not passed its check as it is now" in refused.output
    assert runner.invoke(args=["regrade", "nope"]).exit_code == 1
    mark_validated(app)
    latest = runner.invoke(args=["regrade", EXERCISE])
    assert latest.exit_code == 0, latest.output
    assert "Regrading 2 submission(s) of add-numbers" in latest.output and "2/2 done" in latest.output
    every = runner.invoke(args=["regrade", EXERCISE, "--all"])
    assert every.exit_code == 0 and "3/3 done" in every.output
    with app.app_context():
        assert db.session.query(Regrade).count() == 5
        assert [db.session.get(Submission, i).result["status"] for i in ids] == ["fail", "pass", "pass"]
