"""GPU exercises go to the GPU hosts' queue; the rest to the CPU queue."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from flask import Flask

from app.grading.routing import queue_kind


def exercise(gpu: str) -> SimpleNamespace:
    return SimpleNamespace(config=SimpleNamespace(gpu=gpu))


@pytest.mark.parametrize(("gpu", "optional_on_gpu", "kind"), [
    ("required", False, "gpu"), ("required", True, "gpu"),
    ("optional", False, "cpu"), ("optional", True, "gpu"),
    ("no", True, "cpu"),
])
def test_queue_kind(gpu, optional_on_gpu, kind):
    app = Flask(__name__)
    app.config["GRADING_GPU_OPTIONAL"] = optional_on_gpu
    assert queue_kind(app, exercise(gpu)) == kind


def test_a_removed_exercise_goes_to_the_cpu_queue_and_ends_there():
    assert queue_kind(Flask(__name__), None) == "cpu"
