import torch


def pick_device() -> torch.device:
    """The CUDA GPU when there is one, else the CPU."""
    # TODO: ask torch whether CUDA is available.
    return torch.device("cpu")


def to_device(model, inputs: torch.Tensor, targets: torch.Tensor, device: torch.device):
    """The model and the batch, all on `device`."""
    model.to(device)
    # TODO: tensor.to() returns a new tensor; keep it.
    inputs.to(device)
    targets.to(device)
    return model, inputs, targets
