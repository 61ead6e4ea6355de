# source: https://github.com/lucidrains/denoising-diffusion-pytorch/blob/00318534658da10674c85b58e890f71df4c475d9/denoising_diffusion_pytorch/denoising_diffusion_pytorch.py
#   TrainerBase.train: batches come from `cycle(dl)`, an endless generator; each step runs
#   `gradient_accumulate_every` forward/backward passes on loss / gradient_accumulate_every, then
#   clips (accelerator.clip_grad_norm_, which unscales first), steps once and clears the gradients.
# changed: the exercise's signature; gradient_accumulate_every = 2 (the trainer's setting when
#   it accumulates) and len(loader) // 2 steps for one epoch; the Accelerator's fp16 calls are
#   written out as the GradScaler calls they make (backward on scaler.scale(loss), unscale_ then
#   clip, scaler.step and update); the model returns logits and `criterion` gives the loss; EMA,
#   sampling, checkpoints and the progress bar are dropped; the step losses are averaged.
# In this exercise every batch steps: two batches' gradients are added up before each step.
# expect: fail step-through-scaler weights-match-reference
# says: step-through-scaler gradient accumulation
# says: step-through-scaler batches 1-2
import torch


def cycle(dl):
    while True:
        for data in dl:
            yield data


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    gradient_accumulate_every = 2
    dl = cycle(loader)
    step_losses = []
    for step in range(len(loader) // gradient_accumulate_every):
        total_loss = 0.

        for _ in range(gradient_accumulate_every):
            inputs, targets = next(dl)
            inputs, targets = inputs.to(device), targets.to(device)

            with torch.autocast(device_type=device.type):
                loss = criterion(model(inputs), targets)
                loss = loss / gradient_accumulate_every
                total_loss += loss.item()

            scaler.scale(loss).backward()

        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)

        scaler.step(optimizer)  # <- step-through-scaler weights-match-reference
        scaler.update()
        optimizer.zero_grad()

        step_losses.append(total_loss)
    return sum(step_losses) / len(step_losses)
