# Correct, in another style: model.zero_grad(set_to_none=True) after the step, len(loader).
def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    running = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        model.zero_grad(set_to_none=True)
        running.append(loss.item())
    return sum(running) / len(running)
