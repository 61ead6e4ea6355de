import torch
from torch.utils.data import DataLoader, Dataset


class WindowDataset(Dataset):
    """(window of values, next value) pairs from a 1-D series."""

    def __init__(self, series: torch.Tensor, window: int):
        self.series = series
        self.window = window

    def __len__(self) -> int:
        return len(self.series) - self.window

    def __getitem__(self, i: int):
        x = self.series[i:i + self.window]
        y = self.series[i + self.window]
        return x, y


def make_loader(dataset: Dataset, batch_size: int) -> DataLoader:
    """Batches of `batch_size` pairs, in a new random order every epoch."""
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)
