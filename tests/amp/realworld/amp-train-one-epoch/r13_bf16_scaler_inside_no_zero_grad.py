# source: a public GitHub file held in this project's code-search index as file id 14728253699
#   (a suggested fix for a GPT train_one_epoch; the index does not name its repository): it makes
#   a GradScaler inside train_one_epoch ("# Add this") and never clears the gradients.
# changed: the exercise's signature; `model(batch[:, :-1])` and `criterion(...)` become the
#   (inputs, targets) batch moved to `device`, `model(inputs)` and `criterion(logits, targets)`;
#   the loss is summed for the returned mean.
# expect: fail one-scaler zero-grad-each-iteration
# (Labelled weights-match-reference too before grading; graded, the weights stay within the
# check's 1e-2 of the reference's: each step is clipped to a norm of 1.0, which bounds what the
# stale gradients add. The missing zero_grad is named by its own check.)
# advice: deprecated
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    scaler = torch.cuda.amp.GradScaler()  # <- one-scaler
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        with torch.autocast(device_type='cuda', dtype=torch.bfloat16):
            logits = model(inputs)
            loss = criterion(logits, targets)

        scaler.scale(loss).backward()  # <- zero-grad-each-iteration
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
