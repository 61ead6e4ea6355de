# expect: pass
# A micro-batch counter instead of enumerate, float16 on "cuda".
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps):
    model.train()
    total = 0.0
    micro = 0
    for inputs, targets in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = criterion(model(inputs.to(device)), targets.to(device))
        scaler.scale(loss / accum_steps).backward()
        micro += 1
        total += loss.item()
        if micro == accum_steps:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            micro = 0
    return total / len(loader)
