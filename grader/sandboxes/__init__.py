"""Sandbox backends behind one interface; `auto` picks docker when an engine and the image are there."""

from __future__ import annotations

import os

from grader.sandboxes.base import Job, Sandbox
from grader.sandboxes.local import LocalSandbox

__all__ = ["Job", "Sandbox", "get_sandbox"]


def get_sandbox(name: str | None = None) -> Sandbox:
    """The backend named (or GRADER_SANDBOX's, default auto)."""
    name = (name or os.environ.get("GRADER_SANDBOX") or "auto").lower()
    if name == "local":
        return LocalSandbox()
    if name in ("docker", "auto"):
        try:
            from grader.sandboxes import docker as docker_backend
        except ImportError:
            docker_backend = None  # type: ignore[assignment]
        if docker_backend is not None:
            if name == "docker" or docker_backend.docker_available():
                return docker_backend.DockerSandbox()
        elif name == "docker":
            raise ValueError("the docker sandbox backend is not available")
        return LocalSandbox()
    raise ValueError(f"unknown sandbox {name!r}: choose local, docker or auto")
