"""Tracer hooks on autocast and GradScaler, including the CPU stand-in for CUDA requests."""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, Any

import torch
from torch.amp import autocast_mode
from torch.amp.grad_scaler import OptState

from grader.amp.events import dtype_name

if TYPE_CHECKING:
    from grader.amp.tracer import Tracer

AUTOCAST = autocast_mode.autocast
SCALER = torch.amp.GradScaler
_REQUEST = "_amp_trace_request"
_ENTRY = "_amp_trace_entry"


def is_deprecated_spelling(obj: Any) -> bool:
    """torch.cuda.amp.* / torch.cpu.amp.* are thin deprecated subclasses of the generic classes."""
    module = type(obj).__module__
    return module.startswith(("torch.cuda.amp", "torch.cpu.amp"))


def install(tracer: Tracer) -> None:
    _install_autocast(tracer)
    _install_scaler(tracer)


def _install_autocast(tracer: Tracer) -> None:
    patch = tracer.patcher
    orig_init = AUTOCAST.__init__
    orig_enter = AUTOCAST.__enter__
    orig_exit = AUTOCAST.__exit__

    @functools.wraps(orig_init)
    def __init__(self: Any, device_type: Any, dtype: Any = None, enabled: bool = True,
                 cache_enabled: Any = None) -> None:
        request = {"device": device_type if isinstance(device_type, str) else repr(device_type),
                   "dtype": dtype_name(dtype), "enabled": bool(enabled)}
        if tracer.cpu_for_cuda and device_type == "cuda":
            # CUDA autocast defaults to float16; CPU autocast accepts float16 too (torch >= 2.x),
            # so the learner's loop runs with the precision it asked for.
            device_type, dtype = "cpu", dtype if dtype is not None else torch.float16
        dtype, enabled = _forced(tracer, dtype, enabled)
        orig_init(self, device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
        object.__setattr__(self, _REQUEST, request)

    @functools.wraps(orig_enter)
    def __enter__(self: Any) -> Any:
        request = getattr(self, _REQUEST, None)
        if request is None:
            request = _request_of_untraced(tracer, self)
        caller = sys._getframe(1).f_code.co_name
        tracer.autocast_entries += 1
        entry = tracer.autocast_entries
        object.__setattr__(self, _ENTRY, entry)
        result = orig_enter(self)
        tracer.log.emit(
            "autocast-enter", entry=entry, requested=request,
            device=self.device, dtype=dtype_name(self.fast_dtype), enabled=bool(self._enabled),
            deprecated=is_deprecated_spelling(self),
            via="decorator" if caller == "decorate_autocast" else "with",
        )
        return result

    @functools.wraps(orig_exit)
    def __exit__(self: Any, *exc: Any) -> Any:
        tracer.log.emit("autocast-exit", entry=getattr(self, _ENTRY, None),
                        raised=exc[0].__name__ if exc and exc[0] is not None else None)
        return orig_exit(self, *exc)

    patch.replace(AUTOCAST, "__init__", __init__)
    patch.replace(AUTOCAST, "__enter__", __enter__)
    patch.replace(AUTOCAST, "__exit__", __exit__)


def _forced(tracer: Tracer, dtype: Any, enabled: bool) -> tuple[Any, bool]:
    """The reference run's autocast in the learner's precision (see Tracer.force_dtype)."""
    if tracer.force_dtype is None or not enabled:
        return dtype, enabled
    if tracer.force_dtype == "float32":
        return dtype, False
    return getattr(torch, tracer.force_dtype), True


def _request_of_untraced(tracer: Tracer, ctx: Any) -> dict[str, Any]:
    """An autocast built before tracing began (a decorator at import): re-aim it if needed.

    torch turned a "cuda" autocast off in __init__ when CUDA is absent; we cannot know whether
    the learner also passed enabled=False, and assume not (nobody decorates a helper to disable).
    """
    request = {"device": ctx.device, "dtype": dtype_name(ctx.fast_dtype),
               "enabled": bool(ctx._enabled)}
    if tracer.cpu_for_cuda and ctx.device == "cuda":
        request["enabled"] = True
        ctx.device, ctx._enabled = "cpu", True
        if ctx.fast_dtype not in (torch.float16, torch.bfloat16):
            ctx.fast_dtype = torch.float16
    ctx.fast_dtype, ctx._enabled = _forced(tracer, ctx.fast_dtype, ctx._enabled)
    object.__setattr__(ctx, _REQUEST, request)
    return request


def _install_scaler(tracer: Tracer) -> None:
    patch = tracer.patcher
    orig_init = SCALER.__init__
    orig_scale = SCALER.scale
    orig_unscale = SCALER.unscale_
    orig_step = SCALER.step
    orig_update = SCALER.update

    @functools.wraps(orig_init)
    def __init__(self: Any, device: str = "cuda", *args: Any, **kwargs: Any) -> None:
        requested = device
        if tracer.cpu_for_cuda and device == "cuda":
            device = "cpu"
        orig_init(self, device, *args, **kwargs)
        tracer.log.emit("scaler-init", scaler=tracer.ref(self), requested=str(requested),
                        device=self._device, enabled=bool(self._enabled),
                        deprecated=is_deprecated_spelling(self))

    @functools.wraps(orig_scale)
    def scale(self: Any, outputs: Any) -> Any:
        number = tracer.ref(self)
        event = tracer.log.emit("scale", scaler=number, enabled=bool(self.is_enabled()),
                                value=scalar_value(outputs))
        result = orig_scale(self, outputs)
        tracer.remember_scaled(result, number)
        if event is not None and isinstance(result, torch.Tensor):
            event["dtype"] = dtype_name(result.dtype)
            event["factor"] = float(self.get_scale()) if self.is_enabled() else 1.0
        return result

    @functools.wraps(orig_unscale)
    def unscale_(self: Any, optimizer: Any) -> Any:
        if tracer.depth["scaler-step"] == 0:  # step() unscales internally; not the learner's call
            tracer.log.emit("unscale", scaler=tracer.ref(self), optimizer=tracer.ref(optimizer),
                            enabled=bool(self.is_enabled()))
        return orig_unscale(self, optimizer)

    @functools.wraps(orig_step)
    def step(self: Any, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        event = tracer.log.emit("scaler-step", scaler=tracer.ref(self),
                                optimizer=tracer.ref(optimizer), enabled=bool(self.is_enabled()),
                                unscaled_before=_stage(self, optimizer) is OptState.UNSCALED)
        before = tracer.optimizer_steps
        tracer.depth["scaler-step"] += 1
        try:
            return orig_step(self, optimizer, *args, **kwargs)
        except BaseException:
            if event is not None:  # it crashed: not a skip for inf/NaN (the timeline tells them apart)
                event["raised"] = True
            raise
        finally:
            tracer.depth["scaler-step"] -= 1
            if event is not None:
                # A scaler skips the optimizer step when it finds inf/NaN gradients.
                event["stepped"] = tracer.optimizer_steps > before

    @functools.wraps(orig_update)
    def update(self: Any, *args: Any, **kwargs: Any) -> Any:
        event = tracer.log.emit("scaler-update", scaler=tracer.ref(self),
                                enabled=bool(self.is_enabled()))
        result = orig_update(self, *args, **kwargs)
        if event is not None and self.is_enabled():
            event["scale"] = float(self.get_scale())
        return result

    patch.replace(SCALER, "__init__", __init__)
    patch.replace(SCALER, "scale", scale)
    patch.replace(SCALER, "unscale_", unscale_)
    patch.replace(SCALER, "step", step)
    patch.replace(SCALER, "update", update)


def scalar_value(value: Any) -> float | None:
    """The float in a one-element tensor (a loss), else None; used to spot loss / k."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return float(value.detach().float())
    return None


def _stage(scaler: Any, optimizer: Any) -> Any:
    states = getattr(scaler, "_per_optimizer_states", None)
    if not scaler.is_enabled() or states is None or id(optimizer) not in states:
        return None
    return states[id(optimizer)]["stage"]
