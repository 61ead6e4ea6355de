# expect: fail bf16-autocast
# No dtype: bfloat16 on a CPU by luck, float16 on a GPU.
import torch


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)
