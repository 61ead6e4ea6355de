"""Look-alike emails: a confusables skeleton (Unicode TR39 data via confusable-homoglyphs),
mixed-script and invisible characters refused, so one person can have only one account."""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import categories, utils

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties) and U+2800: characters that
# show nothing, so "ada" and "a\u034fda" would look the same. Hangul fillers (U+115F, U+1160,
# U+3164, U+FFA0) and variation selectors (U+FE0F) are letters or marks by category, which is
# why a category check alone let them through.
_INVISIBLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800),
    (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
# Scripts that one name may mix (TR39's "highly restrictive" level): Japanese writes Latin,
# Han, Hiragana and Katakana together; Chinese and Korean mix Han with their own script.
_MIXES = (frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
          frozenset({"LATIN", "HAN", "BOPOMOFO"}), frozenset({"LATIN", "HAN", "HANGUL"}))
_ANY_SCRIPT = frozenset({"COMMON", "INHERITED"})  # digits, punctuation, combining marks


def has_invisible(text: str) -> bool:
    return any(low <= ord(char) <= high for char in text for low, high in _INVISIBLE)


def scripts(text: str) -> set[str]:
    return {categories.alias(char) for char in text} - _ANY_SCRIPT


def mixes_scripts(text: str) -> bool:
    """True when the text mixes scripts no one writes together (Cyrillic а in Latin "ada")."""
    found = scripts(text)
    return len(found) > 1 and not any(found <= allowed for allowed in _MIXES)


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each non-ASCII character confusable with an ASCII one -> that ASCII character."""
    table = {}
    for char, homoglyphs in utils.load("confusables.json").items():
        if len(char) != 1 or char.isascii():
            continue
        ascii_ones = sorted(h["c"] for h in homoglyphs if len(h["c"]) == 1 and h["c"].isascii())
        if ascii_ones:
            table[char] = ascii_ones[0].lower()
    return table


def skeleton(email: str) -> str:
    """The email as it looks: Cyrillic "а", Greek "ο", mathematical "𝐚" become "a", "o", "a".

    ASCII is left as it is ("user1" and "userl" stay two emails); the email is expected
    normalised already (NFKC, lower case: app.accounts.models.normalize_email).
    """
    table = _prototypes()
    mapped = "".join(table.get(char, char) for char in email)
    # A mark on an ASCII letter is a dot or an accent a reader easily misses ("victiṁ" for
    # "victim"): the skeleton drops it. Marks on other letters stay (Japanese が is not か).
    kept: list[str] = []
    for char in unicodedata.normalize("NFD", mapped):
        if unicodedata.category(char).startswith("M") and kept and kept[-1].isascii():
            continue
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept))


def email_problem(email: str) -> str | None:
    """Why a normalised email cannot be an account's ("invisible", "symbol", "mixed_script"), or None."""
    if has_invisible(email):
        return "invisible"
    # A symbol from outside ASCII (U+1D159, a musical notehead, shows as a blank) is no part
    # of a real address; ASCII's own (+, =, ~) are.
    if any(not char.isascii() and unicodedata.category(char).startswith("S") for char in email):
        return "symbol"
    local, _at, domain = email.partition("@")
    if mixes_scripts(local) or any(mixes_scripts(label) for label in domain.split(".")):
        return "mixed_script"
    return None
