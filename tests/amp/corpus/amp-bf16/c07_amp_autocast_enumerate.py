# expect: pass
# torch.amp.autocast spelled with the device type positional, enumerate, and set_to_none=False.
import torch


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    total = 0.0
    for step, (inputs, targets) in enumerate(loader, start=1):
        optimizer.zero_grad(set_to_none=False)
        with torch.amp.autocast(device.type, dtype=torch.bfloat16):
            outputs = model(inputs.to(device))
            loss = criterion(outputs, targets.to(device))
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / step
