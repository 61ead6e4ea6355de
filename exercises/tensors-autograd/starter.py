import torch


def gradient(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The gradient of the mean squared error of x @ w against y, with respect to w."""
    w = w.clone().requires_grad_()
    loss = ((x @ w - y) ** 2).mean()
    # TODO: let autograd compute the gradient, then return it.
    return torch.zeros_like(w)


def descend(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor, lr: float,
            steps: int) -> torch.Tensor:
    """`steps` steps of gradient descent on the mean squared error, starting from w."""
    w = w.clone().requires_grad_()
    for _ in range(steps):
        loss = ((x @ w - y) ** 2).mean()
        # TODO: backward, update w without recording it, and clear the gradient.
    return w.detach()
