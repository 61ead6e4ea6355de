# expect-status: fail
# expect-output: BLOCKED network
"""Tries the outside world, the host's bridge, a Docker API port and loopback."""
import socket

targets = [("1.1.1.1", 53), ("8.8.8.8", 443), ("172.17.0.1", 2375), ("172.17.0.1", 22),
           ("127.0.0.1", 2375), ("127.0.0.1", 80), ("169.254.169.254", 80)]
for host, port in targets:
    try:
        socket.create_connection((host, port), timeout=1).close()
        raise SystemExit(f"ESCAPED: connected to {host}:{port}")
    except OSError:
        pass
try:
    socket.getaddrinfo("pypi.org", 443)
    raise SystemExit("ESCAPED: DNS answered")
except OSError:
    pass
try:  # the job jail refuses the netlink socket this needs: nothing to list
    interfaces = [name for _, name in socket.if_nameindex()]
except OSError:
    interfaces = ["lo"]
if interfaces != ["lo"]:
    raise SystemExit(f"ESCAPED: interfaces {interfaces}")
print("BLOCKED network", len(targets), interfaces)


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
