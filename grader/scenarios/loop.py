"""Scenarios for lesson 2 (the training loop): a windowed Dataset, a plain FP32 epoch, a checkpoint.

Each builder is deterministic from its params, so the harness rebuilds the same objects to compute
the reference itself: what comes back from the learner's process is data to compare, never trusted.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from types import ModuleType
from typing import Any

import torch
from torch import nn
from torch.utils.data import DataLoader, RandomSampler, TensorDataset

from grader.amp.training import RecordingLoss  # the AMP scenarios' loss, which records each value
from grader.scenarios import scenario
from grader.scenarios.moves import BatchMoves, WatchedLoader
from grader.scenarios.probe import LoopProbe, float_state

IN_FEATURES, HIDDEN, CLASSES = 8, 16, 3


# -- loop-dataset ---------------------------------------------------------------------------
def make_series(params: dict[str, Any]) -> torch.Tensor:
    generator = torch.Generator().manual_seed(int(params.get("seed", 0)))
    return torch.randn(int(params.get("length", 20)), generator=generator)


def _describe(value: Any) -> Any:
    """A tensor as itself, anything else by its type name, so the harness can name the mistake."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    return {"type": type(value).__name__}


def _describe_item(item: Any) -> dict[str, Any]:
    if not isinstance(item, (tuple, list)) or len(item) != 2:
        return {"pair": False, "type": type(item).__name__}
    return {"pair": True, "x": _describe(item[0]), "y": _describe(item[1])}


@scenario("loop.dataset")
def dataset(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """Build the learner's WindowDataset; report one part: len, items, a batch or the loader."""
    data = submission.WindowDataset(make_series(params), int(params["window"]))
    part = params["part"]
    if part == "len":
        return {"len": len(data)}
    if part == "items":
        return {"items": [_describe_item(data[int(i)]) for i in params["indices"]]}
    if part == "batch":
        return {"batch": _describe_item(next(iter(DataLoader(data, batch_size=4))))}
    loader = submission.make_loader(data, int(params["batch_size"]))
    if not isinstance(loader, DataLoader):
        return {"is_loader": False, "type": type(loader).__name__}
    return {"is_loader": True, "batch_size": loader.batch_size,
            "shuffle": isinstance(loader.sampler, RandomSampler),
            "same_dataset": loader.dataset is data}


# -- loop-train-epoch -----------------------------------------------------------------------

def build_classifier(seed: int) -> nn.Module:
    torch.manual_seed(seed)
    # Dropout makes train() versus eval() visible in the weights after an epoch.
    return nn.Sequential(nn.Linear(IN_FEATURES, HIDDEN), nn.ReLU(), nn.Dropout(0.25),
                         nn.Linear(HIDDEN, CLASSES))


def make_batches(params: dict[str, Any]) -> TensorDataset:
    generator = torch.Generator().manual_seed(int(params.get("data_seed", 1)))
    n = int(params.get("batches", 5)) * int(params.get("batch_size", 8))
    inputs = torch.randn(n, IN_FEATURES, generator=generator)
    targets = torch.randint(0, CLASSES, (n,), generator=generator)
    return TensorDataset(inputs, targets)


def run_train_epoch(train: Callable[..., Any], params: dict[str, Any]) -> dict[str, Any]:
    """Train one epoch with `train` from a fixed start and report what happened, as data."""
    model = build_classifier(int(params.get("seed", 0)))
    model.eval()  # as after an evaluation pass: the learner's function must switch back
    moves = BatchMoves()
    loader = WatchedLoader(make_batches(params), batch_size=int(params.get("batch_size", 8)), moves=moves)
    optimizer = torch.optim.SGD(model.parameters(), lr=float(params.get("lr", 0.1)), momentum=0.9)
    criterion = RecordingLoss()
    probe = LoopProbe(model, optimizer)
    hooks = [model.register_forward_pre_hook(lambda module, args: moves.on_forward(args)),
             criterion.register_forward_pre_hook(lambda module, args: moves.on_forward(args[1:]))]
    torch.manual_seed(int(params.get("dropout_seed", 5)))  # same dropout masks as the reference
    try:
        with moves:
            returned = train(model, loader, optimizer, criterion, torch.device("cpu"))
    finally:
        probe.remove()
        for hook in hooks:
            hook.remove()
    if isinstance(returned, torch.Tensor):
        returned = returned.detach().float().cpu()
    return {"returned": returned, "losses": criterion.values, "batches": len(loader),
            "state": float_state(model), "unmoved_batches": moves.unmoved, **probe.report()}


@scenario("loop.train_epoch")
def train_epoch(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    return run_train_epoch(submission.train_one_epoch, params)


# -- loop-evaluate --------------------------------------------------------------------------
def evaluation_loader(params: dict[str, Any], moves: BatchMoves | None = None) -> DataLoader[Any]:
    # batch_size does not divide the data: the last batch is smaller, so the accuracy must be
    # counted over samples, not averaged over batches.
    return WatchedLoader(make_batches(params), batch_size=int(params.get("eval_batch_size", 7)), moves=moves)


@scenario("loop.evaluate")
def evaluate(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """Evaluate a model left in training mode with the learner's evaluate(); report what it did."""
    model = build_classifier(int(params.get("seed", 0)))
    model.train()  # as right after a training epoch: the learner's function must switch
    probe = LoopProbe(model)
    moves = BatchMoves()
    loader = evaluation_loader(params, moves)
    criterion = RecordingLoss()
    hooks = [model.register_forward_pre_hook(lambda module, args: moves.on_forward(args)),
             criterion.register_forward_pre_hook(lambda module, args: moves.on_forward(args[1:]))]
    try:
        with moves:
            returned = submission.evaluate(model, loader, criterion, torch.device("cpu"))
    finally:
        probe.remove()
        for hook in hooks:
            hook.remove()
    if isinstance(returned, (tuple, list)):
        returned = [v.detach().float().cpu() if isinstance(v, torch.Tensor) else v
                    for v in returned]
    elif isinstance(returned, torch.Tensor):
        returned = returned.detach().float().cpu()
    return {"returned": returned, "state": float_state(model), "unmoved_batches": moves.unmoved,
            **probe.report()}


def evaluation_reference(params: dict[str, Any]) -> dict[str, float]:
    """The mean batch loss and the accuracy over samples, computed in the harness."""
    model = build_classifier(int(params.get("seed", 0))).eval()
    losses, correct, total = [], 0, 0
    with torch.no_grad():
        for inputs, targets in evaluation_loader(params):
            logits = model(inputs)
            losses.append(float(nn.functional.cross_entropy(logits, targets)))
            correct += int((logits.argmax(dim=1) == targets).sum())
            total += len(targets)
    return {"loss": sum(losses) / len(losses), "accuracy": correct / total,
            "batch_accuracy_mean": _batch_accuracy_mean(model, params)}


def _batch_accuracy_mean(model: nn.Module, params: dict[str, Any]) -> float:
    """What averaging per-batch accuracies gives (wrong when the last batch is smaller)."""
    with torch.no_grad():
        values = [float((model(x).argmax(dim=1) == y).float().mean())
                  for x, y in evaluation_loader(params)]
    return sum(values) / len(values)


# -- loop-checkpoint ------------------------------------------------------------------------
def trained_pair(params: dict[str, Any], seed: int, steps: int) -> tuple[nn.Module, Any]:
    """A small model and its Adam optimizer after `steps` steps on fixed data."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(IN_FEATURES, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, CLASSES))
    optimizer = torch.optim.Adam(model.parameters(), lr=float(params.get("lr", 0.01)))
    data = make_batches(params)
    for step in range(steps):
        inputs, targets = data[step * 8:(step + 1) * 8]
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(inputs), targets).backward()
        optimizer.step()
    return model, optimizer


def optimizer_state(optimizer: torch.optim.Optimizer) -> dict[str, Any]:
    """Adam's per-parameter tensors keyed 'index.name' (the protocol wants string keys)."""
    flat: dict[str, Any] = {}
    for index, entries in optimizer.state_dict()["state"].items():
        for name, value in entries.items():
            flat[f"{index}.{name}"] = torch.as_tensor(value).detach().float().cpu()
    flat["lr"] = float(optimizer.param_groups[0]["lr"])
    return flat


def resume_and_step(model: nn.Module, optimizer: Any, params: dict[str, Any]) -> dict[str, Any]:
    """One more step after a restore: equal only if weights and optimizer state both came back."""
    inputs, targets = make_batches(params)[-8:]
    optimizer.zero_grad()
    nn.functional.cross_entropy(model(inputs), targets).backward()
    optimizer.step()
    return float_state(model)


@scenario("loop.checkpoint")
def checkpoint(submission: ModuleType, params: dict[str, Any]) -> dict[str, Any]:
    """Save with the learner's save_checkpoint, inspect the file, restore into a fresh model."""
    folder = tempfile.mkdtemp(prefix="ckpt-")
    path = os.path.join(folder, "checkpoint.pt")
    try:
        model, optimizer = trained_pair(params, int(params.get("seed", 0)), 3)
        submission.save_checkpoint(model, optimizer, int(params["epoch"]), path)
        report: dict[str, Any] = {"exists": os.path.isfile(path)}
        if not report["exists"] or params["part"] == "exists":
            return report
        try:  # what a careful reader does with a file from elsewhere: tensors and plain data only
            content = torch.load(path, weights_only=True)
        except Exception as exc:  # noqa: BLE001 -- any failure here is the finding itself
            return {**report, "weights_only": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
        report["weights_only"] = True
        report["keys"] = sorted(map(str, content)) if isinstance(content, dict) else None
        if params["part"] == "file":
            return report
        fresh, fresh_optimizer = trained_pair(params, int(params.get("seed", 0)) + 100, 0)
        returned = submission.load_checkpoint(fresh, fresh_optimizer, path)
        report["returned"] = returned if isinstance(returned, (int, float, str)) else repr(returned)
        report["model"] = float_state(fresh)
        report["optimizer"] = optimizer_state(fresh_optimizer)
        report["resumed"] = resume_and_step(fresh, fresh_optimizer, params)
        return report
    finally:
        shutil.rmtree(folder, ignore_errors=True)
