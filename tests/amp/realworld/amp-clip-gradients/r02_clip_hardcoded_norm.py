# source: a public GitHub file held in this project's code-search index as file id 44707158788
#   (train_epoch(epoch, model, train_loader, criterion, optimizer, scaler, device); the index
#   does not name its repository): unscale_, then clip_grad_norm_ with max_norm=1.3 written in.
# changed: the exercise's signature (`max_norm` is taken and, as in the original, not used); the
#   BCE branch, accuracy and tqdm are dropped; it returned {'loss': ..., 'accuracy': ...} and
#   returns the loss.
# The protocol is right; the threshold is not the one asked for, so the weights differ.
# expect: fail weights-match-reference
# advice: deprecated
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, max_norm):  # <- weights-match-reference
    model.train()

    train_loss = 0

    for batch_idx, (data, target) in enumerate(loader):

        data, target = data.to(device), target.long().to(device)

        with torch.cuda.amp.autocast():
            output = model(data)

            loss = criterion(output, target)

        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)

        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.3)

        scaler.step(optimizer)
        scaler.update()

        optimizer.zero_grad()

        train_loss += loss.item()

    return train_loss / len(loader)
