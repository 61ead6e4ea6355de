import torch


def train_accumulated(model, micro_batches, optimizer, criterion, accum_steps: int) -> None:
    """Train on micro-batches, stepping once every `accum_steps` of them."""
    model.train()
    optimizer.zero_grad()
    for i, (inputs, targets) in enumerate(micro_batches):
        loss = criterion(model(inputs), targets)
        # TODO: scale the loss so the accumulated gradient is the big batch's mean gradient.
        loss.backward()
        # TODO: step and clear the gradients only after every accum_steps-th micro-batch.
        optimizer.step()
        optimizer.zero_grad()
