"""Clipping and accumulation checks in-process; torch's protocol errors mapped to mistakes."""

from __future__ import annotations

import pytest

from grader.amp.findings import LoopSpec
from tests.amp.amp_helpers import review_source

CLIP = '''import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, max_norm):
    for inputs, targets in loader:
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()
    return 0.0
'''
CLIP_SPEC = LoopSpec(require_clip=True)
UNSCALE = "        scaler.unscale_(optimizer)\n"
CLIPPING = "        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"


def clip_review(source: str):
    return review_source(source, CLIP_SPEC, kwargs={"max_norm": 0.25})


def test_clipping_after_unscale_passes():
    assert clip_review(CLIP).finding("unscale-before-clip").status == "pass"


@pytest.mark.parametrize(("old", "new", "line", "words"), [
    ("        scaler.unscale_(optimizer)\n", "", 10, "still multiplied"),
    (UNSCALE + CLIPPING, CLIPPING + UNSCALE, 10, "comes only afterwards"),
    (UNSCALE + CLIPPING, "", None, "never clipped"),
], ids=["no-unscale", "unscale-after", "no-clip"])
def test_clipping_mistakes_are_named(old, new, line, words):
    finding = clip_review(CLIP.replace(old, new)).finding("unscale-before-clip")
    assert finding.status == "fail"
    assert words in finding.message["en"] and finding.message["ja"]
    if line is not None:
        assert finding.line == line


ACCUMULATE = '''import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps):
    total = 0.0
    optimizer.zero_grad()
    for i, (inputs, targets) in enumerate(loader):
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        scaler.scale(loss / accum_steps).backward()
        if (i + 1) % accum_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        total += loss.item()
    return total / len(loader)
'''
ACCUM_SPEC = LoopSpec(accumulate=2)
ACCUM_SLUGS = ["accumulation-window", "zero-grad-each-iteration", "update-after-step",
               "step-through-scaler", "backward-on-scaled-loss", "mean-loss-returned"]


def accumulate_review(source: str):
    review = review_source(source, ACCUM_SPEC, kwargs={"accum_steps": 2}, batches=4)
    return {slug: f for slug, f in review.all(ACCUM_SLUGS).items() if f.status == "fail"}


def test_accumulation_recipe_passes():
    assert accumulate_review(ACCUMULATE) == {}


@pytest.mark.parametrize(("old", "new", "slug", "words"), [
    ("scaler.scale(loss / accum_steps)", "scaler.scale(loss)", "accumulation-window", "divide it"),
    ("        if (i + 1) % accum_steps == 0:\n            scaler.step(optimizer)\n            "
     "scaler.update()\n",
     "        scaler.step(optimizer)\n        scaler.update()\n        if (i + 1) % accum_steps "
     "== 0:\n",
     "accumulation-window", "should make one"),
    ("    for i, (inputs, targets) in enumerate(loader):\n",
     "    for i, (inputs, targets) in enumerate(loader):\n        optimizer.zero_grad()\n",
     "zero-grad-each-iteration", "every micro-batch"),
    ("    return total / len(loader)", "    return total / len(loader) / accum_steps",
     "mean-loss-returned", "divided by 2"),
], ids=["no-division", "step-every-batch", "zero-every-batch", "divided-mean"])
def test_accumulation_mistakes_fail_only_their_check(old, new, slug, words):
    assert old in ACCUMULATE
    failing = accumulate_review(ACCUMULATE.replace(old, new))
    assert set(failing) == {slug}
    assert words in failing[slug].message["en"]


GOOD = CLIP.replace(", max_norm):", "):").replace(UNSCALE + CLIPPING, "")


@pytest.mark.parametrize(("old", "new", "slug"), [
    ("scaler.scale(loss).backward()", "loss.backward()", "backward-on-scaled-loss"),
    ("scaler.step(optimizer)", "optimizer.step()", "step-through-scaler"),
    ("        scaler.update()\n", "", "update-after-step"),
    ("        scaler.update()\n", "        scaler.update()\n" * 2, "update-after-step"),
    ("scaler.step(optimizer)", "scaler.update(); scaler.step(optimizer)", "update-after-step"),
    ("        optimizer.zero_grad()\n        with", "        with", "zero-grad-each-iteration"),
    ("    for inputs", "    model.half()\n    for inputs", "fp32-master-weights"),
    ("torch.autocast(device_type=device.type)", "torch.autocast(torch.device('cpu'))",
     "forward-in-autocast"),
], ids=["unscaled", "direct-step", "no-update", "update-twice", "update-first", "zero-between",
        "half", "device-object"])
def test_torch_errors_are_explained_by_the_mistake(old, new, slug):
    source = GOOD.replace(old, new)
    if slug == "zero-grad-each-iteration":
        source = source.replace("        scaler.step", "        optimizer.zero_grad()\n        "
                                                       "scaler.step")
    review = review_source(source)
    assert review.trace.raised, "this mistake makes torch raise"
    assert review.crash is not None and review.crash.slug == slug
    finding = review.finding(slug)
    assert finding.status == "fail" and finding.line
    assert review.trace.error["message"].split(".")[0] not in finding.message["en"]
