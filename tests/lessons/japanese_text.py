"""The Japanese prose of the course: lessons, prompts, hints, quizzes and figures, code removed."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

from grader.japanese_text import GLOSSARY, glossary, strip_code

ROOT = Path(__file__).resolve().parents[2]
__all__ = ["GLOSSARY", "ROOT", "documents", "glossary", "strip_code"]  # the rules live in grader.japanese_text
_SVG_TEXT = re.compile(r"<(?:text|title|desc)[^>]*>(.*?)</(?:text|title|desc)>", re.S)
_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)


def _quiz_texts(data: object, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "ja" and isinstance(value, str):
                yield where, value
            else:
                yield from _quiz_texts(value, f"{where}.{key}")
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _quiz_texts(value, f"{where}[{i}]")


def documents() -> Iterator[tuple[str, str, bool]]:
    """(name, Japanese text without code, is_markdown) for every Japanese text of the course."""
    for path in sorted(ROOT.glob("lessons/*/ja.md")):
        text = _FRONT.sub(lambda m: "\n" * m.group(0).count("\n"), path.read_text("utf-8"))
        yield str(path.relative_to(ROOT)), strip_code(text), True
    for pattern in ("exercises/*/prompt.ja.md", "exercises/*/hints.ja.md"):
        for path in sorted(ROOT.glob(pattern)):
            yield str(path.relative_to(ROOT)), strip_code(path.read_text("utf-8")), True
    for path in sorted(ROOT.glob("exercises/quiz-*/quiz.toml")):
        quiz = tomllib.loads(path.read_text("utf-8"))
        for where, text in _quiz_texts(quiz, ""):
            yield f"{path.relative_to(ROOT)}{where}", strip_code(text), False
    for path in sorted(ROOT.glob("lessons/*/img/*.ja.svg")):
        texts = _SVG_TEXT.findall(path.read_text("utf-8"))
        yield str(path.relative_to(ROOT)), "\n".join(texts), False
