# source: a public GitHub file held in this project's code-search index as file id 48145188278
#   (train_epoch of a BEV segmentation model; the index does not name its repository):
#   `with autocast('cuda'):` covers the model only; the loss is computed after the block
#   ("BCELoss + Sigmoid incompatible with autocast"), on the float16 output.
# changed: the exercise's signature (`grad_accum_steps` keeps its default 1); the model returns
#   one output (it returned conditioning and a mask); the AverageMeter becomes a sum and a count;
#   the progress print is dropped.
# In float16 the loss itself is float16: its gradient, the loss scale 65536, is inf in float16,
# so the first steps are skipped and the weights fall behind the reference's.
# expect: fail forward-in-autocast weights-match-reference
# says: forward-in-autocast float16
# says: weights-match-reference float16
import torch
from torch.amp import autocast


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, grad_accum_steps=1):
    model.train()
    loss_sum, loss_count = 0.0, 0

    optimizer.zero_grad()

    for i, (bev, gt_mask) in enumerate(loader):
        bev = bev.to(device, non_blocking=True)
        gt_mask = gt_mask.to(device, non_blocking=True)

        # Mixed precision forward (only model forward, not loss)
        with autocast('cuda'):
            pred_mask = model(bev)

        # Loss outside autocast (BCELoss + Sigmoid incompatible with autocast)
        loss = criterion(pred_mask, gt_mask)  # <- forward-in-autocast weights-match-reference
        loss = loss / grad_accum_steps  # Normalize for accumulation

        # Backward with scaling
        scaler.scale(loss).backward()

        # Update weights every grad_accum_steps
        if (i + 1) % grad_accum_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()

        loss_sum += loss.item() * grad_accum_steps * bev.size(0)
        loss_count += bev.size(0)

    return loss_sum / loss_count
