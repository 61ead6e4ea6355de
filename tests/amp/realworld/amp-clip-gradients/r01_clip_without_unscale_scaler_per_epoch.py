# source: a public GitHub file held in this project's code-search index as file id 49388447261
#   (train_epoch of a CLIP-prefix captioning model; the index does not name its repository): a
#   GradScaler is made inside train_epoch, and clip_grad_norm_ runs on the still-scaled gradients
#   (no unscale_), with max_norm=1.3 written in.
# changed: the exercise's signature (`max_norm` is taken and, as in the original, not used); the
#   model's own loss `model(prefix, tokens, mask)` becomes `criterion(model(inputs), targets)`
#   with the batch moved to `device`; the plotter, the LR scheduler, tqdm and the loss meter
#   become a sum for the returned mean.
# expect: fail unscale-before-clip one-scaler weights-match-reference
# advice: deprecated
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, max_norm):
    model.train()
    scaler = torch.cuda.amp.GradScaler()  # <- one-scaler
    total = 0.0

    for idx, (inputs, targets) in enumerate(loader):
        # Move tensors to device
        inputs, targets = inputs.to(device), targets.to(device)

        # Zero gradients
        optimizer.zero_grad()

        # Forward and backward pass with mixed precision
        with torch.autocast("cuda"):
            loss = criterion(model(inputs), targets)

        scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.3)  # <- unscale-before-clip weights-match-reference
        scaler.step(optimizer)
        scaler.update()

        total += loss.item()

    return total / len(loader)
