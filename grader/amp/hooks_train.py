"""Tracer hooks on the training side: forwards, losses, backward, optimizer, clipping, casts."""

from __future__ import annotations

import functools
import math
import sys
from typing import TYPE_CHECKING, Any

import torch
import torch.nn.utils.clip_grad as clip_module
import torch.optim.optimizer as optim_module

from grader.amp.events import dtype_name
from grader.amp.hooks_amp import scalar_value

if TYPE_CHECKING:
    from grader.amp.tracer import Tracer


def install(tracer: Tracer) -> None:
    _install_module_hooks(tracer)
    _install_backward(tracer)
    _install_optimizer(tracer)
    _install_clipping(tracer)
    _install_cast_watch(tracer)
    if tracer.cpu_for_cuda:
        _install_device_shim(tracer)


def _install_module_hooks(tracer: Tracer) -> None:
    """Forward hooks on the model and the criterion: was autocast on when they ran?"""
    if tracer.model is not None:
        def before_forward(module: Any, args: Any) -> None:
            enabled, dtype = tracer.autocast_state()
            tracer.log.emit("forward", autocast=enabled, autocast_dtype=dtype,
                            param_dtypes=tracer.param_dtypes(), training=module.training,
                            grad_enabled=torch.is_grad_enabled(), inference=torch.is_inference_mode_enabled(),
                            unmoved_batch=tracer.cpu_for_cuda and any(tracer.is_batch(a) for a in args))

        def after_forward(module: Any, args: Any, output: Any) -> None:
            forwards = [e for e in tracer.events[-50:] if e["kind"] == "forward"]
            if forwards and isinstance(output, torch.Tensor):
                event = forwards[-1]
                event["output_dtype"] = dtype_name(output.dtype)
                event["output_finite"] = _finite(output)
                if output.requires_grad:
                    # Where an inf starts when a step is skipped: the gradient that reaches the
                    # model's output tells the loss's backward from the model's own.
                    def arrived(grad: torch.Tensor, event: dict = event) -> None:
                        event["grad_finite"] = _finite(grad)

                    output.register_hook(arrived)

        tracer._handles.append(tracer.model.register_forward_pre_hook(before_forward))
        tracer._handles.append(tracer.model.register_forward_hook(after_forward))

    if tracer.criterion is not None:
        def after_loss(module: Any, args: Any, output: Any) -> None:
            enabled, _ = tracer.autocast_state()
            value = None
            if isinstance(output, torch.Tensor) and output.numel():
                value = float(output.detach().float().mean())
            tracer.log.emit("loss", autocast=enabled, value=value,
                            dtype=dtype_name(getattr(output, "dtype", None)),
                            finite=_finite(output) if isinstance(output, torch.Tensor) else None,
                            unmoved_batch=tracer.cpu_for_cuda and any(tracer.is_batch(a) for a in args[1:]))

        tracer._handles.append(tracer.criterion.register_forward_hook(after_loss))


def _finite(tensor: torch.Tensor) -> bool:
    with torch.no_grad():
        return bool(torch.isfinite(tensor.detach()).all())


def _backward_event(tracer: Tracer, tensor: Any, api: str) -> None:
    scaler, derived = (None, False)
    if isinstance(tensor, torch.Tensor):
        scaler, derived = tracer.scaled_by(tensor)
    tracer.log.emit(
        "backward", api=api, autocast=tracer.any_autocast(), scaled_by=scaler, derived=derived,
        dtype=dtype_name(getattr(tensor, "dtype", None)), grads_clean=tracer.grads_clean(),
        value=scalar_value(tensor),
    )


def _install_backward(tracer: Tracer) -> None:
    orig_tensor_backward = torch.Tensor.backward
    orig_autograd_backward = torch.autograd.backward

    @functools.wraps(orig_tensor_backward)
    def tensor_backward(self: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        _backward_event(tracer, self, "tensor.backward")
        tracer.depth["backward"] += 1
        try:
            return orig_tensor_backward(self, *args, **kwargs)
        finally:
            tracer.depth["backward"] -= 1

    @functools.wraps(orig_autograd_backward)
    def autograd_backward(tensors: Any, *args: Any, **kwargs: Any) -> Any:
        if tracer.depth["backward"] == 0:  # Tensor.backward lands here too; record it once
            first = tensors[0] if isinstance(tensors, (list, tuple)) and tensors else tensors
            _backward_event(tracer, first, "autograd.backward")
        return orig_autograd_backward(tensors, *args, **kwargs)

    tracer.patcher.replace(torch.Tensor, "backward", tensor_backward)
    tracer.patcher.replace(torch.autograd, "backward", autograd_backward)
    if tracer.namespace is not None:
        tracer.patcher.replace_in_namespace(tracer.namespace, orig_autograd_backward,
                                            autograd_backward)


def _grads_present(optimizer: Any) -> bool:
    with torch.no_grad():
        return any(p.grad is not None and bool(p.grad.any())
                   for group in optimizer.param_groups for p in group["params"])


def _number(value: Any) -> float | None:
    """A JSON-ready float (an lr or a clipping limit), None for anything else."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _install_optimizer(tracer: Tracer) -> None:
    def pre_step(optimizer: Any, args: Any, kwargs: Any) -> None:
        tracer.optimizer_steps += 1
        tracer.log.emit("optimizer-step", optimizer=tracer.ref(optimizer),
                        via_scaler=tracer.depth["scaler-step"] > 0,
                        grads_present=_grads_present(optimizer),
                        lr=[_number(group.get("lr")) for group in optimizer.param_groups])

    # The global hook sees every optimizer, whatever the class and however step is wrapped.
    tracer._handles.append(optim_module.register_optimizer_step_pre_hook(pre_step))

    orig_opt_zero = torch.optim.Optimizer.zero_grad
    orig_module_zero = torch.nn.Module.zero_grad

    @functools.wraps(orig_opt_zero)
    def optimizer_zero_grad(self: Any, set_to_none: bool = True) -> Any:
        tracer.log.emit("zero-grad", target="optimizer", optimizer=tracer.ref(self),
                        set_to_none=bool(set_to_none))
        return orig_opt_zero(self, set_to_none)

    @functools.wraps(orig_module_zero)
    def module_zero_grad(self: Any, set_to_none: bool = True) -> Any:
        tracer.log.emit("zero-grad", target="model", set_to_none=bool(set_to_none))
        return orig_module_zero(self, set_to_none)

    tracer.patcher.replace(torch.optim.Optimizer, "zero_grad", optimizer_zero_grad)
    tracer.patcher.replace(torch.nn.Module, "zero_grad", module_zero_grad)


def _install_clipping(tracer: Tracer) -> None:
    for name in ("clip_grad_norm_", "clip_grad_value_", "clip_grad_norm"):
        original = getattr(clip_module, name, None)
        if original is None:
            continue
        wrapper = _clip_wrapper(tracer, original)
        tracer.patcher.replace(clip_module, name, wrapper)
        if getattr(torch.nn.utils, name, None) is original:
            tracer.patcher.replace(torch.nn.utils, name, wrapper)
        if tracer.namespace is not None:
            tracer.patcher.replace_in_namespace(tracer.namespace, original, wrapper)


def _clip_wrapper(tracer: Tracer, original: Any) -> Any:
    @functools.wraps(original)
    def clip(*args: Any, **kwargs: Any) -> Any:
        limit = kwargs.get("clip_value", kwargs.get("max_norm", args[1] if len(args) > 1 else None))
        norm_type = kwargs.get("norm_type", args[2] if len(args) > 2 else 2.0)
        event = tracer.log.emit("clip", fn=original.__name__, grads_clean=tracer.grads_clean(),
                                unscaled=tracer.grads_unscaled(), limit=_number(limit),
                                norm_type=_number(norm_type) or str(norm_type))
        result = original(*args, **kwargs)
        if event is not None and isinstance(result, torch.Tensor):
            event["total_norm"] = float(result)
        return result

    return clip


def _install_cast_watch(tracer: Tracer) -> None:
    """Record .half(), .to(torch.float16), .bfloat16()... on the model: they all go via _apply."""
    if not tracer.params:
        return
    orig_apply = torch.nn.Module._apply

    @functools.wraps(orig_apply)
    def _apply(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        if tracer.depth["apply"]:
            return orig_apply(self, fn, *args, **kwargs)
        before = tracer.param_dtypes()
        method = sys._getframe(1).f_code.co_name
        tracer.depth["apply"] += 1
        try:
            return orig_apply(self, fn, *args, **kwargs)
        finally:
            tracer.depth["apply"] -= 1
            after = tracer.param_dtypes()
            if after != before:
                tracer.log.emit("model-cast", method=method, before=before, after=after)

    tracer.patcher.replace(torch.nn.Module, "_apply", _apply)


def _cpu_device(arg: Any) -> Any:
    if isinstance(arg, str) and arg.split(":")[0] == "cuda":
        return "cpu"
    if isinstance(arg, torch.device) and arg.type == "cuda":
        return torch.device("cpu")
    return arg


def _install_device_shim(tracer: Tracer) -> None:
    """On a CPU grader, `x.to("cuda")` / `x.cuda()` in a GPU loop must land on the CPU."""
    orig_to = torch.Tensor.to

    def moved(self: torch.Tensor, result: Any) -> Any:
        # A real move makes a new tensor; on the CPU it would return the batch tensor itself,
        # and an unmoved batch could no longer be told from a moved one (checks_mode.py).
        return result.view_as(result) if result is self and tracer.is_batch(self) else result

    @functools.wraps(orig_to)
    def tensor_to(self: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        # Any explicit device (say, the model's) is a move; a dtype alone is not.
        to_device = any(isinstance(a, (str, torch.device, torch.Tensor)) for a in args) or "device" in kwargs
        args = tuple(_cpu_device(a) for a in args)
        if "device" in kwargs:
            kwargs["device"] = _cpu_device(kwargs["device"])
        result = orig_to(self, *args, **kwargs)
        return moved(self, result) if to_device else result

    def tensor_cuda(self: torch.Tensor, device: Any = None, non_blocking: bool = False,
                    **kwargs: Any) -> torch.Tensor:
        return moved(self, orig_to(self, "cpu", non_blocking=non_blocking))

    def module_cuda(self: torch.nn.Module, device: Any = None) -> torch.nn.Module:
        return self

    tracer.patcher.replace(torch.Tensor, "to", tensor_to)
    tracer.patcher.replace(torch.Tensor, "cuda", tensor_cuda)
    tracer.patcher.replace(torch.nn.Module, "cuda", module_cuda)
