import torch


def gradient(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The gradient of the mean squared error of x @ w against y, with respect to w."""
    w = w.clone().requires_grad_()
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    return w.grad


def descend(w: torch.Tensor, x: torch.Tensor, y: torch.Tensor, lr: float,
            steps: int) -> torch.Tensor:
    """`steps` steps of gradient descent on the mean squared error, starting from w."""
    w = w.clone().requires_grad_()
    for _ in range(steps):
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
        w.grad.zero_()
    return w.detach()
