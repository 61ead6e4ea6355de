"""The course's Japanese rules: the glossary's vocabulary (docs/glossary.md) and punctuation.

`grader validate` applies them to an exercise folder's Japanese texts; tests/lessons applies
them to the whole course. Code (fenced blocks and `inline code`) is never checked. They are a
course's house style: errors where the course declares them (`course.toml`, see house_style),
warnings for any other folder.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# In the package (a link to docs/glossary.md in the repository, the file itself in the web image,
# whose build copies it through): the grader needs no repository around it to check a folder.
GLOSSARY = Path(__file__).with_name("glossary.md")
COURSE_FILE = "course.toml"  # beside a course's exercises/ and lessons/ folders


class HouseStyleError(ValueError):
    """A course.toml whose [house_style] table cannot be used."""


@dataclass(frozen=True)
class HouseStyle:
    """A course's declared house style: its glossary file (the rules are errors in its folders)."""

    glossary: Path


def house_style(exercise_folder: Path) -> HouseStyle | None:
    """The house style the course of this folder declares, or None (then the rules only warn).

    The course is the folder above `exercises/`: its `course.toml` may hold
        [house_style]
        glossary = "docs/glossary.md"   # relative to the course folder
    """
    config = Path(exercise_folder).resolve().parent.parent / COURSE_FILE
    if not config.is_file():
        return None
    try:
        table = tomllib.loads(config.read_text(encoding="utf-8")).get("house_style")
    except tomllib.TOMLDecodeError as exc:
        raise HouseStyleError(f"{COURSE_FILE}: {exc}") from exc
    if table is None:
        return None
    name = table.get("glossary") if isinstance(table, dict) else None
    if not isinstance(name, str) or not (config.parent / name).is_file():
        raise HouseStyleError(f"{COURSE_FILE}: [house_style] glossary must name the course's glossary "
                              f"file, relative to {config.parent.name}/ (got {name!r})")
    return HouseStyle(glossary=config.parent / name)

JA = r"[\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]"
_FENCED = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
_INLINE = re.compile(r"`[^`\n]*`")


def strip_code(markdown: str) -> str:
    """Blank out fenced blocks and inline code, keeping line numbers."""
    text = _FENCED.sub(lambda m: "\n" * m.group(0).count("\n"), markdown)
    return _INLINE.sub("``", text)


def glossary(path: Path = GLOSSARY) -> list[tuple[str, list[str]]]:
    """(preferred term, terms to avoid) for each row of the table in docs/glossary.md."""
    rows = []
    for line in path.read_text("utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("concept (English)",) or set(cells[0]) <= {"-"}:
            continue
        avoid = [a.strip() for a in cells[2].split(" / ") if a.strip()]
        rows.append((cells[1], avoid))
    return rows


def _term_pattern(term: str) -> re.Pattern[str]:
    if term.isascii():  # an English word: whole word, not a call like step(), a name like step_
        # or an attribute access like scaler.step in a figure's label
        return re.compile(rf"(?<![\w.]){re.escape(term)}(?![\w(.])")
    return re.compile(re.escape(term))


def avoided_uses(text: str, glossary_file: Path = GLOSSARY) -> list[tuple[int, str, str]]:
    """(line, avoided term, preferred term) for every glossary violation in `text`."""
    found = []
    for preferred, avoid in glossary(glossary_file):
        for term in avoid:
            for match in _term_pattern(term).finditer(text):
                if text.startswith(preferred, match.start()):
                    continue  # the avoided term is a prefix of the preferred one (スケーラ/スケーラー)
                found.append((text.count("\n", 0, match.start()) + 1, term, preferred))
    return found


def punctuation_problems(text: str, markdown: bool) -> list[tuple[int, str]]:
    """(line, rule) for every punctuation rule `text` breaks (full-width brackets and colons, 、。)."""
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        if re.search(rf"{JA}\s*\((?!\))|(?<!\()\)\s*{JA}|\({JA}|{JA}\)", line):
            problems.append((number, "half-width parentheses next to Japanese: use （）"))
        if re.search(rf"({JA}|\*\*)\s*:(\s|$)|:\s+{JA}", line):
            problems.append((number, "half-width colon next to Japanese: use ："))
        if re.search(r"[，．]", line):
            problems.append((number, "use 、 and 。, not ， or ．"))
        if re.search(r"(です|ます|ましょう|ください|でした|ません)\s*[：:]", line):
            problems.append((number, "a sentence ends with ：: end it with 。"))
    if markdown:
        problems += [(number, "list item ends with 、") for number, item in _list_items(text)
                     if item.endswith("、")]
    return problems


def _list_items(text: str) -> list[tuple[int, str]]:
    """(first line, whole text) of each Markdown list item, its indented continuation lines joined."""
    items: list[tuple[int, str]] = []
    in_item = False
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(r"\s*(?:[-*]|\d+\.)\s", line):
            items.append((number, line.strip()))
            in_item = True
        elif in_item and line.startswith(" ") and line.strip():
            items[-1] = (items[-1][0], items[-1][1] + line.strip())
        else:
            in_item = False
    return items


def text_problems(where: str, text: str, *, markdown: bool, glossary_file: Path = GLOSSARY) -> list[str]:
    """Every glossary and punctuation problem of one Japanese text, as 'where:line: ...'."""
    plain = strip_code(text) if markdown else text
    named = glossary_file.name if glossary_file != GLOSSARY else "docs/glossary.md"
    problems = [f"{where}:{line}: '{term}' is not the course's word: use '{preferred}' ({named})"
                for line, term, preferred in avoided_uses(plain, glossary_file)]
    problems += [f"{where}:{line}: {rule}" for line, rule in punctuation_problems(plain, markdown)]
    return problems
