import torch


def evaluate(model, loader, criterion, device) -> float:
    """The mean loss of `model` over `loader`."""
    model.eval()
    total = 0.0
    with torch.inference_mode():
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            # TODO: run the forward pass and the loss in bfloat16.
            outputs = model(inputs)
            loss = criterion(outputs, targets)
            total += loss.item()
    return total / len(loader)
