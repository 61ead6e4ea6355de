"""Password hashing with werkzeug's scrypt, a constant-cost check, and the minimum password rule."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash
from zxcvbn import zxcvbn

# scrypt is memory-hard (n=2**15, r=8: 32 MiB per hash), so guessing on GPUs is expensive,
# and werkzeug ships it: no native extension to build, unlike argon2-cffi.
METHOD = "scrypt"
MIN_LENGTH = 8
MAX_LENGTH = 256  # a bound on the work one login request can ask of the server
COMMON_FILE = Path(__file__).with_name("common_passwords.txt")
# zxcvbn's score: 3 is "safely unguessable" against an online attack and slows an offline one
# (its 30,000-word frequency lists and keyboard patterns refuse "qwerty123456", "trustno1!").
MIN_STRENGTH = 3
# zxcvbn's work grows with the length; its own docs advise estimating a prefix of long ones.
STRENGTH_PREFIX = 100


def hash_password(password: str) -> str:
    return generate_password_hash(password, method=METHOD)


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return generate_password_hash("not a real password", method=METHOD)


@lru_cache(maxsize=1)
def common_passwords() -> frozenset[str]:
    lines = COMMON_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


# A name shorter than this is too common a string to refuse on ("al", "ai" are inside words);
# zxcvbn still sees it as a hint. Fewer other letters than this are "little more" than the name.
EMAIL_NAME_MIN = 4
OTHER_LETTERS_MIN = 4


def email_name(email: str) -> str:
    """The letters of an email's local part before any +tag: "Mary.Jones+ml@x" -> "maryjones"."""
    local = email.lower().split("@", 1)[0].split("+", 1)[0]
    return re.sub(r"[^a-z]", "", local)


def is_little_more_than_the_email(password: str, email: str) -> bool:
    """The whole address, or its name with fewer than 4 other letters ("newbie2026!",
    "Mary_Jones-1990"): an attacker who knows the address tries these first. A passphrase
    that merely holds the name ("Newbie-pass-2026") is not refused here (docs/security.md,
    "Minimum password rule"): refusing it once told a learner their password "contains your
    email address" when it did not."""
    lowered, address = password.lower(), email.lower().strip()
    if address and address in lowered:
        return True
    name = email_name(email)
    if len(name) < EMAIL_NAME_MIN:
        return False
    letters = re.sub(r"[^a-z]", "", lowered)
    return name in letters and len(letters.replace(name, "")) < OTHER_LETTERS_MIN


def password_problem(password: str, email: str = "") -> str | None:
    """Why this password is refused ("length", "common", "email", "weak"), or None when fine."""
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        return "length"
    lowered = password.lower()
    # "Password2024!" is still "password": a suffix of digits and ! adds little to guess.
    stem = re.sub(r"[\d!]+$", "", lowered)
    common = common_passwords()
    if lowered in common or stem in common or len(set(lowered)) <= 2:
        return "common"
    if is_little_more_than_the_email(password, email):
        return "email"
    local = email.lower().split("@", 1)[0]
    # The name in the email is a hint: zxcvbn counts it as a word anyone would try first.
    hints = [local, "learn", "python", "ai", "course"] if local else ["learn", "python", "course"]
    if zxcvbn(password[:STRENGTH_PREFIX], user_inputs=hints)["score"] < MIN_STRENGTH:
        return "weak"
    return None


def verify(password_hash: str | None, password: str) -> bool:
    """True when the password matches; an unknown account costs the same time as a wrong one."""
    if password_hash is None:
        # Spend one hash anyway: a faster answer would tell which emails have accounts.
        check_password_hash(_dummy_hash(), password)
        return False
    return check_password_hash(password_hash, password)
