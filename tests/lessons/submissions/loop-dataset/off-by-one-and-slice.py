import torch
from torch.utils.data import DataLoader, Dataset
class WindowDataset(Dataset):
    def __init__(self, series, window):
        self.series = series.double()
        self.window = window
    def __len__(self):
        return len(self.series) - self.window + 1
    def __getitem__(self, i):
        return self.series[i:i + self.window], self.series[i + self.window:i + self.window + 1]
def make_loader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size)
