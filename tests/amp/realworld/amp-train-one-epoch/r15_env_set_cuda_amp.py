# source: https://github.com/HFtion/Env_set/blob/fbc49b9401946aabaa9237980665284b0728efb4/pytorch/autocast.py
#   the textbook GradScaler loop, with the torch.cuda.amp spellings.
# changed: the epoch body becomes the exercise's function (`loader_train` keeps its name); the
#   GradScaler is `scaler`; the loss is summed for the returned mean.
# expect: pass
# advice: deprecated
from torch.cuda.amp import autocast


def train_one_epoch(model, loader_train, optimizer, criterion, scaler, device):
    model.train()
    total = 0.0
    for i, (images, labels) in enumerate(loader_train):
        images = images.to(device)
        labels = labels.to(device)

        optimizer.zero_grad()

        with autocast():
            output = model(images)
            loss = criterion(output, labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        total += loss.item()
    return total / len(loader_train)
