# source: a public GitHub file held in this project's code-search index as file id 8383055274
#   (a DenseNet-121 fine-tuning script, train.py; the index does not name its repository).
#   train_one_epoch runs AMP only `if amp and device.type == "cuda"`, else a float32 step.
# changed: the exercise's signature (`amp` keeps its name, True as with --amp; `epoch` dropped
#   with the progress print that used it).
# The grader runs on a CPU, where the prompt asks for bfloat16 with the scaler all the same: the
# float32 branch runs.
# expect: fail forward-in-autocast backward-on-scaled-loss step-through-scaler
# says: forward-in-autocast amp and device.type == "cuda"
# says: backward-on-scaled-loss device.type == "cuda"
import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, amp=True):
    model.train()
    running_loss = 0.0
    total_samples = 0

    for step, (images, labels) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)

        optimizer.zero_grad(set_to_none=True)

        if amp and device.type == "cuda":  # <- forward-in-autocast
            with torch.cuda.amp.autocast():
                logits = model(images)
                loss = criterion(logits, labels)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            logits = model(images)
            loss = criterion(logits, labels)
            loss.backward()  # <- backward-on-scaled-loss
            optimizer.step()  # <- step-through-scaler

        bs = labels.size(0)
        running_loss += loss.item() * bs
        total_samples += bs

    return running_loss / max(total_samples, 1)
