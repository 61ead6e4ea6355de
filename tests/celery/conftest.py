"""A real redis-server, real `celery worker` processes and the web app served over HTTP.

Skipped, with the reason, where redis-server or celery is missing. Helpers: celery_stack.py.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.celery.celery_stack import Stack, Workers


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[Stack, Workers]]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    pytest.importorskip("celery", reason="celery is not installed (pip install 'celery[redis]')")
    built = Stack(tmp_path)
    built.redis.start()
    workers = Workers(built.env(), tmp_path)
    try:
        yield built, workers
    finally:
        workers.stop_all()
        if built.server is not None:
            built.server.shutdown()
        if built.app is not None:
            built.app.extensions["grading_queue"].shutdown()
        built.redis.kill()
