"""Instructor forms (Flask-WTF): the validation button carries a CSRF token."""

from __future__ import annotations

from flask_wtf import FlaskForm


class ValidateForm(FlaskForm):
    """The "check now" button: grading every folder is costly, so it is a CSRF-checked POST."""
