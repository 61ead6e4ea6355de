# source: https://github.com/renyuehe/python-Lesson/blob/87c6e1fffb51307c42bab60e24e9e91fdc666ed0/python_人工智能/pytorch库的学习/pytorch_之混合精度/01_auto_cast.py
#   autocast() with no dtype and no GradScaler: on a GPU that is float16 without loss scaling.
# changed: the example's loop becomes the exercise's function, with the batch moved to `device`;
#   `loss_fn` is `criterion`; the loss is summed for the returned mean.
# expect: fail bf16-autocast backward-on-scaled-loss
# advice: deprecated
from torch.cuda.amp import autocast as autocast


def train_one_epoch(model, loader, optimizer, criterion, device):
    total = 0.0
    for input, target in loader:
        input, target = input.to(device), target.to(device)
        optimizer.zero_grad()

        with autocast():  # <- bf16-autocast
            output = model(input)
            loss = criterion(output, target)

        loss.backward()  # <- backward-on-scaled-loss
        optimizer.step()
        total += loss.item()
    return total / len(loader)
