"""The rules an account's email follows: one form per person (NFKC, no case), nothing invisible or look-alike."""

from __future__ import annotations

import unicodedata


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
    from app.accounts.lookalikes import email_problem  # late: the confusables table loads on the first check

    return not any(unicodedata.category(char) in _REFUSED_CATEGORIES and char != " "
                   for char in email) and email_problem(email) is None
