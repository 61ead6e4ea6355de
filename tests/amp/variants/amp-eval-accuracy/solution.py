import torch


def evaluate(model, loader, criterion, device) -> float:
    """The fraction of samples whose highest logit is the target, under bfloat16 autocast."""
    model.eval()
    correct, seen = 0, 0
    with torch.inference_mode():
        for inputs, targets in loader:
            inputs = inputs.to(device)
            targets = targets.to(device)
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
                outputs = model(inputs)
            correct += (outputs.argmax(dim=1) == targets).sum().item()
            seen += targets.numel()
    return correct / seen
