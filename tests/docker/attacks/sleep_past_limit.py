# expect-status: error
# expect-error-kind: timeout
# expect-line: 10
# expect-message: When it was stopped it was still running line 10.
"""Sleeps far past the time limit."""
import time


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    time.sleep(3600)
