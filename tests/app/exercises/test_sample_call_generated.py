"""The generated sample call: the entry with the starter's required parameter names."""

from __future__ import annotations

from app.exercises.sample_call import generated_call


def test_a_function_entry_is_called_with_its_required_parameters() -> None:
    starter = "def time_steps(model, optimizer, inputs, targets, amp_dtype=None, steps=10):\n    pass\n"
    assert generated_call("time_steps", starter) == "print(time_steps(model, optimizer, inputs, targets))"


def test_a_class_entry_is_built_from_its_init() -> None:
    starter = "class MLP:\n    def __init__(self, sizes, *, bias=True):\n        pass\n"
    assert generated_call("MLP", starter) == "print(MLP(sizes))"
    assert generated_call("MLP", "class MLP:\n    pass\n") == "print(MLP())"


def test_no_entry_in_the_starter_or_broken_code_gives_none() -> None:
    assert generated_call("train", "def other(x):\n    pass\n") is None
    assert generated_call("train", "def train(:\n") is None
