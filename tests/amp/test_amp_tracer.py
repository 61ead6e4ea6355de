"""The tracer in-process: every spelling seen, lines in the learner's file, torch restored."""

from __future__ import annotations

import torch

from grader.amp.tracer import Tracer
from tests.amp.amp_helpers import load_source, run_source

LOOP = '''
import torch
from torch.nn.utils import clip_grad_norm_
from torch.autograd import backward as bw


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    total = 0.0
    for inputs, targets in loader:
        optimizer.zero_grad()
        with {ctx}:
            loss = criterion(model(inputs), targets)
        {backward}
        scaler.unscale_(optimizer)
        clip_grad_norm_(model.parameters(), 100.0)
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
'''


def loop(ctx: str = "torch.autocast(device_type=device.type)",
         backward: str = "scaler.scale(loss).backward()") -> str:
    return LOOP.format(ctx=ctx, backward=backward)


def kinds(result: dict) -> list[str]:
    return [e["kind"] for e in result["events"]]


def test_one_iteration_in_order_with_learner_lines():
    result = run_source(loop(), batches=2)
    first = kinds(result)[: kinds(result).index("batch", 1)]
    assert first == ["batch", "zero-grad", "autocast-enter", "forward", "loss", "autocast-exit",
                     "scale", "backward", "unscale", "clip", "scaler-step", "optimizer-step",
                     "scaler-update"]
    lines = {e["kind"]: e["line"] for e in result["events"][:13]}
    assert lines == {"batch": 9, "zero-grad": 10, "autocast-enter": 11, "forward": 12, "loss": 12,
                     "autocast-exit": 11, "scale": 13, "backward": 13, "unscale": 14, "clip": 15,
                     "scaler-step": 16, "optimizer-step": 16, "scaler-update": 17}
    assert result["error"] is None and isinstance(result["returned"], float)


def test_every_autocast_spelling_is_seen():
    spellings = {
        "torch.autocast(device_type=device.type)": ("cpu", False),
        "torch.amp.autocast('cuda')": ("cuda", False),
        "torch.cuda.amp.autocast()": ("cuda", True),
        "torch.cpu.amp.autocast()": ("cpu", True),
    }
    for ctx, (device, deprecated) in spellings.items():
        enter = next(e for e in run_source(loop(ctx))["events"] if e["kind"] == "autocast-enter")
        assert enter["requested"]["device"] == device, ctx
        assert enter["deprecated"] is deprecated, ctx
        assert enter["enabled"] and enter["device"] == "cpu", ctx


def test_cuda_requests_run_on_the_cpu_with_the_precision_asked_for():
    result = run_source(loop("torch.autocast('cuda', dtype=torch.float16)"))
    enter = next(e for e in result["events"] if e["kind"] == "autocast-enter")
    forward = next(e for e in result["events"] if e["kind"] == "forward")
    assert enter["requested"] == {"device": "cuda", "dtype": "float16", "enabled": True}
    assert forward["autocast"] and forward["output_dtype"] == "float16"
    assert result["device"] == {"requested": "cuda", "used": "cpu", "mapped": True}


def test_scaler_made_for_cuda_is_enabled_on_the_cpu_stand_in():
    source = loop().replace("total = 0.0", "total = 0.0\n    scaler = torch.amp.GradScaler('cuda')")
    init = next(e for e in run_source(source)["events"] if e["kind"] == "scaler-init")
    assert init["requested"] == "cuda" and init["device"] == "cpu" and init["enabled"]


def test_decorator_built_before_tracing_is_reaimed():
    source = '''
import torch

@torch.autocast("cuda")
def forward(model, criterion, x, y):
    return criterion(model(x), y)

def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    for x, y in loader:
        loss = forward(model, criterion, x, y)
        scaler.scale(loss).backward()
'''
    events = run_source(source, batches=1)["events"]
    enter = next(e for e in events if e["kind"] == "autocast-enter")
    forward = next(e for e in events if e["kind"] == "forward")
    assert enter["via"] == "decorator" and enter["enabled"] and forward["autocast"]
    assert forward["line"] == 6


def test_backward_spellings_and_scaled_tensors():
    cases = {
        "scaler.scale(loss).backward()": (1, False),
        "torch.autograd.backward(scaler.scale(loss))": (1, False),
        "bw(scaler.scale(loss))": (1, False),
        "(scaler.scale(loss) / 2).backward()": (1, True),
        "loss.backward(); scaler.scale(loss)": (None, False),
    }
    for backward, (scaler, derived) in cases.items():
        result = run_source(loop(backward=backward), batches=1)
        event = next(e for e in result["events"] if e["kind"] == "backward")
        assert (event["scaled_by"], event["derived"]) == (scaler, derived), backward
        assert len([e for e in result["events"] if e["kind"] == "backward"]) == 1, backward


def test_direct_and_scaler_steps_are_told_apart():
    source = loop().replace("scaler.update()", "scaler.update()\n        optimizer.step()")
    steps = [e for e in run_source(source, batches=1)["events"] if e["kind"] == "optimizer-step"]
    assert [s["via_scaler"] for s in steps] == [True, False]


def test_model_casts_are_recorded_with_their_line():
    source = loop().replace("total = 0.0", "total = 0.0\n    model.to(torch.bfloat16)")
    cast = next(e for e in run_source(source, batches=1)["events"] if e["kind"] == "model-cast")
    assert cast["line"] == 9 and cast["after"] == ["bfloat16"] and cast["method"] == "to"


def test_clipping_knows_whether_gradients_were_unscaled():
    good = run_source(loop(), batches=1)["events"]
    bad = run_source(loop().replace("scaler.unscale_(optimizer)", "pass"), batches=1)["events"]
    assert next(e for e in good if e["kind"] == "clip")["unscaled"] is True
    assert next(e for e in bad if e["kind"] == "clip")["unscaled"] is False


def test_learner_exception_becomes_data_with_its_line():
    result = run_source(loop(backward="loss.backward()"), batches=2)
    assert result["error"]["type"] == "AssertionError"
    assert result["error"]["line"] == 14  # unscale_ is the first call that needs the scale
    assert "_scale is None" in result["error"]["message"]


def test_everything_is_restored_afterwards():
    originals = (torch.Tensor.backward, torch.autograd.backward, torch.Tensor.to,
                 torch.amp.GradScaler.step, torch.amp.autocast_mode.autocast.__init__,
                 torch.optim.Optimizer.zero_grad, torch.nn.Module._apply,
                 torch.nn.utils.clip_grad_norm_)
    module_cuda = torch.nn.Module.cuda
    module = load_source(loop())
    from_import = module.clip_grad_norm_
    with Tracer(model=torch.nn.Linear(2, 2), namespace=module.__dict__, cpu_for_cuda=True):
        assert module.clip_grad_norm_ is not from_import
        assert torch.Tensor.backward is not originals[0]
    assert (torch.Tensor.backward, torch.autograd.backward, torch.Tensor.to,
            torch.amp.GradScaler.step, torch.amp.autocast_mode.autocast.__init__,
            torch.optim.Optimizer.zero_grad, torch.nn.Module._apply,
            torch.nn.utils.clip_grad_norm_) == originals
    assert module.clip_grad_norm_ is from_import
    assert "to" not in vars(torch.Tensor) and "cuda" not in vars(torch.Tensor)
    assert torch.nn.Module.cuda is module_cuda


def test_event_log_is_capped():
    source = '''
def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    for _ in range(30000):
        optimizer.zero_grad()
'''
    result = run_source(source, batches=1)
    assert result["truncated"] and len(result["events"]) == 20_000
