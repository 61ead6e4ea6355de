# expect-status: fail
# expect-output: BLOCKED docker socket
"""Looks for the Docker socket, which would be root on the host."""
import os
import socket

for path in ("/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock"):
    if os.path.exists(path):
        try:
            client = socket.socket(socket.AF_UNIX)
            client.connect(path)
            raise SystemExit(f"ESCAPED: connected to {path}")
        except OSError:
            pass
print("BLOCKED docker socket")


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
