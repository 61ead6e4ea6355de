import torch
from torch.utils.data import DataLoader, Dataset


class WindowDataset(Dataset):
    """(window of values, next value) pairs from a 1-D series."""

    def __init__(self, series: torch.Tensor, window: int):
        self.series = series
        self.window = window

    def __len__(self) -> int:
        # TODO: not every start position has a next value after its window.
        return len(self.series)

    def __getitem__(self, i: int):
        # TODO: return the pair (x, y): the window starting at i, and the value after it.
        return self.series[i:i + self.window]


def make_loader(dataset: Dataset, batch_size: int) -> DataLoader:
    """Batches of `batch_size` pairs, in a new random order every epoch."""
    # TODO: shuffle the pairs.
    return DataLoader(dataset, batch_size=batch_size)
