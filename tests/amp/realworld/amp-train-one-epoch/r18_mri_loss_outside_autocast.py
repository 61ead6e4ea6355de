# source: a public GitHub file held in this project's code-search index as file id 56047596878
#   (train_epoch of an MRI reconstruction model; the index does not name its repository):
#   `with _autocast(device, cfg.amp):` covers the model only; the loss is computed after the
#   block ("to prevent float16 overflow").
# changed: the exercise's signature (`cfg.amp` becomes the keyword `amp`, True); the model
#   returns one output and the loss is `criterion(refined, target)` (it was 1.0 x the refined
#   loss + 0.3 x a spectral head's, with k-space and mask inputs).
# On the CPU autocast runs in bfloat16: the loss is computed in bfloat16 instead of float32.
# expect: fail forward-in-autocast
# says: forward-in-autocast bfloat16
import torch
from torch import nn


def _autocast(device, enabled):
    return torch.amp.autocast(device_type=device.type, enabled=enabled)


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, amp=True):
    model.train()
    total = 0.0

    for kspace, target in loader:
        kspace = kspace.to(device)
        target = target.to(device)

        optimizer.zero_grad(set_to_none=True)
        with _autocast(device, amp):
            refined = model(kspace)

        # Compute loss outside autocast to prevent float16 overflow in spectral MSE
        loss = criterion(refined, target)  # <- forward-in-autocast

        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer); scaler.update()
        total += loss.item() * kspace.size(0)

    return total / len(loader.dataset)
