def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    """One epoch of float32 training over `loader`; returns the mean loss over the batches."""
    model.train()
    total, batches = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
        batches += 1
    return total / max(batches, 1)
