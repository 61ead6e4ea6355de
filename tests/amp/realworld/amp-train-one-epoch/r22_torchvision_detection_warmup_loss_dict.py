# source: https://github.com/pytorch/vision/blob/08eb80315bc838623d908c6e81bd119d98057bd7/references/detection/engine.py
#   train_one_epoch of torchvision's detection recipe: in the first epoch a LinearLR warm-up
#   scheduler stepped after every batch; the model's loss dict summed under autocast; the
#   GradScaler's scale/step/update; a stop on a non-finite loss.
# changed: the exercise's signature (`data_loader` is `loader`, epoch 0, the print frequency
#   dropped); a classifier instead of a detector: the loss dict holds criterion(outputs, targets),
#   the one loss, and the batch is a tensor (not a list of images and target dicts); the
#   distributed reduce_dict is the dict itself (one process); the metric logger becomes a sum
#   for the returned mean.
# expect: pass
# advice: scheduler
# advice: deprecated
import math
import sys

import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    data_loader = loader
    epoch = 0
    total, batches = 0.0, 0

    lr_scheduler = None
    if epoch == 0:
        warmup_factor = 1.0 / 1000
        warmup_iters = min(1000, len(data_loader) - 1)

        lr_scheduler = torch.optim.lr_scheduler.LinearLR(
            optimizer, start_factor=warmup_factor, total_iters=warmup_iters
        )

    for images, targets in data_loader:
        images = images.to(device)
        targets = targets.to(device)
        with torch.cuda.amp.autocast(enabled=scaler is not None):
            outputs = model(images)
            loss_dict = {"loss_classifier": criterion(outputs, targets)}
            losses = sum(loss for loss in loss_dict.values())

        loss_dict_reduced = loss_dict
        losses_reduced = sum(loss for loss in loss_dict_reduced.values())

        loss_value = losses_reduced.item()

        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            print(loss_dict_reduced)
            sys.exit(1)

        optimizer.zero_grad()
        if scaler is not None:
            scaler.scale(losses).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            losses.backward()
            optimizer.step()

        if lr_scheduler is not None:
            lr_scheduler.step()

        total += loss_value
        batches += 1

    return total / batches
