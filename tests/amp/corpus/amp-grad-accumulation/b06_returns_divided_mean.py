# expect: fail mean-loss-returned
# Returns the mean of the divided losses.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps):
    model.train()
    total = 0.0
    optimizer.zero_grad()
    for i, (inputs, targets) in enumerate(loader):
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs.to(device)), targets.to(device)) / accum_steps
        scaler.scale(loss).backward()
        if (i + 1) % accum_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        total += loss.item()
    return total / len(loader)
