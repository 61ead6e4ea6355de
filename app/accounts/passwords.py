"""Password hashing with werkzeug's scrypt, a constant-cost check, and the minimum password rule."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash

# scrypt is memory-hard (n=2**15, r=8: 32 MiB per hash), so guessing on GPUs is expensive,
# and werkzeug ships it: no native extension to build, unlike argon2-cffi.
METHOD = "scrypt"
MIN_LENGTH = 8
MAX_LENGTH = 256  # a bound on the work one login request can ask of the server
COMMON_FILE = Path(__file__).with_name("common_passwords.txt")


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
    """Why this password is refused ("length", "common", "email"), or None when it is fine."""
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        return "length"
    lowered = password.lower()
    # "Password2024!" is still "password": a suffix of digits and ! adds little to guess.
    stem = re.sub(r"[\d!]+$", "", lowered)
    common = common_passwords()
    if lowered in common or stem in common or len(set(lowered)) <= 2:
        return "common"
    local = email.lower().split("@", 1)[0]
    if local and (lowered == email.lower() or (len(local) >= 4 and local in lowered)):
        return "email"
    return None


def verify(password_hash: str | None, password: str) -> bool:
    """True when the password matches; an unknown account costs the same time as a wrong one."""
    if password_hash is None:
        # Spend one hash anyway: a faster answer would tell which emails have accounts.
        check_password_hash(_dummy_hash(), password)
        return False
    return check_password_hash(password_hash, password)
