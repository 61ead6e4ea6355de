import torch


def evaluate(model, loader, criterion, device) -> float:
    """The mean loss of `model` over `loader`, computed under bfloat16 autocast without gradients."""
    model.eval()
    total = 0.0
    # Evaluation needs no gradients: inference_mode records no graph at all.
    with torch.inference_mode():
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
                outputs = model(inputs)
                loss = criterion(outputs, targets)
            total += loss.item()
    return total / len(loader)
