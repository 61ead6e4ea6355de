"""Finds learner-facing texts that hand over a line of the solution or name an internal check id.

A hint teaches (a nudge, the concept, the API); it never gives the line the learner is asked to
write. The texts searched are the folder's prompts, hints and hint ladder, every string in its
tests (check titles, hints, Feedback messages, en and ja), every Markdown and TOML file of the
folder, and the grader's default texts. Texts and solution lines are compared normalised:
whitespace and backticks dropped, quotes made one, so a fenced block, inline code and prose read
alike. Code in a text (an inline span, a fenced block, each of its lines) is also compared in
its canonical form (parsed and written back by `ast.unparse`), so `return (a, b)` hands over
`return a, b` just the same.
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader import ladder
from grader.ladder import LADDER_FILE

CONFIG_FILE = "exercise.toml"  # grader.loader's; leaks sits beside the loader and may not import it

GRADER = Path(__file__).resolve().parent
# The grader's default texts a learner can read: run errors, the AMP checks' titles, hints and
# messages, the AMP kit's runs/weights texts and its notes on extras, the hint ladder's default rungs.
# Every amp/checks_*.py is read as well (default_text_files): a check module added later is scanned
# without anyone remembering to list it here.
DEFAULT_TEXT_FILES = ("messages.py", "ladder.py", "learner_errors.py", "amp/kit.py", "amp/outcome.py",
                      "amp/findings.py", "amp/review.py", "amp/crash.py")
MARKDOWN_TEXTS = ("prompt.md", "prompt.ja.md", "hints.md", "hints.ja.md")  # the first read; then any *.md, *.toml
_FENCED_BLOCK = re.compile(r"^\s*```[^\n]*\n(.*?)^\s*```", re.S | re.M)
MIN_LINE = 12  # a shorter line (`loss.item()`) is the API itself; naming it is the API rung
MIN_EXPRESSION = 25  # a right-hand side this long is the answer even without its `x =`
SKIPPED_STATEMENTS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Pass,
                      ast.Break, ast.Continue, ast.Global, ast.Nonlocal)


# Stands for an f-string's {expression} between its literal parts. Not a null byte: Python's parser
# rejects one with ValueError in older 3.11 releases (Debian bookworm's 3.11.2, in the web image), not
# SyntaxError, and every folder whose tests hold an f-string could not be checked there.
GAP = "\ufffc"


def normalised(text: str) -> str:
    """Whitespace and backticks dropped, quotes made one: `x = f("a")` reads as x=f('a')."""
    return re.sub(r"[\s`]+", "", text).replace('"', "'").replace("\u2019", "'")


def canonical(code: str) -> str:
    """The code as `ast.unparse` writes it, normalised; '' when it is no Python statement or expression."""
    text = code.strip()
    for attempt, mode in ((text, "exec"), (text + "\n    pass", "exec"), (f"({text})", "eval")):
        try:
            tree = ast.parse(attempt, mode=mode)
        except SyntaxError:
            continue
        if mode == "exec" and attempt is not text:  # a block opener (`with ...:`): its first line only
            body = tree.body[0] if tree.body else None
            return normalised(ast.unparse(body).split("\n")[0]) if body is not None else ""
        return normalised(ast.unparse(tree))
    return ""


@dataclass(frozen=True)
class AnswerLine:
    """A line (or a long right-hand side) of the solution that the starter does not have."""

    line: int
    code: str
    key: str  # normalised

    @property
    def canon(self) -> str:
        return canonical(self.code)


@dataclass(frozen=True)
class Text:
    """One learner-facing text and where it is written."""

    where: str  # "hints.md" or "tests/test_x.py:12"
    text: str


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                lines.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    return lines


def _code(line: str) -> str:
    """A physical line without its trailing comment (a '#' inside a string is rare in solutions)."""
    return re.sub(r"\s+#.*$", "", line).strip() if not line.lstrip().startswith("#") else ""


def _dotted(node: ast.AST) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _simple(node: ast.AST) -> bool:
    """A name, `a.b`, `a["key"]` or a constant: something a hint may name."""
    if isinstance(node, ast.Subscript):
        return _dotted(node.value) and isinstance(node.slice, ast.Constant)
    return isinstance(node, ast.Constant) or _dotted(node)


def _api_call(node: ast.AST) -> bool:
    """`obj.method()` or `obj.method(arg)`: the API itself, which the third rung may name."""
    return (isinstance(node, ast.Call) and _dotted(node.func) and len(node.args) <= 1
            and not node.keywords and all(isinstance(a, ast.Constant) or _dotted(a) for a in node.args))


def is_api_only(code: str) -> bool:
    """True when a line or expression only names one API call or value (`scaler.update()`,
    `with torch.no_grad():`, `return w.grad`): naming it is the API rung, not the answer."""
    for attempt in (code, code + "\n    pass"):
        try:
            tree = ast.parse(attempt.strip())
            break
        except SyntaxError:
            continue
    else:
        try:
            tree = ast.parse(f"({code.strip()})", mode="eval")
        except SyntaxError:
            return False
        return _api_call(tree.body) or _simple(tree.body)
    if len(tree.body) != 1:
        return False
    node = tree.body[0]
    if isinstance(node, ast.Expr):
        return _api_call(node.value) or _simple(node.value)
    if isinstance(node, ast.With):
        return len(node.items) == 1 and node.items[0].optional_vars is None and _api_call(node.items[0].context_expr)
    if isinstance(node, ast.Return):
        return node.value is None or _simple(node.value)
    return False


def answer_lines(solution: str, starter: str) -> list[AnswerLine]:
    """The solution's lines and long right-hand sides that the starter does not contain."""
    try:
        tree = ast.parse(solution)
    except SyntaxError:
        return []
    given = normalised(starter)
    skipped = _docstring_lines(tree)
    for node in ast.walk(tree):
        if isinstance(node, SKIPPED_STATEMENTS):  # signatures and imports: the starter states them
            skipped.add(node.lineno)
            skipped.update(d.lineno for d in getattr(node, "decorator_list", ()))
    found: dict[str, AnswerLine] = {}

    def keep(line: int, code: str, least: int) -> None:
        key = normalised(code)
        if len(key) >= least and key not in given and re.search(r"[(\[=.+*/-]", key) and key not in found \
                and not is_api_only(code):
            found[key] = AnswerLine(line, code, key)

    lines = solution.splitlines()
    for number, text in enumerate(lines, start=1):
        if number not in skipped:
            keep(number, _code(text), MIN_LINE)
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, SKIPPED_STATEMENTS) \
                and node.end_lineno and node.end_lineno > node.lineno and not hasattr(node, "body"):
            keep(node.lineno, ast.get_source_segment(solution, node) or "", MIN_LINE)  # one statement, many lines
        value = getattr(node, "value", None) if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign,
                                                                  ast.Return)) else None
        if value is not None:
            keep(node.lineno, ast.get_source_segment(solution, value) or "", MIN_EXPRESSION)
    return sorted(found.values(), key=lambda a: (a.line, a.key))


def python_texts(path: Path, label: str) -> list[Text]:
    """Every string written in a Python file, an f-string's literal parts joined around a gap."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return []
    texts = []
    inside_fstring = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = GAP.join(v.value if isinstance(v, ast.Constant) else "" for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in inside_fstring:
            text = node.value
        else:
            continue
        texts.append(Text(f"{label}:{node.lineno}", text))
    return texts


def folder_texts(folder: Path) -> list[Text]:
    """The learner-facing texts an exercise folder writes itself: every Markdown and TOML file
    (prompts and hints in every language, exercise.toml's title, a quiz's texts) and its tests' strings."""
    names = [name for name in MARKDOWN_TEXTS if (folder / name).is_file()]
    names += sorted(p.name for p in folder.iterdir() if p.is_file() and p.suffix in (".md", ".toml")
                    and p.name not in names and p.name not in (LADDER_FILE, CONFIG_FILE))
    texts = [Text(name, (folder / name).read_text(encoding="utf-8")) for name in names]
    if (folder / CONFIG_FILE).is_file():  # its title only: equivalent_mutants quote the solution for authors
        try:
            title = tomllib.loads((folder / CONFIG_FILE).read_text(encoding="utf-8")).get("title", {})
        except tomllib.TOMLDecodeError:
            title = {}
        texts += [Text(f"{CONFIG_FILE} title.{lang}", text) for lang, text in sorted(title.items())
                  if isinstance(text, str)] if isinstance(title, dict) else []
    if (folder / LADDER_FILE).is_file():  # the hint ladder's rungs
        texts.append(Text(LADDER_FILE, (folder / LADDER_FILE).read_text(encoding="utf-8")))
    tests = folder / "tests"
    for path in sorted(tests.rglob("*.py")) if tests.is_dir() else ():
        texts += python_texts(path, str(path.relative_to(folder)))
    return texts


def default_texts() -> list[Text]:
    """The grader's own learner-facing texts (shown wherever a folder does not write its own)."""
    texts: list[Text] = []
    for name in default_text_files():
        texts += python_texts(GRADER / name, f"grader/{name}")
    return texts


def default_text_files() -> list[str]:
    """DEFAULT_TEXT_FILES and every AMP check module, as paths below the grader package."""
    checks = sorted(f"amp/{path.name}" for path in (GRADER / "amp").glob("checks_*.py"))
    return list(DEFAULT_TEXT_FILES) + checks


def code_pieces(text: str) -> list[str]:
    """The code a text shows: inline spans, fenced blocks whole, and each line of a fenced block."""
    pieces = re.findall(r"`([^`\n]+)`", text)
    for block in _FENCED_BLOCK.findall(text):
        pieces.append(block)
        pieces += [line for line in block.splitlines() if line.strip()]
    return pieces


def solution_leaks(solution: str, starter: str, texts: list[Text]) -> list[str]:
    """A problem for every text that contains a solution line the starter does not have (as
    written, or in any form that parses to the same code), and for every code span or fenced
    line of a hint (not a prompt, which states the task) that is most of such a line."""
    answers = answer_lines(solution, starter)
    given = {canonical(line) for line in starter.splitlines()} | {canonical(starter)}
    problems = []
    seen = set()
    for text in texts:
        body = normalised(text.text)
        pieces = code_pieces(text.text)
        canons = {c for piece in pieces if (c := canonical(piece)) and c not in given}
        spans = [] if text.where.startswith("prompt") else [
            key for span in pieces
            if len(key := normalised(span)) >= MIN_LINE and not is_api_only(span)]
        for answer in answers:
            if (text.where, answer.line) in seen:
                continue
            canon = answer.canon
            if answer.key in body or (canon and len(canon) >= MIN_LINE
                                      and any(canon == c or canon in c for c in canons)):
                what = "hands over"
            elif any(span in answer.key and 2 * len(span) >= len(answer.key) for span in spans):
                what = "quotes most of"
            else:
                continue
            seen.add((text.where, answer.line))
            problems.append(f"{text.where} {what} solution.py line {answer.line} "
                            f"`{answer.code.strip()[:80]}`: teach the idea or name the API, never the line")
    return problems


def check_id_mentions(texts: list[Text], slugs: set[str]) -> list[str]:
    """A problem for every text that names a check by its internal id (learners read titles)."""
    problems = []
    for text in texts:
        for slug in sorted(slugs):
            if re.search(rf"['\"`‘「]{re.escape(slug)}['\"`’」]", text.text):
                problems.append(f"{text.where} names the check id '{slug}': name the check by its title")
    return problems


def declared_slugs(folder: Path) -> set[str]:
    """The check ids an exercise's tests declare, read from the source (no import needed)."""
    slugs = set()
    for path in sorted((folder / "tests").rglob("*.py")) if (folder / "tests").is_dir() else ():
        source = path.read_text(encoding="utf-8")
        slugs.update(re.findall(r"(?:@check|amp\.check)\(\s*[\"']([a-z0-9-]+)[\"']", source))
        slugs.update(slug for factory, slug in (("amp.runs(", "runs"), ("amp.weights(", "weights-match-reference"))
                     if factory in source)
    return slugs


def default_slugs() -> set[str]:
    """The AMP checks' ids, read from their @register lines (no torch import for a text check)."""
    slugs = {"runs", "weights-match-reference"}
    for path in sorted((GRADER / "amp").glob("checks_*.py")):
        slugs.update(re.findall(r"@register\(\s*[\"']([a-z0-9-]+)[\"']", path.read_text(encoding="utf-8")))
    return slugs


def folder_problems(folder: Path, *, with_defaults: bool = True) -> list[str]:
    """Everything `grader validate` reports about one code folder's texts."""
    solution, starter = folder / "solution.py", folder / "starter.py"
    texts = folder_texts(folder)
    if not solution.is_file():
        return []
    problems = solution_leaks(solution.read_text(encoding="utf-8"), starter.read_text(encoding="utf-8")
                              if starter.is_file() else "", texts + (default_texts() if with_defaults else []))
    multiword = {s for s in declared_slugs(folder) | default_slugs() if "-" in s}
    problems += check_id_mentions(texts, multiword)
    lessons = folder.resolve().parent.parent / "lessons"  # the course's lessons, beside exercises/
    problems += ladder.problems(folder, declared_slugs(folder), lessons if lessons.is_dir() else None)
    return problems
