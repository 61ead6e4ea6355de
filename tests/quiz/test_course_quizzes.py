"""The four lesson quizzes: valid, varied, bilingual, and their numbers hold in torch."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from grader.loader import load_exercise
from grader.quiz import load_quiz, validate_quiz

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
QUIZZES = {
    "quiz-tensors": 1,
    "quiz-training-loop": 2,
    "quiz-mixed-precision": 3,
    "quiz-bigger-models": 4,
}


@pytest.mark.parametrize(("quiz_id", "lesson"), QUIZZES.items())
def test_quiz_is_valid_and_varied(quiz_id, lesson):
    exercise = load_exercise(EXERCISES / quiz_id)
    assert exercise.config.kind == "quiz" and exercise.config.lesson == lesson
    assert validate_quiz(exercise) == []
    questions = load_quiz(exercise).questions
    assert len(questions) >= 5
    assert {q.kind for q in questions} == {"single", "multiple", "numeric"}
    for question in questions:
        assert question.text.en != question.text.ja
        assert question.explanation.en != question.explanation.ja
        # Japanese text is written in sentences (です/ます調), each closed with 。
        assert question.explanation.ja.rstrip().endswith("。"), question.id
    assert exercise.prompt("ja") != exercise.prompt("en")


def numeric_key(quiz_id: str, question_id: str) -> float:
    question = load_quiz(load_exercise(EXERCISES / quiz_id)).question(question_id)
    assert question is not None and question.kind == "numeric"
    return float(question.answer)  # type: ignore[arg-type]


def test_tensor_quiz_numbers_match_torch():
    half = torch.zeros(1000, dtype=torch.float16)
    assert numeric_key("quiz-tensors", "bytes-float16") == half.numel() * half.element_size()
    matrix = torch.zeros(1024, 1024, dtype=torch.float32)
    mib = matrix.numel() * matrix.element_size() / 2**20
    assert numeric_key("quiz-tensors", "mib-float32-matrix") == mib
    x = torch.tensor(1.0, requires_grad=True)
    for _ in range(2):
        (3 * x).backward()
    assert numeric_key("quiz-tensors", "grad-accumulates") == x.grad.item()


def test_tensor_quiz_range_key_matches_torch():
    question = load_quiz(load_exercise(EXERCISES / "quiz-tensors")).question("range-1e10")
    assert question is not None
    fits = set()
    for name in (choice.id for choice in question.choices):  # dtype names, e.g. "int64"
        dtype = getattr(torch, name)
        limit = torch.finfo(dtype).max if dtype.is_floating_point else torch.iinfo(dtype).max
        if limit >= 1e10:
            fits.add(name)
    assert question.key_ids == fits


def test_tensor_quiz_broadcast_key_matches_torch():
    question = load_quiz(load_exercise(EXERCISES / "quiz-tensors")).question("broadcast-shape")
    assert question is not None
    shape = tuple((torch.zeros(3, 1) + torch.zeros(4)).shape)
    right = next(c for c in question.choices if c.id == question.answer)
    assert right.text.en == str(shape)


def test_training_loop_quiz_numbers_match_torch():
    dataset = torch.utils.data.TensorDataset(torch.zeros(1000, 1))
    batches = len(torch.utils.data.DataLoader(dataset, batch_size=64))
    assert numeric_key("quiz-training-loop", "batches-per-epoch") == batches
    layer = torch.nn.Linear(10, 5)
    count = sum(p.numel() for p in layer.parameters())
    assert numeric_key("quiz-training-loop", "linear-parameters") == count


def test_mixed_precision_quiz_numbers_match_torch():
    assert numeric_key("quiz-mixed-precision", "float16-max") == torch.finfo(torch.float16).max
    scaler = torch.amp.GradScaler("cpu")
    weight = torch.nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([weight], lr=0.1)
    scaler.scale((weight * math.inf).sum()).backward()
    scaler.step(optimizer)  # skipped: the gradient is inf
    scaler.update()
    assert numeric_key("quiz-mixed-precision", "scale-after-skip") == scaler.get_scale()


def test_mixed_precision_quiz_memory_and_tf32_keys_match_torch():
    """After an AMP step with Adam, only the saved activations are 16-bit; TF32 changes no dtype."""
    question = load_quiz(load_exercise(EXERCISES / "quiz-mixed-precision")).question("what-amp-saves")
    assert question is not None
    model = torch.nn.Linear(8, 8)
    optimizer = torch.optim.Adam(model.parameters())
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t.dtype) or t, lambda t: t):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            loss = model(torch.randn(4, 8, requires_grad=True)).float().sum()
    loss.backward()
    optimizer.step()
    state = optimizer.state[model.weight]
    smaller = {"activations": torch.bfloat16 in saved, "weights": model.weight.dtype != torch.float32,
               "grads": model.weight.grad.dtype != torch.float32,
               "adam-state": state["exp_avg"].dtype != torch.float32}
    assert question.key_ids == {name for name, shrinks in smaller.items() if shrinks}
    before = torch.get_float32_matmul_precision()
    try:
        torch.set_float32_matmul_precision("high")
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.float32
    finally:
        torch.set_float32_matmul_precision(before)
