import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device) -> float:
    """One epoch of mixed-precision training over `loader`; returns the mean loss over batches."""
    model.train()
    # float16 on CUDA (narrow range: needs the scaler); bfloat16 on CPU (autocast's default there, float32's range).
    amp_dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
    total, batches = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=amp_dtype):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
        batches += 1
    return total / max(batches, 1)
