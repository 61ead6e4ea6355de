"""The AMP checks on small loops in-process: each mistake named, on its line, in both languages."""

from __future__ import annotations

import pytest

from grader.amp.checks import all_checks
from grader.amp.findings import LoopSpec
from grader.amp.review import Review
from grader.amp.static import StaticInfo
from grader.amp.trace import Trace, TraceError
from tests.amp.amp_helpers import review_source

GOOD = '''import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    total = 0.0
    for inputs, targets in loader:
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
'''
# The AMP protocol: GOOD is a minimal loop that leaves out model.train() and the batch's move,
# which train-mode and batch-on-device judge (tests/amp/test_amp_mode.py).
# Only the checks whose question applies to a plain fp16 training loop with a scaler (LoopSpec()).
PROTOCOL = [s for s, check in all_checks().items() if not LoopSpec().unmet(check.needs)
            and s not in ("train-mode", "batch-on-device")]


def edit(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


def failing(review: Review) -> dict[str, int | None]:
    return {slug: f.line for slug, f in review.all(PROTOCOL).items() if f.status == "fail"}


def test_the_reference_loop_passes_every_check():
    assert failing(review_source(GOOD)) == {}


MISTAKES = [
    # (old, new, the only failing slug, the line it must point at)
    ("            loss = criterion(model(inputs), targets)\n        scaler.scale(loss).backward()",
     "            loss = criterion(model(inputs), targets)\n            "
     "scaler.scale(loss).backward()",
     "backward-outside-autocast", 10),
    ("        with torch.autocast(device_type=device.type):\n            loss = "
     "criterion(model(inputs), targets)",
     "        outputs = model(inputs)\n        with torch.autocast(device_type=device.type):\n"
     "            loss = criterion(outputs, targets)", "forward-in-autocast", 8),
    ("scaler.scale(loss).backward()", "loss.backward()", "backward-on-scaled-loss", 10),
    ("scaler.step(optimizer)", "optimizer.step()", "step-through-scaler", 11),
    ("        scaler.update()\n", "", "update-after-step", 11),
    ("        optimizer.zero_grad()\n", "", "zero-grad-each-iteration", 9),
    ("    total = 0.0\n", "    total = 0.0\n    model.half()\n", "fp32-master-weights", 6),
    ("        optimizer.zero_grad()\n", "        optimizer.zero_grad()\n        scaler = "
                                        "torch.amp.GradScaler()\n",
     "one-scaler", 8),
    ("        scaler.step(optimizer)",
     "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n        "
     "scaler.step(optimizer)",
     "unscale-before-clip", 11),
    ("    return total / len(loader)", "    return total", "mean-loss-returned", 14),
    ("    for inputs, targets in loader:\n",
     "    for step, (inputs, targets) in enumerate(loader):\n        if step == 1:\n            "
     "continue\n",
     "trains-every-batch", 6),
]


@pytest.mark.parametrize(("old", "new", "slug", "line"), MISTAKES, ids=[m[2] for m in MISTAKES])
def test_each_mistake_fails_exactly_its_check(old, new, slug, line):
    review = review_source(edit(old, new))
    found = failing(review)
    if slug == "trains-every-batch":  # the skipped batch's loss is missing from the mean too
        found.pop("mean-loss-returned", None)
    assert set(found) == {slug}
    assert found[slug] == line
    finding = review.finding(slug)
    assert finding.message["en"] and finding.message["ja"]
    assert str(line) in finding.message["en"]
    for raw in ("_scale is None", "No inf checks", "AssertionError", "Traceback"):
        assert raw not in finding.message["en"]


def test_a_crash_is_explained_by_the_check_it_belongs_to_and_others_wait():
    review = review_source(edit("scaler.update()", "pass"))
    assert review.trace.raised and review.crash.slug == "update-after-step"
    # Named by its title, never its id (issue 25): learners know checks by what the cards say.
    runs = review.runs()
    assert runs.status == "fail" and "“scaler.update() runs once per step, after scaler.step()”" in runs.message["en"]
    assert "update-after-step" not in runs.message["en"] and "update-after-step" not in runs.message["ja"]
    assert review.finding("mean-loss-returned").status == "skip"
    assert review.finding("forward-in-autocast").status == "pass"


def test_an_ordinary_python_error_is_not_blamed_on_amp():
    review = review_source(edit("scaler.step(optimizer)", "scaler.stepp(optimizer)"))
    assert review.crash is None
    assert "AttributeError" in review.runs().message["en"]
    assert failing(review) == {}


def test_deprecated_spellings_pass_with_advice():
    old_spelling = edit("torch.autocast(device_type=device.type)", "torch.cuda.amp.autocast()")
    review = review_source(old_spelling)
    assert failing(review) == {}
    assert any("deprecated" in note["en"] and note["ja"] for note in review.advice)


def test_bf16_without_a_scaler_is_accepted_and_fp16_without_one_is_not():
    bf16 = '''import torch


def train_one_epoch(model, loader, optimizer, criterion, device):
    for inputs, targets in loader:
        optimizer.zero_grad()
        with torch.autocast(device_type="cuda", dtype=DTYPE):
            loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
'''
    spec = LoopSpec(require_scaler=False)
    good = review_source(bf16.replace("DTYPE", "torch.bfloat16"), spec, scaler=False)
    bad = review_source(bf16.replace("DTYPE", "torch.float16"), spec, scaler=False)
    assert good.finding("backward-on-scaled-loss").status == "pass"
    assert good.finding("bf16-autocast").status == "pass"
    assert bad.finding("backward-on-scaled-loss").status == "fail"
    assert bad.finding("bf16-autocast").line == 7


def test_trace_from_an_untrusted_runner_is_validated():
    with pytest.raises(TraceError):
        Trace.from_result({"events": [{"kind": "made-up", "seq": 0}], "batches": 1})
    with pytest.raises(TraceError):
        Trace.from_result({"events": [{"kind": "batch", "line": "12"}], "batches": 1})
    with pytest.raises(TraceError):
        Trace.from_result(["not", "a", "dict"])


def test_static_pass_finds_blocks_loops_and_aliases():
    source = '''from torch import autocast as ac
import torch

@torch.autocast("cuda")
def helper(model, x):
    return model(x)

def train(loader, scaler):
    for x in loader:
        with ac("cuda"):
            y = helper(x)
        scaler.update()
    scaler.update()
'''
    info = StaticInfo.from_source(source)
    assert info.autocast_blocks == [(5, 6), (10, 11)]  # a decorated def starts at `def`
    assert info.loops == [(9, 12)]
    assert [c.line for c in info.find("update", in_loop=False)] == [13]
    assert info.autocast_block_of(11) == 10 and info.loop_of(12) == 9
    assert StaticInfo.from_source("def broken(:").ok is False
