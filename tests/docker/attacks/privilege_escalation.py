# expect-status: fail
# expect-output: BLOCKED escalation
"""setuid to root or to the grader, new namespaces, mount, chroot, a setuid binary."""
import ctypes
import os
import subprocess

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
attempts = {
    "setuid(0)": lambda: os.setuid(0),
    "setgid(0)": lambda: os.setgid(0),
    "setuid(grader)": lambda: os.setuid(10001),
    "setresuid(grader)": lambda: os.setresuid(10001, 10001, 10001),
    "chroot": lambda: os.chroot("/tmp"),
}
for name, attempt in attempts.items():
    try:
        attempt()
        raise SystemExit(f"ESCAPED: {name}")
    except OSError:
        pass
for name, result in (("unshare(user)", libc.unshare(CLONE_NEWUSER)),
                     ("unshare(mount)", libc.unshare(CLONE_NEWNS)),
                     ("mount", libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))):
    if result == 0:
        raise SystemExit(f"ESCAPED: {name}")
for command in (["su", "-c", "id"], ["mount", "-t", "tmpfs", "none", "/mnt"]):
    try:
        done = subprocess.run(command, capture_output=True, timeout=5, stdin=subprocess.DEVNULL)
        if done.returncode == 0:
            raise SystemExit(f"ESCAPED: {command}")
    except OSError:
        pass
no_caps = "CapEff:\t0000000000000000" in open("/proc/self/status").read()
if os.getuid() == 0 or os.geteuid() == 0 or not no_caps:
    raise SystemExit("ESCAPED: privileges")
print("BLOCKED escalation uid", os.getuid())


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    """An honest but wrong answer (no autocast, no scaler, the sum of the losses)."""
    total = 0.0
    for inputs, targets in loader:
        outputs = model(inputs.to(device))
        loss = criterion(outputs, targets.to(device))
        total += loss.item()
    return total
