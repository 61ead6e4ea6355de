# source: https://github.com/wonchul-kim/segmentation_framework/blob/cd5f1816581ac1da4a16484182dbc9fba361c887/src/pytorch/train.py
#   train_one_epoch returns `loss.item()` after the loop: the last batch's loss, not the mean.
# changed: the exercise's signature; the metric logger and the per-batch lr_scheduler.step() are
#   dropped (the exercise passes no scheduler); it returned (loss.item(), lr) and returns
#   loss.item().
# expect: fail mean-loss-returned
# advice: deprecated
# says: mean-loss-returned last batch
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    for batch in loader:
        if len(batch) == 3:
            image, target, fname = batch
        else:
            image, target = batch
            fname = None

        image, target = image.to(device), target.to(device)
        with torch.cuda.amp.autocast(enabled=scaler is not None):
            output = model(image)
            loss = criterion(output, target)

        optimizer.zero_grad()
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()

    return loss.item()  # <- mean-loss-returned
