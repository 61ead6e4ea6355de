"""Every learner-controlled page at its largest possible input, against its bound.

    .venv/bin/python -m bench.pages [-n 5]

One learner fills their storage quota (LEARNER_STORAGE_QUOTA) with submissions of one
exercise at the code limit (MAX_CODE_BYTES), each with a results document at the validation
caps (50 tests with texts of 1000 characters, 4000 chart points), a draft of 64 KB, and a
second learner fills theirs with quiz attempts. Code is 32768 lines of "<" (the most lines and
the most escaping 64 KB can carry); the two newest submissions differ in every line of 2000
(the diff line cap) so the first entry's diff is searched and hits a cap. Prints each page's
size and its render time (median of n views, wall and this thread's CPU) against the bound in
app/progress/bounds.py, and exits 1 when a page is over.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

from app import create_app
from app.accounts.users import create_user
from app.extensions import db
from app.models import Draft, QuizAttempt, Submission
from app.progress import quota
from app.progress.bounds import PAGE_MAX_BYTES, PAGE_MAX_CPU_S
from grader.figures import MAX_DOCUMENT_POINTS, MAX_FIGURE_POINTS
from grader.results import MAX_TESTS, TEST_TEXTS, validate_document

ROOT = Path(__file__).resolve().parents[1]

EXERCISE, QUIZ = "loop-train-epoch", "quiz-training-loop"


def largest_code(variant: int) -> str:
    """64 KB: the newest two differ in their first 2000 lines, the rest is one "<" a line."""
    head = "".join(f"<{variant % 10}\n" for _ in range(2000))
    body = "<\n" * ((64 * 1024 - len(head)) // 2)
    return head + body


def largest_result() -> dict:
    """A results document at every validation cap (what the harness could at most write)."""
    text = {key: ("`<`" * cap)[:cap] for key, cap in TEST_TEXTS.items()}
    tests = [{**text, "status": "fail", "line": 1, "points": 0, "max_points": 1}
             for _ in range(MAX_TESTS)]
    per_figure = MAX_FIGURE_POINTS // 6
    figures = [{"id": f"f{i}", "title": "<" * 200, "x_label": "x", "y_label": "y", "note": "",
                "series": [{"name": f"s{j}", "points": [[k + 1, 1e29 / (k + 1)]
                                                        for k in range(per_figure)]}
                           for j in range(6)]}
               for i in range(MAX_DOCUMENT_POINTS // (per_figure * 6))]
    return validate_document({"version": 1, "exercise": EXERCISE, "status": "fail", "score": 0.0,
                              "error_kind": None, "message": "`<`" * 1333, "tests": tests,
                              "advice": [], "output": "", "duration_s": 1.0, "figures": figures})


def build(folder: Path):
    app = create_app({"TESTING": True, "SECRET_KEY": "bench", "GRADER_RECOVER_ON_START": False,
                      "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder / 'pages.db'}",
                      "GRADER_SANDBOX": "local", "WTF_CSRF_ENABLED": False})
    result = largest_result()
    with app.app_context():
        db.create_all()
        coder = create_user("coder@example.org", "a long timing pass phrase")
        quizzer = create_user("quizzer@example.org", "another long pass phrase")
        limit = app.config["LEARNER_STORAGE_QUOTA"]
        db.session.add(Draft(learner=coder.learner_key, exercise_id=EXERCISE, code=largest_code(7)))
        count = 0
        while quota.used_bytes(coder.learner_key) + 64 * 1024 + quota.SUBMISSION_OVERHEAD <= limit:
            db.session.add(Submission(exercise_id=EXERCISE, learner=coder.learner_key,
                                      code=largest_code(count), status="done", result=result))
            db.session.commit()  # one by one: created_at orders them
            count += 1
        attempts = 0
        while quota.used_bytes(quizzer.learner_key) + quota.ATTEMPT_BYTES <= limit:
            db.session.add_all(QuizAttempt(exercise_id=QUIZ, learner=quizzer.learner_key, answers={},
                                           result={"status": "fail", "score": 0.0, "tests": []},
                                           score=0.0) for _ in range(500))
            db.session.commit()
            attempts += 500
        ids = [s.id for s in db.session.scalars(
            db.select(Submission).order_by(Submission.created_at.desc()))]
        users = (coder.id, quizzer.id)
        db.session.remove()
    clients = []
    for user_id in users:
        client = app.test_client()
        with client.session_transaction() as session:
            session["_user_id"] = f"{user_id}:0"
            session["_fresh"] = True
        clients.append(client)
    return clients, ids, count, attempts


def timed(client, url: str) -> tuple[float, float, int]:
    wall, cpu = time.perf_counter(), time.thread_time()
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return (time.perf_counter() - wall, time.thread_time() - cpu, len(response.get_data()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5, help="views per page (the median is shown)")
    parser.add_argument("--profile", metavar="PAGE", help="print where one view of PAGE spends its time "
                        "(cProfile, the 25 costliest functions by their own time) and stop")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        (coder, quizzer), ids, count, attempts = build(Path(folder))
        print(f"stored in {time.perf_counter() - start:.0f} s: {count} submissions of 64 KB "
              f"(+ a 64 KB draft) for one learner, {attempts} quiz attempts for another "
              f"(the quota each)")
        pages = {
            "history": (coder, f"/exercises/{EXERCISE}/history"),
            "history-older": (coder, f"/exercises/{EXERCISE}/history?before={ids[len(ids) // 2]}"),
            "entry-fragment": (coder, f"/submissions/{ids[0]}/code"),
            "submission": (coder, f"/submissions/{ids[0]}"),
            "exercise": (coder, f"/exercises/{EXERCISE}"),
            "dashboard": (coder, "/progress"),
            "api-history": (coder, f"/api/exercises/{EXERCISE}/history"),
            "quiz": (quizzer, f"/quizzes/{QUIZ}"),
        }
        if args.profile:
            client, url = pages[args.profile]
            client.get(url)  # the first view's one-time costs (templates compiled) apart
            profiler = cProfile.Profile()
            profiler.runcall(client.get, url)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
            return 0
        over = 0
        print(f"{'page':<16}{'bytes':>12}{'bound':>12}{'first cpu':>11}{'wall med':>10}"
              f"{'cpu med':>9}{'cpu bound':>10}")
        for name, (client, url) in pages.items():
            first = timed(client, url)
            runs = [timed(client, url) for _ in range(args.n)]
            size = max(r[2] for r in [first, *runs])
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            ok = size <= PAGE_MAX_BYTES[name] and max(first[1], cpu) <= PAGE_MAX_CPU_S
            over += not ok
            print(f"{name:<16}{size:>12,}{PAGE_MAX_BYTES[name]:>12,}{first[1] * 1000:>9.0f}ms"
                  f"{wall * 1000:>8.0f}ms{cpu * 1000:>7.0f}ms{PAGE_MAX_CPU_S * 1000:>8.0f}ms"
                  f"{'' if ok else '  OVER'}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
