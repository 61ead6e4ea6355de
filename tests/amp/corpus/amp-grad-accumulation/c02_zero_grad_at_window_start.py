# expect: pass
# Gradients cleared at the start of each window instead of after the step.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps):
    model.train()
    total = 0.0
    for i, (inputs, targets) in enumerate(loader):
        if i % accum_steps == 0:
            optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs.to(device)), targets.to(device))
        scaler.scale(loss / accum_steps).backward()
        if (i + 1) % accum_steps == 0:
            scaler.step(optimizer)
            scaler.update()
        total += loss.item()
    return total / len(loader)
