import torch


def pick_device() -> torch.device:
    """The CUDA GPU when there is one, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def to_device(model, inputs: torch.Tensor, targets: torch.Tensor, device: torch.device):
    """The model and the batch, all on `device`."""
    model = model.to(device)
    inputs = inputs.to(device)
    targets = targets.to(device)
    return model, inputs, targets
