import torch


def save_checkpoint(model, optimizer, epoch: int, path: str) -> None:
    """Write the model's and optimizer's state and the epoch to one file at `path`."""
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch}, path)


def load_checkpoint(model, optimizer, path: str) -> int:
    """Restore what save_checkpoint wrote into `model` and `optimizer`; return the epoch."""
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    return checkpoint["epoch"]
