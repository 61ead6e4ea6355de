# source: a public GitHub file held in this project's code-search index as file id 43997403408
#   (one_epoch(model, criterion, optimizer, dataloaders, scaler, device); the index does not name
#   its repository). Backward, step and update sit inside the autocast block.
# changed: the exercise's signature (`dataloaders['train']` is `loader`).
# expect: fail backward-outside-autocast
# advice: deprecated
from torch.cuda.amp import autocast


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
        model.train()
        running_loss = 0.0
        train_size = 0
        for inputs, labels in loader:
            inputs = inputs.to(device)
            labels = labels.to(device)

            optimizer.zero_grad()
            with autocast():
                outputs = model(inputs)

                loss = criterion(outputs, labels)

                scaler.scale(loss).backward()  # <- backward-outside-autocast
                scaler.step(optimizer)
                scaler.update()

            running_loss += loss.item() * inputs.size(0)
            train_size += inputs.size(0)

        epoch_loss_train = running_loss / train_size

        return epoch_loss_train
