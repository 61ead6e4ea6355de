"""The loss-scale timeline comes from a real traced run: one point per scaler.step, skips marked."""

from __future__ import annotations

import torch
from torch import nn

from grader.amp.timeline import scale_timeline
from grader.amp.tracer import Tracer


def run(new_scaler_each_step=False, poison=(), update=True):
    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with Tracer(model=model, cpu_for_cuda=True) as tracer:
        if not update:  # scaler.update() missing: torch raises at the second scaler.step
            scaler = torch.amp.GradScaler("cpu")
            try:
                for _ in range(3):
                    optimizer.zero_grad()
                    with torch.autocast("cpu", dtype=torch.bfloat16):
                        loss = model(torch.randn(3, 4)).float().pow(2).mean()
                    scaler.scale(loss).backward()
                    scaler.step(optimizer)
            except RuntimeError:
                pass
            return {"events": tracer.events}
        scaler = torch.amp.GradScaler("cpu", growth_interval=2)
        for i in range(6):
            if new_scaler_each_step:
                scaler = torch.amp.GradScaler("cpu", growth_interval=2)
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = model(torch.randn(3, 4)).float().pow(2).mean()
            scaler.scale(loss).backward()
            if i in poison:
                model.weight.grad[0, 0] = float("inf")
            scaler.step(optimizer)
            scaler.update()
    return {"events": tracer.events}


def test_scale_doubles_after_clean_steps_and_halves_at_a_skip():
    figure = scale_timeline(run(poison={3}))
    assert figure is not None and len(figure["series"]) == 1
    assert figure["series"][0]["points"] == [
        [1, 65536.0], [2, 65536.0], [3, 131072.0], [4, 131072.0], [5, 65536.0], [6, 65536.0]]
    assert [mark["x"] for mark in figure["marks"]] == [4]
    assert figure["marks"][0]["label"]["en"] == "skipped: inf/NaN gradient"


def test_a_step_that_crashed_is_not_called_an_inf_nan_skip():
    # Issue 25: with scaler.update() missing, step 2 raised, and the chart said "skipped: inf/NaN".
    figure = scale_timeline(run(update=False))
    assert [mark["x"] for mark in figure["marks"]] == [2]
    assert figure["marks"][0]["label"] == {"en": "stopped: scaler.step raised an error",
                                           "ja": "停止：scaler.step でエラー"}
    assert "not skipped for an inf or NaN gradient" in figure["note"]["en"]


def test_a_new_scaler_each_iteration_shows_as_many_lines():
    figure = scale_timeline(run(new_scaler_each_step=True))
    assert len(figure["series"]) == 6
    assert all(series["points"][0][1] == 65536.0 for series in figure["series"])


def test_no_enabled_scaler_no_figure():
    assert scale_timeline({"events": []}) is None
    assert scale_timeline({"events": "not a list"}) is None
