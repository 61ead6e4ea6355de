"""Database model of an account: an email, a password hash, a role and a learner key."""

from __future__ import annotations

import unicodedata
import uuid
from datetime import datetime

from flask_login import UserMixin
from sqlalchemy import DateTime, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models import utcnow

ROLES = ("learner", "instructor")


def new_learner_key() -> str:
    # "u" + 32 random hex digits: never equal to an anonymous session key (32 hex digits),
    # so instructor pages can tell accounts from anonymous learners without a join.
    return "u" + uuid.uuid4().hex


class User(UserMixin, db.Model):  # type: ignore[name-defined,misc]
    """A person with an account; their work is stored under learner_key, like anonymous work."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    # The email as it looks (app.accounts.lookalikes.skeleton): a look-alike finds this account.
    email_skeleton: Mapped[str | None] = mapped_column(String(254), nullable=True, index=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16), default="learner")
    learner_key: Mapped[str] = mapped_column(String(64), unique=True, default=new_learner_key)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Part of the id kept in the session cookie: raising it (logout, new password) makes every
    # cookie issued before refer to no account, on every device, without a session table.
    session_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    def get_id(self) -> str:
        return f"{self.id}:{self.session_version}"

    @property
    def is_instructor(self) -> bool:
        return self.role == "instructor"


def normalize_email(email: str) -> str:
    """Emails compare after NFKC, without case or surrounding spaces: one person, one account.

    NFKC folds full-width letters (ｅ) into ASCII, so a look-alike finds the same account.
    """
    email = unicodedata.normalize("NFKC", email).strip().lower()
    # "example.org." is the same domain as "example.org" (the root's dot, written out).
    local, at, domain = email.rpartition("@")
    return f"{local}{at}{domain.rstrip('.')}" if at else email


# Cc: control characters; Cf: invisible format characters (zero-width space, soft hyphen,
# bidi overrides, zero-width joiner); Cs/Co/Cn: surrogates, private use, unassigned;
# Z*: spaces and line separators other than the plain space, which NFKC has already made of
# no-break and ideographic spaces and which a reader sees. The sign-up form refuses any
# whitespace anyway; `flask users create` keeps accepting what it accepted before.
_REFUSED_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp")


def email_is_clean(email: str) -> bool:
    """False when a normalised email holds characters a reader cannot see or that reorder text,
    or mixes scripts to look like another (app.accounts.lookalikes)."""
    from app.accounts.lookalikes import email_problem  # late: keeps the model import light

    return not any(unicodedata.category(char) in _REFUSED_CATEGORIES and char != " "
                   for char in email) and email_problem(email) is None
