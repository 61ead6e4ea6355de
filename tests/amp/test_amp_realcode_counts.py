"""Real loops the checks misjudged (issue 33, A-E), in-process: each verdict and line, en and ja."""

from __future__ import annotations

from grader.amp.trace import Trace
from tests.amp.amp_helpers import review_source
from tests.amp.test_amp_realcode import edit, failing

# nanoGPT's step (train.py): bfloat16 autocast, a plain backward, clipping, a direct step.
NANOGPT_STYLE = '''import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    total = 0.0
    for inputs, targets in loader:
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            logits = model(inputs)
            loss = criterion(logits, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        total += loss.item()
    return total / len(loader)
'''


def test_walking_the_loader_again_to_count_its_batches_is_no_skipped_batch():
    review = review_source(edit("    return total / len(loader)", "    return total / len(list(loader))"))
    assert failing(review) == {}
    assert len(review.trace.iterations) == 4
    assert review.finding("trains-every-batch").status == "pass"


def test_counting_the_batches_before_the_loop_leaves_the_iterations_whole():
    source = edit("    total = 0.0\n", "    total = 0.0\n    batches = len(list(loader))\n")
    review = review_source(edit("    return total / len(loader)", "    return total / batches", source))
    assert failing(review) == {}
    assert [it.index for it in review.trace.iterations] == [0, 1, 2, 3]


def test_a_walk_that_trains_nothing_still_fails_when_no_walk_trains():
    events = [{"kind": "batch", "seq": i, "line": 5, "walk": 0} for i in range(3)]
    trace = Trace.from_result({"events": events, "batches": 3})
    assert len(trace.iterations) == 3  # nothing trained anywhere: these are the loop's own batches


def test_clipping_in_a_loop_that_never_scales_is_no_unscale_mistake():
    review = review_source(NANOGPT_STYLE)
    found = failing(review)
    assert set(found) == {"backward-on-scaled-loss", "step-through-scaler"}
    assert review.finding("unscale-before-clip").status == "pass"
    assert review.finding("update-after-step").status == "skip"
    # Nothing was scaled: the step message must not say the gradients are still multiplied.
    assert "still multiplied" not in found["step-through-scaler"].message["en"]
    assert "ロススケールが掛かったまま" not in found["step-through-scaler"].message["ja"]


def test_clipping_scaled_gradients_still_fails():
    source = edit("        scaler.scale(loss).backward()\n",
                  "        scaler.scale(loss).backward()\n"
                  "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n")
    found = failing(review_source(source))
    assert found["unscale-before-clip"].line == 12


def test_a_direct_step_instead_of_scaler_step_is_one_failure_as_the_docs_say():
    # docs/grading.md: without scaler.step anywhere, update-after-step is skipped (the step check
    # names the one mistake); a direct step in one batch among scaler steps counts as a step.
    # (with scaler.update() kept, torch itself stops the loop: no inf checks were recorded)
    direct = edit("        scaler.step(optimizer)\n        scaler.update()\n", "        optimizer.step()\n")
    review = review_source(direct)
    assert set(failing(review)) == {"step-through-scaler"}
    skipped = review.finding("update-after-step")
    assert skipped.status == "skip"
    assert "no scaler step for an update to follow" in skipped.message["en"]
    mixed = edit("        scaler.step(optimizer)\n",
                 "        if len(targets) % 2:\n            optimizer.step()\n"
                 "        else:\n            scaler.step(optimizer)\n"
                 "            scaler.update()\n")
    mixed = edit("            scaler.update()\n        scaler.update()\n", "            scaler.update()\n", mixed)
    assert review_source(mixed).finding("update-after-step").status == "pass"


def test_a_wrapped_division_is_named_with_its_line_and_count():
    source = edit("    total = 0.0\n    for inputs, targets in loader:",
                  "    total = 0.0\n    for i, (inputs, targets) in enumerate(loader):")
    found = failing(review_source(edit("    return total / len(loader)", "    return float(total / i)", source)))
    assert found["mean-loss-returned"].line == 15
    assert "divided by 3 (`i` on line 15)" in found["mean-loss-returned"].message["en"]


def test_a_division_that_gives_no_whole_count_still_names_its_line_and_divisor():
    # Summing loss.item() * batch size, then dividing by the number of batches: 8 times the mean.
    source = edit("        total += loss.item()\n", "        total += loss.item() * inputs.size(0)\n")
    source = edit("    return total / len(loader)",
                  "    epoch_loss = total / len(loader)\n    return epoch_loss", source)
    found = failing(review_source(source))["mean-loss-returned"]
    assert found.line == 15
    assert "divided by `len(loader)` on line 15" in found.message["en"]
    assert "15 行目で `len(loader)` で割った" in found.message["ja"]



# lucidrains/denoising-diffusion-pytorch's trainer shape: batches from an endless cycle() helper,
# two backward passes added up before each step (tests/amp/realworld/.../r19_... is the full loop).
CYCLE_ACCUMULATES = '''import torch


def cycle(dl):
    while True:
        for data in dl:
            yield data


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    dl = cycle(loader)
    total = 0.0
    for step in range(len(loader) // 2):
        for _ in range(2):
            inputs, targets = next(dl)
            with torch.autocast(device_type=device.type):
                loss = criterion(model(inputs), targets) / 2
            scaler.scale(loss).backward()
            total += loss.item()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
    return total / (len(loader) // 2)
'''


def test_batches_from_a_generator_helper_belong_to_the_loop_that_consumes_them():
    review = review_source(CYCLE_ACCUMULATES)
    assert {it.line for it in review.trace.iterations} == {15}  # `next(dl)`, not the helper's `for`


def test_two_batches_added_up_before_each_step_are_named_gradient_accumulation():
    found = failing(review_source(CYCLE_ACCUMULATES))
    step = found["step-through-scaler"]
    assert step.line == 20
    assert "runs once for 2 batches" in step.message["en"] and "(gradient accumulation)" in step.message["en"]
    assert "（勾配累積）" in step.message["ja"]


def test_a_count_of_the_batches_inside_the_loop_is_no_skipped_batch_either():
    # A progress print that counts the batches at the top of every iteration walks the loader
    # each time, before that iteration's training.
    source = edit("    for inputs, targets in loader:\n",
                  "    for inputs, targets in loader:\n        print(f'one of {len(list(loader))} batches')\n")
    review = review_source(source)
    assert failing(review) == {}
    assert len(review.trace.iterations) == 4


def test_a_sum_of_divided_losses_is_marked_where_it_is_added_up():
    # tests/amp/corpus/amp-grad-accumulation/b06: the loss is divided by accum_steps for backward,
    # and that divided loss is what the loop adds up.
    from pathlib import Path

    from grader.amp.findings import LoopSpec

    source = (Path(__file__).parent / "corpus" / "amp-grad-accumulation" / "b06_returns_divided_mean.py").read_text(
        encoding="utf-8")
    review = review_source(source, LoopSpec(accumulate=2), kwargs={"accum_steps": 2}, batches=4)
    found = review.finding("mean-loss-returned")
    assert found.status == "fail"
    assert source.splitlines()[found.line - 1].strip() == "total += loss.item()"
    assert "divided by 2" in found.message["en"]
