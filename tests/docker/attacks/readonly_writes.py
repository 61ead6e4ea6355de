# expect-status: fail
# expect-output: BLOCKED writes
"""Tries to write where nothing may be written: the image, the grader, the results."""

targets = ["/etc/passwd", "/usr/bin/python3", "/opt/learnai/grader/harness.py",
           "/opt/learnai/grader/evil.py", "/opt/venv/lib/evil.pth", "/grading/evil",
           "/grading/submission.py", "/grading/out/results.json", "/root/evil", "/evil"]
for target in targets:
    try:
        with open(target, "a") as handle:
            handle.write("x")
        raise SystemExit(f"ESCAPED: wrote {target}")
    except OSError:
        pass
print("BLOCKED writes", len(targets))


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
