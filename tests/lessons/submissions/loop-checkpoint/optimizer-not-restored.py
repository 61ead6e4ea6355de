import torch
def save_checkpoint(model, optimizer, epoch, path):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, path)
def load_checkpoint(model, optimizer, path):
    c = torch.load(path)
    model.load_state_dict(c["model"])
    return c["epoch"]
