# source: https://github.com/guyAmit/Self_Supervised_Pretraining/blob/9c10265b57929007c92395b81b2d2096f2da7a0d/code/training_utils.py
#   train_epoch: a correct GradScaler loop, mean over enumerate's batch_idx + 1.
# changed: the exercise's signature (`args.grade_scale` becomes the keyword `grade_scale`,
#   True); `loss_func(inputs)` (model and loss in one helper that also moved the batch) becomes
#   the batch moved to `device` and `criterion(net(inputs), targets)`.
# expect: pass
# advice: deprecated
import torch
from torch.cuda.amp import autocast


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, grade_scale=True):
    net = model
    net.train()
    train_loss = 0
    for batch_idx, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with autocast(enabled=grade_scale):
            loss = criterion(net(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        train_loss += loss.item()
    train_loss = train_loss/(batch_idx+1)
    return train_loss
