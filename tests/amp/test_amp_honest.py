"""In process: untrained loops earn no protocol passes; the reference replays legitimate extras."""

from __future__ import annotations

import types

import torch

from grader.amp.checks import all_checks
from grader.amp.findings import LoopSpec
from grader.amp.outcome import extras, reference_run, weights_match
from tests.amp.amp_helpers import PARAMS, load_source, review_source, run_source

EMPTY = "def train_one_epoch(model, loader, optimizer, criterion, scaler, device):\n    pass\n"
FORWARD_ONLY = '''def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    total = 0.0
    for inputs, targets in loader:
        total += criterion(model(inputs), targets).item()
    return total / len(loader)
'''
REFERENCE = '''import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
'''
EXTRAS = REFERENCE.replace("    total = 0.0\n", "    total = 0.0\n    scheduler = torch.optim.lr_scheduler.StepLR("
                           "optimizer, 1, gamma=0.5)\n", 1).replace(
    "        scaler.step(optimizer)\n",
    "        scaler.unscale_(optimizer)\n        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.05)\n"
    "        scaler.step(optimizer)\n").replace("        scaler.update()\n",
                                               "        scaler.update()\n        scheduler.step()\n")


def test_no_protocol_check_passes_for_a_loop_that_never_trains():
    for source in (EMPTY, FORWARD_ONLY):
        review = review_source(source)
        assert not review.trained
        passing = [slug for slug in all_checks() if review.finding(slug).status == "pass"]
        assert passing == [], (source, passing)


def test_the_reference_replays_clipping_and_schedules_but_not_mistakes():
    solution = types.SimpleNamespace(train_one_epoch=load_source(REFERENCE).train_one_epoch)
    trained = run_source(EXTRAS)
    found = extras(trained)
    assert set(found) == {"lr", "clip"} and found["clip"][0]["limit"] == 0.05
    assert found["lr"][1] == [found["lr"][0][0] * 0.5]
    reference = reference_run(solution, PARAMS, like=trained)
    assert reference["extras"] == ["clip", "lr"]
    assert weights_match(trained, reference, line=1).status == "pass"
    plain = reference_run(solution, PARAMS)  # without the extras the same loop is far off
    assert weights_match(trained, plain, line=1).status == "fail"
    # clipping the exercise asks for is graded, not replayed; scaled clipping is a mistake
    assert "clip" not in extras(trained, clip_asked=True)
    scaled = run_source(EXTRAS.replace("        scaler.unscale_(optimizer)\n", ""))
    assert "clip" not in extras(scaled)


def test_an_accumulating_spec_is_untouched_by_the_gate():
    review = review_source(REFERENCE, LoopSpec(accumulate=1))
    assert review.trained and all(f.status == "pass" for f in review.all().values()
                                  if f.slug not in ("bf16-autocast", "accumulation-window"))
    assert torch.is_tensor(run_source(REFERENCE)["state"]["0.weight"])
