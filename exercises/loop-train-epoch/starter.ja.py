import torch


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    """`loader` で float32 の学習を 1 エポック行い、バッチ全体の平均損失を返す。"""
    # TODO: モデルが学習モードになっていることを確かめる。
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        # TODO: 勾配をクリアしてから、順伝播、損失、backward、step を行う。
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        total += loss.item()
    # TODO: 合計ではなく平均を返す。
    return total
