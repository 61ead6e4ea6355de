# expect: fail bf16-autocast backward-on-scaled-loss
# autocast("cuda") with no dtype is float16 on a GPU; no scaler.
import torch


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)
