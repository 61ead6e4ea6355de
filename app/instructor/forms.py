"""Instructor forms (Flask-WTF): the validation and regrade buttons carry a CSRF token."""

from __future__ import annotations

from flask_wtf import FlaskForm


class ValidateForm(FlaskForm):
    """The "check now" button: grading every folder is costly, so it is a CSRF-checked POST."""


class RegradeForm(FlaskForm):
    """The "regrade" button: it grades many stored submissions again, so it is a CSRF-checked POST."""
