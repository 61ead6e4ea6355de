# source: https://github.com/jerilseb/my-docs/blob/291dfd4d7bee248f0ec1e4c3315945b092a1ecd3/guidelines/pytorch.md
#   the guide's bfloat16 example: `from torch.cuda.amp import autocast`, then
#   autocast(device_type='cuda', ...), which that class does not accept (TypeError), and a plain
#   loss.backward() / optimizer.step() ("DO NOT use GradScaler").
# changed: the example's loop becomes the exercise's function (the tqdm bar is dropped); the loss
#   is summed for the returned mean.
# The crash hides nothing the source shows: in this exercise, with its GradScaler, the backward
# pass on the plain loss and the direct optimizer.step() are mistakes the static pass proves.
# expect: fail runs forward-in-autocast backward-on-scaled-loss step-through-scaler
# says: forward-in-autocast device_type
import torch
from torch import nn
from torch.cuda.amp import autocast


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    total = 0.0
    for batch_idx, (inputs, targets) in enumerate(loader, 1):
        inputs, targets = inputs.to(device), targets.to(device)

        optimizer.zero_grad()

        with autocast(device_type='cuda', dtype=torch.bfloat16):  # <- runs forward-in-autocast
            output = model(inputs)
            loss = nn.functional.cross_entropy(output, targets)

        loss.backward()  # <- backward-on-scaled-loss
        optimizer.step()  # <- step-through-scaler
        total += loss.item()
    return total / len(loader)
