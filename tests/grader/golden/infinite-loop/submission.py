def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    while True:
        pass
