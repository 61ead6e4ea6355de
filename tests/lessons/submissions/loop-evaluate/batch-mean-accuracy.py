# Averages per-batch accuracies although the last batch is smaller.
import torch


def evaluate(model, loader, criterion, device):
    model.eval()
    losses, accuracies = [], []
    with torch.no_grad():
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            outputs = model(inputs)
            losses.append(criterion(outputs, targets).item())
            accuracies.append((outputs.argmax(dim=1) == targets).float().mean().item())
    return sum(losses) / len(losses), sum(accuracies) / len(accuracies)
