# expect: pass
# Written for a GPU: torch.amp.autocast("cuda", dtype=torch.bfloat16).
import torch


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    total = 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.amp.autocast("cuda", dtype=torch.bfloat16):
            outputs = model(inputs)
            loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)
