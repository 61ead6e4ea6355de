"""Small lesson and exercise folders written into a temporary directory for the app's tests."""

from __future__ import annotations

from pathlib import Path

LESSON_EN = """---
title: {title}
lesson: {number}
summary: {summary}
---
# {title}

Some text with `inline code`.

!!! note "Remember <this>"
    Autocast covers the *forward* pass only.

<script>alert("raw html")</script>

| format | bits |
|--------|------|
| fp16   | 16   |

```python
def forward(x):
    return x * 2
```

![A diagram](img/diagram.svg)
"""

LESSON_JA = """---
title: {title_ja}
lesson: {number}
summary: 日本語の要約です。
---
# {title_ja}

日本語の本文です。
"""

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    '<rect width="10" height="10"/></svg>'
)

LESSONS = [
    (1, "python-basics", "Python basics", "Pythonの基本"),
    (2, "tensors", "Tensors", "テンソル"),
    (3, "mixed-precision", "Mixed precision with AMP", "AMP による混合精度"),
    (4, "deploying", "Deploying a model", "モデルの公開"),
]

EXERCISE_TOML = """id = "{id}"
lesson = {lesson}
order = {order}
kind = "{kind}"
points = 2
{entry}
[title]
en = "{title}"
ja = "{title_ja}"
"""


def write_lessons(root: Path) -> Path:
    for number, slug, title, title_ja in LESSONS:
        folder = root / f"{number:02d}-{slug}"
        (folder / "img").mkdir(parents=True)
        summary = f"What lesson {number} is about."
        (folder / "en.md").write_text(
            LESSON_EN.format(title=title, number=number, summary=summary), encoding="utf-8")
        if number != 4:  # lesson 4 has no Japanese text: it must fall back to English
            (folder / "ja.md").write_text(
                LESSON_JA.format(title_ja=title_ja, number=number), encoding="utf-8")
        (folder / "img" / "diagram.svg").write_text(SVG, encoding="utf-8")
    return root


def _exercise(root: Path, ex_id: str, *, lesson: int, order: int, kind: str = "code") -> Path:
    folder = root / ex_id
    (folder / "tests").mkdir(parents=True)
    entry = 'entry = "add"' if kind == "code" else ""
    (folder / "exercise.toml").write_text(EXERCISE_TOML.format(
        id=ex_id, lesson=lesson, order=order, kind=kind, entry=entry,
        title=f"Exercise {ex_id}", title_ja=f"演習 {ex_id}"), encoding="utf-8")
    files = {
        "prompt.md": "# Adding numbers\n\nWrite `add(a, b)`.\n\n<b>not bold</b>\n\n"
                     "```python\nadd(2, 3)  # 5\n```\n",
        "prompt.ja.md": "`add(a, b)` を書きましょう。\n",
        "hints.md": "Use the `+` operator.\n",
    }
    if kind == "quiz":
        files["quiz.toml"] = "[[questions]]\n"
    else:
        files["starter.py"] = "def add(a, b):\n    pass  # <your code>\n"
        files["solution.py"] = "def add(a, b):\n    return a + b\n"
        files["tests/test_add.py"] = "def test_add():\n    pass\n"
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def write_exercises(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    _exercise(root, "add-numbers", lesson=1, order=1)
    _exercise(root, "add-again", lesson=1, order=2)
    _exercise(root, "pick-a-dtype", lesson=1, order=3, kind="quiz")
    return root
