# The web app (gunicorn) and the grading worker (celery) image: same code, another command.
# Built by scripts/build-web-image.sh (make web-image): its build context holds the app,
# the grader package, the course content and a wheelhouse, because no registry is reachable.
#
# BASE_IMAGE: python:3.11-slim where a registry answers, else the debootstrap-made
# learnai-base:bookworm (scripts/make-debootstrap-base.sh). No torch here: learners' code
# runs in the sandbox image (grader/Dockerfile), the workers only drive Docker.
ARG BASE_IMAGE=python:3.11-slim

FROM ${BASE_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
# Binary wheels only, from the context: no index, and nothing is compiled from source.
COPY wheelhouse/ /tmp/wheelhouse/
COPY web-requirements.txt /tmp/web-requirements.txt
RUN set -eux; \
    python3 -m venv /opt/venv; \
    /opt/venv/bin/pip install --no-cache-dir --no-index --find-links /tmp/wheelhouse \
        -r /tmp/web-requirements.txt
COPY src/ /opt/learnai/
RUN set -eux; \
    /opt/venv/bin/pybabel -q compile -d /opt/learnai/app/translations; \
    /opt/venv/bin/python -m compileall -q /opt/learnai/app /opt/learnai/grader

FROM ${BASE_IMAGE}
ARG WEB_UID=10010
ENV LANG=C.UTF-8 \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/opt/learnai \
    FLASK_APP=app
# A user without a login shell; written into /etc/passwd directly (minimal bases lack useradd).
RUN set -eux; \
    echo "web:x:${WEB_UID}:${WEB_UID}:web:/opt/learnai/instance:/usr/sbin/nologin" >> /etc/passwd; \
    echo "web:x:${WEB_UID}:" >> /etc/group
COPY --from=build /opt/venv /opt/venv
COPY --from=build /opt/learnai /opt/learnai
# instance/ holds the secret key file (and SQLite when no DATABASE_URL is set): the only
# place the app writes. The final image must carry no compiler toolchain.
RUN set -eux; \
    mkdir -p /opt/learnai/instance; chown ${WEB_UID}:${WEB_UID} /opt/learnai/instance; \
    chmod 0700 /opt/learnai/instance; \
    for tool in gcc cc c++ make; do if command -v "$tool"; then echo "compiler $tool found" >&2; exit 1; fi; done; \
    python3 -c "import flask, celery, gunicorn"
WORKDIR /opt/learnai
USER web
EXPOSE 8000
# Migrations first (idempotent), then gunicorn. Workers: `celery -A app.celery_worker worker`.
CMD ["sh", "-c", "flask db upgrade && exec gunicorn --workers ${WEB_WORKERS:-2} --threads 8 --bind 0.0.0.0:8000 'app:create_app()'"]
