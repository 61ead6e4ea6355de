"""The WSGI entry point for gunicorn: `gunicorn -w 1 --threads 8 app.wsgi:app`."""

from app import create_app

app = create_app()
