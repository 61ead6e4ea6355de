# source: https://github.com/pytorch/vision/blob/017e9b99b5daddec3d82d5b05fe26f6834c48fa9/references/classification/train.py
#   train_one_epoch of torchvision's classification recipe at that commit: only the loss runs
#   under autocast, and optimizer.step() runs again after scaler.step(optimizer) and update().
# changed: the exercise's signature; `args.amp` is True and `args.clip_grad_norm` None (the
#   flags of an AMP run); the metric logger, EMA, timing and accuracy are dropped; the loss is
#   summed for the returned mean.
# expect: fail forward-in-autocast step-through-scaler weights-match-reference
# advice: deprecated
# says: step-through-scaler scaler.step(optimizer) on line 26
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    amp, clip_grad_norm = True, None
    total = 0.0
    for i, (image, target) in enumerate(loader):
        image, target = image.to(device), target.to(device)
        output = model(image)  # <- forward-in-autocast

        optimizer.zero_grad()
        if amp:
            with torch.cuda.amp.autocast():
                loss = criterion(output, target)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss = criterion(output, target)
            loss.backward()

        if clip_grad_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip_grad_norm)

        optimizer.step()  # <- step-through-scaler weights-match-reference
        total += loss.item()
    return total / len(loader)
