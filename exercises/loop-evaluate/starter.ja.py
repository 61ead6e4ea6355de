import torch


def evaluate(model, loader, criterion, device) -> tuple[float, float]:
    """`loader` のバッチ全体の平均損失と、サンプル全体の正解率。"""
    # TODO: モデルを評価モードにし、autograd の記録を止める。
    total_loss, batches = 0.0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs)
        total_loss += criterion(outputs, targets).item()
        batches += 1
        # TODO: 正しい予測の数とサンプル数を数える。
    # TODO: 正解率も返す。
    return total_loss / batches, 0.0
