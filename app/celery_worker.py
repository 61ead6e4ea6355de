"""The Celery worker's entry point: `celery -A app.celery_worker worker -Q cpu` (GPU: -Q gpu; Runs: -Q runs).

It sits beside app/wsgi.py, above the app factory: app.grading (the tasks, app.grading.celery_app)
is below the factory, so the factory is handed down to it here rather than imported from there.
"""

from app import create_app
from app.grading.celery_app import build_flask_with, celery

build_flask_with(create_app)

__all__ = ["celery"]
