# source: https://github.com/osmhpi/megaclite/blob/7c4d77aebe06434945e126aee7f842728ca2cf46/dummy.py
#   the epoch loop prints `train_running_loss / i`, where i is the last index of enumerate():
#   one less than the number of batches.
# changed: the body of one epoch becomes the exercise's function; the GradScaler is `scaler`;
#   the accuracy helper is dropped; the loss the script printed is returned.
# expect: fail mean-loss-returned
# says: mean-loss-returned by 5
import torch
from torch import autocast


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    train_running_loss = 0.0
    model = model.train()
    for i, (images, labels) in enumerate(loader):
        images = images.to(device)
        labels = labels.to(device)

        with autocast(device_type="cuda", dtype=torch.float16):
            logits = model(images)
            loss = criterion(logits, labels)

        optimizer.zero_grad()
        scaler.scale(loss).backward()

        scaler.step(optimizer)
        scaler.update()

        train_running_loss += loss.detach().item()
    return train_running_loss / i  # <- mean-loss-returned
