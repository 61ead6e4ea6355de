import torch


def tensor_bytes(t: torch.Tensor) -> int:
    """How many bytes the elements of `t` take."""
    # TODO: this counts elements, not bytes. How big is one element of t's dtype?
    return t.numel()


def cast(t: torch.Tensor, dtype_name: str) -> torch.Tensor:
    """`t` converted to the dtype named `dtype_name`, e.g. "float16"."""
    # TODO: turn the name into a torch dtype and convert t to it.
    return t
