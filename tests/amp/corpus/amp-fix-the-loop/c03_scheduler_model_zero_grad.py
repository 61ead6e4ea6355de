# expect: pass
# advice: learning
# Fixed with model.zero_grad() and a OneCycle-like schedule via LambdaLR.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 0.5 ** step)
    total = 0.0
    for inputs, targets in loader:
        model.zero_grad()
        with torch.autocast(device_type=device.type):
            outputs = model(inputs.to(device))
            loss = criterion(outputs, targets.to(device))
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        total += loss.item()
    return total / len(loader)
