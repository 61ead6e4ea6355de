# expect-status: error
# expect-error-kind: timeout
"""A loop that never ends inside the learner's function."""


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    while True:
        pass
