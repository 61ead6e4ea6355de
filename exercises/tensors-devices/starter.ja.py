import torch


def pick_device() -> torch.device:
    """CUDA の GPU があればそれを、なければ CPU を返す。"""
    # TODO: CUDA が使えるかどうかを torch に尋ねる。
    return torch.device("cpu")


def to_device(model, inputs: torch.Tensor, targets: torch.Tensor, device: torch.device):
    """すべて `device` 上にあるモデルとバッチ。"""
    model.to(device)
    # TODO: tensor.to() は新しいテンソルを返す。それを受け取っておく。
    inputs.to(device)
    targets.to(device)
    return model, inputs, targets
