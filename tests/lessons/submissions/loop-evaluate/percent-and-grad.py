# Evaluation mode, but autograd still records, and the accuracy is a percentage.
def evaluate(model, loader, criterion, device):
    model.eval()
    total, batches, correct, samples = 0.0, 0, 0, 0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs)
        total += criterion(outputs, targets).item()
        batches += 1
        correct += (outputs.argmax(dim=1) == targets).sum().item()
        samples += len(targets)
    return total / batches, 100.0 * correct / samples
