import torch
from torch.utils.data import DataLoader, Dataset


class WindowDataset(Dataset):
    """1 次元の系列から作る（値の窓, 次の値）のペア。"""

    def __init__(self, series: torch.Tensor, window: int):
        self.series = series
        self.window = window

    def __len__(self) -> int:
        # TODO: すべての開始位置で、窓のあとに次の値があるわけではない。
        return len(self.series)

    def __getitem__(self, i: int):
        # TODO: ペア (x, y) を返す: i から始まる窓と、そのあとの値。
        return self.series[i:i + self.window]


def make_loader(dataset: Dataset, batch_size: int) -> DataLoader:
    """`batch_size` 個のペアのバッチ。エポックごとに新しいランダムな順序にする。"""
    # TODO: ペアをシャッフルする。
    return DataLoader(dataset, batch_size=batch_size)
