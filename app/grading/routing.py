"""Which grading queue an exercise's jobs go to: "gpu" (GPU hosts only) or "cpu"."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask

    from grader.api import Exercise

QUEUES = ("cpu", "gpu")
RUN_QUEUE = "runs"  # the Run button's lane (app.grading.runs): apart from grading's queues
# The background lane (folder checks, regrades), per grading queue: its own Celery queues, taken
# by workers of their own, so a check never holds the worker a learner's grading waits for.
# A GPU host's worker takes "background-gpu" beside "gpu" (its one GPU is shared either way).
BACKGROUND_QUEUES = {"cpu": "background", "gpu": "background-gpu"}
GRADING_QUEUE_OF = {background: grading for grading, background in BACKGROUND_QUEUES.items()}


def queue_kind(app: Flask, exercise: Exercise | None) -> str:
    """gpu = "required" always goes to GPU hosts; "optional" only when GRADING_GPU_OPTIONAL is on."""
    wanted = exercise.config.gpu if exercise is not None else "no"
    if wanted == "required" or (wanted == "optional" and app.config.get("GRADING_GPU_OPTIONAL")):
        return "gpu"
    return "cpu"
