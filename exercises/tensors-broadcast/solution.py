import torch


def standardize_columns(x: torch.Tensor) -> torch.Tensor:
    """Every column of x minus its mean, divided by its standard deviation."""
    return (x - x.mean(dim=0)) / x.std(dim=0)


def pairwise_sq_distances(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """out[i, j] = squared Euclidean distance between a[i] and b[j]; shape (n, m)."""
    return (a[:, None, :] - b[None, :, :]).pow(2).sum(dim=-1)
