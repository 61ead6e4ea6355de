"""Feedback that real training loops need (issue 23), in-process: each mistake at its line, en and ja."""

from __future__ import annotations

import pytest

from grader.amp.static import StaticInfo
from grader.amp.timeline import skip_cause
from tests.amp.amp_helpers import review_source, run_source

GOOD = '''import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    total = 0.0
    for inputs, targets in loader:
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
'''


def edit(old: str, new: str, source: str = GOOD) -> str:
    assert old in source
    return source.replace(old, new)


def failing(review) -> dict:
    # GOOD leaves the batch where the loader put it: batch-on-device's concern, not these tests'.
    return {slug: f for slug, f in review.all().items() if f.status == "fail" and slug != "batch-on-device"}


@pytest.mark.parametrize("code, line, text", [
    ("    if device.type == 'cuda':\n        ctx = torch.autocast('cuda')\n", 1, "device.type == 'cuda'"),
    ("    ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(device_type)\n", 1,
     "device_type == 'cpu'"),
    ("    ctx = torch.autocast('cuda', enabled=torch.cuda.is_available())\n", 1, "torch.cuda.is_available()"),
    ("    use_amp = device.type == 'cuda'\n    ctx = torch.autocast('cuda', enabled=use_amp)\n", 1,
     "use_amp = device.type == 'cuda'"),
])
def test_a_machine_test_around_autocast_is_found_with_its_line(code: str, line: int, text: str):
    source = "def f(device):\n" + code
    switches = StaticInfo.from_source(source).switches
    assert [(s.line - 1, s.text) for s in switches] == [(line, text)]


def test_a_flag_that_is_not_a_machine_test_is_no_switch():
    source = "def f(args):\n    ctx = torch.autocast('cuda', enabled=args.amp)\n"
    assert StaticInfo.from_source(source).switches == []


def test_the_division_a_return_hands_back_is_found_where_it_is_written():
    source = ("def f(xs):\n    total = sum(xs)\n    mean = total / n_samples\n    return mean\n\n\n"
              "def g(xs):\n    return sum(xs) / i\n")
    divisions = StaticInfo.from_source(source).divisions
    assert (divisions["f"].line, divisions["f"].divisor) == (3, "n_samples")
    assert (divisions["g"].line, divisions["g"].divisor) == (8, "i")


def test_amp_switched_off_on_the_cpu_names_the_condition_and_its_line():
    review = review_source(edit("        with torch.autocast(device_type=device.type):",
                                "        with torch.autocast(device_type=device.type, enabled=device.type == 'cuda'):"))
    found = failing(review)
    assert set(found) == {"forward-in-autocast"}
    message = found["forward-in-autocast"].message
    assert found["forward-in-autocast"].line == 8
    assert "`device.type == 'cuda'` on line 8" in message["en"] and "CPU" in message["en"]
    assert "8 行目の `device.type == 'cuda'`" in message["ja"]


@pytest.mark.parametrize("device, dtype", [("cpu", "bfloat16"), ("cuda", "float16")])
def test_a_loss_after_the_autocast_block_fails_at_the_loss_line(device: str, dtype: str):
    source = edit("            outputs = model(inputs)\n            loss = criterion(outputs, targets)\n",
                  "            outputs = model(inputs)\n        loss = criterion(outputs, targets)\n")
    source = source.replace("device_type=device.type", f"device_type='{device}'")
    found = failing(review_source(source))["forward-in-autocast"]
    assert found.line == 10 and f"on the {dtype} output" in found.message["en"]
    assert f"{dtype} の出力" in found.message["ja"]


def test_a_float16_loss_skips_steps_and_says_the_inf_is_its_own_gradient():
    source = edit("            outputs = model(inputs)\n            loss = criterion(outputs, targets)\n",
                  "            outputs = model(inputs)\n        loss = criterion(outputs, targets)\n")
    run = run_source(source.replace("device_type=device.type", "device_type='cuda'"))
    cause = skip_cause(run["events"])
    assert cause is not None
    assert "the loss on line 10 is float16" in cause["en"] and "65536" in cause["en"]
    assert "10 行目の損失が float16" in cause["ja"]
    assert skip_cause(run_source(GOOD)["events"]) is None  # nothing skipped, nothing said


def test_an_extra_optimizer_step_beside_scaler_step_is_the_step_checks_not_updates():
    review = review_source(edit("        scaler.update()\n", "        scaler.update()\n        optimizer.step()\n"))
    found = failing(review)
    assert "update-after-step" not in found
    assert found["step-through-scaler"].line == 14


def test_a_crash_in_autocast_keeps_what_the_source_proves():
    source = edit("        with torch.autocast(device_type=device.type):",
                  "        with torch.cuda.amp.autocast(device_type='cuda'):")
    source = edit("        scaler.scale(loss).backward()\n        scaler.step(optimizer)\n        scaler.update()\n",
                  "        loss.backward()\n        optimizer.step()\n", source)
    review = review_source(source)
    found = failing(review)
    assert {slug: f.line for slug, f in found.items()} == {
        "forward-in-autocast": 8, "backward-on-scaled-loss": 11, "step-through-scaler": 12}
    assert "device_type=" in found["forward-in-autocast"].message["en"]
    assert "unexpected keyword" not in found["forward-in-autocast"].message["en"]
    assert review.runs().status == "fail" and review.runs().line == 8
    assert review.finding("zero-grad-each-iteration").status == "skip"  # needs the run


def test_a_mean_divided_by_the_last_index_points_at_the_division():
    source = edit("    total = 0.0\n    for inputs, targets in loader:",
                  "    total = 0.0\n    for i, (inputs, targets) in enumerate(loader):")
    source = edit("    return total / len(loader)", "    mean = total / i\n    return mean", source)
    found = failing(review_source(source))["mean-loss-returned"]
    assert found.line == 15
    assert "divided by 3 (`i` on line 15), not by the number of batches, 4" in found.message["en"]
