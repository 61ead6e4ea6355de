# source: a public GitHub file held in this project's code-search index as file id 57554450946
#   (new_code/..., a binary classifier's train_one_epoch; the index does not name its
#   repository). Autocast is `enabled=device.type == "cuda"`: off on any other device.
# changed: the exercise's signature; the batch was a dict of five inputs for a five-input model
#   and a BCE loss on a reshaped logit, here (inputs, labels) and `criterion(logits, labels)`;
#   the probability and metric bookkeeping is dropped; it returned (avg_loss, metrics) and
#   returns avg_loss.
# expect: fail forward-in-autocast
# says: forward-in-autocast device.type == "cuda"
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    running_loss = 0.0
    sample_count = 0

    for images, labels in loader:
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)

        optimizer.zero_grad(set_to_none=True)

        with torch.cuda.amp.autocast(enabled=device.type == "cuda"):  # <- forward-in-autocast
            logits = model(images)
            loss = criterion(logits, labels)

        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()

        batch_size = labels.shape[0]
        running_loss += loss.item() * batch_size
        sample_count += batch_size

    avg_loss = running_loss / max(sample_count, 1)
    return avg_loss
