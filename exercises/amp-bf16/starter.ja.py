import torch


def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
    """GradScaler を使わない混合精度学習を 1 エポック行い、平均損失を返す。"""
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        # この float16 のループには GradScaler がない: 小さな勾配がアンダーフローして 0 になりうる。
        # TODO: スケーラーなしでも安全にする。
        with torch.autocast(device_type=device.type, dtype=torch.float16):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)
