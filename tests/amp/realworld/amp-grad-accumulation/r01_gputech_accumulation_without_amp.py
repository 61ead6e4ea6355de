# source: https://github.com/kobongsoo/GPUTech/blob/dfec2f50ee3bb5291e30a3fc4a293dcf539d059e/reference/gradient_accum_training_loop.py
#   a float32 accumulation loop: loss / accumulation_steps, plain backward, optimizer.step()
#   every accumulation_steps batches (no autocast, no scaler).
# changed: the module-level loop becomes the exercise's function (`accumulation_steps` is
#   `accum_steps`, `data_loader` is `loader`); the batch loss is summed, before the division, for
#   the returned mean.
# expect: fail forward-in-autocast backward-on-scaled-loss step-through-scaler
def train_one_epoch(model, loader, optimizer, criterion, scaler, device, accum_steps):
    data_loader = loader
    total = 0.0

    # loop through enumaretad batches
    for batch_idx, (inputs, targets) in enumerate(data_loader):

        # extract inputs and labels
        inputs = inputs.to(device)
        targets = targets.to(device)

        # forward pass
        preds = model(inputs)  # <- forward-in-autocast
        loss  = criterion(preds, targets)
        total += loss.item()

        # normalize loss to account for batch accumulation
        loss = loss / accum_steps

        # backward pass
        loss.backward()  # <- backward-on-scaled-loss

        # weights update
        if ((batch_idx + 1) % accum_steps == 0) or (batch_idx + 1 == len(data_loader)):
            optimizer.step()  # <- step-through-scaler
            optimizer.zero_grad()
    return total / len(data_loader)
