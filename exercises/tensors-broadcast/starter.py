import torch


def standardize_columns(x: torch.Tensor) -> torch.Tensor:
    """Every column of x minus its mean, divided by its standard deviation."""
    # TODO: compute one mean and one standard deviation per column, and broadcast them.
    return x - x.mean()


def pairwise_sq_distances(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """out[i, j] = squared Euclidean distance between a[i] and b[j]; shape (n, m)."""
    out = torch.zeros(a.shape[0], b.shape[0])
    # TODO: replace these loops with one broadcast expression.
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            out[i, j] = ((a[i] - b[j]) ** 2).sum()
    return out
