import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps) -> float:
    """AMP training that steps once every accum_steps batches; returns the mean batch loss."""
    model.train()
    total = 0.0
    optimizer.zero_grad(set_to_none=True)
    for i, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
            # Each micro-batch contributes 1/k of the gradient: the sum of k of them is a mean.
            micro_loss = loss / accum_steps
        # Every micro-batch's loss is scaled: the gradients add up at the same scale.
        scaler.scale(micro_loss).backward()
        if (i + 1) % accum_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
        total += loss.item()
    return total / len(loader)
