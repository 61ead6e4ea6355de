# expect: pass
# advice: clips
# bfloat16 with two extras nobody asked for: clipping (no scaler, so nothing to unscale) and a schedule.
import torch


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            loss = criterion(model(inputs), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        scheduler.step()
        total += loss.item()
    return total / len(loader)
