def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    total = 0.0
    for inputs, targets in loader:
        total += criterion(model(inputs), targets).item()
    return total
