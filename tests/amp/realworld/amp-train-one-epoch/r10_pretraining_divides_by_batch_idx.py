# source: a public GitHub file held in this project's code-search index as file id 36218010728
#   (a train_epoch / test_inpinting_epoch module of a self-supervised pretraining project; the
#   index does not name its repository). The mean divides by enumerate's last batch_idx.
# changed: the exercise's signature; `loss_func(inputs)` becomes the batch moved to `device` and
#   `criterion(net(inputs), targets)`.
# expect: fail mean-loss-returned
# advice: deprecated
# says: mean-loss-returned by 5
import torch
from torch.cuda.amp import autocast


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    net = model
    net.train()
    train_loss = 0
    total = 0
    for batch_idx, (inputs, targets) in enumerate(loader):
        batch_size = (inputs.size(0) if type(inputs)
                      is not list else inputs[0].size(0))
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        with autocast(enabled=True):
            loss = criterion(net(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += batch_size
        train_loss += loss.item()
    train_loss = train_loss/batch_idx  # <- mean-loss-returned
    return train_loss
