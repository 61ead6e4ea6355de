"""A class of 30 behind one address (TRUSTED_PROXIES=1) works with the default limits: logins
with typos, autosave, submissions, none refused; anonymous floods still meet the address limits."""

from __future__ import annotations

from limits import parse_many
from sqlalchemy import func, select
from werkzeug.security import generate_password_hash

from app.config import from_environment
from app.extensions import db
from app.models import Draft, Submission, User
from tests.app.accounts_helpers import GOOD, QUIZ_ID, URL, add_quiz, login

CLASSROOM = "203.0.113.5"  # the school's NAT address, as the proxy forwards it
PASSWORD = "a class pass phrase"
LEARNERS = 30
DRAFT = "/api/exercises/add-numbers/draft"


def from_classroom(app):
    client = app.test_client()
    client.environ_base["HTTP_X_FORWARDED_FOR"] = CLASSROOM
    return client


def make_class(app) -> list[str]:
    emails = [f"pupil{n:02d}@school.example" for n in range(LEARNERS)]
    with app.app_context():
        # A cheap hash keeps this test's CPU small; logins check it through the same code path.
        cheap = generate_password_hash(PASSWORD, method="pbkdf2:sha256:1000")
        db.session.add_all(User(email=email, password_hash=cheap) for email in emails)
        db.session.commit()
        db.session.remove()
    return emails


def test_a_class_behind_one_address_is_never_refused(make_app, content):
    add_quiz(content["exercises"])
    app = make_app(TRUSTED_PROXIES=1)  # every other limit at its default
    emails = make_class(app)
    pupils, refused = [], []
    for n, email in enumerate(emails):
        client = from_classroom(app)
        codes = [login(client, email, "a clas pass phrase").status_code for _ in range(3)]  # typos
        if n % 6 == 0:
            codes.append(login(client, email.replace("pupil", "pupl"), PASSWORD).status_code)  # no account
        codes.append(login(client, email, PASSWORD).status_code)
        assert codes[-1] == 302, (email, codes)
        refused += [code for code in codes if code == 429]
        pupils.append(client)
    # Autosave every 1.5 s for over a minute (45 saves each), a submission, the history, a quiz.
    for round_ in range(45):
        for n, client in enumerate(pupils):
            code = client.put(DRAFT, json={"code": f"# pupil {n}, save {round_}\n"}).status_code
            refused += [code] if code != 200 else []
    for client in pupils:
        for code in (client.post(URL, json={"code": GOOD}).status_code,
                     client.get("/exercises/add-numbers/history").status_code,
                     client.post(f"/api/quizzes/{QUIZ_ID}/answers",
                                 json={"answers": {"half": "fp16"}}).status_code):
            refused += [code] if code not in (200, 202) else []
    assert refused == []
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Draft)) == LEARNERS
        assert db.session.scalar(select(func.count()).select_from(Submission)) == LEARNERS


def test_the_default_limits_last_a_lesson_of_autosave_and_submissions():
    """Each window of each default per-learner limit holds an hour's lesson at full pace:
    a save every 1.5 s (40 a minute) and a submission every 2 minutes."""
    config = from_environment("/tmp")
    for setting, per_minute in (("DRAFT_RATE_LIMIT", 40), ("SUBMISSION_RATE_LIMIT", 0.5),
                                ("QUIZ_RATE_LIMIT", 2)):
        for item in parse_many(config[setting]):
            window_s = item.get_expiry()
            needed = per_minute * min(window_s, 3600) / 60
            assert item.amount >= needed, (setting, str(item))


def test_anonymous_floods_from_one_address_still_meet_its_limits(make_app):
    app = make_app(TRUSTED_PROXIES=1, DRAFT_ADDRESS_RATE_LIMIT="5/minute")
    flood = [from_classroom(app).put(DRAFT, json={"code": "x"}).status_code for _ in range(6)]
    assert flood == [200] * 5 + [429]
    # ... while a logged-in learner at the same address saves on (their own limit).
    make_class(app)
    pupil = from_classroom(app)
    assert login(pupil, "pupil00@school.example", PASSWORD).status_code == 302
    assert pupil.put(DRAFT, json={"code": "# mine"}).status_code == 200


def test_logins_from_one_address_meet_the_address_limit_whatever_the_email(make_app):
    app = make_app(TRUSTED_PROXIES=1, LOGIN_ADDRESS_RATE_LIMIT="3/minute")
    make_class(app)
    sprayer = from_classroom(app)
    codes = [login(sprayer, f"nobody{n}@school.example", "guess").status_code for n in range(3)]
    assert codes == [400, 400, 400]
    # Past the limit a known email answers as an unknown one: the limit tells no one which
    # emails have accounts, and costs no hash. The price: the class behind this address waits
    # for the window too (the default, 150 a minute, holds a class of 30 with 3 typos each).
    assert login(sprayer, "nobody9@school.example", "guess").status_code == 429
    assert login(from_classroom(app), "pupil01@school.example", PASSWORD).status_code == 429


def test_cookie_less_quiz_verdicts_share_one_budget_per_address(make_app, content):
    """The per-question verdicts of anonymous sessions come no faster than one learner's."""
    add_quiz(content["exercises"])
    app = make_app(TRUSTED_PROXIES=1, QUIZ_RATE_LIMIT="3/minute", QUIZ_ADDRESS_RATE_LIMIT="3/minute")
    url = f"/api/quizzes/{QUIZ_ID}/answers"
    codes = [from_classroom(app).post(url, json={"answers": {"half": "fp16"}}).status_code
             for _ in range(5)]  # a new anonymous session each time
    assert codes == [200, 200, 200, 429, 429]


def test_anonymous_work_of_an_address_is_bounded_per_hour_by_default(tmp_path):
    """Cookie-less submissions, Runs and hint reveals are stored without a quota until they expire:
    each has an hourly bound per address, not only a per-minute one (120 a minute was 470 MB an hour)."""
    config = from_environment(str(tmp_path))
    for setting in ("SUBMISSION_ADDRESS_RATE_LIMIT", "HINT_ADDRESS_RATE_LIMIT"):
        hourly = [item for item in parse_many(config[setting]) if item.get_expiry() >= 3600]
        assert hourly and all(item.amount <= 600 for item in hourly), (setting, config[setting])
