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
    local = email.lower().split("@", 1)[0]
    # The email, or its name with little more ("newbie2026!"); a passphrase that also holds the
    # name ("Newbie-pass-2026") is judged by its strength below, the name given as a hint.
    rest = re.sub(r"[^a-z]", "", lowered.replace(local, "")) if local else lowered
    if local and (lowered == email.lower() or (len(local) >= 4 and local in lowered and len(rest) < 4)):
        return "email"
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
