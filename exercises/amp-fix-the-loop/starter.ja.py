import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device) -> float:
    """混合精度学習を 1 エポック行い、バッチ全体の平均損失を返す。"""
    model.train()
    optimizer.zero_grad(set_to_none=True)
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        scaler = torch.amp.GradScaler(device.type)
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
            scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
