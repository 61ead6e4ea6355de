"""Password hashing with werkzeug's scrypt, and a constant-cost check for unknown emails."""

from __future__ import annotations

from functools import lru_cache

from werkzeug.security import check_password_hash, generate_password_hash

# scrypt is memory-hard (n=2**15, r=8: 32 MiB per hash), so guessing on GPUs is expensive,
# and werkzeug ships it: no native extension to build, unlike argon2-cffi.
METHOD = "scrypt"
MIN_LENGTH = 8
MAX_LENGTH = 256  # a bound on the work one login request can ask of the server


def hash_password(password: str) -> str:
    return generate_password_hash(password, method=METHOD)


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return generate_password_hash("not a real password", method=METHOD)


def verify(password_hash: str | None, password: str) -> bool:
    """True when the password matches; an unknown account costs the same time as a wrong one."""
    if password_hash is None:
        # Spend one hash anyway: a faster answer would tell which emails have accounts.
        check_password_hash(_dummy_hash(), password)
        return False
    return check_password_hash(password_hash, password)
