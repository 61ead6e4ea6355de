import torch


def standardize_columns(x: torch.Tensor) -> torch.Tensor:
    """x の各列から平均を引き、標準偏差で割ったもの。"""
    # TODO: 列ごとに平均と標準偏差を 1 つずつ求め、ブロードキャストする。
    return x - x.mean()


def pairwise_sq_distances(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """out[i, j] = a[i] と b[j] のユークリッド距離の 2 乗。形状は (n, m)。"""
    out = torch.zeros(a.shape[0], b.shape[0])
    # TODO: これらのループを 1 つのブロードキャスト式に置き換える。
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            out[i, j] = ((a[i] - b[j]) ** 2).sum()
    return out
