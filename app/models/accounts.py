"""An account's model: an email, a password hash, a role and a learner key."""

from __future__ import annotations

import uuid
from datetime import datetime

from flask_login import UserMixin
from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import UTCDateTime, utcnow

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
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # Part of the id kept in the session cookie: raising it (logout, new password) makes every
    # cookie issued before refer to no account, on every device, without a session table.
    session_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    def get_id(self) -> str:
        return f"{self.id}:{self.session_version}"

    @property
    def is_instructor(self) -> bool:
        return self.role == "instructor"
