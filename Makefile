# Two commands on a fresh machine: `make run` serves the platform, `make test` runs the whole suite.
# Everything else here is a step those two depend on.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
BUNDLE := app/static/dist/editor.js
HOST ?= 127.0.0.1
PORT ?= 5000
export FLASK_APP := app

.PHONY: run test setup venv bundle db lint validate sandbox-image web-image compose-images worker bench bench-docker bench-class bench-classroom bench-cost clean

run: setup ## serve on http://127.0.0.1:5000 with gunicorn
	$(VENV)/bin/gunicorn --workers 1 --threads 8 --bind $(HOST):$(PORT) 'app:create_app()'

test: setup ## the whole suite in parallel groups (docker, browser and postgres tests skip with a reason where absent)
	PY=$(PY) bash scripts/run-tests.sh

setup: venv bundle db

venv: $(STAMP)
# torch is installed first and pinned: these machines carry its CPU build; letting pip pick
# another version would pull a multi-GB CUDA build.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e '.[dev,postgres]'
	touch $(STAMP)

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

bundle: $(BUNDLE)
$(BUNDLE): node_modules/.package-lock.json $(wildcard app/static/src/*.js)
	npm run --silent build

db: venv
	if ls app/translations/*/LC_MESSAGES/messages.po >/dev/null 2>&1; then $(VENV)/bin/pybabel -q compile -d app/translations; fi
	$(VENV)/bin/flask db upgrade

lint: venv ## ruff, and the import layers of pyproject's [tool.importlinter] (function-level imports count)
	$(VENV)/bin/ruff check app grader tests bench exercises migrations scripts
	$(VENV)/bin/lint-imports --no-cache

validate: venv ## instructor check: every solution passes, every starter fails
	$(PY) -m grader validate exercises

# A grading worker for Celery (CELERY_BROKER_URL must be set for `make run` too, else the web
# process grades by itself). QUEUES=gpu,background-gpu on GPU hosts, QUEUES=runs for the Run
# button's lane, QUEUES=background for instructors' folder checks and regrades (run one such
# worker beside the grading ones: a check never holds a grading worker); CONCURRENCY parallel sandboxes.
QUEUES ?= cpu
CONCURRENCY ?= 1
worker: setup ## a Celery grading worker: CELERY_BROKER_URL=redis://localhost:6379/0 make worker
	@test -n "$$CELERY_BROKER_URL" || { echo "set CELERY_BROKER_URL (e.g. redis://localhost:6379/0)"; exit 1; }
	$(VENV)/bin/celery -A app.celery_worker worker -Q $(QUEUES) --concurrency $(CONCURRENCY) \
		--without-gossip --without-mingle --loglevel info

web-image: venv bundle ## the web/worker image for compose.yaml (no registry needed)
	bash scripts/build-web-image.sh

compose-images: ## Redis and PostgreSQL images for compose.yaml from Debian's packages (no registry needed)
	bash scripts/build-compose-images.sh

sandbox-image: venv ## the docker sandbox image (debootstrap base where no registry is reachable)
	bash scripts/build-sandbox-image.sh

bench: venv ## grading speed (local sandbox) over the AMP corpus
	$(PY) -m bench.grade_speed

bench-docker: venv ## what the docker sandbox adds per submission, against local, in one run
	$(PY) -m bench.docker_overhead

bench-class: venv ## a class at once: in-process vs 1 and 2 Celery workers (needs redis-server)
	$(PY) -m bench.class_load

MINUTES ?= 10
bench-classroom: setup ## 30 learners behind one address + 3 hostile clients against gunicorn (MINUTES=10)
	$(PY) -m bench.classroom --minutes $(MINUTES)

bench-cost: setup sandbox-image ## local against docker through make run's server, windows alternated (about 20 minutes)
	$(PY) -m bench.latency --mode cost --sandboxes local,docker

clean:
	rm -rf $(VENV) node_modules app/static/dist build *.egg-info
