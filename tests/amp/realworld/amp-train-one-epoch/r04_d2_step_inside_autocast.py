# source: https://github.com/AndreiCataron/D2/blob/522c76d5448007ae79c5aa18dd0818aa3bf7f5dc/train.py
#   train(): backward, step, update and zero_grad all run inside the autocast block, and the
#   epoch loss is the sum of batch losses divided by the number of samples.
# changed: the exercise's signature (`device` was a module global); the debug print of the
#   output shape and the final print are dropped; it returned (acc, loss) and returns loss.
# expect: fail backward-outside-autocast mean-loss-returned
# advice: deprecated
# says: mean-loss-returned 48
import torch
from torch.cuda.amp import autocast


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    net = model.train()
    loss_tr, correct_count, n_samples = 0.0, 0.0, 0.0

    for i, (inputs, labels) in enumerate(loader):
        inputs, labels = inputs.to(device), labels.to(device)

        with autocast():

            # forward + backward + optimize
            outputs = net(inputs)
            loss = criterion(outputs, labels)
            scaler.scale(loss).backward()  # <- backward-outside-autocast

            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()

            # calculate performance metrics
            loss_tr += loss.item()

            _, preds = torch.max(outputs.data, 1)
            correct_count += (preds == labels).sum().item()
            n_samples += labels.size(0)

    acc = 100 * correct_count / n_samples
    loss = loss_tr / n_samples  # <- mean-loss-returned

    return loss
