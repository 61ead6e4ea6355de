# source: a public GitHub file held in this project's code-search index as file id 24123881055
#   (a module-level AMP training sketch; the index does not name its repository): the scaled
#   loss's backward is spelt `backword`.
# changed: the sketch's `model()` / `criterion()` placeholders and its epoch loop become the
#   exercise's function over `loader`, with the batch moved to `device`; the GradScaler is
#   `scaler`; the loss is summed for the returned mean.
# expect: fail runs
# advice: deprecated
# says: runs `backword()` does not exist; the method is `backward()`
# (Labelled `runs backward-on-scaled-loss` before grading. A typo is an ordinary Python error
# by this grader's rule (tests/amp/test_amp_review.py: no AMP check is blamed for it), so only
# `runs` fails, and it names the method meant.)
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():
            output = model(inputs)
            loss = criterion(output, targets)
        scaler.scale(loss).backword()  # <- runs

        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
