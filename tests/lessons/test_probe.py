"""The loop probe sees backward, step and train mode through hooks, whatever clears the grads."""

from __future__ import annotations

import torch
from torch import nn

from grader.scenarios.probe import LoopProbe, count, windows


def setup():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return model, optimizer, LoopProbe(model, optimizer)


def batch():
    return torch.randn(5, 3), torch.randint(0, 2, (5,))


def run(model, optimizer, order, batches=3):
    for _ in range(batches):
        inputs, targets = batch()
        for step in order:
            if step == "zero":
                optimizer.zero_grad()
            elif step == "model-zero":
                model.zero_grad(set_to_none=False)  # zeros, not None: still "clear"
            elif step == "backward":
                nn.functional.cross_entropy(model(inputs), targets).backward()
            else:
                optimizer.step()


def test_right_loop_gives_clean_backward_then_step():
    model, optimizer, probe = setup()
    run(model, optimizer, ["zero", "backward", "step"])
    report = probe.report()
    assert report["events"] == ["backward", "step"] * 3
    assert report["train_flags"] == [True] * 3
    assert windows(report["events"]) == [["backward", "step"]] * 3


def test_missing_zero_grad_is_seen_as_backward_on_old_grad():
    model, optimizer, probe = setup()
    run(model, optimizer, ["backward", "step"])
    assert count(probe.report()["events"], "backward-on-old-grad") == 2


def test_model_zero_grad_counts_as_clearing():
    model, optimizer, probe = setup()
    run(model, optimizer, ["model-zero", "backward", "step"])
    assert count(probe.report()["events"], "backward-on-old-grad") == 0


def test_zero_grad_between_backward_and_step_is_an_empty_step():
    model, optimizer, probe = setup()
    run(model, optimizer, ["backward", "zero", "step"])
    assert probe.report()["events"] == ["backward", "step-without-grad"] * 3


def test_eval_mode_and_removal():
    model, optimizer, probe = setup()
    model.eval()
    run(model, optimizer, ["zero", "backward", "step"], batches=1)
    probe.remove()
    run(model, optimizer, ["zero", "backward", "step"], batches=1)
    assert probe.report() == {"events": ["backward", "step"], "train_flags": [False],
                              "grad_flags": [True]}


def test_forward_under_no_grad_is_recorded():
    model, _, probe = setup()
    with torch.no_grad():
        model(torch.randn(2, 3))
    model(torch.randn(2, 3))
    assert probe.report()["grad_flags"] == [False, True]
