"""return_line points a wrong-value failure at the learner's return statement, not the def line."""

from grader.author import return_line

SOURCE = '''def evaluate(model, loader):
    def helper(x):
        return x
    total = 0
    for x in loader:
        if x is None:
            return 0, 0
        total += helper(x)
    return total, 1
'''


def test_last_return_of_the_function_not_of_a_nested_helper():
    assert return_line(SOURCE, "evaluate") == 9


def test_falls_back_when_there_is_no_return_or_no_function():
    assert return_line("def f():\n    pass\n", "f", 1) == 1
    assert return_line(SOURCE, "missing", 7) == 7
    assert return_line("def f(:\n", "f", 3) == 3
