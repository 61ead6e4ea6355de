# source: https://github.com/renyuehe/python-Lesson/blob/87c6e1fffb51307c42bab60e24e9e91fdc666ed0/python_人工智能/pytorch库的学习/pytorch_之混合精度/01_auto_cast.py
#   the lesson's first AMP example: autocast, then loss.backward() and optimizer.step() with no
#   GradScaler (float16 on a GPU).
# changed: the example's loop becomes the exercise's function, with the batch moved to `device`;
#   `loss_fn` is `criterion`; the loss is summed for the returned mean.
# expect: fail backward-on-scaled-loss step-through-scaler
# advice: deprecated
from torch.cuda.amp import autocast as autocast


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    total = 0.0
    for input, target in loader:
        input, target = input.to(device), target.to(device)
        optimizer.zero_grad()

        with autocast():
            output = model(input)
            loss = criterion(output, target)

        loss.backward()  # <- backward-on-scaled-loss
        optimizer.step()  # <- step-through-scaler
        total += loss.item()
    return total / len(loader)
