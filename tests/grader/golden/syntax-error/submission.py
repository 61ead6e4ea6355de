import torch


def train_one_epoch(model, loader, optimizer, criterion, scaler, device):
    for x, y in loader
        pass
