# expect-status: error
# expect-error-kind: memory
"""Grabs memory inside the learner's function until something stops it, touching every page."""


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    hog = []
    while True:
        hog.append(bytearray(64 * 1024 * 1024))
