# expect: pass
# advice: clips
# Accumulation done right, plus clipping after unscale_ once per window (an extra).
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps):
    model.train()
    total = 0.0
    optimizer.zero_grad(set_to_none=True)
    for i, (inputs, targets) in enumerate(loader):
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs.to(device)), targets.to(device))
        scaler.scale(loss / accum_steps).backward()
        if (i + 1) % accum_steps == 0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
        total += loss.item()
    return total / len(loader)
