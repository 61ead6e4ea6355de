"""train-mode and batch-on-device on small loops in-process: what a CPU grader sees of a GPU loop."""

from __future__ import annotations

import pytest

from tests.amp.amp_helpers import review_source

GOOD = '''import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
'''
CHECKS = ("train-mode", "batch-on-device")


def statuses(source: str) -> dict[str, tuple[str, int | None]]:
    # The model arrives in evaluation mode, as exercises that ask for model.train() declare.
    review = review_source(source, handover="eval")
    return {slug: (review.finding(slug).status, review.finding(slug).line) for slug in CHECKS}


def test_a_loop_that_switches_and_moves_passes_both() -> None:
    assert statuses(GOOD) == {"train-mode": ("pass", None), "batch-on-device": ("pass", None)}


@pytest.mark.parametrize(("old", "new", "slug", "line"), [
    ("    model.train()\n", "", "train-mode", 4),
    ("        inputs, targets = inputs.to(device), targets.to(device)\n", "", "batch-on-device", 9),
    ("        inputs, targets = inputs.to(device), targets.to(device)\n",
     "        inputs.to(device)\n        targets = targets.to(device)\n", "batch-on-device", 11),
    ("        inputs, targets = inputs.to(device), targets.to(device)\n",
     "        inputs = inputs.to(device)\n", "batch-on-device", 10),
], ids=["no-train", "no-move", "to-not-assigned", "targets-unmoved"])
def test_each_mistake_fails_its_check_on_its_line(old: str, new: str, slug: str, line: int) -> None:
    assert old in GOOD
    got = statuses(GOOD.replace(old, new))
    assert got[slug] == ("fail", line)
    assert all(status == "pass" for other, (status, _line) in got.items() if other != slug)


@pytest.mark.parametrize("move", ["inputs.cuda(non_blocking=True)", "inputs.to(device=device)",
                                  "inputs.to(next(model.parameters()).device)",
                                  "inputs.to(device, torch.float32)"])
def test_every_spelling_of_a_move_counts(move: str) -> None:
    source = GOOD.replace("inputs, targets = inputs.to(device), targets.to(device)",
                          f"inputs, targets = {move}, targets.to(device)")
    assert statuses(source)["batch-on-device"] == ("pass", None)


def test_a_dtype_change_alone_is_not_a_move() -> None:
    source = GOOD.replace("inputs, targets = inputs.to(device), targets.to(device)",
                          "inputs, targets = inputs.to(torch.float32), targets.to(device)")
    assert statuses(source)["batch-on-device"][0] == "fail"


def test_by_default_the_model_arrives_in_training_mode() -> None:
    review = review_source(GOOD.replace("    model.train()\n", ""))
    assert review.finding("train-mode").status == "pass"
