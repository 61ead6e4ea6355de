"""Creating and finding accounts; the one place that writes the users table."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.accounts.models import ROLES, User, normalize_email
from app.accounts.passwords import MAX_LENGTH, MIN_LENGTH, hash_password, verify
from app.extensions import db


class AccountError(ValueError):
    """An account that cannot be created: the email is taken, or the input is unusable."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason  # "email_taken" | "bad_email" | "bad_password" | "bad_role"


def find_by_email(email: str) -> User | None:
    found: User | None = db.session.scalar(select(User).where(User.email == normalize_email(email)))
    return found


def create_user(email: str, password: str, role: str = "learner") -> User:
    email = normalize_email(email)
    if "@" not in email or len(email) > 254:
        raise AccountError("bad_email")
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise AccountError("bad_password")
    if role not in ROLES:
        raise AccountError("bad_role")
    user = User(email=email, password_hash=hash_password(password), role=role)
    db.session.add(user)
    try:
        db.session.commit()
    except IntegrityError:  # two sign-ups with one email at the same moment
        db.session.rollback()
        raise AccountError("email_taken") from None
    return user


def authenticate(email: str, password: str) -> User | None:
    """The account when email and password match, else None (the caller cannot tell which)."""
    user = find_by_email(email)
    if not verify(user.password_hash if user else None, password):
        return None
    return user
