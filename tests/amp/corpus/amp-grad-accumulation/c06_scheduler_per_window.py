# expect: pass
# advice: learning
# Accumulation with a scheduler stepped once per optimizer step, and a batch counter.
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps):
    model.train()
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    losses = []
    seen = 0
    for inputs, targets in loader:
        seen += 1
        with torch.autocast(device_type=device.type):
            loss = criterion(model(inputs.to(device)), targets.to(device))
        scaled = scaler.scale(loss)
        (scaled / accum_steps).backward()
        losses.append(loss.item())
        if seen % accum_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            optimizer.zero_grad()
    return sum(losses) / len(losses)
