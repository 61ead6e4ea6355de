import torch


def evaluate(model, loader, criterion, device) -> tuple[float, float]:
    """The mean loss over the batches and the accuracy over the samples of `loader`."""
    model.eval()
    total_loss, batches, correct, samples = 0.0, 0, 0, 0
    with torch.no_grad():
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            outputs = model(inputs)
            total_loss += criterion(outputs, targets).item()
            batches += 1
            correct += (outputs.argmax(dim=1) == targets).sum().item()
            samples += len(targets)
    return total_loss / batches, correct / samples
