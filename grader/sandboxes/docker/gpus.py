"""GPUs for docker jobs: which the host has, and a scheduler that never shares one GPU."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from typing import Any


class GpuScheduler:
    """Hands out GPU ids one job at a time; thread-safe, fair enough (first free id)."""

    def __init__(self, gpu_ids: list[str]):
        self.gpu_ids = list(gpu_ids)
        self._free = list(gpu_ids)
        self._cond = threading.Condition()

    def __len__(self) -> int:
        return len(self.gpu_ids)

    def acquire(self, timeout: float | None = None) -> str | None:
        """A free GPU id, waiting up to `timeout` seconds (0: do not wait); None if none came."""
        if not self.gpu_ids:
            return None
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._free:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining)
            return self._free.pop(0)

    def release(self, gpu_id: str) -> None:
        with self._cond:
            if gpu_id not in self.gpu_ids or gpu_id in self._free:
                raise ValueError(f"GPU {gpu_id!r} was not handed out")
            self._free.append(gpu_id)
            self._cond.notify()

    @property
    def free(self) -> list[str]:
        with self._cond:
            return list(self._free)


def has_nvidia_runtime(info: dict[str, Any]) -> bool:
    """Whether `docker info` lists the NVIDIA runtime (the Container Toolkit is installed)."""
    return "nvidia" in (info.get("Runtimes") or {})


def host_gpu_ids(info: dict[str, Any]) -> list[str]:
    """The GPUs jobs may use: GRADER_GPUS ("0,1", or "" for none) or what nvidia-smi lists."""
    if not has_nvidia_runtime(info):
        return []
    configured = os.environ.get("GRADER_GPUS")
    if configured is not None:
        return [part.strip() for part in configured.split(",") if part.strip()]
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    try:
        listing = subprocess.run(  # noqa: S603 -- a fixed command, no learner input
            [smi, "--query-gpu=index", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in listing.splitlines() if line.strip().isdigit()]


def device_request(gpu_id: str) -> Any:
    """One GPU, by id: `count=-1` would hand every GPU to every job."""
    from docker.types import DeviceRequest

    return DeviceRequest(device_ids=[gpu_id], capabilities=[["gpu"]])
