# expect: fail forward-in-autocast
# The loss computed after the autocast block: the check's title says "the forward pass and the
# loss", so it fails at the loss line (it passed with advice until issue 23: the loss then runs
# in bfloat16 here, and in float16 on a GPU its gradient, the scale, overflows).
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
        loss = criterion(outputs, targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
