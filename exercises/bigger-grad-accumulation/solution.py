def train_accumulated(model, micro_batches, optimizer, criterion, accum_steps: int) -> None:
    """Train on micro-batches, stepping once every `accum_steps` of them."""
    model.train()
    optimizer.zero_grad()
    for i, (inputs, targets) in enumerate(micro_batches):
        loss = criterion(model(inputs), targets) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
