"""Accounts: register, log in, log out; learners and instructors."""

from flask import Blueprint

bp = Blueprint("accounts", __name__)

from app.accounts import routes  # noqa: E402,F401  (registers the views on bp)
