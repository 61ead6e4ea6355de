# expect-status: error
# expect-error-kind: runtime
"""Dereferences a null pointer through ctypes: the runner dies with SIGSEGV."""
import ctypes


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    return ctypes.string_at(0)
