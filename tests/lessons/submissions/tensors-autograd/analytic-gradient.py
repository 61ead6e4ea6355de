# A correct answer that computes the gradient by hand instead of with autograd: it must pass.
import torch


def gradient(w, x, y):
    return 2.0 / x.shape[0] * x.T @ (x @ w - y)


def descend(w, x, y, lr, steps):
    w = w.clone().requires_grad_()
    for _ in range(steps):
        loss = ((x @ w - y) ** 2).mean()
        w.grad = None  # cleared before backward: another correct style
        loss.backward()
        with torch.no_grad():
            w.sub_(lr * w.grad)
    return w.detach()
