"""The lesson catalog: folders lessons/<NN>-<slug>/ holding en.md and ja.md."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from app.content.markdown import RenderCache, Rendered
from app.content.reading import reading, split_at_headings

FOLDER_PATTERN = re.compile(r"^(\d{2})-[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class LessonPart:
    """A part of a long lesson (front matter `parts`): its title, the `##` heading it starts
    at, and its estimated reading time."""

    title: str
    first: str
    minutes: int


@dataclass(frozen=True)
class Lesson:
    """One lesson folder, rendered in the language asked for."""

    slug: str
    number: int
    title: str
    summary: str
    html: str
    path: Path
    parts: tuple[LessonPart, ...] = ()


class LessonCatalog:
    """Finds lesson folders and renders them through a shared cache."""

    def __init__(self, root: str | Path, cache: RenderCache):
        self.root = Path(root)
        self.cache = cache

    def _folders(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(
            p for p in self.root.iterdir()
            if p.is_dir() and FOLDER_PATTERN.match(p.name) and (p / "en.md").is_file()
        )

    def _load(self, folder: Path, lang: str) -> Lesson:
        # A missing or empty translation falls back to English, file by file.
        localized = folder / f"{lang}.md"
        source = localized if lang != "en" and localized.is_file() else folder / "en.md"
        doc: Rendered = self.cache.get(source)
        match = FOLDER_PATTERN.match(folder.name)
        number = int(doc.meta.get("lesson") or (match.group(1) if match else 0))
        return Lesson(
            slug=folder.name,
            number=number,
            title=str(doc.meta.get("title") or folder.name),
            summary=str(doc.meta.get("summary") or ""),
            html=doc.html,
            path=folder,
            parts=lesson_parts(doc.meta.get("parts"), source),
        )

    def all(self, lang: str) -> list[Lesson]:
        """Every lesson, in course order."""
        lessons = [self._load(folder, lang) for folder in self._folders()]
        return sorted(lessons, key=lambda lesson: (lesson.number, lesson.slug))

    def get(self, slug: str, lang: str) -> Lesson | None:
        if not FOLDER_PATTERN.match(slug):
            return None
        folder = self.root / slug
        if not (folder / "en.md").is_file():
            return None
        return self._load(folder, lang)

    def neighbours(self, slug: str, lang: str) -> tuple[Lesson | None, Lesson | None]:
        """The lessons before and after this one, for previous/next links."""
        lessons = self.all(lang)
        slugs = [lesson.slug for lesson in lessons]
        if slug not in slugs:
            return None, None
        at = slugs.index(slug)
        before = lessons[at - 1] if at > 0 else None
        after = lessons[at + 1] if at + 1 < len(lessons) else None
        return before, after


def lesson_parts(declared: object, source: Path) -> tuple[LessonPart, ...]:
    """The parts a lesson's front matter declares (a list of {title, first}), each with its
    reading time counted from the Markdown; none when it declares none."""
    if not isinstance(declared, list) or not declared:
        return ()
    titles = [str(item["title"]) for item in declared]
    firsts = [str(item["first"]) for item in declared]
    stretches = split_at_headings(source.read_text(encoding="utf-8"), firsts)
    return tuple(LessonPart(title, first, reading(text).minutes)
                 for title, first, text in zip(titles, firsts, stretches, strict=True))
