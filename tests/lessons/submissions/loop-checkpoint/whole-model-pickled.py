import torch
def save_checkpoint(model, optimizer, epoch, path):
    torch.save({"model": model, "optimizer": optimizer.state_dict(), "epoch": epoch}, path)
def load_checkpoint(model, optimizer, path):
    c = torch.load(path, weights_only=False)
    model.load_state_dict(c["model"].state_dict())
    return c["epoch"]
