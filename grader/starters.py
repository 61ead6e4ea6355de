"""Localized starters (starter.ja.py): the same code as starter.py, only comments and strings translated."""

from __future__ import annotations

import io
import tokenize

LOCALIZED = ("ja",)  # languages a folder may have a starter.<lang>.py for


def localized_name(lang: str) -> str:
    return f"starter.{lang}.py"


def _code_tokens(source: str) -> list[tuple[int, str]]:
    """The token stream with comments left out and every string's text replaced by a marker."""
    tokens = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL):
            continue
        if token.type == tokenize.STRING or token.type in _FSTRING_PARTS:
            tokens.append((tokenize.STRING, "<string>"))
            continue
        tokens.append((token.type, token.string))
    # Adjacent markers (an f-string's parts) count as one string: translation may split them.
    merged: list[tuple[int, str]] = []
    for token in tokens:
        if not (merged and token == (tokenize.STRING, "<string>") == merged[-1]):
            merged.append(token)
    return merged


_FSTRING_PARTS = {getattr(tokenize, name) for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
                  if hasattr(tokenize, name)}


def code_differences(english: str, localized: str, name: str) -> list[str]:
    """Problems when `localized` is more than `english` with its comments and strings translated."""
    try:
        theirs, ours = _code_tokens(english), _code_tokens(localized)
    except (tokenize.TokenError, SyntaxError, IndentationError) as exc:
        return [f"{name} cannot be read as Python: {exc}"]
    if theirs == ours:
        return []
    at = next((i for i, (a, b) in enumerate(zip(theirs, ours, strict=False)) if a != b), min(len(theirs), len(ours)))
    seen = ours[at][1] if at < len(ours) else "the end of the file"
    wanted = theirs[at][1] if at < len(theirs) else "the end of the file"
    return [f"{name} must be starter.py with only its comments and strings translated, "
            f"but its code differs (token {at + 1}: {seen!r} where starter.py has {wanted!r})"]
