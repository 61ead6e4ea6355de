"""With Celery, the page footer says where learners' code runs: on the workers, as they report it."""

from __future__ import annotations

import pytest

from tests.celery.celery_stack import Learner

pytestmark = pytest.mark.slow

ISOLATED = "Your code is graded in an isolated sandbox."
NOT_ISOLATED = "This server grades code without isolation (development mode)."


def test_the_footer_tells_the_workers_sandbox_not_the_web_process_s(stack):
    web, workers = stack
    base = web.serve()  # the web process itself has only the local sandbox (GRADER_SANDBOX=local)
    learner = Learner(base)
    assert NOT_ISOLATED in learner.exchange("GET", "/")[1].decode()  # no worker has reported yet
    queue = web.app.extensions["grading_queue"]
    queue._isolation = (False, float("-inf"))  # forget the answer cached for ISOLATION_CACHE_S
    queue.report_isolation(True, 60)  # what a docker worker's sweep says every round
    page = learner.exchange("GET", "/")[1].decode()
    assert ISOLATED in page and NOT_ISOLATED not in page
