# expect-status: error
# expect-error-kind: memory
"""A memory hog split over children, each under the per-process limit: the cgroup stops it."""
import os


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    children = []
    for _ in range(4):
        pid = os.fork()
        if pid == 0:
            hog = []
            try:
                for _ in range(24):  # 1.5 GB each, below the 2 GB address-space limit
                    hog.append(bytearray(64 * 1024 * 1024))
            except MemoryError:
                pass
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
    return 0.0
