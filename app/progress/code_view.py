"""A stored submission's code as HTML: one escaped block beside a column of line numbers.

Per-line markup (a numbered <span> a line) cost 32,768 escapes and spans for 64 KB of "<"
lines, about half a second of the one web process's CPU per view (bench/pages.py --profile).
Here the code is escaped once and the numbers are one joined string; only the lines the
feedback points at ("line 12", #L12) get an anchor, at most one per test.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape


def feedback_lines(result: Any, count: int) -> set[int]:
    """The line numbers (1..count) a results document's message or tests point at."""
    if not isinstance(result, dict):
        return set()
    found = [result.get("line")]
    tests = result.get("tests")
    if isinstance(tests, list):
        found.extend(test.get("line") for test in tests if isinstance(test, dict))
    return {n for n in found if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= count}


def code_block(code: str, prefix: str = "", result: Any = None) -> Markup:
    """The code in a <pre> of its own, the line numbers in another beside it (aria-hidden).

    Lines are what str.splitlines() finds (as the grader's line numbers count them), shown
    one a row, so the numbers stay beside their lines whatever the line ends were.
    """
    lines = str(code).splitlines()
    anchored = feedback_lines(result, len(lines))
    ident = escape(prefix)
    numbers = "\n".join(f'<span id="{ident}L{n}">{n}</span>' if n in anchored else str(n)
                        for n in range(1, len(lines) + 1))
    text = escape("\n".join(lines))
    return Markup(  # noqa: S704 -- every learner-controlled part is escaped above
        f'<div class="code-view"><pre class="code-lines" aria-hidden="true">{numbers}</pre>'
        f'<pre class="code-text"><code>{text}</code></pre></div>')
