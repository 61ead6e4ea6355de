"""The most each learner-controlled page may cost, whatever the learner stored (bench/pages.py).

Derived from the caps, not measured: a page lists at most PAGE_SIZE summaries and shows at
most one submission in full, whose code is capped (MAX_CODE_BYTES), whose diff is capped
(DIFF_MAX_ROWS) and whose results document is validated (grader.results, grader.figures:
50 tests, texts of 1000 characters, 4000 chart points). The code is one escaped block beside
a column of numbers (app.progress.code_view), not a numbered span a line: 64 KB of code is at
most about 0.4 MB of HTML (65,536 empty lines' numbers, or 32,768 lines of '"' as "&#34;"),
its diff at most both sides escaped (about 0.7 MB), the largest valid results document about
1.2 MB, so 3 MB holds the worst case with room (it was 5 MB with a span a line). The CPU
bound is for one view on an idle core, first view included (a diff's search stops at
DIFF_MAX_SECONDS).
"""

from __future__ import annotations

MB = 1_000_000

# Bytes of HTML or JSON per page.
PAGE_MAX_BYTES = {
    "history": 3 * MB,           # PAGE_SIZE summaries + one submission in full
    "history-older": 3 * MB,     # any later page: the same
    "entry-fragment": 3 * MB,    # one submission's feedback, code and diff
    "submission": 3 * MB,        # the same, in a page
    "exercise": 1 * MB,          # the editor with a 64 KB draft and the latest result
    "dashboard": 1 * MB,         # one row per exercise of the course
    "api-history": 100_000,      # API_PAGE_SIZE summaries
    "quiz": 1 * MB,              # the quiz with the learner's last attempt
}
# CPU seconds of one view of any of these pages.
PAGE_MAX_CPU_S = 1.0
