# expect: pass
# Losses kept as floats in a list; the mean at the end.
import statistics

import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    losses = []
    for batch in loader:
        inputs, targets = (t.to(device) for t in batch)
        optimizer.zero_grad()
        with torch.autocast(device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
    return statistics.fmean(losses)
