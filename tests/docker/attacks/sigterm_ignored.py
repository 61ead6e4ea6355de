# expect-status: error
# expect-error-kind: timeout
"""Ignores SIGTERM (and SIGINT, SIGHUP) and keeps running: only SIGKILL ends it."""
import signal
import time

for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, signal.SIG_IGN)


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    while True:
        time.sleep(0.01)
