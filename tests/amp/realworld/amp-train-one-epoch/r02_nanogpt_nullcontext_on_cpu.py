# source: https://github.com/karpathy/nanoGPT/blob/005475c4cfb801a872e72603140e0cc638435e64/train.py
#   (the stored version wraps nanoGPT's loop in a Trainer class; `ctx`, the scaled backward,
#   unscale_ + clipping, step, update and zero_grad are nanoGPT's own lines)
# changed: the exercise's signature; one batch per step (gradient_accumulation_steps = 1) taken
#   from `loader` instead of get_batch(); the model returns logits and `criterion` gives the
#   loss; the GradScaler is the exercise's `scaler`; logging, evaluation and checkpoints are
#   dropped; the loss is summed for the returned mean.
# The real bug on a CPU grader: `ctx` is nullcontext() whenever the device is not CUDA, so AMP
# is off although the prompt asks for bfloat16 on the CPU.
# expect: fail forward-in-autocast
# says: forward-in-autocast device_type == 'cpu'
from contextlib import nullcontext

import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    gradient_accumulation_steps = 1
    grad_clip = 1.0
    device_type = 'cuda' if 'cuda' in str(device) else 'cpu'
    dtype = 'bfloat16' if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else 'float16'
    ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
    ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(device_type=device_type, dtype=ptdtype)  # <- forward-in-autocast
    total = 0.0
    for X, Y in loader:
        X, Y = X.to(device), Y.to(device)
        with ctx:
            logits = model(X)
            loss = criterion(logits, Y)
            loss = loss / gradient_accumulation_steps
        scaler.scale(loss).backward()
        if grad_clip != 0.0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        total += loss.item() * gradient_accumulation_steps
    return total / len(loader)
