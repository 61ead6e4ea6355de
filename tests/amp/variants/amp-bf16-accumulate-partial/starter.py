def train_one_epoch(model, loader, optimizer, criterion, device, accum_steps) -> float:
    """bfloat16 training, one step per accum_steps batches and one for the last, partial window."""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        # TODO: run the forward pass and the loss in bfloat16, divide the loss for accumulation,
        # and step once per window, the last (partial) window included.
        optimizer.zero_grad(set_to_none=True)
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)
