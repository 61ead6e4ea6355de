"""A stand-in grader for the overview test: fails `returns-sum` unless the code adds."""

from __future__ import annotations

from grader import results


def two_check_grader(exercise, code, *, lang="en", sandbox="auto"):
    adds = "return a + b" in code
    test = results.TestResult(name="test_add", check="returns-sum", title="Returns the sum",
                              status="pass" if adds else "fail", message="", hint="", line=None,
                              points=1 if adds else 0, max_points=1)
    return results.summarize(exercise.id, [test]).to_dict()
