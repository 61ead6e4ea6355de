# source: https://github.com/huggingface/pytorch-image-models/blob/004fb5f8c42075d5fa19a2b84eeed72f73c7f331/train.py
#   train_one_epoch of timm's training script: the forward pass and the loss under
#   `amp_autocast()` (torch.cuda.amp.autocast with --amp), zero_grad, then the NativeScaler
#   (timm/utils/cuda.py: scale(loss).backward(), step, update), then the model's EMA update
#   (timm/utils/model_ema.py: ModelEmaV2), returning the loss meter's average.
# changed: the exercise's signature; NativeScaler wraps the exercise's `scaler` instead of making
#   its own GradScaler (timm makes it once in main()), and clip_grad is None (the default);
#   ModelEmaV2 (made in main()) is made at the start of the epoch with timm's default decay; the
#   mixup, prefetcher, channels_last, logging, recovery and distributed branches are dropped, and
#   the epoch-based scheduler's step_update (a no-op within an epoch) with them; AverageMeter is
#   timm's, weighted by batch size.
# expect: pass
# advice: deprecated
from copy import deepcopy

import torch


class AverageMeter:
    def __init__(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class NativeScaler:
    state_dict_key = "amp_scaler"

    def __init__(self, scaler):
        self._scaler = scaler

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, create_graph=False):
        self._scaler.scale(loss).backward(create_graph=create_graph)
        if clip_grad is not None:
            self._scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
        self._scaler.step(optimizer)
        self._scaler.update()


class ModelEmaV2(torch.nn.Module):
    def __init__(self, model, decay=0.9999):
        super().__init__()
        self.module = deepcopy(model)
        self.module.eval()
        self.decay = decay

    def _update(self, model, update_fn):
        with torch.no_grad():
            for ema_v, model_v in zip(self.module.state_dict().values(), model.state_dict().values()):
                ema_v.copy_(update_fn(ema_v, model_v))

    def update(self, model):
        self._update(model, update_fn=lambda e, m: self.decay * e + (1. - self.decay) * m)


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    amp_autocast = torch.cuda.amp.autocast
    loss_scaler = NativeScaler(scaler)
    model_ema = ModelEmaV2(model)
    loss_fn = criterion
    losses_m = AverageMeter()

    model.train()

    for batch_idx, (input, target) in enumerate(loader):
        input, target = input.to(device), target.to(device)

        with amp_autocast():
            output = model(input)
            loss = loss_fn(output, target)

        losses_m.update(loss.item(), input.size(0))

        optimizer.zero_grad()
        loss_scaler(loss, optimizer, clip_grad=None, parameters=model.parameters())

        if model_ema is not None:
            model_ema.update(model)

    return losses_m.avg
