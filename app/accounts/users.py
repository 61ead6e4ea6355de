"""Creating and finding accounts, changing passwords, ending sessions: all writes to users."""

from __future__ import annotations

from sqlalchemy import or_, select
from sqlalchemy.exc import IntegrityError

from app.accounts.emails import email_is_clean, normalize_email
from app.accounts.lookalikes import email_problem, skeleton
from app.accounts.passwords import hash_password, password_problem, verify
from app.extensions import db
from app.models import ROLES, User


class AccountError(ValueError):
    """An account that cannot be created: the email is taken, or the input is unusable."""

    def __init__(self, reason: str):
        super().__init__(reason)
        # "email_taken" | "bad_email" | "bad_password" | "common_password" | "password_is_email"
        # | "weak_password" | "mixed_script_email" | "bad_role" | "wrong_password"
        self.reason = reason


PASSWORD_REASONS = {"length": "bad_password", "common": "common_password",
                    "email": "password_is_email", "weak": "weak_password"}


def find_by_email(email: str) -> User | None:
    email = normalize_email(email)
    if not email_is_clean(email) or len(email) > 254:
        return None  # no account has such an email, and PostgreSQL refuses NUL in a query
    # The same email, or one that looks the same (Cyrillic "асе" for "ace"): the oldest account.
    found: User | None = db.session.scalar(
        select(User).where(or_(User.email == email, User.email_skeleton == skeleton(email)))
        .order_by((User.email == email).desc(), User.id).limit(1))
    return found


def check_new_password(password: str, email: str) -> None:
    problem = password_problem(password, email)
    if problem:
        raise AccountError(PASSWORD_REASONS[problem])


def create_user(email: str, password: str, role: str = "learner") -> User:
    email = normalize_email(email)
    local, _at, domain = email.partition("@")
    if not local or "." not in domain or len(email) > 254:
        raise AccountError("bad_email")
    if not email_is_clean(email):
        raise AccountError("mixed_script_email" if email_problem(email) == "mixed_script"
                           else "bad_email")
    check_new_password(password, email)
    if role not in ROLES:
        raise AccountError("bad_role")
    if find_by_email(email) is not None:
        raise AccountError("email_taken")
    user = User(email=email, email_skeleton=skeleton(email), password_hash=hash_password(password),
                role=role)
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


def end_sessions(user: User) -> None:
    """Every session cookie issued for this account so far stops working, on every device."""
    user.session_version = (user.session_version or 0) + 1
    db.session.commit()


def change_password(user: User, current: str, new: str) -> None:
    """Set a new password when the current one is right; every other session ends."""
    if not verify(user.password_hash, current):
        raise AccountError("wrong_password")
    check_new_password(new, user.email)
    user.password_hash = hash_password(new)
    end_sessions(user)
