import torch

SCALE = 1 / 0


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    return 0.0
