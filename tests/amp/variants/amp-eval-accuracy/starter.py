import torch


def evaluate(model, loader, criterion, device) -> float:
    """The fraction of samples whose highest logit is the target."""
    model.eval()
    correct, seen = 0, 0
    with torch.inference_mode():
        for inputs, targets in loader:
            inputs = inputs.to(device)
            targets = targets.to(device)
            # TODO: run the forward pass in bfloat16.
            outputs = model(inputs)
            correct += (outputs.argmax(dim=1) == targets).sum().item()
            seen += targets.numel()
    return correct / seen
