import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device) -> float:
    """`loader` で混合精度学習を 1 エポック行い、バッチ全体の平均損失を返す。"""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        # TODO: 勾配をクリアし、順伝播と損失の計算を autocast の中で行い、
        # そのあと backward、step、update を GradScaler を通して行う。
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        total += loss.item()
    # TODO: バッチ全体の平均損失を返す
    return total
