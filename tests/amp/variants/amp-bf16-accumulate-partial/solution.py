import torch


def train_one_epoch(model, loader, optimizer, criterion, device, accum_steps) -> float:
    """bfloat16 training, one step per accum_steps batches and one for the last, partial window."""
    model.train()
    total = 0.0
    batches = len(loader)
    full = batches - batches % accum_steps  # the batches that fill whole windows
    for i, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        window = accum_steps if i < full else batches - full  # the last window is smaller
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        (loss / window).backward()
        if (i + 1) % accum_steps == 0 or i + 1 == batches:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        total += loss.item()
    return total / batches
