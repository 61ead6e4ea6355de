# source: https://github.com/pytorch/tutorials/blob/db77dcf6e3637924f43852c014f2af9978b0f891/beginner_source/translation_transformer.py
#   train_epoch of the nn.Transformer translation tutorial: a float32 loop (no autocast, no
#   scaler) that returns `losses / len(list(train_dataloader))`, walking the loader a second time
#   to count its batches (Multi30k's iterable dataset has no len()).
# changed: the exercise's signature (`train_dataloader` is `loader`, `loss_fn` is `criterion`);
#   the masks and the shifted target of a sequence model are dropped: `src` goes to the model and
#   `tgt` is the target. The second walk over the loader is kept as written.
# The walk that only counts is no skipped batch: the failures are the missing AMP, nothing else.
# expect: fail forward-in-autocast backward-on-scaled-loss step-through-scaler
def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    model.train()
    losses = 0
    train_dataloader = loader

    for src, tgt in train_dataloader:
        src = src.to(device)
        tgt = tgt.to(device)

        logits = model(src)  # <- forward-in-autocast

        optimizer.zero_grad()

        loss = criterion(logits, tgt)
        loss.backward()  # <- backward-on-scaled-loss

        optimizer.step()  # <- step-through-scaler
        losses += loss.item()

    return losses / len(list(train_dataloader))
