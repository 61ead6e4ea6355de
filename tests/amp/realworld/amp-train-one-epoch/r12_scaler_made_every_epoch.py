# source: a public GitHub file held in this project's code-search index as file id 25498931441
#   (train(args, loader, model, criterion, optimizer, epoch) of a normal-estimation project; the
#   index does not name its repository). A new GradScaler is made at every call of the epoch
#   function, so the loss scale restarts at 65536 each epoch.
# changed: the exercise's signature (`args.mixed_precision` becomes the keyword
#   `mixed_precision`, True); the project's batch parsing and its loss dict become (inputs,
#   targets) moved to `device` and `criterion(out_var, targets)`; the timer, tqdm bar and wandb
#   are dropped; `total_loss` adds loss.item() (it added the dict's float).
# expect: fail one-scaler
# advice: deprecated
import torch
from torch.cuda.amp import GradScaler, autocast


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, mixed_precision=True):
    model.train()
    total_loss = 0.
    scalar = GradScaler(enabled=mixed_precision)  # <- one-scaler
    for i, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)

        optimizer.zero_grad()
        with autocast(enabled=mixed_precision):
            out_var = model(inputs)
            loss = criterion(out_var, targets)

        scalar.scale(loss).backward()

        total_loss += loss.item()
        scalar.step(optimizer)
        scalar.update()

        iters = i + 1

    return total_loss / len(loader)
