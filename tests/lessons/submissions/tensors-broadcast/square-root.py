# Right shapes, but returns distances instead of squared distances; uses a comprehension nowhere.
import torch


def standardize_columns(x):
    return (x - x.mean(dim=0, keepdim=True)) / x.std(dim=0, keepdim=True)


def pairwise_sq_distances(a, b):
    return torch.cdist(a, b)
