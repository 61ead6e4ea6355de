"""Lesson 2's own train_one_epoch and evaluate pass the exercises that ask for them.

They used to take (model, loader, loss_fn, optimizer, device) and average the loss over
examples, so the lesson's code failed the loop-train-epoch and loop-evaluate checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.api import grade_code
from grader.loader import load_exercise
from tests.lessons.lesson_blocks import blocks

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
IMPORTS = "import torch\nfrom torch import nn\n\n"


def lesson_function(name: str) -> str:
    found = [b.code for b in blocks("02-training-loop") if b.code.startswith(f"def {name}(")]
    assert len(found) == 1, name
    return IMPORTS + found[0]


@pytest.mark.slow
@pytest.mark.parametrize("function,exercise", [("train_one_epoch", "loop-train-epoch"),
                                               ("evaluate", "loop-evaluate")])
def test_lesson_code_passes_its_exercise(function, exercise):
    doc = grade_code(load_exercise(EXERCISES / exercise), lesson_function(function), sandbox="local")
    failing = {t["check"]: t["message"] for t in doc["tests"] if t["status"] != "pass"}
    assert doc["status"] == "pass", (doc["message"], failing)
