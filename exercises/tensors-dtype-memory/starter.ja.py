import torch


def tensor_bytes(t: torch.Tensor) -> int:
    """`t` の要素が占めるバイト数。"""
    # TODO: これはバイト数ではなく要素数を数えている。t の dtype の 1 要素は何バイト？
    return t.numel()


def cast(t: torch.Tensor, dtype_name: str) -> torch.Tensor:
    """`t` を `dtype_name` という名前の dtype（例: "float16"）に変換したもの。"""
    # TODO: 名前を torch の dtype に変え、t をその dtype に変換する。
    return t
