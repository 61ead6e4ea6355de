import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, max_norm) -> float:
    """勾配ノルムを max_norm にクリップしながら AMP 学習を 1 エポック行い、平均損失を返す。"""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        scaler.scale(loss).backward()
        # TODO: オプティマイザの step の前に、勾配全体のノルムを max_norm にクリップする。
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
