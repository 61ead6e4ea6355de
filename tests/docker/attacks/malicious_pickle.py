# expect-status: fail
"""Returns an object whose unpickling would run a command, hoping the harness unpickles it."""
import os


class Evil:
    def __reduce__(self):
        return (os.system, ("touch /tmp/pwned-by-pickle",))


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    return Evil()
