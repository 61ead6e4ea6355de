"""The checks an instructor needed (issue 37), on the two variants they built: each mistake named at its line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.amp.findings import LoopSpec
from grader.api import grade_code
from grader.loader import load_exercise
from grader.titles import check_titles

VARIANTS = Path(__file__).parent / "variants"
PARTIAL = VARIANTS / "amp-bf16-accumulate-partial"
ACCURACY = VARIANTS / "amp-eval-accuracy"
PARTIAL_SOLUTION = (PARTIAL / "solution.py").read_text(encoding="utf-8")
ACCURACY_SOLUTION = (ACCURACY / "solution.py").read_text(encoding="utf-8")

# A bfloat16 loop that keeps the fp16 recipe's GradScaler (the submission that once scored 1.0).
BF16_WITH_SCALER = '''import torch


def train_one_epoch(model, loader, optimizer, criterion, device, accum_steps) -> float:
    scaler = torch.amp.GradScaler("cuda")
    total = 0.0
    batches = len(loader)
    full = batches - batches % accum_steps
    for i, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        window = accum_steps if i < full else batches - full
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss / window).backward()
        if (i + 1) % accum_steps == 0 or i + 1 == batches:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
        total += loss.item()
    return total / batches
'''

# GPUTech's accumulation loop (tests/amp/realworld/amp-grad-accumulation/r01_...), source
# https://github.com/kobongsoo/GPUTech/blob/dfec2f50ee3bb5291e30a3fc4a293dcf539d059e/reference/gradient_accum_training_loop.py
# with the variant's signature and a bfloat16 autocast around its forward pass and loss: it steps
# the last, partial window (`batch_idx + 1 == len(data_loader)`), dividing its losses by k.
GPUTECH_BF16 = '''import torch


def train_one_epoch(model, loader, optimizer, criterion, device, accum_steps):
    data_loader = loader
    total = 0.0
    for batch_idx, (inputs, targets) in enumerate(data_loader):
        inputs = inputs.to(device)
        targets = targets.to(device)
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            preds = model(inputs)
            loss = criterion(preds, targets)
        total += loss.item()
        loss = loss / accum_steps
        loss.backward()
        if ((batch_idx + 1) % accum_steps == 0) or (batch_idx + 1 == len(data_loader)):
            optimizer.step()
            optimizer.zero_grad()
    return total / len(data_loader)
'''


def grade(folder: Path, code: str, lang: str = "en") -> dict:
    return grade_code(load_exercise(folder), code, lang=lang, sandbox="local")


def failing(doc: dict) -> dict[str, dict]:
    return {t["check"]: t for t in doc["tests"] if t["status"] in ("fail", "error")}


def swap(source: str, old: str, new: str) -> str:
    assert old in source, old
    return source.replace(old, new, 1)


def test_a_scaler_checks_needs_are_known_and_a_full_last_window_has_no_partial_one():
    assert LoopSpec(accumulate=4, batches=16).unmet(frozenset({"partial-window"})) == ["partial-window"]
    assert LoopSpec(accumulate=4, batches=10).partial_window == 2
    assert LoopSpec(accumulate=4, batches=10).unmet(frozenset({"partial-window", "accumulate"})) == []


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_gradscaler_in_a_bfloat16_loop_fails_at_its_line(lang: str):
    doc = grade(PARTIAL, BF16_WITH_SCALER, lang)
    found = failing(doc)
    assert set(found) == {"no-scaler-in-bf16"}, found
    assert found["no-scaler-in-bf16"]["line"] == 5
    assert ("creates a GradScaler on line 5" if lang == "en" else "5 行目で GradScaler を作っています") \
        in found["no-scaler-in-bf16"]["message"]
    assert doc["score"] < 1


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_last_partial_window_left_unstepped_fails_its_own_check_at_the_condition(lang: str):
    source = swap(PARTIAL_SOLUTION, " or i + 1 == batches:", ":")
    found = failing(grade(PARTIAL, source, lang))
    assert set(found) == {"last-window-stepped", "weights-match-reference"}, found
    condition = source.splitlines().index("        if (i + 1) % accum_steps == 0:") + 1
    assert found["last-window-stepped"]["line"] == condition
    assert found["weights-match-reference"]["line"] == condition  # not the def line
    words = ("The last 2 of the 10 batches (9-10) make a partial window" if lang == "en"
             else "10 バッチのうち最後の 2 バッチ（9〜10 番目）")
    assert words in found["last-window-stepped"]["message"], found["last-window-stepped"]["message"]


def test_a_real_loop_that_steps_its_last_window_passes_the_new_check():
    found = failing(grade(PARTIAL, GPUTECH_BF16))
    # It steps the last window; dividing it by k, not by its 2 batches, is what the weights show.
    assert set(found) == {"weights-match-reference"}, found


@pytest.mark.parametrize(("old", "new", "words"), [
    ("    return correct / seen", "    return correct / len(loader)",
     "returned 1.5, but the reference solution returns 0.1875"),
    ("(outputs.argmax(dim=1) == targets)", "(outputs.argmax(dim=1) != targets)",
     "returned 0.8125, but the reference solution returns 0.1875"),
], ids=["per-batch", "the-error-rate"])
def test_an_evaluation_that_returns_the_wrong_value_fails_at_its_return(old: str, new: str, words: str):
    source = swap(ACCURACY_SOLUTION, old, new)
    found = failing(grade(ACCURACY, source))
    assert set(found) == {"returns-like-reference"}, found
    assert found["returns-like-reference"]["line"] == len(source.rstrip().splitlines())
    assert words in found["returns-like-reference"]["message"], found["returns-like-reference"]["message"]


def test_an_evaluation_that_computes_no_loss_is_told_what_the_autocast_check_judged():
    doc = grade(ACCURACY, ACCURACY_SOLUTION)
    assert doc["status"] == "pass" and doc["score"] == 1.0
    assert any("judged the forward passes only" in note for note in doc["advice"]), doc["advice"]


def test_the_right_accuracy_as_a_tensor_is_told_to_be_a_python_number():
    source = swap(ACCURACY_SOLUTION, "    return correct / seen", "    return torch.tensor(correct / seen)")
    found = failing(grade(ACCURACY, source))
    assert set(found) == {"returns-like-reference"}, found
    assert "returned the right value as a Tensor" in found["returns-like-reference"]["message"]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_an_evaluations_standard_runs_title_names_its_function(tmp_path: Path, lang: str):
    # A new instructor's evaluation folder that leaves amp.runs' title to the grader: it once
    # read "train_one_epoch runs to the end" beside a function called evaluate.
    folder = tmp_path / ACCURACY.name
    shutil.copytree(ACCURACY, folder)
    test_file = next((folder / "tests").glob("test_*.py"))
    source = test_file.read_text(encoding="utf-8")
    test_file.write_text(swap(source, 'amp.runs(given=True, title={"en": "evaluate runs to the end", '
                                      '"ja": "evaluate が最後まで動く"})', "amp.runs(given=True)"), encoding="utf-8")
    expected = {"en": "evaluate runs to the end", "ja": "evaluate が最後まで動く"}[lang]
    runs = next(t for t in grade(folder, ACCURACY_SOLUTION, lang)["tests"] if t["check"] == "runs")
    assert runs["title"] == expected and runs["status"] == "pass"
    assert check_titles(load_exercise(folder), lang)["runs"] == expected  # the pages' titles agree
