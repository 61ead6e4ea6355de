import torch


def tensor_bytes(t: torch.Tensor) -> int:
    """How many bytes the elements of `t` take."""
    return t.numel() * t.element_size()


def cast(t: torch.Tensor, dtype_name: str) -> torch.Tensor:
    """`t` converted to the dtype named `dtype_name`, e.g. "float16"."""
    dtype = getattr(torch, dtype_name)
    return t.to(dtype)
