"""Configuration read from the environment, with defaults that work on one machine."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grader.api import default_workers

REPO_ROOT = Path(__file__).resolve().parent.parent
SECRET_FILE = "secret_key"  # noqa: S105 -- a file name, not a secret
MAX_CODE_BYTES = 64 * 1024
# A JSON body may escape every character of 64 KB of code as \uXXXX (6 bytes each);
# bodies above this are refused by werkzeug before they are read.
MAX_CONTENT_LENGTH = 8 * MAX_CODE_BYTES


def from_environment(instance_path: str) -> dict[str, Any]:
    """The settings taken from environment variables, each with a safe default."""
    env = os.environ
    db_default = f"sqlite:///{Path(instance_path) / 'platform.db'}"
    return {
        "SECRET_KEY": env.get("SECRET_KEY") or None,
        "SQLALCHEMY_DATABASE_URI": database_url(env.get("DATABASE_URL")) or db_default,
        "EXERCISES_DIR": env.get("EXERCISES_DIR") or str(REPO_ROOT / "exercises"),
        "LESSONS_DIR": env.get("LESSONS_DIR") or str(REPO_ROOT / "lessons"),
        "GRADER_SANDBOX": env.get("GRADER_SANDBOX") or "auto",
        # Unset: one grading thread per core (grader.capacity; docs/grading.md, "Capacity").
        "GRADER_WORKERS": int(env.get("GRADER_WORKERS") or default_workers()),
        # Recovery re-enqueues work left by a stopped server; off for one-shot CLI use.
        "GRADER_RECOVER_ON_START": env.get("GRADER_RECOVER_ON_START", "1") != "0",
        "MAX_CODE_BYTES": MAX_CODE_BYTES,
        "MAX_CONTENT_LENGTH": MAX_CONTENT_LENGTH,
        "LANGUAGES": ("en", "ja"),
        "BABEL_DEFAULT_LOCALE": "en",
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        # Cookies are Secure on every request that came over HTTPS (app.security); "1" makes
        # them Secure always, even on a plain-HTTP request.
        "SESSION_COOKIE_SECURE": env.get("SESSION_COOKIE_SECURE") == "1",
        # How many reverse proxies in front of the app set X-Forwarded-For/-Proto/-Host. 0: none,
        # the headers are ignored (a client could forge its address to dodge the limits).
        "TRUSTED_PROXIES": _count(env.get("TRUSTED_PROXIES"), "TRUSTED_PROXIES"),
        # Strict-Transport-Security on HTTPS responses; 0 turns it off.
        "HSTS_MAX_AGE": _count(env.get("HSTS_MAX_AGE") or "31536000", "HSTS_MAX_AGE"),
        # A diff is shown only when both sides have at most this many lines and it is found
        # within this many seconds; the page says "too large" otherwise (app.progress.diff).
        "DIFF_MAX_LINES": _count(env.get("DIFF_MAX_LINES") or "2000", "DIFF_MAX_LINES"),
        "DIFF_MAX_SECONDS": float(env.get("DIFF_MAX_SECONDS") or 0.05),
        # ... and when it has at most this many rows (rendering rows is the page's main cost).
        "DIFF_MAX_ROWS": _count(env.get("DIFF_MAX_ROWS") or "1000", "DIFF_MAX_ROWS"),
        # Limits are counted in memory per process; set redis://... when running several.
        "RATELIMIT_STORAGE_URI": env.get("RATELIMIT_STORAGE_URI") or "memory://",
        # Flask-Limiter's own switch: "false" turns every rate limit off (a private install).
        "RATELIMIT_ENABLED": (env.get("RATELIMIT_ENABLED") or "true").strip().lower()
        not in ("0", "false", "no", "off"),
        "SUBMISSION_RATE_LIMIT": env.get("SUBMISSION_RATE_LIMIT") or "10/minute",
        # Per address, above the per-learner limit: a classroom shares one address.
        # Anonymous sessions only, all of one address together, for submissions and (apart)
        # Runs: an hour's bound too, since cookie-less work is stored (until it expires,
        # ANONYMOUS_RETENTION_HOURS) without any quota.
        "SUBMISSION_ADDRESS_RATE_LIMIT": env.get("SUBMISSION_ADDRESS_RATE_LIMIT") or "120/minute;600/hour",
        # Every Run from one address, logged in or not (each costs a sandbox).
        "RUN_ADDRESS_RATE_LIMIT": env.get("RUN_ADDRESS_RATE_LIMIT") or "120/minute",
        # Hint reveals (each stores a row the instructor's counts read): per learner, and per
        # address for all anonymous sessions together.
        "HINT_RATE_LIMIT": env.get("HINT_RATE_LIMIT") or "30/minute",
        # The pages that show a learner's stored code (history, a submission, its fragment),
        # per learner: the history at the storage quota is 1.6 MB of HTML to render.
        "HISTORY_RATE_LIMIT": env.get("HISTORY_RATE_LIMIT") or "40/minute",
        "HINT_ADDRESS_RATE_LIMIT": env.get("HINT_ADDRESS_RATE_LIMIT") or "30/minute;120/hour",
        # Failed logins per address and email (a classroom shares an address; an attacker
        # elsewhere cannot use this one up), then every login per address, longer.
        "LOGIN_RATE_LIMIT": env.get("LOGIN_RATE_LIMIT") or "5/minute",
        # ... every login per address, to any email, known or not (each costs one password
        # hash; counting only unknown emails told which emails have accounts). A class of 30
        # behind one address logs in with 3 typos each inside one minute (125 logins).
        "LOGIN_ADDRESS_RATE_LIMIT": env.get("LOGIN_ADDRESS_RATE_LIMIT") or "150/minute;600/hour",
        # A class of 30 signs up at the start of its first lesson, from one address.
        "REGISTER_RATE_LIMIT": env.get("REGISTER_RATE_LIMIT") or "40/minute;120/hour",
        "PASSWORD_CHANGE_RATE_LIMIT": env.get("PASSWORD_CHANGE_RATE_LIMIT") or "5/minute",
        # The editor saves a draft at most once per 1.5 s pause (40/minute in one tab).
        "DRAFT_RATE_LIMIT": env.get("DRAFT_RATE_LIMIT") or "60/minute",
        # Address limits count anonymous sessions only (logged-in learners have their own):
        # a few anonymous learners autosaving, not a new session per request for ever.
        "DRAFT_ADDRESS_RATE_LIMIT": env.get("DRAFT_ADDRESS_RATE_LIMIT") or "120/minute;1200/hour",
        "QUIZ_RATE_LIMIT": env.get("QUIZ_RATE_LIMIT") or "20/minute",
        # All anonymous sessions of an address answer quizzes like one learner.
        "QUIZ_ADDRESS_RATE_LIMIT": env.get("QUIZ_ADDRESS_RATE_LIMIT") or "20/minute;200/hour",
        # Drafts and quiz attempts of anonymous sessions untouched this long are deleted
        # (app.progress.expiry), at write time and by `flask expire-anonymous`.
        "ANONYMOUS_RETENTION_HOURS": float(env.get("ANONYMOUS_RETENTION_HOURS") or 24),
        # Bytes one learner may store: code of submissions and drafts, quiz attempts
        # (app.progress.quota). 16 MB: about 240 submissions at the 64 KB code limit.
        "LEARNER_STORAGE_QUOTA": _count(env.get("LEARNER_STORAGE_QUOTA") or str(16 * 1000 * 1000),
                                        "LEARNER_STORAGE_QUOTA"),
        **grading_queue_settings(env),
    }


def grading_queue_settings(env: Mapping[str, str]) -> dict[str, Any]:
    """Distributed grading (docs/scaling.md): Celery workers when a broker is set, and fairness caps."""
    return {
        # Unset: grading runs in the web process (the embedded default, no Redis needed).
        "CELERY_BROKER_URL": env.get("CELERY_BROKER_URL") or None,
        # gpu = "optional" exercises go to the GPU hosts' queue too when this is 1.
        "GRADING_GPU_OPTIONAL": env.get("GRADING_GPU_OPTIONAL") == "1",
        # Queued + running jobs one learner may have; more is refused with 429 (not rate-counted).
        "GRADING_MAX_PENDING_PER_LEARNER": int(env.get("GRADING_MAX_PENDING_PER_LEARNER") or 2),
        # The same for all anonymous sessions of one client address together (cookies are free).
        "GRADING_MAX_PENDING_PER_ANON_ADDRESS": int(env.get("GRADING_MAX_PENDING_PER_ANON_ADDRESS") or 10),
        # Gradings one fairness key (an account, or all anonymous sessions of one address) may
        # have running at once, checked where a job is claimed. 0: one less than the grading
        # threads (GRADER_WORKERS - 1, at least 1), so a flood of endless submissions always
        # leaves a thread for everyone else. With Celery, set it on every worker below the
        # total concurrency of the queue's workers (docs/scaling.md, "Running cap").
        "GRADING_MAX_RUNNING_PER_KEY": _count(env.get("GRADING_MAX_RUNNING_PER_KEY"),
                                              "GRADING_MAX_RUNNING_PER_KEY"),
        # A running job whose heartbeat is older than this lost its worker and is graded again.
        "GRADING_HEARTBEAT_S": float(env.get("GRADING_HEARTBEAT_S") or 5),
        "GRADING_STALE_AFTER_S": float(env.get("GRADING_STALE_AFTER_S") or 60),
        "GRADING_SWEEP_S": float(env.get("GRADING_SWEEP_S") or 15),
        # A job whose grading process or host was lost this many times ends with a message.
        "GRADING_MAX_ATTEMPTS": int(env.get("GRADING_MAX_ATTEMPTS") or 3),
        # How long a worker keeps a finished result while the database is unreachable.
        "GRADING_STORE_RETRY_S": float(env.get("GRADING_STORE_RETRY_S") or 300),
        # Longer than the longest grading (120 s limit + 300 s GPU wait + container start).
        "GRADING_VISIBILITY_TIMEOUT_S": int(env.get("GRADING_VISIBILITY_TIMEOUT_S") or 3600),
        # Runs (the Run button) are jobs in a lane of their own (app.grading.runs): threads in the
        # web process without Celery, a `-Q runs` worker with it.
        "RUN_WORKERS": int(env.get("RUN_WORKERS") or 2),
        # Queued + running Runs: per learner, per address for all anonymous sessions, in all.
        "RUN_MAX_PENDING_PER_LEARNER": int(env.get("RUN_MAX_PENDING_PER_LEARNER") or 1),
        "RUN_MAX_PENDING_PER_ANON_ADDRESS": int(env.get("RUN_MAX_PENDING_PER_ANON_ADDRESS") or 1),
        "RUN_MAX_PENDING": int(env.get("RUN_MAX_PENDING") or 60),
        # Runs one key may have running at once, with the person and anonymous shares of
        # app.grading.running_cap. 0: one less than RUN_WORKERS (at least 1).
        "RUN_MAX_RUNNING_PER_KEY": _count(env.get("RUN_MAX_RUNNING_PER_KEY"), "RUN_MAX_RUNNING_PER_KEY"),
        # How often a running Run looks for its Stop (seconds), and how long ended Runs are kept.
        "RUN_WATCH_S": float(env.get("RUN_WATCH_S") or 0.5),
        "RUN_KEEP_S": float(env.get("RUN_KEEP_S") or 3600),
        # Folder checks and regrades are the background lane's (app.grading.checks, .regrade):
        # BACKGROUND_WORKERS threads in the web process without Celery (`-Q background` workers
        # with it), never a grading thread, at the sandbox's background priority. A new or
        # changed folder is checked as soon as the sweep sees it (0: only when asked), and at
        # most CHECK_MAX_RUNNING checks run at once.
        "BACKGROUND_WORKERS": int(env.get("BACKGROUND_WORKERS") or 1),
        "CHECK_SEEN_FOLDERS": env.get("CHECK_SEEN_FOLDERS", "1") != "0",
        "CHECK_MAX_RUNNING": int(env.get("CHECK_MAX_RUNNING") or 1),
    }


def _count(value: str | None, name: str) -> int:
    """A non-negative whole number from the environment; a clear error at start otherwise."""
    if not value:
        return 0
    if not value.strip().isdigit():
        raise ValueError(f"{name} must be a whole number of 0 or more, not {value!r}")
    return int(value)


def database_url(url: str | None) -> str | None:
    """DATABASE_URL as SQLAlchemy wants it: postgres:// and postgresql:// use psycopg 3."""
    if not url:
        return None
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def instance_secret(instance_path: str) -> str:
    """A secret key kept in the instance folder, created once, readable by its owner only."""
    path = Path(instance_path) / SECRET_FILE
    if path.is_file():
        return path.read_text(encoding="utf-8").strip()
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(key)
    return key


def fix_engine_options(config: dict[str, Any]) -> None:
    """Connections checked before use; SQLite waits for a lock instead of failing at once."""
    uri = str(config.get("SQLALCHEMY_DATABASE_URI", ""))
    options = config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", {})
    # After a database restart every pooled connection is dead: test each before a request
    # uses it, rather than answering that request with an error.
    options.setdefault("pool_pre_ping", True)
    if uri.startswith("sqlite"):
        options.setdefault("connect_args", {}).setdefault("timeout", 15)
    elif uri.startswith("postgresql"):
        # A database host that does not answer fails a request in seconds, not minutes.
        options.setdefault("connect_args", {}).setdefault("connect_timeout", 5)
