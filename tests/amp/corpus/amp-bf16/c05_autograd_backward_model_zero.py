# expect: pass
# model.zero_grad() and torch.autograd.backward.
import torch


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        model.zero_grad(set_to_none=False)
        with torch.autocast(device.type, torch.bfloat16):
            loss = criterion(model(inputs), targets)
        torch.autograd.backward(loss)
        optimizer.step()
        total += loss.item()
    return total / len(loader)
