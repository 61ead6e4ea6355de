import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps) -> float:
    """accum_steps バッチごとに 1 回ステップする AMP 学習。バッチ損失の平均を返す。"""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        # TODO: オプティマイザの step の前に、accum_steps バッチ分の勾配を蓄積する。
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader)
