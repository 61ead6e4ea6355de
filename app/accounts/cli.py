"""`flask users create [--instructor]`, `flask users set-role`: accounts from the command line."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from app.accounts.passwords import MAX_LENGTH, MIN_LENGTH
from app.accounts.users import AccountError, create_user, find_by_email
from app.extensions import db
from app.models import ROLES

REASONS = {
    "email_taken": "an account with this email exists already",
    "bad_email": "this is not a usable email address (or it has invisible characters)",
    "bad_password": f"the password must have {MIN_LENGTH} to {MAX_LENGTH} characters",
    "common_password": "this password is among the most common ones; choose another",
    "password_is_email": "the password must not contain the email address",
    "bad_role": "unknown role",
}


# An AppGroup runs each command inside the app context (the database is reachable).
users = AppGroup("users", help="Manage accounts.")


@users.command("create")
@click.option("--email", prompt=True, help="The account's email (its login name).")
@click.option("--password", prompt=True, hide_input=True, confirmation_prompt=True,
              help="The password; prompted for (hidden) when left out.")
@click.option("--instructor", is_flag=True, help="Give the account the instructor role.")
def create(email: str, password: str, instructor: bool) -> None:
    """Create an account (a learner unless --instructor)."""
    role = "instructor" if instructor else "learner"
    try:
        user = create_user(email, password, role)
    except AccountError as exc:
        raise click.ClickException(REASONS[exc.reason]) from None
    click.echo(f"Created {role} {user.email}.")


@users.command("set-role")
@click.argument("email")
@click.argument("role", type=click.Choice(ROLES))
def set_role(email: str, role: str) -> None:
    """Make an existing account a learner or an instructor."""
    user = find_by_email(email)
    if user is None:
        raise click.ClickException("no account has this email")
    user.role = role
    db.session.commit()
    click.echo(f"{user.email} is now {'an' if role == 'instructor' else 'a'} {role}.")
